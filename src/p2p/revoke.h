// MPIX_Comm_revoke (MPICH's User-Level Failure Mitigation, ULFM): after it,
// every pending and later operation on the communicator fails with
// MPIX_ERR_REVOKED, at every member.
//
// The revoking process marks the communicator (base/revocation.h), fails
// the receives posted on it here, and sends a kRevoke packet to every other
// member; each member marks it and fails its posted receives when the
// packet arrives (it sends nothing on), in whatever MPI call is making
// progress at the time (a receive blocked on the
// communicator ends there). Ferry ends the whole job when a process dies,
// so the packet always arrives and no forwarding among survivors (ULFM's
// reliable broadcast) is needed. Messages waiting unreceived on the
// communicator are dropped; the sender of a rendezvous request among them
// (or of one arriving later) is told, and its send fails with
// MPIX_ERR_REVOKED rather than wait for a receive that cannot come. A
// rendezvous send that its receiver had already matched still completes.
// A packet names its communicator by context id and comes from a member;
// base/revocation.h says why that is enough although ids are reused.
#pragma once

#include "base/communicator.h"
#include "base/error.h"
#include "base/request.h"
#include "base/revocation.h"

namespace ferry::p2p::revoke {

Err revoke(Communicator* c);
// A kRevoke packet from `sender` (a world rank) for the communicator of
// `context` arrived (base/revocation.h says which communicator it names).
// Engine lock held.
void arrived(uint32_t context, int sender);
// The communicator's context and members are final: every constructor calls
// this before it hands the communicator out. A notice that came before
// revokes it here.
void settle(const Communicator* c);
// The error of an operation on a revoked communicator.
Err refusal();
// Completes a receive with that error. Engine lock held.
void refuse(Request* r);

}  // namespace ferry::p2p::revoke
