// How a collective call runs (Launch), apart from collectives.h so that
// at_once.h, which collectives.h's inline entries use, can name it too.
#pragma once

#include <cstdint>

#include "base/request.h"

namespace ferry::coll {

// How a collective call runs (MPI-4.0 §6.12, §6.13): to its end (the
// blocking calls); started now, its request in *request (MPI_I...); or
// only built, *request an inactive persistent request that each MPI_Start
// runs again (MPI_..._init). Algorithm choice, the schedule and its scratch
// are done once, at the call, in every form.
struct Launch {
  enum class Form : uint8_t { kBlocking, kNonblocking, kPersistent };
  Form form = Form::kBlocking;
  Request** request = nullptr;
};
inline Launch nonblocking(Request** request) { return {Launch::Form::kNonblocking, request}; }
inline Launch persistent(Request** request) { return {Launch::Form::kPersistent, request}; }

}  // namespace ferry::coll
