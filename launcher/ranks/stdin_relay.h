// Rank 0's standard input when rank 0 runs under a daemon on another host:
// what StdinForwarder (stdin_forwarding.h) would give a local rank 0 is read
// here and sent along the daemon tree, chunk by chunk, ending with an empty
// chunk (the end of the input).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "launcher/event_loop.h"
#include "launcher/ranks/stdin_forwarding.h"

namespace ferry::launcher {

class StdinRelay {
 public:
  // `send` carries one chunk toward rank 0's daemon; an empty one ends it.
  StdinRelay(EventLoop& loop, uint64_t source, StdinForwarder& stdin, std::function<void(std::string_view)> send)
      : loop_(loop), source_(source), stdin_(stdin), send_(std::move(send)) {}

  // Starts relaying: a regular file is sent at once (epoll cannot watch it),
  // a pipe or terminal is watched under `source`.
  void start();
  // `source` is readable.
  void on_readable();

 private:
  void end();

  EventLoop& loop_;
  uint64_t source_;
  StdinForwarder& stdin_;
  std::function<void(std::string_view)> send_;
  int fd_ = -1;  // rank 0's stdin, while it is relayed
};

}  // namespace ferry::launcher
