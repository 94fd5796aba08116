// Which algorithms the collectives chose, for MPI_T: a COUNTER per
// operation and algorithm it offers, ferry.coll.<operation>.<algorithm>
// (base/tool_pvars.h), and the ferry.coll.algorithm event
// (base/tool_events.h). select() calls count_choice once per call.
#pragma once

#include "coll/select.h"

namespace ferry::coll {

void count_choice(Operation op, Algorithm a, const Query& q);

// FERRY_PROFILE (src/profile/) installs a table here at MPI_Init: uint64_t[16 operations][16
// algorithms][profile_layout::kBuckets], counted by the call's bytes (Query::bytes). Installed from
// above because the profile sits above coll; while none is installed a choice costs one more load.
void set_profile_table(uint64_t* table);

}  // namespace ferry::coll
