#include "p2p/tcp/tcp_transport.h"

#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/debug.h"
#include "core/progress.h"

namespace ferry::p2p::tcp {
namespace {

constexpr size_t kHeaderBytes = sizeof(PacketHeader);
// Small packets are read in batches into a per-connection buffer; the rest
// of a large payload is read straight into its destination.
constexpr size_t kReadBufferBytes = 64 * 1024;
constexpr size_t kDirectReadBytes = 16 * 1024;
constexpr int kMaxIov = 64;

enum class Kind : uint32_t { kListener = 1, kOutgoing = 2, kIncoming = 3 };
uint64_t key(Kind k, size_t index) { return (static_cast<uint64_t>(k) << 32) | index; }

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

bool handshake_valid(const Handshake& h, const uint8_t (&secret)[kSecretBytes], int world_size) {
  uint8_t diff = 0;
  for (size_t i = 0; i < kSecretBytes; ++i) diff |= static_cast<uint8_t>(h.secret[i] ^ secret[i]);
  return h.magic == kHandshakeMagic && h.version == kHandshakeVersion && h.rank >= 0 && h.rank < world_size &&
         diff == 0;
}

struct TcpTransport::Outgoing {
  enum class State : uint8_t { kIdle, kConnecting, kOpen, kFailed };
  State state = State::kIdle;
  int fd = -1;
  bool writing = false;  // EPOLLOUT is registered
  Handshake handshake{};
  size_t handshake_sent = sizeof(Handshake);
  SendItem* head = nullptr;
  SendItem* tail = nullptr;
  long long deadline_us = 0;
  std::string where;  // the peer's address, for messages
};

struct TcpTransport::Incoming {
  int fd = -1;
  int peer = -1;
  bool authenticated = false;
  std::unique_ptr<char[]> buffer;
  size_t begin = 0;  // unread bytes are [begin, end)
  size_t end = 0;
  bool in_payload = false;
  PacketHeader header{};
  Destination destination{};
  uint64_t payload_done = 0;
};

TcpTransport::TcpTransport(TcpOptions options, PacketHandler* handler)
    : options_(std::move(options)), handler_(handler) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  outgoing_.resize(static_cast<size_t>(options_.world_size));
}

TcpTransport::~TcpTransport() {
  for (Outgoing& out : outgoing_)
    if (out.fd >= 0) close(out.fd);
  for (auto& in : incoming_)
    if (in && in->fd >= 0) close(in->fd);
  if (listen_fd_ >= 0) close(listen_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

bool TcpTransport::listen(const std::string& interface_filter, std::string* card, std::string* error) {
  int port = 0;
  listen_fd_ = listen_any(&port, error);
  if (listen_fd_ < 0) return false;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = key(Kind::kListener, 0);
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

const char* TcpTransport::send(int peer, SendItem* item) {
  Outgoing& out = outgoing_[static_cast<size_t>(peer)];
  if (out.state == Outgoing::State::kFailed) return "the connection to this rank failed earlier";
  item->sent = 0;
  item->next = nullptr;
  bool was_empty = out.head == nullptr;
  if (out.tail) out.tail->next = item;
  else out.head = item;
  out.tail = item;
  ++queued_items_;
  if (out.state == Outgoing::State::kIdle) start_connect(peer, out);
  else if (out.state == Outgoing::State::kOpen && was_empty) flush(peer, out);
  return nullptr;
}

void TcpTransport::start_connect(int peer, Outgoing& out) {
  std::string card;
  std::string hostname;
  std::vector<Endpoint> endpoints;
  if (!options_.card_of(peer, &card) || !parse_card(card, &hostname, &endpoints)) {
    out.state = Outgoing::State::kFailed;
    options_.fatal("no usable TCP contact card for rank " + std::to_string(peer) + " (\"" + card + "\")");
    return;
  }
  auto endpoint = choose_endpoint(endpoints, hostname == options_.my_hostname, options_.family);
  if (!endpoint) {
    out.state = Outgoing::State::kFailed;
    options_.fatal("rank " + std::to_string(peer) + " publishes no address of the family FERRY_TCP_FAMILY asks for");
    return;
  }
  out.where = endpoint->text();
  out.fd = socket(endpoint->address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (out.fd < 0) {
    out.state = Outgoing::State::kFailed;
    options_.fatal(std::string("socket: ") + std::strerror(errno));
    return;
  }
  set_nodelay(out.fd);
  out.handshake = Handshake{kHandshakeMagic, kHandshakeVersion, options_.my_rank, 0, {}};
  std::memcpy(out.handshake.secret, options_.secret, kSecretBytes);
  out.handshake_sent = 0;

  epoll_event ev{};
  ev.events = EPOLLOUT;
  ev.data.u64 = key(Kind::kOutgoing, static_cast<size_t>(peer));
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, out.fd, &ev);
  out.writing = true;
  FERRY_DEBUG(kTcp, "connecting to rank %d at %s", peer, out.where.c_str());
  if (connect(out.fd, reinterpret_cast<const sockaddr*>(&endpoint->address), endpoint->length) == 0) {
    out.state = Outgoing::State::kOpen;
    FERRY_DEBUG(kTcp, "peer %d via tcp %s", peer, out.where.c_str());
    flush(peer, out);
    return;
  }
  if (errno != EINPROGRESS) {
    out.state = Outgoing::State::kFailed;
    options_.fatal("cannot connect to rank " + std::to_string(peer) + " at " + out.where + ": " +
                   std::strerror(errno));
    return;
  }
  out.state = Outgoing::State::kConnecting;
  out.deadline_us = progress::now_us() + 1000LL * options_.connect_timeout_ms;
  ++connecting_;
}

void TcpTransport::finish_connect(int peer, Outgoing& out) {
  int error = 0;
  socklen_t len = sizeof error;
  getsockopt(out.fd, SOL_SOCKET, SO_ERROR, &error, &len);
  if (error == EINPROGRESS || error == EALREADY) return;
  --connecting_;
  if (error != 0) {
    out.state = Outgoing::State::kFailed;
    options_.fatal("cannot connect to rank " + std::to_string(peer) + " at " + out.where + ": " +
                   std::strerror(error));
    return;
  }
  out.state = Outgoing::State::kOpen;
  FERRY_DEBUG(kTcp, "peer %d via tcp %s", peer, out.where.c_str());
  flush(peer, out);
}

void TcpTransport::check_connect_timeouts() {
  long long now = progress::now_us();
  for (size_t peer = 0; peer < outgoing_.size(); ++peer) {
    Outgoing& out = outgoing_[peer];
    if (out.state == Outgoing::State::kConnecting && now > out.deadline_us) {
      --connecting_;
      out.state = Outgoing::State::kFailed;
      options_.fatal("cannot connect to rank " + std::to_string(peer) + " at " + out.where + ": no answer within " +
                     std::to_string(options_.connect_timeout_ms / 1000) + " s (FERRY_CONNECT_TIMEOUT)");
    }
  }
}

void TcpTransport::want_write(int peer, Outgoing& out, bool on) {
  if (out.writing == on) return;
  epoll_event ev{};
  ev.events = on ? static_cast<uint32_t>(EPOLLOUT) : 0u;
  ev.data.u64 = key(Kind::kOutgoing, static_cast<size_t>(peer));
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, out.fd, &ev);
  out.writing = on;
}

void TcpTransport::flush(int peer, Outgoing& out) {
  while (out.head != nullptr || out.handshake_sent < sizeof(Handshake)) {
    iovec iov[kMaxIov];
    int count = 0;
    if (out.handshake_sent < sizeof(Handshake))
      iov[count++] = {reinterpret_cast<char*>(&out.handshake) + out.handshake_sent,
                      sizeof(Handshake) - out.handshake_sent};
    for (SendItem* item = out.head; item != nullptr && count < kMaxIov - 1; item = item->next) {
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
    ssize_t n = sendmsg(out.fd, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        want_write(peer, out, true);
        return;
      }
      out.state = Outgoing::State::kFailed;
      options_.fatal("connection to rank " + std::to_string(peer) + " lost: " + std::strerror(errno));
      return;
    }
    size_t left = static_cast<size_t>(n);
    if (out.handshake_sent < sizeof(Handshake)) {
      size_t take = std::min(left, sizeof(Handshake) - out.handshake_sent);
      out.handshake_sent += take;
      left -= take;
    }
    while (out.head != nullptr) {
      SendItem* item = out.head;
      uint64_t rest = kHeaderBytes + item->header.payload_bytes - item->sent;
      if (left < rest) {
        item->sent += left;
        break;
      }
      left -= rest;
      out.head = item->next;
      if (out.head == nullptr) out.tail = nullptr;
      --queued_items_;
      if (item->on_sent) item->on_sent(item);
    }
  }
  want_write(peer, out, false);
}

void TcpTransport::accept_all() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    auto in = std::make_unique<Incoming>();
    in->fd = fd;
    in->buffer = std::make_unique<char[]>(kReadBufferBytes);
    size_t slot = 0;
    while (slot < incoming_.size() && incoming_[slot]) ++slot;
    if (slot == incoming_.size()) incoming_.emplace_back();
    incoming_[slot] = std::move(in);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = key(Kind::kIncoming, slot);
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  }
}

void TcpTransport::close_incoming(size_t slot) {
  Incoming& in = *incoming_[slot];
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, in.fd, nullptr);
  close(in.fd);
  incoming_[slot].reset();
}

