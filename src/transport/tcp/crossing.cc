// Crossed connections: two ranks that dial each other at once end on one.
//
// Each rank sends its first packet to a peer as soon as it has one, on a
// connection it dials, without waiting for anything back (the first
// message costs the connect and nothing more). When both ranks do that at
// once, as an allgather or MPI_Win_allocate's exchange makes them, each
// connection would carry packets one way and bare acknowledgements the
// other for the rest of the job: 4.5-5 us more per round trip on loopback
// (docs/performance.md, "TCP RMA: where the round trip goes"). So the race is
// settled, and settled the same way on both sides without a message about
// it: the connection dialed by the lower process (job tag, then rank) wins.
//
//   The lower rank L changes nothing: it keeps sending on its connection,
//   and reads the higher rank's connection for what comes there.
//   The higher rank H, once it has L's handshake on the connection L
//   dialed, moves its packets there:
//     - if nothing of H's went out yet on its own connection (it is still
//       connecting), H closes it and uses L's from then on;
//     - otherwise H finishes the packet in progress on its own connection
//       (a packet never straddles two streams), ends it with a FIN
//       (shutdown(SHUT_WR): the end of stream is the marker), and sends on
//       L's connection a Reply that says "crossed", then its packets.
//   L reads the Reply before anything else on its connection; "crossed"
//   holds that connection's packets until H's connection has reached its
//   end, so every packet H sent there is delivered first (MPI-3.1 §3.5:
//   messages are non-overtaking). Then L closes H's connection, and H closes
//   it when it sees that.
//
// Open MPI's TCP BTL settles the race in its connection handshake instead,
// which makes every first message wait for an answer; here only the crossed
// pair pays anything (one FIN, and L's wait for it), and the packets queued
// during the race are never resent. The check on the fast path is one
// branch in flush() (a move pending) and one in receive() (not yet in the
// packet phase); no allocation, no system call.
//
// A connection closed here is not a dead peer: the one closed belongs to a
// peer that is alive and has moved, so its end neither fails the peer nor
// reports anything (close_connection() fails a peer only when its link
// ends).
#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>
#include <utility>

#include "common/debug.h"
#include "transport/tcp/peer_state.h"

namespace ferry::transport::tcp {
namespace {

bool would_block() { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

}  // namespace

void TcpTransport::on_peer_connected(Peer& p, Connection& accepted) {
  if (p.state == Peer::State::kIdle) {
    p.state = Peer::State::kOpen;
    p.link = &accepted;
    p.begin_with(Reply{kReplyMagic, 0});
    p.where = "the connection it opened";
    FERRY_DEBUG(kTcp, "peer %d via tcp, on the connection it opened", accepted.peer);
    return;
  }
  // Failed; or a second connection from a peer we already share one with
  // (it does not dial twice).
  if (p.link == nullptr || !p.link->dialed || p.next_link != nullptr) return;
  // We dialed too. Ours wins if we are the lower process: the peer moves.
  bool peer_lower = std::pair(accepted.hello.job, accepted.hello.rank) < std::pair(options_.my_job, options_.my_rank);
  if (!peer_lower) return;
  FERRY_DEBUG(kTcp, "peer %d dialed too: moving to its connection", accepted.peer);
  if (p.preamble_sent == 0) {
    // Nothing of ours went out: the peer will see our connection end
    // before any handshake, and ignore it.
    Connection& ours = *p.link;
    if (p.state == Peer::State::kConnecting) --connecting_;
    p.link = nullptr;
    close_connection(ours);
    p.state = Peer::State::kOpen;
    p.link = &accepted;
    p.begin_with(Reply{kReplyMagic, 0});
    if (p.head != nullptr) flush(p);
    return;
  }
  p.next_link = &accepted;
  move_link_if_between_packets(p);
  if (p.next_link == nullptr && p.head != nullptr) flush(p);
}

void TcpTransport::move_link_if_between_packets(Peer& p) {
  if (p.preamble_pending() || (p.head != nullptr && p.head->sent > 0)) return;
  Connection& ours = *p.link;
  // The end of our stream tells the peer that every packet we sent on it
  // has arrived; we still read it, to see the peer close it.
  shutdown(ours.fd, SHUT_WR);
  set_events(ours, false);
  p.link = p.next_link;
  p.next_link = nullptr;
  p.begin_with(Reply{kReplyMagic, 1});
}

bool TcpTransport::read_reply(Connection& c) {
  if (c.phase == Connection::Phase::kHeld) return true;
  ssize_t n = recv(c.fd, reinterpret_cast<char*>(&c.reply) + c.reply_received, sizeof(Reply) - c.reply_received, 0);
  if (n == 0) return false;
  if (n < 0) return would_block();
  c.reply_received += static_cast<size_t>(n);
  if (c.reply_received < sizeof(Reply)) return true;
  Peer& p = peers_[static_cast<size_t>(c.peer)];
  if (c.reply.magic != kReplyMagic) {
    bool link = p.link == &c;
    if (link) fail_peer(p);
    options_.fatal("connection to rank " + std::to_string(c.peer) + ": its first bytes are not Ferry's reply");
    return false;
  }
  if (c.reply.crossed == 0 || p.dial_drained) {
    c.phase = Connection::Phase::kPackets;
    return true;
  }
  c.phase = Connection::Phase::kHeld;
  if (c.watched) watch(c, c.writing);  // without EPOLLIN while held
  return true;
}

void TcpTransport::peer_dial_drained(Peer& p) {
  p.dial_drained = true;
  Connection* c = p.link;
  if (c == nullptr || c->phase != Connection::Phase::kHeld) return;
  c->phase = Connection::Phase::kPackets;
  if (c->watched) watch(*c, c->writing);  // level-triggered: reports at once what waited
}

}  // namespace ferry::transport::tcp
