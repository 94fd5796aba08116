// Communicators: a group of ranks, a context that isolates their traffic, and
// the error handler that applies to calls on them.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/info.h"
#include "base/topology.h"
#include "mpi.h"

#include <memory>

namespace ferry {
namespace context_ids {
class Allocator;
}

struct Group;
struct Request;

struct Communicator {
  MPI_Comm handle = MPI_COMM_NULL;
  // Point-to-point traffic uses `context`, collectives `context + 1`, so a
  // collective never matches a user's message (MPI-3.1 §5.2); collectives
  // over a subgroup (MPI_Comm_create_group) use `context + 2`, partitioned
  // communication `context + 3`. The four come from one slot of the
  // context-id space (base/context_id.h).
  uint32_t context = 0;
  int rank = 0;
  int size = 0;
  // Communicator rank -> world rank; empty means the identity (MPI_COMM_WORLD).
  std::vector<int> world_ranks;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;
  // Collectives are called in the same order on every rank (MPI-3.1 §5.12),
  // so numbering them gives each one a tag that all ranks agree on, and
  // concurrent nonblocking collectives never match each other's messages.
  uint32_t collective_sequence = 0;
  // Set on the temporary communicator of MPI_Comm_create_group (the
  // program's tag, >= 0) and of the fault-tolerance agreement and shrink
  // (runtime/fault_tolerance.cc's negative tags, which no program's tag can
  // equal): its collectives all use that tag, which is what tells concurrent
  // create_group calls on one parent apart (MPI-3.1 §6.4.2).
  static constexpr int kNoFixedTag = INT_MIN;
  int fixed_collective_tag = kNoFixedTag;
  bool has_fixed_collective_tag() const { return fixed_collective_tag != kNoFixedTag; }
  // FERRY_PROFILE: the nonblocking collectives started on it, the same count on every rank (they
  // start them in the same order), and the count of the next one the profile measures
  // (profile/companions.h).
  uint32_t profiled_nonblocking = 0;
  uint32_t profiled_next_sample = 0;
  int next_collective_tag() {
    if (has_fixed_collective_tag()) return fixed_collective_tag;
    return static_cast<int>(collective_sequence++ & 0x3fffffffu);
  }

  // The members, shared with MPI_Comm_group's callers; holds one reference.
  // nullptr only for communicators made outside the runtime (unit tests).
  Group* group = nullptr;
  // The hints given by MPI_Comm_set_info / MPI_Comm_dup_with_info that
  // Ferry recognizes (base/comm_hints.h; none of them changes what Ferry
  // does yet); MPI_Comm_get_info returns them.
  Info hints;
  // Two of MPI-4.0 §7.4.4's assertions among `hints`, read once whenever the
  // hints change (comm_hints::assign), so that a receive tests a bool: a
  // wildcard receive on a communicator that asserts it never uses one is an
  // error (api/call.cc).
  bool assert_no_any_source = false;
  bool assert_no_any_tag = false;
  // The process topology (MPI_Cart_create, ...), or nullptr; dup keeps it.
  std::shared_ptr<const Topology> topology;

  // Intercommunicators (MPI-3.1 §6.6): `group`, `rank` and `size` describe
  // the local group, while point-to-point ranks name members of the remote
  // group (world_ranks maps those). Both groups agreed on `context`, so a
  // message carries the same context at both ends. `local` is a hidden
  // intracommunicator over the local group, for the steps that only the
  // local group takes (agreeing on context ids, merging).
  bool inter = false;
  Group* remote_group = nullptr;  // one reference
  int remote_size = 0;
  Communicator* local = nullptr;  // owned: freed with the intercommunicator
  // A shadow's original (communicators::shadow), or nullptr: a request on
  // this copy keeps the original alive, as one on the original would.
  const Communicator* shadow_of = nullptr;
  // What the coll layer keeps per communicator (coll/shm's segment),
  // opaque here; made at first use, freed with the communicator.
  std::shared_ptr<void> coll_state;

  // How many ranks point-to-point can name: the remote group's, on an
  // intercommunicator.
  int peer_count() const { return inter ? remote_size : size; }

  // The world rank of point-to-point rank `r`.
  int world_rank(int r) const { return world_ranks.empty() ? r : world_ranks[static_cast<size_t>(r)]; }
  uint32_t collective_context() const { return context + 1; }
  uint32_t group_collective_context() const { return context + 2; }
  uint32_t partitioned_context() const { return context + 3; }
};

namespace communicators {

// Creates MPI_COMM_WORLD and MPI_COMM_SELF for this process.
void create_predefined(int world_rank, int world_size);
// Runs the delete callbacks of MPI_COMM_SELF's, then MPI_COMM_WORLD's,
// attributes: the first thing MPI_Finalize does (MPI-3.1 §8.7.1), while
// the library is still fully usable from the callbacks.
Err delete_predefined_attributes();
void destroy_all();
// The communicator behind a handle, or nullptr. Safe from any thread while
// others create and free communicators.
Communicator* find(MPI_Comm handle);
Communicator& world();
Communicator& self();
// The hidden world that MPI_Comm_create_from_group agrees over (MPI-4.0
// §7.4.2: its processes share no communicator yet).
Communicator& session_world();
// One past the highest context id in use, for sizing matching tables.
uint32_t context_limit();

// MPI_Comm_free: runs the attributes' delete callbacks (an error keeps the
// communicator), then retires the handle. The object itself, and its context
// id, live on until no request refers to it, so operations still pending on
// it complete normally (MPI-3.1 §6.4.3).
Err free_communicator(Communicator* c);
// Makes `*copy` a shadow of `c`, for a protocol of the runtime's own that
// must not take tags of c's collective sequence (MPI_Comm_idup's agreement,
// FERRY_PROFILE's companion barriers): c's context, ranks and members, with
// all its collectives on `tag`; an intercommunicator's local group likewise
// in `*local_copy`, on `local_tag` (unused for an intracommunicator). A
// request on the shadow keeps `c` and its local group from being destroyed
// (requests::any_of), so that their context ids are not agreed on again
// while the shadow's messages may still arrive.
void shadow(const Communicator& c, int tag, int local_tag, Communicator* copy, Communicator* local_copy);
// MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR or MPI_UNEQUAL (MPI-3.1 §6.4.1).
int compare(const Communicator& a, const Communicator& b);

// ---- Internals shared with communicator creation (runtime/comm_create.h) ----
// A new communicator object on `group` (takes over the caller's reference)
// with context slot `slot` (context_ids::kNoSlot: decided later), the
// parent's error handler, and a handle. Its maker settles it once its
// context and members are final (p2p::revoke::settle).
Communicator* make(Communicator* parent, Group* group, uint32_t slot);
// Destroys a communicator that has not been handed out (a failed dup).
void discard(Communicator* c);
// This process's context slots.
context_ids::Allocator& allocator();
// Destroys freed communicators that no request refers to any more, so that
// their context ids can be agreed on again.
void sweep();

}  // namespace communicators
}  // namespace ferry
