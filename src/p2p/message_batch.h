// A batch of internal sends and receives on a communicator's collective
// context, under one tag, waited for together: one round of collective IO
// (io/round_messages.h) or of checkpoint copies (runtime/checkpoint_copies.cc).
//
// The messages go through the point-to-point layer itself, so MPI_* is never
// re-entered, and on the collective context, so they never match the
// program's messages. A pair of processes posts its messages in the same
// order on both sides; MPI-3.1 §3.5's non-overtaking rule matches them.
#pragma once

#include <cstdint>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/request.h"

namespace ferry::p2p {

class MessageBatch {
 public:
  MessageBatch(Communicator* c, int tag) : comm_(c), tag_(tag) {}
  ~MessageBatch() { (void)wait(); }
  MessageBatch(const MessageBatch&) = delete;
  MessageBatch& operator=(const MessageBatch&) = delete;

  // `count` elements of `type`. Nothing is posted for an empty message (both
  // sides know its size in advance), nor after a message failed to start.
  void send(const void* data, MPI_Count count, const Datatype* type, int dest);
  void recv(void* data, MPI_Count count, const Datatype* type, int source);
  // Waits for every message posted since the last wait; the first error.
  Err wait();

 private:
  void post(bool sending, const void* data, MPI_Count count, const Datatype* type, int peer);

  Communicator* comm_;
  int tag_;
  std::vector<Request*> pending_;
  Err error_;
};

}  // namespace ferry::p2p
