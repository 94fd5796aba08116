// The receive half of one TCP connection: turns the byte stream into packets.
//
// Headers and small payloads are read in batches into a fixed buffer (one
// recv can bring many small packets); the rest of a large payload is read
// straight into its destination, so a large message is copied once, by the
// kernel, into the user's buffer. The buffer is allocated on the first read,
// so a connection that only ever sends costs no memory, and it never grows:
// unexpected traffic is the engine's to hold, not the transport's.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "transport/transport.h"

namespace ferry::transport::tcp {

class Inbound {
 public:
  enum class Status {
    kEmpty,   // nothing had arrived
    kRead,    // bytes were read (and every complete packet delivered)
    kClosed,  // the peer closed the connection, or it failed
  };

  // Reads what the socket has, without blocking, and hands every complete
  // header and payload to `handler` as from world rank `peer`. Stops once
  // the socket is drained, or after a bounded amount of work so that one
  // busy connection cannot starve the others (epoll reports it again).
  Status receive(int fd, int peer, PacketHandler* handler);

  // True while a packet has been announced but its payload is incomplete.
  bool in_payload() const { return in_payload_; }

 private:
  // Delivers every complete header and payload bytes in the buffer.
  void deliver(int peer, PacketHandler* handler);
  // Reads the rest of a large payload straight into its destination.
  // Returns the bytes read (0: closed, -1: see errno) and sets `all` when
  // the socket gave everything asked for.
  ssize_t read_payload(int fd, int peer, PacketHandler* handler, bool* all);
  void finish_payload(int peer, PacketHandler* handler);

  std::unique_ptr<char[]> buffer_;
  size_t begin_ = 0;  // unread bytes are [begin_, end_)
  size_t end_ = 0;
  bool in_payload_ = false;
  PacketHeader header_{};
  Destination destination_{};
  uint64_t payload_done_ = 0;
};

}  // namespace ferry::transport::tcp
