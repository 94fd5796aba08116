#pragma once

#include "core/communicator.h"
#include "core/error.h"

namespace ferry::coll {

Err barrier_dissemination(Communicator* c);

}  // namespace ferry::coll
