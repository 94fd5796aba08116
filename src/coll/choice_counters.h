// Which algorithms the collectives chose, for MPI_T: a COUNTER per
// operation and algorithm it offers, ferry.coll.<operation>.<algorithm>
// (base/tool_pvars.h), and the ferry.coll.algorithm event
// (base/tool_events.h). select() calls count_choice once per call.
#pragma once

#include "coll/select.h"

namespace ferry::coll {

void count_choice(Operation op, Algorithm a, const Query& q);

}  // namespace ferry::coll
