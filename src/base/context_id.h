// Context ids: the number in every packet that keeps communicators' traffic
// apart (MPI-3.1 §6.1.2). Each communicator owns one slot s of the id space
// and with it four contexts:
//
//   4s      point-to-point
//   4s + 1  its collectives
//   4s + 2  collectives over a subgroup of it (MPI_Comm_create_group, whose
//           messages must match neither the parent's traffic nor other
//           create_group calls with other tags)
//   4s + 3  partitioned communication (p2p/partitioned.h): its handshakes
//           carry the user's tag, so they need a context of their own
//
// MPI_COMM_WORLD has slot 0, MPI_COMM_SELF slot 1. The matching engine sizes
// its tables by context id, so a new communicator takes the lowest slot that
// is free at every process that creates it, and a freed slot is reused.
//
// Agreement (MPICH's algorithm). Each process keeps a mask of its free
// slots; the creating processes allreduce(BAND) their masks and all take the
// lowest common bit. One small allreduce (kMessageWords ints) per
// communicator when nothing else is being created at the same time.
//
// Concurrency (MPI_THREAD_MULTIPLE, nonblocking MPI_Comm_idup): two
// agreements in flight at one process must not both offer the same free
// slots, or two communicators with different members could take one slot.
// So free slots are lent to one agreement at a time; any other contributes
// zeros, which makes its result empty at every process, and all of them try
// again. The slots are split in two parts, lent separately (MPICH's eager
// protocol, and why):
//
//   - The eager part (the first kEagerWords words) is what an agreement
//     offers in its first round, if no other agreement of this process has
//     it at the moment; else it offers nothing. When nothing else is being
//     created, the first round succeeds: one allreduce.
//   - The main part is offered only from the second round on, when every
//     process taking part has joined the agreement (the first round's
//     allreduce proves it). An agreement that holds the main part therefore
//     never waits for a process that has not even started it. Without that
//     rule, a thread whose MPI_Comm_dup(MPI_COMM_SELF) is local could wait
//     for the slots held by a dup over many processes, one of which waits
//     for that very thread (a user lock held around the local dup: MPICH's
//     threads/comm/comm_dup_deadlock).
//
// Who gets the main part next is decided by a priority that every process
// computes alike (the parent's slot, then the create_group tag): once an
// agreement has been refused it, the main part goes only to the
// highest-priority agreement waiting at that process. The highest-priority
// agreement in the job therefore gets it at each of its processes as soon as
// the current borrower's allreduce ends, and succeeds; no thread ever waits
// for the slots while holding anything, so nothing deadlocks. The extra word
// of the message says whether every process lent its main part, so that all
// of them agree whether an empty result means "try again" or "no slot is
// free anywhere in common".
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <set>

#include "base/error.h"

namespace ferry::context_ids {

constexpr uint32_t kContextsPerSlot = 4;
constexpr uint32_t kSlots = 2048;
constexpr uint32_t kWorldSlot = 0;
constexpr uint32_t kSelfSlot = 1;
// The two leaders of MPI_Comm_accept/connect/spawn/join talk on this slot
// before their groups share one (runtime/ports.cc), told apart by tag.
constexpr uint32_t kBridgeSlot = 2;
// MPI_Comm_create_from_group has no parent: its agreements run over a hidden
// copy of the world on this slot, told apart by the string tag's hash.
constexpr uint32_t kSessionSlot = 3;
// A communicator whose agreement has not finished yet (MPI_Comm_idup).
constexpr uint32_t kNoSlot = UINT32_MAX;
constexpr uint32_t kNoContext = UINT32_MAX;
constexpr int kMaskWords = static_cast<int>(kSlots / 32);
// The eager part of the mask: slots 0-63 (world and self among them).
constexpr int kEagerWords = 2;
// The allreduce message: the mask, then the "everyone lent the real mask" word.
constexpr int kMessageWords = kMaskWords + 1;

constexpr uint32_t p2p_context(uint32_t slot) { return slot * kContextsPerSlot; }
constexpr uint32_t slot_of_context(uint32_t context) { return context / kContextsPerSlot; }

// What started an agreement, which tells agreements on one parent apart.
// At most one blocking agreement per parent is in flight (collectives on one
// communicator are ordered); several MPI_Comm_idup on one parent are told
// apart by the collective tag each call reserved, MPI_Comm_create_group
// calls by the user's tag. Equal priorities for two agreements in flight at
// once would let each process pick a different one first, round after round.
enum class Origin : uint64_t { kBlocking = 0, kIdup = 1, kCreateGroup = 2 };

// Agreements are ordered by (parent slot, origin, tag): lower goes first.
constexpr uint64_t priority(uint32_t parent_slot, Origin origin = Origin::kBlocking, uint32_t tag = 0) {
  return (static_cast<uint64_t>(parent_slot) << 34) | (static_cast<uint64_t>(origin) << 32) | tag;
}

// One process's slots. Thread-safe; independent of the rest of the runtime,
// so unit tests run several "processes" in one program.
class Allocator {
 public:
  Allocator();

  // One agreement, in steps, so that a nonblocking one (MPI_Comm_idup) can
  // run its allreduce in the background.
  struct Attempt {
    uint64_t priority = 0;
    bool need = true;         // false: only takes part (gets no communicator)
    int round = 0;            // rounds finished so far
    bool own_eager = false;   // this round offers the eager part
    bool own_mask = false;    // this round offers the main part
    bool registered = false;  // refused the main part once: waiting for it by priority
  };
  enum class Outcome { kDone, kRetry, kExhausted };

  // Fills `words` (kMessageWords) with this process's contribution.
  void begin(Attempt& a, uint32_t words[]);
  // Reads the allreduced `words`; on kDone and a.need, *slot is the new slot
  // (already marked used). kExhausted: no slot is free at every process.
  Outcome finish(Attempt& a, const uint32_t words[], uint32_t* slot);
  // Gives up an attempt that was begun (its allreduce failed).
  void abandon(Attempt& a);

  // The blocking form: begin / allreduce(BAND over the taking part) / finish
  // until done. Every process taking part passes the same priority.
  using AllreduceBand = std::function<Err(uint32_t words[], int count)>;
  Err agree(uint64_t priority, bool need, const AllreduceBand& allreduce, uint32_t* slot);

  void release(uint32_t slot);
  void reserve(uint32_t slot);  // the predefined communicators' slots
  bool is_free(uint32_t slot) const;
  // One past the highest slot in use.
  uint32_t limit() const;
  // Agreements refused the mask and waiting for it (tests).
  size_t waiting() const;

 private:
  // Ends the attempt's hold on the parts it was lent (mutex held).
  void give_back(Attempt& a);

  mutable std::mutex mutex_;
  uint32_t free_[kMaskWords];  // bit set: slot free
  bool eager_lent_ = false;
  bool lent_ = false;  // the main part
  std::multiset<uint64_t> waiting_;
};

}  // namespace ferry::context_ids
