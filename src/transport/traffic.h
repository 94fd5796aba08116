// What each transport moved: messages and bytes sent and received, counted
// for MPI_T's performance variables (base/tool_pvars.h; MPI-4.0 §15.3.7).
//
// A message is counted once, where it starts: its eager packet or its
// rendezvous request, with the message's size; the protocol's other packets
// (ready, data, done, cancel) are not messages. Counting costs two plain
// adds on the packet path: the transports run under the engine lock (or on
// the one thread that makes MPI calls), so each counter has one writer at a
// time and needs no atomic read-modify-write; a tool thread reading it
// concurrently sees a whole value (relaxed atomics), never a lock.
#pragma once

#include <atomic>
#include <cstdint>

#include "transport/packet.h"

namespace ferry::transport::traffic {

enum Medium : uint8_t { kSelf, kShm, kTcp, kMedia };

struct alignas(64) Counts {
  std::atomic<uint64_t> messages_sent{0};
  std::atomic<uint64_t> bytes_sent{0};
  std::atomic<uint64_t> messages_received{0};
  std::atomic<uint64_t> bytes_received{0};
};
extern Counts counts[kMedia];
// Names as the performance variables spell them: "shm", "tcp", "self".
const char* name(Medium m);

// Adds n with the engine lock held (one writer at a time).
inline void bump(std::atomic<uint64_t>& counter, uint64_t n) {
  counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

inline bool starts_message(const PacketHeader& h) {
  return h.type == PacketType::kEager || h.type == PacketType::kRendezvousRequest;
}

inline void sent(Medium m, const PacketHeader& h) {
  if (!starts_message(h)) return;
  bump(counts[m].messages_sent, 1);
  bump(counts[m].bytes_sent, h.message_bytes);
}

inline void received(Medium m, const PacketHeader& h) {
  if (!starts_message(h)) return;
  bump(counts[m].messages_received, 1);
  bump(counts[m].bytes_received, h.message_bytes);
}

}  // namespace ferry::transport::traffic
