// FERRY_DEBUG=<topics>: one-line facts on stderr, in the spirit of NCCL_DEBUG.
//
//   ferry INFO rank 3: peer 5 via tcp 10.0.0.2:41234
//
// Checking whether a topic is on is one load and a test, so calls can stay on
// paths that matter; the formatting only happens when the topic is on. The
// topics are an atomic because MPI_T may change them (cvar FERRY_DEBUG) in
// one thread while others test them; a relaxed load is a plain load here.
#pragma once

#include <atomic>
#include <cstdint>

namespace ferry::debug {

enum Topic : uint32_t {
  kInit = 1u << 0,
  kPmix = 1u << 1,
  kTcp = 1u << 2,
  kP2p = 1u << 3,
  kProgress = 1u << 4,
  kColl = 1u << 5,
  kLaunch = 1u << 6,
  kComm = 1u << 7,
  kCheckpoint = 1u << 8,
  kIo = 1u << 9,
  kVerbs = 1u << 10,
  kCuda = 1u << 11,
  kRma = 1u << 12,
};

extern std::atomic<uint32_t> enabled_topics;

// Reads FERRY_DEBUG; called once at start-up (MPI_Init, mpirun's main).
void configure();

// Who is speaking, printed after "ferry INFO ": "rank 3", "mpirun".
void set_identity(const char* who);

inline bool on(Topic t) { return (enabled_topics.load(std::memory_order_relaxed) & t) != 0; }

// printf-style; prints "ferry INFO <identity>: <message>\n" as one write.
void print(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ferry::debug

#define FERRY_DEBUG(topic, ...)                                      \
  do {                                                               \
    if (::ferry::debug::on(::ferry::debug::topic)) ::ferry::debug::print(__VA_ARGS__); \
  } while (0)