// Delivers every complete header and payload bytes in the buffer.
void TcpTransport::parse(Incoming& in) {
  for (;;) {
    size_t avail = in.end - in.begin;
    if (!in.in_payload) {
      if (avail < kHeaderBytes) return;
      std::memcpy(&in.header, in.buffer.get() + in.begin, kHeaderBytes);
      in.begin += kHeaderBytes;
      in.destination = handler_->on_header(in.peer, in.header);
      in.payload_done = 0;
      if (in.header.payload_bytes == 0) {
        handler_->on_payload(in.peer, in.header, in.destination);
        continue;
      }
      in.in_payload = true;
      continue;
    }
    if (avail == 0) return;
    uint64_t take = std::min<uint64_t>(avail, in.header.payload_bytes - in.payload_done);
    if (in.payload_done < in.destination.capacity) {
      uint64_t copy = std::min<uint64_t>(take, in.destination.capacity - in.payload_done);
      std::memcpy(static_cast<char*>(in.destination.data) + in.payload_done, in.buffer.get() + in.begin, copy);
    }
    in.begin += take;
    in.payload_done += take;
    if (in.payload_done == in.header.payload_bytes) {
      in.in_payload = false;
      handler_->on_payload(in.peer, in.header, in.destination);
    }
  }
}

bool TcpTransport::read_from(Incoming& in) {
  for (int round = 0; round < 64; ++round) {
    // The rest of a large payload goes straight to its destination.
    if (in.in_payload && in.begin == in.end) {
      uint64_t remaining = in.header.payload_bytes - in.payload_done;
      if (remaining >= kDirectReadBytes) {
        bool fits = in.payload_done < in.destination.capacity;
        char* target = fits ? static_cast<char*>(in.destination.data) + in.payload_done : in.buffer.get();
        uint64_t want = fits ? std::min<uint64_t>(remaining, in.destination.capacity - in.payload_done)
                             : std::min<uint64_t>(remaining, kReadBufferBytes);
        ssize_t n = recv(in.fd, target, want, 0);
        if (n == 0) return false;
        if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        in.payload_done += static_cast<uint64_t>(n);
        if (in.payload_done == in.header.payload_bytes) {
          in.in_payload = false;
          handler_->on_payload(in.peer, in.header, in.destination);
        }
        if (static_cast<uint64_t>(n) < want) return true;
        continue;
      }
    }
    if (in.begin == in.end) {
      in.begin = in.end = 0;
    } else if (in.begin > 0 && kReadBufferBytes - in.end < kHeaderBytes * 4) {
      std::memmove(in.buffer.get(), in.buffer.get() + in.begin, in.end - in.begin);
      in.end -= in.begin;
      in.begin = 0;
    }
    size_t space = kReadBufferBytes - in.end;
    ssize_t n = recv(in.fd, in.buffer.get() + in.end, space, 0);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    in.end += static_cast<size_t>(n);
    if (!in.authenticated) {
      if (in.end - in.begin < sizeof(Handshake)) continue;
      Handshake h;
      std::memcpy(&h, in.buffer.get() + in.begin, sizeof h);
      if (!handshake_valid(h, options_.secret, options_.world_size)) {
        ++refused_;
        FERRY_DEBUG(kTcp, "refused a connection: no valid handshake with this job's secret");
        return false;
      }
      in.begin += sizeof h;
      in.peer = h.rank;
      in.authenticated = true;
    }
    parse(in);
    if (static_cast<size_t>(n) < space) return true;  // drained for now
  }
  return true;
}

