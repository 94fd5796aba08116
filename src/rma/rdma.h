// One-sided communication straight through the NIC: a target on another
// host whose transport can reach memory (verbs: Transport::expose_window)
// is written and read with RDMA WRITE and READ, and its 8-byte integers
// updated with the NIC's atomics, without its CPU: no active message, no
// service, no doorbell (rma/active_message.h stays the path for the rest).
//
// What goes this way (rma::start asks try_start first, then sends an active
// message when it answers false):
//   - MPI_Put and MPI_Get (not the request forms: their local completion is
//     the active message's) whose origin data is dense and whose target
//     range is one run of the target's window (predefined or contiguous
//     datatypes on both sides), in any access epoch: the epoch calls that
//     open one (lock, lock_all, start, fence) have waited for the target to
//     grant it before they return, so the NIC writes only memory that the
//     epoch exposes (MPI-4.0 §12.5).
//   - MPI_Fetch_and_op with MPI_SUM, MPI_NO_OP (fetch-and-add of the value,
//     of 0) or MPI_REPLACE (compare-and-swap until it takes, waited for in
//     the call), and MPI_Compare_and_swap, on one 8-byte C integer, only on
//     a window created with the info hint "ferry_nic_atomics" = "true",
//     and only where the NIC has atomics. Why a hint: MPI asks accumulates
//     to one location to be atomic with each other whoever issues them
//     (§12.7.1), and the NIC's atomics are atomic only with other atomics
//     through the NIC (IBV_ATOMIC_HCA), not with the target CPU's compare-
//     and-swap loop (rma/apply.h) that applies every other accumulate and
//     every one from the target's own host. The hint is the program's
//     promise that the locations these calls update are updated by nothing
//     else: no other accumulate-family call, none from a rank on the
//     target's host. Without it, atomics keep the active-message path.
//   - Not dynamic windows (their memory is attached piecemeal; each piece
//     would need its own registration and key exchange).
//
// Completion: every request is signaled; a flush, unlock, complete or
// fence waits (wait()) until the NIC has completed every request of this
// window to the target(s) before it answers or releases the lock, as it
// waits for the answers of active messages. A fence on a window with
// targets reached this way ends with a barrier (epochs.cc): the next
// epoch's NIC requests must not reach a target before it executed this
// epoch's active messages. A failed completion (a refused
// key: a remote access error; a peer that stopped answering) is reported by
// that wait as MPI_ERR_OTHER naming the call and the cause; the job goes
// on, and later traffic to that rank fails (its queue pair is in error).
//
// Creation (setup()) is collective over the window: each rank registers its
// window memory with the transport of its first target reached by
// messages, and an allgather gives every rank each target's address, key
// and the name of the transport the key belongs to.
#pragma once

#include <cstdint>
#include <vector>

#include "base/error.h"
#include "base/info.h"
#include "rma/operation.h"
#include "transport/transport.h"

namespace ferry::rma {

struct Window;

namespace rdma {

struct Op;

// Per window: what it knows of every target's exposed memory and what it
// has in flight.
struct State {
  std::vector<transport::RemoteBuffer> remote;   // by window rank (key_bytes 0: not reached this way)
  std::vector<transport::Transport*> via;        // by window rank: the transport the key belongs to
  transport::Transport* exposed_on = nullptr;    // this rank's memory, until free
  transport::RemoteBuffer mine{};
  bool nic_atomics = false;                      // the hint, and the NIC has them
  std::vector<uint64_t> in_flight;               // by window rank: requests started, not completed
  Err first_error;                               // the first failure since the last wait
  uint64_t writes = 0, reads = 0, atomics = 0;   // started this way (tests, FERRY_DEBUG)
};

// Collective over the window (after its targets' reach is known).
Err setup(Window& w, const Info* hints);
// MPI_Win_free, after the last barrier: withdraws this rank's registration.
void teardown(Window& w);

// Starts `o` through the NIC when it qualifies (see above): true and *e the
// outcome; false to take the active-message path. `address`: the target
// address, range already checked. `request`: the call is a request form.
bool try_start(Window& w, const Operation& o, uint64_t address, bool request, Err* e);

// Waits until every request of this window to `target` (-1: all) completed;
// the first failure since the last wait, if any.
Err wait(Window& w, int target);

}  // namespace rdma
}  // namespace ferry::rma
