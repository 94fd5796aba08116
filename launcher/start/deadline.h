// A point in time that several blocking steps share: connecting,
// authenticating and waiting for a line all count against one timeout, so
// each step asks how much is left instead of starting its own clock.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

namespace ferry::launcher {

class Deadline {
 public:
  explicit Deadline(int timeout_ms)
      : timeout_ms_(timeout_ms), at_(std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms)) {}

  int timeout_ms() const { return timeout_ms_; }

  int remaining_ms() const {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(at_ - std::chrono::steady_clock::now());
    return int(std::max<long long>(0, left.count()));
  }

  bool passed() const { return std::chrono::steady_clock::now() >= at_; }

  // "10 s", "2.5 s": the timeout as messages name it.
  std::string text() const {
    char buffer[32];
    if (timeout_ms_ % 1000 == 0) {
      std::snprintf(buffer, sizeof buffer, "%d s", timeout_ms_ / 1000);
    } else {
      std::snprintf(buffer, sizeof buffer, "%g s", timeout_ms_ / 1000.0);
    }
    return buffer;
  }

 private:
  int timeout_ms_;
  std::chrono::steady_clock::time_point at_;
};

}  // namespace ferry::launcher
