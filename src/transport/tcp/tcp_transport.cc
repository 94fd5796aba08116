#include "transport/tcp/tcp_transport.h"

#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/debug.h"
#include "progress/progress.h"
#include "transport/tcp/inbound.h"
#include "transport/tcp/peer_state.h"
#include "transport/traffic.h"

namespace ferry::transport::tcp {
namespace {

constexpr size_t kHeaderBytes = sizeof(PacketHeader);
constexpr int kMaxIov = 64;
constexpr int kMaxEvents = 32;
// With a single connection, progress() reads it directly and asks epoll
// (for new connections, and anything else) only once per this many passes.
constexpr unsigned kPassesPerEpoll = 16;
// Epoll keys: the listener, or a connection's slot and generation (so that
// an event still queued for a connection closed earlier in the same batch
// cannot reach another that took over its slot).
constexpr uint64_t kListenerKey = UINT64_MAX;
uint64_t key_of(size_t slot, uint32_t generation) { return (static_cast<uint64_t>(generation) << 32) | slot; }

bool would_block() { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

// Every connection may carry packets both ways, and a packet must leave as
// soon as it is queued: Nagle's algorithm would hold a small one back until
// the previous one is acknowledged.
void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Between two ranks of one host there is no link to share or probe, and the
// system's congestion control may cost what it cannot gain there: BBR (the
// default on some systems) paces every connection with a timer, which held
// 4 MiB streaming on loopback to 5.8 GB/s where Reno moved 7.3. Reno is
// always built in and allowed to unprivileged users. Connections to other
// hosts keep the system's choice.
void tune_for_loopback(int fd) {
  if (!same_host_connection(fd)) return;
  static const char kReno[] = "reno";
  setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, kReno, sizeof kReno - 1);
}

}  // namespace

bool handshake_valid(const Handshake& h, const uint8_t (&secret)[kSecretBytes], int world_size) {
  uint8_t diff = 0;
  for (size_t i = 0; i < kSecretBytes; ++i) diff |= static_cast<uint8_t>(h.secret[i] ^ secret[i]);
  return h.magic == kHandshakeMagic && h.version == kHandshakeVersion && h.rank >= 0 && h.rank < world_size &&
         diff == 0;
}

TcpTransport::TcpTransport(TcpOptions options, PacketHandler* handler)
    : options_(std::move(options)), handler_(handler) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  peers_.resize(static_cast<size_t>(options_.world_size));
  for (int i = 0; i < options_.world_size; ++i) peers_[static_cast<size_t>(i)].reachable = i != options_.my_rank;
}

