// MPICH's User-Level Failure Mitigation calls (ULFM: MPIX_Comm_agree,
// MPIX_Comm_shrink; MPIX_Comm_revoke is p2p/revoke.h), for a runtime in
// which no process outlives a peer's failure: Ferry ends the whole job when
// a process dies (the launcher may restart it from a checkpoint), so every
// member of a communicator is alive whenever one of these runs.
//
// Both work on a revoked communicator, as ULFM requires: their messages
// travel on its group-collective context, which revocation leaves open
// (base/revocation.h). Intracommunicators only.
#pragma once

#include "base/communicator.h"
#include "base/error.h"

namespace ferry::runtime::ulfm {

// The bitwise AND of every member's *flag, at every member (collective).
// ULFM's agreement also tolerates failures during the call; here none
// happen, so an allreduce is the agreement.
Err agree(Communicator* c, int* flag);
// A new communicator of the live members: all of them, in the same order.
Err shrink(Communicator* c, Communicator** out);

}  // namespace ferry::runtime::ulfm
