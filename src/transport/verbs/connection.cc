// Connections of the verbs transport: one RC queue pair per peer, made at
// the first send to it, so a job of N ranks makes only the connections its
// traffic needs and start-up makes none.
//
// The handshake runs over the UD queue pairs whose numbers are in the cards:
//   requester: create QP (INIT), send REQUEST{qpn, psn}        -> kRequested
//   responder: create QP or take the one it already has, move it to RTR and
//              RTS towards the request, send ACCEPT{qpn, psn}  -> kAccepted
//   requester: ACCEPT: RTR and RTS towards it                   -> kConnected
//   responder: the requester's first frame (or its ACCEPT)      -> kConnected
// The responder holds its sends until then, because a frame that reached a
// QP still in INIT would be dropped and cost retry timeouts. When both ranks
// request at once, each answers the other's request with the QP it already
// made, so both sides agree on one QP pair, and each ACCEPT connects. UD may
// lose datagrams: a requester repeats its REQUEST with backoff, a responder
// answers a repeated one again, until FERRY_CONNECT_TIMEOUT ends the job
// with the peer's rank in the message.
#include <sys/random.h>

#include <chrono>
#include <cstring>

#include "common/debug.h"
#include "transport/verbs/verbs_transport.h"

namespace ferry::transport::verbs {
namespace {

constexpr uint32_t kHelloMagic = 0x42495246;  // "FRIB"
constexpr uint8_t kRequest = 1;
constexpr uint8_t kAccept = 2;

struct Hello {
  uint32_t magic;
  uint8_t type;
  uint8_t unused[3];
  uint32_t job;  // transport::job_tag: datagrams of other jobs are ignored
  int32_t rank;
  uint32_t qpn;
  uint32_t psn;
};
static_assert(sizeof(Hello) <= kMaxDatagram);

long long now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint32_t random_psn() {
  uint32_t v = 0;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) != sizeof v) v = static_cast<uint32_t>(now_us());
  return v & 0xffffff;  // PSNs are 24 bits
}

}  // namespace

bool VerbsTransport::address_of(int peer, Peer& p, std::string* error) {
  if (p.have_card) return true;
  std::string text;
  if (!options_.card_of || !options_.card_of(peer, &text)) {
    *error = "rank " + std::to_string(peer) + " published no verbs card (is verbs in its FERRY_TRANSPORTS?)";
    return false;
  }
  if (!decode_card(text, &p.remote)) {
    *error = "rank " + std::to_string(peer) + "'s verbs card is malformed: " + text;
    return false;
  }
  if (p.remote.link != local_.card.link) {
    *error = std::string("rank ") + std::to_string(peer) + " is on " +
             (p.remote.link == LinkLayer::kEthernet ? "RoCE" : "InfiniBand") + ", this rank on " +
             (local_.card.link == LinkLayer::kEthernet ? "RoCE" : "InfiniBand");
    return false;
  }
  p.have_card = true;
  return true;
}

bool VerbsTransport::start_connect(int peer, Peer& p) {
  std::string error;
  if (!address_of(peer, p, &error) || (p.qp = device_->create_qp(&p.qpn, &error)) < 0) {
    fail_peer(peer, p, "verbs: cannot connect to rank " + std::to_string(peer) + ": " + error);
    return false;
  }
  peer_of_qpn_[p.qpn] = peer;
  p.psn = random_psn();
  p.state = Peer::State::kRequested;
  ++connecting_;
  p.tries = 0;
  p.deadline_us = now_us() + static_cast<long long>(options_.connect_timeout_ms) * 1000;
  send_hello(peer, p, kRequest);
  return true;
}

void VerbsTransport::send_hello(int peer, Peer& p, uint8_t type) {
  Hello h{kHelloMagic, type, {}, options_.my_job, options_.my_rank, p.qpn, p.psn};
  Address to;
  to.lid = p.remote.lid;
  to.global = p.remote.link == LinkLayer::kEthernet;
  to.gid = p.remote.gid;
  to.gid_index = static_cast<uint8_t>(local_.gid_index);
  to.service_level = options_.service_level;
  to.traffic_class = options_.traffic_class;
  std::string error;
  if (!device_->send_datagram(to, p.remote.datagram_qpn, &h, sizeof h, &error))
    fail_peer(peer, p, "verbs: connection request to rank " + std::to_string(peer) + " failed: " + error);
  // Backoff: 10 ms, 20, 40 ... at most 1 s between tries.
  p.next_try_us = now_us() + (10000LL << std::min(p.tries++, 7));
}

