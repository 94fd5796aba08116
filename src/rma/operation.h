// The origin side of an RMA call (MPI-4.0 §12.3): MPI_Put, _Get,
// _Accumulate, _Get_accumulate, _Fetch_and_op, _Compare_and_swap and their
// request forms, after the API checked the arguments. Checks what needs
// the window (an epoch that includes the target, the target range, the
// accumulate's element type), then moves the data as the target's Reach
// says: at once for targets reached directly, or by a message whose
// completion the next flush or epoch end waits for.
#pragma once

#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "base/request.h"
#include "mpi.h"
#include "rma/apply.h"
#include "rma/window.h"

namespace ferry::rma {

struct Operation {
  OpKind kind;
  const void* origin = nullptr;  // put, accumulates: the data sent
  MPI_Count origin_count = 0;
  const Datatype* origin_type = nullptr;
  void* result = nullptr;        // get (the origin buffer), get_accumulate, fetch_and_op, compare_and_swap
  MPI_Count result_count = 0;
  const Datatype* result_type = nullptr;
  const void* compare = nullptr; // compare_and_swap
  int target = MPI_PROC_NULL;
  MPI_Aint disp = 0;
  MPI_Count target_count = 0;
  const Datatype* target_type = nullptr;
  const Op* op = nullptr;        // accumulates
};

// Starts the operation. With `request`, *request is a request that
// completes when the origin's buffers may be reused (MPI_Rput & co.:
// local completion, §12.3.5); the get forms complete with the data there.
Err start(Window& w, const Operation& o, Request** request, const char* call);

}  // namespace ferry::rma
