// Creating communicators (MPI-3.1 §6.4.2): collective operations that agree
// on a context id (base/context_id.h) over the parent's collectives, so they
// sit above the collectives, in the runtime; the objects they make are the
// base layer's (base/communicator.h).
#pragma once

#include "base/communicator.h"
#include "base/error.h"
#include "base/group.h"
#include "base/info.h"

namespace ferry {
struct Request;
}

namespace ferry::communicators {

// Each is collective over the parent (create_group: over the group), agrees
// on a context id, and returns the new communicator in *out, or nullptr
// where the process gets MPI_COMM_NULL. The new communicator inherits the
// parent's error handler (MPI-3.1 §8.3); dup also its attributes (through
// their copy callbacks) and info hints.
// `hints`: the new communicator's info hints (MPI_Comm_dup_with_info), or
// nullptr for the parent's.
Err dup(Communicator* parent, const Info* hints, Communicator** out);
// MPI_Comm_idup: *out has its handle at once and becomes usable when
// *request completes (MPI-3.1 §6.4.2).
Err idup(Communicator* parent, Communicator** out, Request** request);
Err split(Communicator* parent, int color, int key, Communicator** out);
// MPI_COMM_TYPE_SHARED: the ranks on this host (PMIx locality).
Err split_shared(Communicator* parent, int key, Communicator** out);
Err create(Communicator* parent, Group* group, Communicator** out);
Err create_group(Communicator* parent, Group* group, int tag, Communicator** out);

}  // namespace ferry::communicators