TcpTransport::~TcpTransport() {
  for (auto& c : connections_)
    if (c) close(c->fd);
  if (listen_fd_ >= 0) close(listen_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

std::optional<Reach> TcpTransport::reach(int peer) const {
  if (peer < 0 || static_cast<size_t>(peer) >= peers_.size() || !peers_[static_cast<size_t>(peer)].reachable)
    return std::nullopt;
  return Reach{eager_limit_, SIZE_MAX};
}

// Peers of other jobs are always reached over TCP: their shared-memory
// segments were never opened here, and a port's partner may be on any host.
std::optional<Reach> TcpTransport::adopt(int peer) {
  if (peer < options_.world_size) return reach(peer);
  if (static_cast<size_t>(peer) >= peers_.size()) peers_.resize(static_cast<size_t>(peer) + 1);
  peers_[static_cast<size_t>(peer)].reachable = true;
  return reach(peer);
}

bool TcpTransport::listen(const std::string& interface_filter, std::string* card, std::string* error) {
  int port = 0;
  listen_fd_ = listen_any(&port, error);
  if (listen_fd_ < 0) return false;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenerKey;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  std::vector<Endpoint> endpoints = local_endpoints(port, interface_filter);
  if (endpoints.empty()) {
    *error = "no usable network address" +
             (interface_filter.empty() ? std::string() : " matches FERRY_TCP_INTERFACE=" + interface_filter);
    return false;
  }
  *card = make_card(options_.my_hostname, endpoints);
  FERRY_DEBUG(kTcp, "listening: %s", card->c_str());
  return true;
}

void TcpTransport::set_secret(const uint8_t (&secret)[kSecretBytes]) {
  std::memcpy(options_.secret, secret, kSecretBytes);
}

bool TcpTransport::has_pending_sends() const { return queued_items_ > 0; }

int TcpTransport::open_connections() const {
  int n = 0;
  for (const auto& c : connections_) n += c ? 1 : 0;
  return n;
}

bool TcpTransport::sole_connection_watched() const { return sole_ != nullptr && sole_->watched; }

TcpTransport::Connection& TcpTransport::add_connection(int fd, int peer, bool dialed) {
  size_t slot = 0;
  while (slot < connections_.size() && connections_[slot]) ++slot;
  if (slot == connections_.size()) connections_.emplace_back();
  connections_[slot] = std::make_unique<Connection>();
  Connection& c = *connections_[slot];
  c.fd = fd;
  c.slot = slot;
  c.generation = ++generations_;
  c.peer = peer;
  c.dialed = dialed;
  c.phase = dialed ? Connection::Phase::kReply : Connection::Phase::kHandshake;
  watch(c, /*want_write=*/dialed);  // a connect in progress reports its end as writability
  find_sole_connection();
  return c;
}

void TcpTransport::find_sole_connection() {
  sole_ = nullptr;
  int open = 0;
  for (auto& c : connections_) {
    if (!c) continue;
    sole_ = c.get();
    ++open;
  }
  if (open == 1) return;
  sole_ = nullptr;
  // Only a sole connection may be outside the epoll set.
  for (auto& c : connections_)
    if (c && !c->watched) watch(*c, c->writing);
}

void TcpTransport::close_connection(Connection& c) {
  if (c.peer >= 0) {
    Peer& p = peers_[static_cast<size_t>(c.peer)];
    if (p.link == &c) {
      bool pending = p.head != nullptr;
      fail_peer(p);
      if (pending) options_.fatal("connection to rank " + std::to_string(c.peer) + " lost");
    } else if (p.next_link == &c) {
      p.next_link = nullptr;  // the peer went away before our packets moved there
    } else if (!c.dialed && c.phase == Connection::Phase::kPackets) {
      peer_dial_drained(p);
    }
  }
  if (c.watched) unwatch(c);
  close(c.fd);
  connections_[c.slot].reset();
  find_sole_connection();
}

void TcpTransport::watch(Connection& c, bool want_write) {
  epoll_event ev{};
  // A held connection's packets wait (crossing.cc): reporting them would
  // only spin the engine.
  ev.events = (c.phase == Connection::Phase::kHeld ? 0u : EPOLLIN) | (want_write ? EPOLLOUT : 0u);
  ev.data.u64 = key_of(c.slot, c.generation);
  epoll_ctl(epoll_fd_, c.watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c.fd, &ev);
  c.watched = true;
  c.writing = want_write;
}

void TcpTransport::unwatch(Connection& c) {
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
  c.watched = false;
}

void TcpTransport::set_events(Connection& c, bool want_write) {
  if (c.writing == want_write) return;
  // An unwatched connection is read directly (progress()) and needs epoll
  // only to wait for writability.
  if (!c.watched && !want_write) return;
  watch(c, want_write);
}

bool TcpTransport::arm_wakeup() {
  // The engine is about to sleep on the epoll set: the sole connection must
  // be in it. Level-triggered, it fires at once if bytes are already there.
  if (sole_ != nullptr && !sole_->watched) watch(*sole_, sole_->writing);
  return true;
}

void TcpTransport::fail_peer(Peer& p) {
  if (p.state == Peer::State::kConnecting) --connecting_;
  p.state = Peer::State::kFailed;
  if (p.link != nullptr) set_events(*p.link, false);
  p.link = nullptr;
  p.next_link = nullptr;
  // Queued packets will never go; the job is ending (options_.fatal), and
  // MPI_Finalize must not wait for them.
  for (SendItem* item = p.head; item != nullptr; item = item->next) --queued_items_;
  p.head = p.tail = nullptr;
}

const char* TcpTransport::send(int peer, SendItem* item) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.state == Peer::State::kFailed) return "the connection to this rank failed or was closed earlier";
  traffic::sent(traffic::kTcp, item->header);
  item->sent = 0;
  item->next = nullptr;
  bool was_empty = p.head == nullptr;
  if (p.tail) p.tail->next = item;
  else p.head = item;
  p.tail = item;
  ++queued_items_;
  if (p.state == Peer::State::kIdle) start_connect(peer, p);
  else if (p.state == Peer::State::kOpen && was_empty) flush(p);
  return nullptr;
}