bool VerbsTransport::establish(int peer, Peer& p, uint32_t remote_qpn, uint32_t remote_psn, std::string* error) {
  QpTarget t;
  t.remote.lid = p.remote.lid;
  t.remote.global = p.remote.link == LinkLayer::kEthernet;
  t.remote.gid = p.remote.gid;
  t.remote.gid_index = static_cast<uint8_t>(local_.gid_index);
  t.remote.service_level = options_.service_level;
  t.remote.traffic_class = options_.traffic_class;
  t.remote_qpn = remote_qpn;
  t.remote_psn = remote_psn;
  t.local_psn = p.psn;
  t.mtu_bytes = std::min(local_.card.mtu_bytes, p.remote.mtu_bytes);
  t.rnr_retry = options_.rnr_retry;
  if (!device_->connect_qp(p.qp, t, error)) return false;
  // This peer's share of the shared receive queue: its credits and the
  // reserve for credit-only frames (verbs/credits.h).
  if (!post_receive_buffers(options_.credits + 1, error)) return false;
  p.remote_qpn = remote_qpn;
  FERRY_DEBUG(kVerbs, "verbs: peer %d via %s port %d, qp %u -> %u, %s %s, mtu %u", peer, device_->name().c_str(),
              options_.port, p.qpn, remote_qpn, p.remote.link == LinkLayer::kEthernet ? "gid" : "lid",
              p.remote.link == LinkLayer::kEthernet ? gid_text(p.remote.gid).c_str()
                                                      : std::to_string(p.remote.lid).c_str(),
              t.mtu_bytes);
  return true;
}

void VerbsTransport::on_datagram(const void* data, size_t bytes) {
  Hello h;
  if (bytes < sizeof h) return;
  std::memcpy(&h, data, sizeof h);
  if (h.magic != kHelloMagic || h.job != options_.my_job || h.rank < 0 || h.rank >= options_.world_size) return;
  int peer = h.rank;
  Peer& p = peers_[static_cast<size_t>(peer)];
  std::string error;
  if (h.type == kRequest) {
    if (p.state == Peer::State::kFailed) return;
    if (p.state == Peer::State::kAccepted || p.state == Peer::State::kConnected) {
      if (h.qpn == p.remote_qpn) send_hello(peer, p, kAccept);  // our accept was lost
      return;
    }
    if (p.state == Peer::State::kIdle) {
      if (!address_of(peer, p, &error) || (p.qp = device_->create_qp(&p.qpn, &error)) < 0) {
        fail_peer(peer, p, "verbs: cannot accept rank " + std::to_string(peer) + "'s connection: " + error);
        return;
      }
      peer_of_qpn_[p.qpn] = peer;
      p.psn = random_psn();
    } else {
      --connecting_;  // both requested: answered with the QP we made (see above)
    }
    if (!establish(peer, p, h.qpn, h.psn, &error)) {
      fail_peer(peer, p, "verbs: connecting to rank " + std::to_string(peer) + ": " + error);
      return;
    }
    p.state = Peer::State::kAccepted;
    send_hello(peer, p, kAccept);
    return;
  }
  if (h.type != kAccept) return;
  if (p.state == Peer::State::kRequested) {
    --connecting_;
    if (!establish(peer, p, h.qpn, h.psn, &error)) {
      fail_peer(peer, p, "verbs: connecting to rank " + std::to_string(peer) + ": " + error);
      return;
    }
  } else if (p.state != Peer::State::kAccepted) {
    return;  // a repeated accept
  }
  p.state = Peer::State::kConnected;
  push(peer, p);
}

void VerbsTransport::check_connect_timeouts() {
  long long now = now_us();
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    if (p.state != Peer::State::kRequested || now < p.next_try_us) continue;
    if (now >= p.deadline_us) {
      fail_peer(static_cast<int>(i), p,
                "verbs: rank " + std::to_string(i) + " did not answer the connection request within " +
                    std::to_string(options_.connect_timeout_ms / 1000) +
                    " s (FERRY_CONNECT_TIMEOUT): it died, or its port cannot reach ours");
      continue;
    }
    send_hello(static_cast<int>(i), p, kRequest);
  }
}

}  // namespace ferry::transport::verbs
