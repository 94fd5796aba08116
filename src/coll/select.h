// Which algorithm a collective call uses: one table for every operation
// (select.cc), overridable per operation with FERRY_<OPERATION>_ALGORITHM.
//
// Adding an operation or an algorithm (bcast, gather, ... rows):
//   1. add the operation to `Operation` and the algorithm to `Algorithm`;
//   2. in select.cc, add the operation to kOperations (its name and its
//      FERRY_<OPERATION>_ALGORITHM setting, which you also register in
//      common/config.cc), its algorithms to kAlgorithms and its rules to
//      kRules (first matching row wins; end with a catch-all row);
//   3. in the entry function: `Algorithm a; if (Err e = select(op, query, &a))
//      return e;` then switch on `a` to build the schedule.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "base/error.h"
#include "common/debug.h"

namespace ferry::coll {

enum class Operation : uint8_t {
  kAllreduce,
  kReduce,
  kReduceScatter,
  kReduceScatterBlock,
  kScan,
  kExscan,
  kBarrier,
  kBcast,
  kGather,
  kScatter,
  kAllgather,
  kAlltoall,
};

enum class Algorithm : uint8_t {
  kRecursiveDoubling,    // allreduce, scan, exscan
  kRing,                 // allreduce
  kTree,                 // allreduce
  kRabenseifner,         // allreduce
  kBinomial,             // reduce
  kReduceScatterGather,  // reduce
  kPairwise,             // reduce_scatter, reduce_scatter_block
  kRecursiveHalving,     // reduce_scatter, reduce_scatter_block
  kDissemination,        // barrier
  kScatterRingAllgather, // bcast
  kPipelinedChain,       // bcast, scan, exscan
  kBruck,                // allgather, alltoall
  kSharedMemory,         // every operation but the v and w forms (coll/shm)
  kHierarchical,         // allreduce, reduce, bcast, barrier, allgather across hosts (coll/hier)
  kHalves,               // reduce on two ranks
  kLinear,               // gather, scatter (long blocks)
};

// What the choice depends on. Every rank of a call must get the same answer,
// so only arguments that MPI requires to agree across ranks go in.
struct Query {
  size_t bytes;      // the whole vector one rank contributes (count * type size)
  int ranks;         // communicator size
  bool commutative;  // the reduction operation's (true for non-reductions)
  // coll/shm may run this call: a blocking call on a communicator whose
  // ranks all share this host's memory, with data that fits a cell
  // (`bytes` <= what the caller worked out from the cell size), or a
  // blocking bcast, gather, reduce, scan or exscan that streams beyond it
  // (shm/algorithms.h: bcast_streams, gather_streams, reduce_streams,
  // scan_streams). Every rank computes the same answer.
  bool shared_memory = false;
  // coll/hier may run this call (its hierarchy was made; the operation
  // need not have a hierarchical form): a blocking call on a communicator that
  // spans hosts, one of them with 2 or more of its ranks, each host's with
  // a shared-memory segment (hier/structure.h); reductions: commutative
  // predefined ops on data of one basic type (choose.cc, hier_reduces).
  // `hierarchical_forced`: FERRY_COLL_HIER=on,
  // which takes it whatever the table's bounds. Every rank computes the
  // same answer.
  bool hierarchical = false;
  bool hierarchical_forced = false;
  // Where that hierarchy is made (scans too, which have no hierarchical
  // form): how many of a chain's hops along the ranks go from host to host
  // (hier::Hierarchy::chain_crossings), the others being messages within a
  // host; -1 where no hierarchy was made.
  int chain_crossings = -1;
  // How FERRY_DEBUG=coll names the call: "i" before a nonblocking one's
  // operation, "_init" after a persistent one's (iallreduce, bcast_init).
  const char* prefix = "";
  const char* suffix = "";
};

// The algorithm for one call: the override if FERRY_<OPERATION>_ALGORITHM
// names one, else the table's. An override that would reorder a
// non-commutative operation is ignored for that call (the table picks an
// order-preserving algorithm). With FERRY_DEBUG=coll, prints the choice.
// Fails only for an unknown name in the override.
Err select(Operation op, const Query& q, Algorithm* out);

// Whether select() answers shared memory for every call of `op` that
// coll/shm can run (Query::shared_memory) on a communicator of one host
// (Query::hierarchical false): the table's first row of `op` takes it at
// any size on 2 or more ranks and FERRY_<OPERATION>_ALGORITHM asks for
// nothing else; and FERRY_DEBUG=coll is off (select() prints each choice).
// Then a blocking call that fits a cell may skip select() (choose.h,
// shared_now), counting its choice with count_choice (choice_counters.h).
//
// Inline, the answer kept per operation once found (issue 29: a call with
// a static's guard was about 25 of a small call's instructions).
namespace select_detail {
inline std::atomic<uint8_t> whenever[32];  // by Operation: 0 not found yet, 1 yes, 2 no
bool find_whenever(Operation op);          // finds the answer and keeps it
}  // namespace select_detail
inline bool shared_memory_whenever_possible(Operation op) {
  const uint8_t known = select_detail::whenever[static_cast<size_t>(op)].load(std::memory_order_relaxed);
  const bool always = known != 0 ? known == 1 : select_detail::find_whenever(op);
  return always && !debug::on(debug::kColl);
}

const char* name(Operation op);
const char* name(Algorithm a);
// Whether `op` has algorithm `a` (its FERRY_<OPERATION>_ALGORITHM may name it).
bool offers(Operation op, Algorithm a);

// Checks every FERRY_<OPERATION>_ALGORITHM (called by MPI_Init): the message
// names the variable and the valid values.
std::optional<std::string> validate_settings();

// Segment size of the pipelined algorithms (allreduce ring and tree, bcast
// chain), FERRY_COLL_SEGMENT_SIZE: a message larger than this is moved in
// pieces of this size. Every rank must see the same value.
size_t pipeline_segment_bytes();
// FERRY_COLL_MAX_SEGMENTS: the most segments the allreduce ring cuts one
// block into (0: no limit); larger blocks get larger segments.
size_t pipeline_max_segments();

}  // namespace ferry::coll
