// Where MPI_Init and MPI_Finalize spend their time, for FERRY_DEBUG=launch:
// one line per rank, each phase in milliseconds, e.g.
//
//   ferry INFO rank 3: MPI_Init 41.2 ms: pmix 2.1, open 0.2, publish 0.3, fence 37.9, connect 0.0, routes 0.4, ...
//
// With many ranks on few cores the phases that grow with the job show up
// here first (issue 32). Costs nothing unless the topic is on.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "common/debug.h"

namespace ferry::runtime {

class PhaseTimer {
 public:
  explicit PhaseTimer(const char* what) : what_(what), on_(debug::on(debug::kLaunch)) {
    if (on_) start_ = last_ = std::chrono::steady_clock::now();
  }
  // Ends the phase called `name`, which began at the previous mark.
  void mark(const char* name) {
    if (!on_) return;
    auto now = std::chrono::steady_clock::now();
    char part[64];
    std::snprintf(part, sizeof part, "%s%s %.1f", text_.empty() ? "" : ", ", name, ms(now - last_));
    text_ += part;
    last_ = now;
  }
  // Prints the line.
  void report() {
    if (!on_) return;
    debug::print("%s %.1f ms: %s", what_, ms(std::chrono::steady_clock::now() - start_), text_.c_str());
  }

 private:
  static double ms(std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
  const char* what_;
  bool on_;
  std::chrono::steady_clock::time_point start_, last_;
  std::string text_;
};

}  // namespace ferry::runtime