void TcpTransport::start_connect(int peer, Peer& p) {
  auto give_up = [&](const std::string& message) {
    Connection* c = p.link;
    fail_peer(p);
    if (c != nullptr) close_connection(*c);
    options_.fatal(message);
  };
  std::string card;
  std::string hostname;
  std::vector<Endpoint> endpoints;
  if (!options_.card_of(peer, &card) || !parse_card(card, &hostname, &endpoints))
    return give_up("no usable TCP contact card for rank " + std::to_string(peer) + " (\"" + card + "\")");
  auto endpoint = choose_endpoint(endpoints, hostname == options_.my_hostname, options_.family);
  if (!endpoint)
    return give_up("rank " + std::to_string(peer) + " publishes no address of the family FERRY_TCP_FAMILY asks for");
  p.where = endpoint->text();
  int fd = socket(endpoint->address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return give_up(std::string("socket: ") + std::strerror(errno));
  set_nodelay(fd);
  Handshake hello{kHandshakeMagic, kHandshakeVersion, options_.my_rank, options_.my_job, {}};
  std::memcpy(hello.secret, options_.secret, kSecretBytes);
  p.begin_with(hello);
  p.link = &add_connection(fd, peer, /*dialed=*/true);
  FERRY_DEBUG(kTcp, "connecting to rank %d at %s", peer, p.where.c_str());
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&endpoint->address), endpoint->length) == 0) {
    p.state = Peer::State::kOpen;
    tune_for_loopback(fd);
    FERRY_DEBUG(kTcp, "peer %d via tcp %s", peer, p.where.c_str());
    flush(p);
    return;
  }
  if (errno != EINPROGRESS)
    return give_up("cannot connect to rank " + std::to_string(peer) + " at " + p.where + ": " + std::strerror(errno));
  p.state = Peer::State::kConnecting;
  p.deadline_us = progress::now_us() + 1000LL * options_.connect_timeout_ms;
  ++connecting_;
}

void TcpTransport::finish_connect(Peer& p) {
  Connection& c = *p.link;
  int error = 0;
  socklen_t len = sizeof error;
  getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &len);
  if (error == EINPROGRESS || error == EALREADY) return;
  if (error != 0) {
    int peer = c.peer;
    fail_peer(p);
    close_connection(c);
    options_.fatal("cannot connect to rank " + std::to_string(peer) + " at " + p.where + ": " + std::strerror(error));
    return;
  }
  --connecting_;
  p.state = Peer::State::kOpen;
  tune_for_loopback(c.fd);
  FERRY_DEBUG(kTcp, "peer %d via tcp %s", c.peer, p.where.c_str());
  flush(p);
}

