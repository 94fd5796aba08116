// The messages of one round of collective IO: a batch of sends and
// receives of raw bytes on the file's private communicator, through the
// internal point-to-point layer on its collective context (so they never
// match the program's messages, and MPI_* is never re-entered), waited for
// together.
//
// All messages of one collective call share one tag; a pair of processes
// posts them in the same order on both sides, and MPI's non-overtaking rule
// (MPI-3.1 §3.5) matches them.
#pragma once

#include <cstdint>
#include <vector>

#include "base/communicator.h"
#include "base/error.h"
#include "p2p/message_batch.h"

namespace ferry::io {

class RoundMessages {
 public:
  RoundMessages(Communicator* c, int tag) : batch_(c, tag) {}

  // `bytes` of raw data; 64-bit words for the run lists. Nothing is posted
  // for an empty message (both sides know its size in advance).
  void recv(void* data, uint64_t bytes, int source);
  void send(const void* data, uint64_t bytes, int dest);
  void recv_words(uint64_t* words, uint64_t n, int source);
  void send_words(const uint64_t* words, uint64_t n, int dest);
  // Waits for every message posted since the last wait; the first error.
  Err wait() { return batch_.wait(); }

 private:
  p2p::MessageBatch batch_;  // waits, in its destructor, for what is still in flight
};

// The counts of one round: each process tells each other process two
// words (say, runs and bytes it will send it). `out` and `in` hold 2 words
// per process. One alltoall.
Err exchange_counts(Communicator* c, const std::vector<int64_t>& out, std::vector<int64_t>* in);

}  // namespace ferry::io