int TcpTransport::progress() {
  epoll_event events[32];
  int n = epoll_wait(epoll_fd_, events, 32, 0);
  int handled = 0;
  for (int i = 0; i < n; ++i) {
    auto kind = static_cast<Kind>(events[i].data.u64 >> 32);
    size_t index = events[i].data.u64 & 0xffffffffu;
    ++handled;
    switch (kind) {
      case Kind::kListener:
        accept_all();
        break;
      case Kind::kOutgoing: {
        Outgoing& out = outgoing_[index];
        if (out.state == Outgoing::State::kConnecting) {
          finish_connect(static_cast<int>(index), out);
        } else if (out.state == Outgoing::State::kOpen) {
          if (events[i].events & (EPOLLERR | EPOLLHUP)) {
            out.state = Outgoing::State::kFailed;
            epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, out.fd, nullptr);
            if (out.head != nullptr)
              options_.fatal("connection to rank " + std::to_string(index) + " lost");
          } else {
            flush(static_cast<int>(index), out);
          }
        }
        break;
      }
      case Kind::kIncoming: {
        Incoming* in = index < incoming_.size() ? incoming_[index].get() : nullptr;
        if (in == nullptr) break;
        if (!read_from(*in)) {
          if (in->in_payload)
            FERRY_DEBUG(kTcp, "connection from rank %d closed in the middle of a message", in->peer);
          close_incoming(index);
        }
        break;
      }
    }
  }
  if (connecting_ > 0) check_connect_timeouts();
  return handled;
}

}  // namespace ferry::p2p::tcp
