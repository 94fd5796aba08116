// Barrier algorithms; each builds its rounds into a Schedule. The choice
// between them is made in coll/select.cc.
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

void barrier_dissemination(Schedule& s);

}  // namespace ferry::coll
