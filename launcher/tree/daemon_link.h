// One TCP connection of the daemon tree (mpirun to a daemon, or a daemon to
// one of its children), carrying wire frames both ways. Non-blocking: the
// owner's event loop calls on_readable() and, while wants_write(), watches
// for EPOLLOUT and calls on_writable(). Sending never blocks; what the
// kernel does not take at once waits in the link.
#pragma once

#include <sys/socket.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/tree/wire.h"

namespace ferry::launcher {

class DaemonLink {
 public:
  explicit DaemonLink(int fd);  // a connected socket, owned here
  ~DaemonLink();
  DaemonLink(const DaemonLink&) = delete;
  DaemonLink& operator=(const DaemonLink&) = delete;

  int fd() const { return fd_; }

  // Queues a whole frame (from wire::Encoder::finish()).
  void send(const std::string& frame);
  bool wants_write() const { return !output_.empty(); }
  // Bytes queued here that the kernel has not taken yet (for senders that
  // hold back while the link is busy).
  size_t queued() const { return output_.size() - output_sent_; }
  // Returns false when the peer is gone.
  bool on_writable();

  using FrameHandler = std::function<void(wire::Type, std::string_view body)>;
  // Reads what is there and hands over every complete frame. Returns false
  // at EOF, on an error or on a malformed frame: the link is dead.
  bool on_readable(const FrameHandler& handle);

 private:
  bool flush();
  int fd_;
  std::string input_;
  std::string output_;
  size_t output_sent_ = 0;
  bool dead_ = false;
};

// A listening TCP socket on every address (IPv4 and IPv6), any free port.
// Throws std::runtime_error.
int listen_for_daemons(int* port);

// This host's addresses that another host might reach: up, not loopback,
// not IPv6 link-local; numeric, IPv4 first. `preferred` (if non-empty and
// among them) comes first.
std::vector<std::string> reachable_addresses(const std::string& preferred = "");

// Connects to whichever of `addresses` answers first on `port` (all tried
// at once, for at most `timeout_ms`), blocking. Returns the socket
// (non-blocking, tuned) or -1 with `error` set.
int connect_to_parent(const std::vector<std::string>& addresses, int port, int timeout_ms,
                      std::string* error);

// TCP_NODELAY, and keepalive probes that notice a vanished host within
// about half a minute (for both ends of every daemon link).
void tune_daemon_socket(int fd);

// The numeric local address of a connected socket ("10.0.0.2").
std::string local_address_of(int fd);

}  // namespace ferry::launcher
