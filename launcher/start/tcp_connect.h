// Resolving a host and opening a TCP connection to it within a deadline,
// with errors precise enough for mpirun's messages (a name that does not
// resolve, a host that does not answer, a port that refuses). libssh's own
// connect reports these as one generic error, so remote_start connects first
// and hands libssh the socket.
#pragma once

#include <string>

#include "launcher/start/deadline.h"

namespace ferry::launcher {

struct TcpConnection {
  int fd = -1;                 // >= 0: connected, blocking, close-on-exec; the caller owns it
  bool unresolved = false;     // the name did not resolve (error says why)
  std::string address;         // the address tried last, "10.0.0.4:22" or "[fe80::1]:22"
  std::string error;           // fd < 0: "no answer within 10 s", "connection refused", ...
};

// Tries each address the name resolves to, in order, until one accepts.
TcpConnection tcp_connect(const std::string& host, int port, const Deadline& deadline);

// The numeric address of either end of a connected socket ("10.0.0.2");
// empty if unknown or not an IP socket.
std::string socket_peer_address(int fd);
std::string socket_local_address(int fd);

}  // namespace ferry::launcher
