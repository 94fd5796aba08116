// A blocking receive's inline path (p2p/pt2pt.cc), the twin of send_now
// (p2p/engine.h): a receive of `bytes` contiguous host bytes at `buffer` that
// waits for its message without a request. It takes the first message that
// matches it, in MPI's order (MPI-3.1 §3.5), so it may start only where no
// receive posted before it could take that message: none posted on its
// context. Then it is, in effect, the oldest posted receive: an eager message
// that arrives for it lands straight in `buffer` (p2p's handler asks about it
// before the posted queue); one already waiting among the unexpected is
// copied out at once. A match it cannot finish alone:
//   - a rendezvous request that arrives for it ends it with kFallback, the
//     message held in `message`, in no queue where a receive posted later
//     could take it; the caller then receives it with a request
//     (start_fallback_recv);
//   - a message among the unexpected that is not a whole eager one (a
//     rendezvous request, an eager message whose data is still arriving)
//     makes begin_receive_now decline: the caller posts a request at once,
//     which finds that message first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mpi.h"
#include "p2p/matching.h"

namespace ferry {
struct Request;
}

namespace ferry::p2p {

struct ReceiveNow {
  enum class State : uint8_t { kWaiting, kDone, kFallback };
  void* buffer = nullptr;
  size_t bytes = 0;
  int source = 0;
  int tag = 0;
  uint32_t context = 0;
  State state = State::kWaiting;
  MPI_Status status{};                  // kDone: source, tag, bytes received
  int error = MPI_SUCCESS;              // kDone: a truncation or a revocation
  UnexpectedMessage* message = nullptr;  // kFallback: the message it matched
};
// Starts `n` (engine lock held). False, and nothing done, when it may not
// go so: receives posted on its context, the context revoked, another
// inline receive under way (a call re-entered from progress), its message
// already here but not a whole eager one.
bool begin_receive_now(ReceiveNow* n);
// Starts request `r`, described as `n` was, on the message `n` ended
// kFallback with (engine lock held): the receive's own, whatever was posted
// since. Refused as start_recv refuses if the context was revoked since.
void start_fallback_recv(Request* r, ReceiveNow* n);

}  // namespace ferry::p2p
