// What the TCP transport keeps per peer and per socket (private to
// tcp_transport.cc and crossing.cc).
#pragma once

#include <cstring>
#include <string>

#include "transport/tcp/tcp_transport.h"

namespace ferry::transport::tcp {

// What we send to one rank.
struct TcpTransport::Peer {
  enum class State : uint8_t { kIdle, kConnecting, kOpen, kFailed };
  State state = State::kIdle;
  bool reachable = false;      // a world rank, or a process the runtime adopted
  bool dial_drained = false;   // its connection lost a crossing and has ended (crossing.cc)
  Connection* link = nullptr;  // where our packets to this rank go out
  // A connection the peer dialed, which won a crossing: our packets move
  // there from `link` at the next packet boundary (crossing.cc).
  Connection* next_link = nullptr;
  // What goes out on `link` before the first packet: our Handshake on a
  // connection we dialed, a Reply on one we adopted.
  alignas(8) char preamble[sizeof(Handshake)] = {};
  uint32_t preamble_bytes = 0;
  uint32_t preamble_sent = 0;
  SendItem* head = nullptr;
  SendItem* tail = nullptr;
  long long deadline_us = 0;
  std::string where;  // the address we dialed, for messages

  template <typename T>
  void begin_with(const T& first) {
    static_assert(sizeof(T) <= sizeof preamble);
    std::memcpy(preamble, &first, sizeof first);
    preamble_bytes = sizeof first;
    preamble_sent = 0;
  }
  bool preamble_pending() const { return preamble_sent < preamble_bytes; }
};

// One socket. Its receive side delivers packets from `peer`; it is also the
// link of that peer when our packets to it go out here.
struct TcpTransport::Connection {
  enum class Phase : uint8_t {
    kHandshake,  // accepted: the peer's Handshake is still arriving (nothing else is read before it checks out)
    kReply,      // dialed: the peer's Reply is still arriving
    kHeld,       // dialed: the Reply said crossed; its packets wait until the peer's own connection has ended
    kPackets,
  };
  int fd = -1;
  size_t slot = 0;
  uint32_t generation = 0;
  int peer = -1;  // known when we dialed; from the handshake when we accepted
  Phase phase = Phase::kHandshake;
  bool dialed = false;
  bool watched = false;  // in the epoll set (see progress(): the sole connection is not)
  bool writing = false;  // waits for writability (EPOLLOUT) too
  Handshake hello{};     // an accepted connection's handshake, as it arrives
  size_t hello_received = 0;
  Reply reply{};  // a dialed connection's Reply, as it arrives
  size_t reply_received = 0;
  Inbound inbound;
};

}  // namespace ferry::transport::tcp