void TcpTransport::check_connect_timeouts() {
  long long now = progress::now_us();
  for (size_t peer = 0; peer < peers_.size(); ++peer) {
    Peer& p = peers_[peer];
    if (p.state != Peer::State::kConnecting || now <= p.deadline_us) continue;
    Connection& c = *p.link;
    fail_peer(p);
    close_connection(c);
    options_.fatal("cannot connect to rank " + std::to_string(peer) + " at " + p.where + ": no answer within " +
                   std::to_string(options_.connect_timeout_ms / 1000) + " s (FERRY_CONNECT_TIMEOUT)");
  }
}

// Writes the queue with as few system calls as the socket allows: headers
// and payloads of many packets go out in one sendmsg.
void TcpTransport::flush(Peer& p) {
  while (p.head != nullptr || p.preamble_pending()) {
    Connection& c = *p.link;
    iovec iov[kMaxIov];
    int count = 0;
    if (p.preamble_pending()) iov[count++] = {p.preamble + p.preamble_sent, p.preamble_bytes - p.preamble_sent};
    for (SendItem* item = p.head; item != nullptr && count < kMaxIov - 1; item = item->next) {
      if (item->sent < kHeaderBytes) {
        iov[count++] = {reinterpret_cast<char*>(&item->header) + item->sent, kHeaderBytes - item->sent};
        if (item->header.payload_bytes > 0)
          iov[count++] = {const_cast<void*>(item->payload), item->header.payload_bytes};
      } else {
        uint64_t done = item->sent - kHeaderBytes;
        iov[count++] = {static_cast<char*>(const_cast<void*>(item->payload)) + done,
                        item->header.payload_bytes - done};
      }
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(count);
    ssize_t n = sendmsg(c.fd, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        set_events(c, true);
        return;
      }
      // The connection is closed when its receive side sees the error:
      // this may run inside a packet handler reading from it.
      int peer = c.peer;
      int error = errno;
      fail_peer(p);
      options_.fatal("connection to rank " + std::to_string(peer) + " lost: " + std::strerror(error));
      return;
    }
    size_t left = static_cast<size_t>(n);
    if (p.preamble_pending()) {
      size_t take = std::min<size_t>(left, p.preamble_bytes - p.preamble_sent);
      p.preamble_sent += static_cast<uint32_t>(take);
      left -= take;
    }
    while (p.head != nullptr) {
      SendItem* item = p.head;
      uint64_t rest = kHeaderBytes + item->header.payload_bytes - item->sent;
      if (left < rest) {
        item->sent += left;
        break;
      }
      left -= rest;
      p.head = item->next;
      if (p.head == nullptr) p.tail = nullptr;
      --queued_items_;
      if (item->on_sent) item->on_sent(item);
    }
    if (p.next_link != nullptr) [[unlikely]] move_link_if_between_packets(p);
  }
  // An on_sent callback may have failed the peer meanwhile.
  if (p.link != nullptr) set_events(*p.link, false);
}

void TcpTransport::accept_all() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    set_nodelay(fd);  // it may become the link to the rank that opened it
    tune_for_loopback(fd);
    add_connection(fd, -1, /*dialed=*/false);
  }
}

bool TcpTransport::read_handshake(Connection& c) {
  ssize_t n = recv(c.fd, reinterpret_cast<char*>(&c.hello) + c.hello_received, sizeof(Handshake) - c.hello_received, 0);
  if (n == 0) return false;
  if (n < 0) return would_block();
  c.hello_received += static_cast<size_t>(n);
  if (c.hello_received < sizeof(Handshake)) return true;
  // A process of this job, or one of another job that the runtime adopted.
  bool ours = c.hello.job == options_.my_job;
  int peer = !handshake_valid(c.hello, options_.secret, ours ? options_.world_size : INT32_MAX) ? -1
             : ours                                                                           ? c.hello.rank
             : options_.index_of ? options_.index_of(c.hello.job, c.hello.rank)
                                 : -1;
  if (peer < 0) {
    ++refused_;
    FERRY_DEBUG(kTcp, "refused a connection: no valid handshake with this job's secret from a known process");
    return false;
  }
  c.peer = peer;
  c.phase = Connection::Phase::kPackets;
  on_peer_connected(peers_[static_cast<size_t>(peer)], c);
  return true;
}

void TcpTransport::handle(Connection& c, uint32_t events) {
  Peer* linked = c.peer >= 0 && peers_[static_cast<size_t>(c.peer)].link == &c ? &peers_[static_cast<size_t>(c.peer)]
                                                                                : nullptr;
  if (linked != nullptr && linked->state == Peer::State::kConnecting) {
    finish_connect(*linked);  // the only event a connecting socket reports
    return;
  }
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
    if (c.phase == Connection::Phase::kHandshake && !read_handshake(c)) {
      close_connection(c);
      return;
    }
    if (c.phase != Connection::Phase::kHandshake && receive(c) == Inbound::Status::kClosed) return;
  }
  // A packet handler may have sent on this connection meanwhile, or failed it.
  if ((events & EPOLLOUT) && linked != nullptr && linked->link == &c) flush(*linked);
}

Inbound::Status TcpTransport::receive(Connection& c) {
  if (c.phase != Connection::Phase::kPackets) [[unlikely]] {
    if (!read_reply(c)) {
      close_connection(c);
      return Inbound::Status::kClosed;
    }
    if (c.phase != Connection::Phase::kPackets) return Inbound::Status::kEmpty;
  }
  Inbound::Status status = c.inbound.receive(c.fd, c.peer, handler_);
  if (status == Inbound::Status::kClosed) {
    if (c.inbound.in_payload())
      FERRY_DEBUG(kTcp, "connection from rank %d closed in the middle of a message", c.peer);
    close_connection(c);
  }
  return status;
}

// Two ranks that talk only to each other (or a rank that has one peer so
// far) poll their one connection with a read, which finds a packet and takes
// it in one system call, where epoll_wait would report it and a read would
// follow. The connection also leaves the epoll set meanwhile: every segment
// that arrives on a watched socket costs the kernel epoll callbacks (two
// levels: the engine sleeps on this set's fd), paid on the sender's core on
// loopback. Together about 0.5 us of a 4.5 us loopback half round trip.
// Epoll still runs every few passes, for new connections, and at every pass
// while the connection waits to be writable or connected; before the engine
// sleeps, arm_wakeup() puts the connection back in the set. While a thread
// sleeps in the kernel on the set (progress::someone_waits: a program thread
// under MPI_THREAD_MULTIPLE, or the program while RMA's doorbell thread
// polls for it) it stays there: taking it out would leave that sleeper deaf
// to it. Whether the engine lock is on is not the question: with the
// doorbell's lock on and nobody asleep, keeping it watched cost 0.7 us of a
// 8.5 us round trip.
bool TcpTransport::reading_sole_directly() const {
  return sole_ != nullptr && sole_->phase != Connection::Phase::kHandshake && !sole_->writing;
}

int TcpTransport::progress() {
  if (reading_sole_directly()) {
    if (sole_->watched && !progress::someone_waits) unwatch(*sole_);
    if (++direct_passes_ < kPassesPerEpoll) return receive(*sole_) == Inbound::Status::kEmpty ? 0 : 1;
  }
  direct_passes_ = 0;
  epoll_event events[kMaxEvents];
  int n = epoll_wait(epoll_fd_, events, kMaxEvents, 0);
  for (int i = 0; i < n; ++i) {
    uint64_t key = events[i].data.u64;
    if (key == kListenerKey) {
      accept_all();
      continue;
    }
    size_t slot = key & 0xffffffffu;
    Connection* c = slot < connections_.size() ? connections_[slot].get() : nullptr;
    if (c != nullptr && c->generation == key >> 32) handle(*c, events[i].events);
  }
  if (connecting_ > 0) check_connect_timeouts();
  return n > 0 ? n : 0;
}

}  // namespace ferry::transport::tcp
