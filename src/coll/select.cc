// The selection table: every collective's choice of algorithm, in one place.
//
// Rules are tried top to bottom; the first row whose operation matches, whose
// byte and rank bounds hold (and whose communicator size is a power of two,
// for rows marked so), and whose algorithm suits the operation's
// commutativity wins. Every operation ends with a catch-all row.
//
// Non-commutative operations (MPI-3.1 §5.9.1: applied in rank order): only
// the allreduce ring and the reduce_scatter pairwise exchange combine out of
// rank order; they are marked commutative_only below and the table skips
// them for non-commutative ops, even when FERRY_<OPERATION>_ALGORITHM names
// them. Every other algorithm combines contiguous rank ranges, lower first.
//
// Reproducibility (same inputs, same bits):
// - Run to run: every algorithm is deterministic for a given communicator
//   size, count, datatype and algorithm, and the table's choice depends only
//   on (bytes, ranks, commutativity), so results repeat bit for bit, "auto"
//   included.
// - Rank to rank: every allreduce algorithm leaves identical bits on all
//   ranks (ring, Rabenseifner and tree reduce each element once and copy
//   it; in recursive doubling both partners apply the same operation to the
//   same operands, lower ranks' first).
// - Across communicator sizes: none. The association tree of every
//   algorithm depends on p (the ring's also on where block boundaries fall),
//   so floating-point sums may differ in the last bits between, say, 4 and 8
//   ranks. Exact operations (integers, MIN/MAX, logical, bitwise) agree.
//
// Thresholds were measured with tests/bench/coll_allreduce.c on the 2-core
// development host (TCP over loopback; every run above 2 ranks
// oversubscribed; other builds kept the load average at 8-17, so each
// figure is the best of 2-3 runs of the slowest rank's median, in us):
//
//   FERRY_ALLREDUCE_ALGORITHM=<a> mpirun --oversubscribe -n <p>
//       coll_allreduce [--collective reduce|reduce_scatter_block] --max 4M --time 0.1
//
//   allreduce      p  rec_dbl  rabens   ring   tree
//     32 KiB       2      18     138     26     30
//                  4     108     165    226     97
//                  8     376     442    855    220
//    512 KiB       2     181     379    368    384
//                  4     692     904   1219   1237
//                  8    2353    1729   3593   2876
//      4 MiB       2    5495    6006   2574   5860
//                  4   13053    5960   8598   7798
//                  6   20129   11557  18088  17909
//                  8   49597   12895  13232  17419
//   reduce         p  binomial  reduce_scatter_gather
//    512 KiB       8      1420   1783
//      2 MiB       8     11592   4864
//   reduce_scatter_block  p  pairwise  recursive_halving
//     32 KiB       8       774    212
//      2 MiB       5      2271   3731
//
// Noise between runs was up to 3x, so each boundary sits where one
// algorithm wins on most rank counts, not at a single crossing point.

#include "coll/select.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <string_view>

#include "coll/choice_counters.h"
#include "common/config.h"
#include "common/debug.h"
#include "mpi.h"

namespace ferry::coll {
namespace {

constexpr size_t kAny = std::numeric_limits<size_t>::max();
constexpr size_t KiB = 1024;
constexpr int kAnyRanks = std::numeric_limits<int>::max();

struct OperationInfo {
  Operation op;
  const char* name;     // as FERRY_DEBUG prints it
  const char* setting;  // FERRY_<OPERATION>_ALGORITHM
};

constexpr std::array kOperations = {
    OperationInfo{Operation::kAllreduce, "allreduce", "FERRY_ALLREDUCE_ALGORITHM"},
    OperationInfo{Operation::kReduce, "reduce", "FERRY_REDUCE_ALGORITHM"},
    OperationInfo{Operation::kReduceScatter, "reduce_scatter", "FERRY_REDUCE_SCATTER_ALGORITHM"},
    OperationInfo{Operation::kReduceScatterBlock, "reduce_scatter_block", "FERRY_REDUCE_SCATTER_BLOCK_ALGORITHM"},
    OperationInfo{Operation::kScan, "scan", "FERRY_SCAN_ALGORITHM"},
    OperationInfo{Operation::kExscan, "exscan", "FERRY_EXSCAN_ALGORITHM"},
    OperationInfo{Operation::kBarrier, "barrier", "FERRY_BARRIER_ALGORITHM"},
    OperationInfo{Operation::kBcast, "bcast", "FERRY_BCAST_ALGORITHM"},
    OperationInfo{Operation::kGather, "gather", "FERRY_GATHER_ALGORITHM"},
    OperationInfo{Operation::kScatter, "scatter", "FERRY_SCATTER_ALGORITHM"},
    OperationInfo{Operation::kAllgather, "allgather", "FERRY_ALLGATHER_ALGORITHM"},
    OperationInfo{Operation::kAlltoall, "alltoall", "FERRY_ALLTOALL_ALGORITHM"},
};

struct AlgorithmInfo {
  Operation op;
  Algorithm algorithm;
  const char* name;  // as FERRY_<OPERATION>_ALGORITHM spells it
  // Reorders the operands (MPI-3.1 §5.9.1 requires rank order for
  // non-commutative operations): skipped for them.
  bool commutative_only;
};

// Which algorithms each operation has. Only the ring and pairwise exchange
// combine contributions out of rank order; every other reduction here
// combines contiguous rank ranges, lower ranks first.
constexpr std::array kAlgorithms = {
    AlgorithmInfo{Operation::kAllreduce, Algorithm::kRecursiveDoubling, "recursive_doubling", false},
    AlgorithmInfo{Operation::kAllreduce, Algorithm::kRing, "ring", true},
    AlgorithmInfo{Operation::kAllreduce, Algorithm::kTree, "tree", false},
    AlgorithmInfo{Operation::kAllreduce, Algorithm::kRabenseifner, "rabenseifner", false},
    AlgorithmInfo{Operation::kReduce, Algorithm::kBinomial, "binomial", false},
    AlgorithmInfo{Operation::kReduce, Algorithm::kReduceScatterGather, "reduce_scatter_gather", false},
    AlgorithmInfo{Operation::kReduce, Algorithm::kHalves, "halves", true},
    AlgorithmInfo{Operation::kReduceScatter, Algorithm::kPairwise, "pairwise", true},
    AlgorithmInfo{Operation::kReduceScatter, Algorithm::kRecursiveHalving, "recursive_halving", false},
    AlgorithmInfo{Operation::kReduceScatterBlock, Algorithm::kPairwise, "pairwise", true},
    AlgorithmInfo{Operation::kReduceScatterBlock, Algorithm::kRecursiveHalving, "recursive_halving", false},
    AlgorithmInfo{Operation::kScan, Algorithm::kRecursiveDoubling, "recursive_doubling", false},
    AlgorithmInfo{Operation::kExscan, Algorithm::kRecursiveDoubling, "recursive_doubling", false},
    AlgorithmInfo{Operation::kScan, Algorithm::kPipelinedChain, "pipelined_chain", false},
    AlgorithmInfo{Operation::kExscan, Algorithm::kPipelinedChain, "pipelined_chain", false},
    AlgorithmInfo{Operation::kBarrier, Algorithm::kDissemination, "dissemination", false},
    AlgorithmInfo{Operation::kBcast, Algorithm::kBinomial, "binomial", false},
    AlgorithmInfo{Operation::kBcast, Algorithm::kScatterRingAllgather, "scatter_ring_allgather", false},
    AlgorithmInfo{Operation::kBcast, Algorithm::kPipelinedChain, "pipelined_chain", false},
    AlgorithmInfo{Operation::kGather, Algorithm::kBinomial, "binomial", false},
    AlgorithmInfo{Operation::kGather, Algorithm::kLinear, "linear", false},
    AlgorithmInfo{Operation::kScatter, Algorithm::kBinomial, "binomial", false},
    AlgorithmInfo{Operation::kScatter, Algorithm::kLinear, "linear", false},
    AlgorithmInfo{Operation::kAllgather, Algorithm::kRing, "ring", false},
    AlgorithmInfo{Operation::kAllgather, Algorithm::kRecursiveDoubling, "recursive_doubling", false},
    AlgorithmInfo{Operation::kAllgather, Algorithm::kBruck, "bruck", false},
    AlgorithmInfo{Operation::kAlltoall, Algorithm::kPairwise, "pairwise", false},
    AlgorithmInfo{Operation::kAlltoall, Algorithm::kBruck, "bruck", false},
    AlgorithmInfo{Operation::kBarrier, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kBcast, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kGather, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kScatter, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kAllgather, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kAlltoall, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kReduce, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kAllreduce, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kReduceScatter, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kReduceScatterBlock, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kScan, Algorithm::kSharedMemory, "shared_memory", false},
    AlgorithmInfo{Operation::kExscan, Algorithm::kSharedMemory, "shared_memory", false},
    // Hierarchical reductions combine each host's ranks first, and a host's
    // ranks need not be a contiguous range (MPI-3.1 §5.9.1 requires rank
    // order for non-commutative operations): commutative only.
    AlgorithmInfo{Operation::kAllreduce, Algorithm::kHierarchical, "hierarchical", true},
    AlgorithmInfo{Operation::kReduce, Algorithm::kHierarchical, "hierarchical", true},
    AlgorithmInfo{Operation::kBcast, Algorithm::kHierarchical, "hierarchical", false},
    AlgorithmInfo{Operation::kBarrier, Algorithm::kHierarchical, "hierarchical", false},
    AlgorithmInfo{Operation::kAllgather, Algorithm::kHierarchical, "hierarchical", false},
};

struct Rule {
  Operation op;
  size_t max_bytes;  // the rule applies up to this many bytes per rank (inclusive)
  int min_ranks;     // ... on communicators of at least this many ranks
  Algorithm algorithm;
  bool power_of_two_only = false;  // ... whose size is a power of two
  int max_ranks = kAnyRanks;         // ... of at most this many ranks
  bool non_power_of_two_only = false;  // ... whose size is not a power of two
  // ... that span hosts, where a chain along the ranks goes from host to
  // host at most ceil(lg p) times (recursive doubling's rounds)
  bool few_chain_crossings_only = false;
};

// clang-format off
constexpr std::array kRules = {
    // Shared memory (coll/shm) first, wherever Query::shared_memory says it
    // can run (blocking calls, one host, data that fits a cell): no
    // message at all. Measured with tests/bench/coll_sweep.c, FERRY_COLL_SHM
    // on vs off, 8 B-16 KiB, min of 5 runs, t_avg in us (docs/performance.md,
    // 2026-11-29): on 2 ranks shared memory wins every collective at every
    // size to 8 KiB (bcast 8 B 0.13 vs 0.36, allreduce 0.30 vs 1.09, 4 KiB
    // bcast 0.35 vs 4.98); at 16 KiB bcast, scatter and allreduce still win
    // and reduce, gather, allgather, alltoall lose by up to 1.5x on the min
    // but win or tie on the median (noise at this load: 2-5x). On 4 ranks
    // (oversubscribed on 2 cores) messages won small rooted calls (reduce,
    // gather to 4 KiB, bcast and scatter to 64 B: 0.4-1.5 us vs ~5) because
    // eager senders run ahead without bound while a cell's two slots bound
    // them; but on a communicator with a segment the message path first
    // agrees with the others on the segment (shm/agreement.h), which takes
    // that run-ahead away: forced to binomial there, reduce, gather and bcast
    // took 13-1400 us against shared memory's 5-12. So no row stops below
    // the cell; above it the message-based rows below.
    Rule{Operation::kBarrier,    kAny,      2, Algorithm::kSharedMemory},
    Rule{Operation::kBcast,      kAny,      2, Algorithm::kSharedMemory},
    Rule{Operation::kGather,     kAny,      2, Algorithm::kSharedMemory},
    Rule{Operation::kScatter,    kAny,      2, Algorithm::kSharedMemory},
    Rule{Operation::kAllgather,  kAny,      2, Algorithm::kSharedMemory},
    Rule{Operation::kAlltoall,   kAny,      2, Algorithm::kSharedMemory},
    Rule{Operation::kReduce,     kAny,      2, Algorithm::kSharedMemory},
    Rule{Operation::kAllreduce,  kAny,      2, Algorithm::kSharedMemory},
    // Scans and reduce_scatter likewise (2026-11-29, 2 ranks, loaded host,
    // min of 40 x 500 calls: 8 B scan 0.76 us by messages).
    Rule{Operation::kReduceScatter,      kAny, 2, Algorithm::kSharedMemory},
    Rule{Operation::kReduceScatterBlock, kAny, 2, Algorithm::kSharedMemory},
    Rule{Operation::kScan,       kAny,      2, Algorithm::kSharedMemory},
    Rule{Operation::kExscan,     kAny,      2, Algorithm::kSharedMemory},
    // Across hosts, where Query::hierarchical says coll/hier can run the
    // call (hier/algorithms.h): the ranks of each host meet in shared
    // memory and only one leader per host sends, so a host link carries one
    // message where the flat algorithms send one per rank. Measured on the
    // three-host test bed (6 ranks, 2 per host, one 2-core machine under a
    // load of 6-8; coll_sweep t_avg, min of 3 alternating runs,
    // hierarchical / flat; docs/performance.md "Hierarchical collectives",
    // 2026-11-29): allreduce 0.41-1.05 at 8 B-64 KiB but for two noisy
    // sizes (16 B 1.99, 256 B 1.36), barrier 0.76, allgather 0.26-0.88 at
    // every size; bcast 0.57-0.91 at most sizes to 16 KiB (noisy: 5.4 at
    // 32 B) and 1.65-2.23 at 32-64 KiB; reduce lost at most sizes (0.58-6.3,
    // median 2.2: the flat binomial's non-root ranks send eagerly and run
    // ahead of the root without bound, where a host segment's two slots
    // hold them), so reduce takes it only where FERRY_COLL_HIER=on or
    // FERRY_REDUCE_ALGORITHM=hierarchical asks.
    Rule{Operation::kBarrier,    kAny,      3, Algorithm::kHierarchical},
    Rule{Operation::kBcast,      16 * KiB,  3, Algorithm::kHierarchical},
    Rule{Operation::kAllreduce,  kAny,      3, Algorithm::kHierarchical},
    Rule{Operation::kAllgather,  kAny,      3, Algorithm::kHierarchical},
    // Allreduce. Small vectors: latency decides, and recursive doubling has
    // the fewest rounds (lg p); on up to 4 ranks its exchanges of the whole
    // vector stay ahead up to 512 KiB, on more ranks only to about 48 KiB.
    // Then Rabenseifner: 2n bytes in 2 lg p rounds. On 2 ranks the ring moves
    // the same bytes as Rabenseifner with a segment of scratch instead of
    // n/2, and won by 1.2-2x from 1 MiB (scratch page faults dominate
    // here). The tree never won outside oversubscribed runs (where its few
    // messages in flight tie with recursive doubling for small vectors): it
    // is available through the override. Non-commutative operations skip
    // the ring and get Rabenseifner.
    Rule{Operation::kAllreduce,  512 * KiB, 2, Algorithm::kRecursiveDoubling, false, 4},
    Rule{Operation::kAllreduce,  32 * KiB,  5, Algorithm::kRecursiveDoubling},
    Rule{Operation::kAllreduce,  kAny,      2, Algorithm::kRing, false, 2},
    Rule{Operation::kAllreduce,  kAny,      1, Algorithm::kRabenseifner},

    // Reduce: the binomial tree (lg p rounds of n bytes; non-root ranks
    // leave as soon as they have sent) up to 512 KiB; beyond, on 4 or more
    // ranks, reduce-scatter + gather, whose root link carries 2n bytes
    // instead of n lg p (1.4-2.4x faster at 2 MiB on 4-8 ranks). On two
    // ranks the binomial tree at every size: since its root receives into
    // recvbuf and combines its input there (two passes over n, no copy,
    // no scratch), halves (each rank combines half, the root n/2, but two
    // rounds that both ranks must be running for) lost at every size from
    // 256 KiB (coll_sweep -n 2, float sum, 8 alternating runs at load 10,
    // median of pair ratios binomial / halves: 256 KiB 0.48, 512 KiB 0.47,
    // 1 MiB 0.54, 2 MiB 0.57, 4 MiB 0.49; min us 512 KiB 72 / 135, 4 MiB
    // 391 / 952). Before (three passes on the root) halves won from 512 KiB
    // at load 2 (89 / 62 us); reduce/halves.cc stays for the override.
    Rule{Operation::kReduce,     512 * KiB, 1, Algorithm::kBinomial},
    Rule{Operation::kReduce,     kAny,      4, Algorithm::kReduceScatterGather},
    Rule{Operation::kReduce,     kAny,      1, Algorithm::kBinomial},

    // Reduce_scatter(_block), `bytes` being the whole vector: recursive
    // halving (lg p rounds) up to 64 KiB; beyond, pairwise exchange (each
    // block sent once, straight to its rank) on up to 7 ranks, recursive
    // halving again on more, where pairwise's p-1 rounds cost more than
    // halving's extra local copy.
    Rule{Operation::kReduceScatter,      64 * KiB, 1, Algorithm::kRecursiveHalving},
    Rule{Operation::kReduceScatter,      kAny,     2, Algorithm::kPairwise, false, 7},
    Rule{Operation::kReduceScatter,      kAny,     1, Algorithm::kRecursiveHalving},
    Rule{Operation::kReduceScatterBlock, 64 * KiB, 1, Algorithm::kRecursiveHalving},
    Rule{Operation::kReduceScatterBlock, kAny,     2, Algorithm::kPairwise, false, 7},
    Rule{Operation::kReduceScatterBlock, kAny,     1, Algorithm::kRecursiveHalving},

    // Scans. Recursive doubling has the fewest rounds (lg p) but every
    // rank exchanges and combines the whole vector in each; the pipelined
    // chain combines each element once per rank and keeps every link busy
    // once its segments (FERRY_COLL_SEGMENT_SIZE, 256 KiB) outnumber the
    // hops. Measured on 4 ranks on 2 cores (coll_sweep t_avg, best of 3 at
    // load 5, recursive doubling / chain, us): scan 128 KiB 260 / 85, 1 MiB
    // 2470 / 1030, 4 MiB 11700 / 5430 (Open MPI, quiet: 40, 550, 2180); 3
    // ranks 1 MiB 1280 / 740; quiet, 64 / 128 KiB 67 / 45-52 and 113 /
    // 70-78 (segments of 32 or 64 KiB were slower than 256). With one
    // segment the chain's p - 1 hops lose to lg p rounds where each rank has
    // a core of its own (not measured here): so above 64 KiB on up to 4
    // ranks; on 5-8 ranks above 1 MiB,
    // where there are at least 4 segments (a chain of 7 hops with one
    // segment would take 7 message times against lg 8 = 3).
    //
    // Across hosts, where a chain along the ranks goes from host to host
    // at most ceil(lg p) times (Query::chain_crossings: hosts - 1 where each
    // holds consecutive ranks), the chain at every size on up to 8 ranks:
    // it sends no more messages between hosts than recursive doubling has
    // rounds, each of which crosses hosts, its other hops are messages
    // within a host, and a rank that has passed its prefix on is free (one
    // rank per hop must run, not all in each round). Three-host test bed, 6 ranks, 2 per host (coll_sweep t_avg,
    // us, recursive doubling / chain, 2026-12-01): 8 B-64 KiB 560-900 /
    // 8-120 (waits that block: 36-155 / 10-110); 128 KiB-1 MiB 2450-5960 /
    // 1150-4340; 2-4 MiB within the spread (9260-23660 / 8480-25130),
    // where 5-8 ranks take the chain anyway. Ranks dealt to the hosts in
    // turn (--map-by node): 730-1020 / 5-190, but each hop crosses hosts
    // there, so a scan alone would take p - 1 messages against lg p. One
    // scan alone (a barrier before each, slowest rank's time, waits that
    // block): 6 ranks 46-106 / 43-82; 3 ranks, one per host (no hierarchy,
    // so recursive doubling), 42-54 / 47-61.
    Rule{Operation::kScan,       kAny,      3, Algorithm::kPipelinedChain, false, 8, false, /*few_chain_crossings_only=*/true},
    Rule{Operation::kScan,       64 * KiB,  1, Algorithm::kRecursiveDoubling},
    Rule{Operation::kScan,       kAny,      3, Algorithm::kPipelinedChain, false, 4},
    Rule{Operation::kScan,       1024 * KiB, 1, Algorithm::kRecursiveDoubling},
    Rule{Operation::kScan,       kAny,      5, Algorithm::kPipelinedChain, false, 8},
    Rule{Operation::kScan,       kAny,      1, Algorithm::kRecursiveDoubling},
    Rule{Operation::kExscan,     kAny,      3, Algorithm::kPipelinedChain, false, 8, false, /*few_chain_crossings_only=*/true},
    Rule{Operation::kExscan,     64 * KiB,  1, Algorithm::kRecursiveDoubling},
    Rule{Operation::kExscan,     kAny,      3, Algorithm::kPipelinedChain, false, 4},
    Rule{Operation::kExscan,     1024 * KiB, 1, Algorithm::kRecursiveDoubling},
    Rule{Operation::kExscan,     kAny,      5, Algorithm::kPipelinedChain, false, 8},
    Rule{Operation::kExscan,     kAny,      1, Algorithm::kRecursiveDoubling},

    // The data-movement collectives and barrier. `bytes` is what one rank
    // sends: the whole message for bcast, one rank's block for gather,
    // scatter and allgather, the block for one peer for alltoall. The v and
    // w forms have one algorithm each (gatherv, scatterv: linear;
    // allgatherv: ring; alltoallv, alltoallw: pairwise) and no row.
    // Measured with tests/bench/coll_bcast.c and coll_alltoall.c (median
    // latency, a barrier before each call) on the same host, where one
    // message round costs ~30-70 us: the crossovers below lean towards
    // fewer rounds than they would on a fabric with microsecond latency.
    Rule{Operation::kBarrier,    kAny,      1, Algorithm::kDissemination},

    // Bcast: binomial tree (lg p rounds of n bytes) for short messages, and
    // for medium ones below 8 ranks (lg p <= 2n/n there; 3 and 4 ranks:
    // binomial 0.12-0.31 ms at 256 KiB vs 0.24-0.30 scatter + ring). From 8
    // ranks scatter + ring allgather moves ~2n per link instead of n lg p.
    // Long messages: the pipelined chain moves ~n per link (3-4 ranks,
    // 1-2 MiB: chain 0.40-1.27 ms, scatter + ring 0.47-1.45, binomial
    // 0.41-1.78; noisy, the chain's advantage grows with p and n).
    Rule{Operation::kBcast,      12 * KiB,  1, Algorithm::kBinomial},
    Rule{Operation::kBcast,      512 * KiB, 8, Algorithm::kScatterRingAllgather},
    Rule{Operation::kBcast,      512 * KiB, 1, Algorithm::kBinomial},
    Rule{Operation::kBcast,      kAny,      3, Algorithm::kPipelinedChain},
    Rule{Operation::kBcast,      kAny,      1, Algorithm::kBinomial},

    // Gather and scatter: the binomial tree's lg p rounds for short blocks;
    // for long ones every block straight to or from the root, once, where
    // the tree forwards half of them through other ranks. Measured on 4
    // ranks on 2 cores (coll_sweep t_avg, best of 3 at load 5, binomial /
    // linear, us): scatter 256 KiB 107 / 51, 1 MiB 544 / 325, 4 MiB 2280 /
    // 1200; gather 512 KiB 690 / 430, 2 MiB 1300 / 890, 4 MiB 2400 / 1860;
    // 32-128 KiB within the noise either way (the cell, 16 KiB or 64 where
    // ranks outnumber cores, ends the shared-memory rows above).
    Rule{Operation::kGather,     16 * KiB,  1, Algorithm::kBinomial},
    Rule{Operation::kGather,     kAny,      1, Algorithm::kLinear},
    Rule{Operation::kScatter,    16 * KiB,  1, Algorithm::kBinomial},
    Rule{Operation::kScatter,    kAny,      1, Algorithm::kLinear},

    // Allgather: lg p rounds for short blocks (recursive doubling on powers
    // of two, Bruck otherwise, which needs a final local rotation; 4 ranks,
    // up to 16 KiB: both ~90 us, ring ~105); the ring for long ones, where
    // bandwidth rules and neighbours are cheapest (3 ranks, 512 KiB: ring
    // 0.57 ms, Bruck 0.73, recursive doubling 1.06).
    Rule{Operation::kAllgather,  16 * KiB,  1, Algorithm::kRecursiveDoubling, true},
    Rule{Operation::kAllgather,  16 * KiB,  1, Algorithm::kBruck},
    Rule{Operation::kAllgather,  kAny,      1, Algorithm::kRing},

    // Alltoall: Bruck's lg p rounds (each moving n/2 per peer) win for
    // small blocks; pairwise exchange (p-1 rounds, each block sent once)
    // otherwise. 4 ranks, 1 KiB: Bruck 87 us, pairwise 125; 8 ranks: 317 vs
    // 684; crossover ~8 KiB here, 256 B in MPICH's tuning for fast fabrics.
    Rule{Operation::kAlltoall,   2 * KiB,   4, Algorithm::kBruck},
    Rule{Operation::kAlltoall,   kAny,      1, Algorithm::kPairwise},
};
// clang-format on


const OperationInfo* info_of(Operation op) {
  for (const OperationInfo& o : kOperations)
    if (o.op == op) return &o;
  return nullptr;
}

const AlgorithmInfo* info_of(Operation op, Algorithm a) {
  for (const AlgorithmInfo& i : kAlgorithms)
    if (i.op == op && i.algorithm == a) return &i;
  return nullptr;
}

std::string valid_names(Operation op) {
  std::string names;
  for (const AlgorithmInfo& i : kAlgorithms) {
    if (i.op != op) continue;
    names += i.name;
    names += ", ";
  }
  return names + "auto";
}

// The override of one operation: nothing ("auto"), an algorithm, or an error.
struct Override {
  bool set = false;
  Algorithm algorithm{};
  std::string error;
};

Override read_override(const OperationInfo& o) {
  Override result;
  std::string value = config::value(o.setting);
  if (value.empty() || value == "auto") return result;
  for (const AlgorithmInfo& i : kAlgorithms) {
    if (i.op == o.op && value == i.name) {
      result.set = true;
      result.algorithm = i.algorithm;
      return result;
    }
  }
  result.error = std::string(o.setting) + "=" + value + ": unknown " + o.name + " algorithm (valid: " +
                 valid_names(o.op) + ")";
  return result;
}

// Overrides are read once: the environment does not change under a job.
// Every collective call asks, so the answer is one indexed load behind a
// function-local static's guard: std::call_once set two thread-locals and
// called pthread_once at each call, and the search of kOperations added a
// compare per operation (about 100 instructions of a small collective's
// choice, issue 29).
constexpr size_t kOperationCount = static_cast<size_t>(Operation::kAlltoall) + 1;
static_assert(kOperations.size() == kOperationCount, "one OperationInfo per Operation");
constexpr bool each_operation_once() {
  std::array<bool, kOperationCount> seen{};
  for (const OperationInfo& o : kOperations) {
    size_t i = static_cast<size_t>(o.op);
    if (i >= kOperationCount || seen[i]) return false;
    seen[i] = true;
  }
  return true;
}
static_assert(each_operation_once(), "kOperations names every Operation once (override_of indexes by it)");

const Override& override_of(Operation op) {
  static const std::array<Override, kOperationCount> overrides = [] {
    std::array<Override, kOperationCount> all;
    for (const OperationInfo& o : kOperations) all[static_cast<size_t>(o.op)] = read_override(o);
    return all;
  }();
  return overrides[static_cast<size_t>(op)];
}

// Whether the first row of `op` takes shared memory at any size and on any
// communicator of 2 or more ranks (shared_memory_whenever_possible).
constexpr bool shared_memory_first(Operation op) {
  for (const Rule& r : kRules) {
    if (r.op != op) continue;
    return r.algorithm == Algorithm::kSharedMemory && r.max_bytes == kAny && r.min_ranks <= 2 &&
           r.max_ranks == kAnyRanks && !r.power_of_two_only && !r.non_power_of_two_only &&
           !r.few_chain_crossings_only;
  }
  return false;
}

// A chain along the ranks sends no more messages between hosts than
// recursive doubling has rounds, each of which crosses hosts.
bool few_chain_crossings(const Query& q) {
  const int rounds = std::bit_width(static_cast<unsigned>(q.ranks - 1));  // ceil(lg p)
  return q.chain_crossings >= 0 && q.chain_crossings <= rounds;
}

Algorithm from_table(Operation op, const Query& q) {
  for (const Rule& r : kRules) {
    if (r.op != op || q.bytes > r.max_bytes || q.ranks < r.min_ranks) continue;
    const bool power_of_two = (q.ranks & (q.ranks - 1)) == 0;
    if (q.ranks > r.max_ranks || (r.power_of_two_only && !power_of_two) ||
        (r.non_power_of_two_only && power_of_two))
      continue;
    if (r.algorithm == Algorithm::kSharedMemory && !q.shared_memory) continue;
    if (r.algorithm == Algorithm::kHierarchical && !q.hierarchical) continue;
    if (r.few_chain_crossings_only && !few_chain_crossings(q)) continue;
    // The algorithm table is looked up only for a non-commutative operation
    // (a scan of every algorithm, the most of a small call's choice).
    if (!q.commutative && info_of(op, r.algorithm)->commutative_only) continue;
    return r.algorithm;
  }
  // Unreachable while every operation ends with a catch-all row that suits
  // non-commutative operations.
  return kRules[0].algorithm;
}

// "4 MiB", "12 KiB", "100 B": exact sizes stay exact.
void format_bytes(size_t bytes, char* out, size_t n) {
  if (bytes >= KiB * KiB && bytes % (KiB * KiB) == 0) std::snprintf(out, n, "%zu MiB", bytes / (KiB * KiB));
  else if (bytes >= KiB && bytes % KiB == 0) std::snprintf(out, n, "%zu KiB", bytes / KiB);
  else std::snprintf(out, n, "%zu B", bytes);
}

}  // namespace

Err select(Operation op, const Query& q, Algorithm* out) {
  const Override& o = override_of(op);
  if (!o.error.empty()) return Err(MPI_ERR_ARG, o.error);
  const char* why = "";
  // The two-rank reduce (reduce/halves.cc) runs on two ranks only.
  const bool two_ranks = o.algorithm != Algorithm::kHalves || q.ranks == 2;
  const bool can = o.set && two_ranks && (q.commutative || !info_of(op, o.algorithm)->commutative_only) &&
                   (o.algorithm != Algorithm::kSharedMemory || q.shared_memory) &&
                   (o.algorithm != Algorithm::kHierarchical || q.hierarchical);
  const bool forced = q.hierarchical && q.hierarchical_forced && offers(op, Algorithm::kHierarchical) &&
                      (q.commutative || !info_of(op, Algorithm::kHierarchical)->commutative_only);
  if (can) {
    *out = o.algorithm;
    why = " (set by ";
  } else if (forced) {
    *out = Algorithm::kHierarchical;
  } else {
    *out = from_table(op, q);
    if (o.set)
      why = !two_ranks                                 ? " (not two ranks: ignoring "
            : o.algorithm == Algorithm::kSharedMemory   ? " (shared memory cannot run this call: ignoring "
            : o.algorithm == Algorithm::kHierarchical ? " (hierarchical cannot run this call: ignoring "
                                                      : " (non-commutative op: ignoring ";
  }
  count_choice(op, *out, q);
  if (debug::on(debug::kColl)) {
    char size[32];
    format_bytes(q.bytes, size, sizeof size);
    if (forced && !can)
      debug::print("%s%s%s %s on %d ranks: %s (set by FERRY_COLL_HIER)", q.prefix, name(op), q.suffix, size, q.ranks,
                   name(*out));
    else if (*why == 0)
      debug::print("%s%s%s %s on %d ranks: %s", q.prefix, name(op), q.suffix, size, q.ranks, name(*out));
    else
      debug::print("%s%s%s %s on %d ranks: %s%s%s)", q.prefix, name(op), q.suffix, size, q.ranks, name(*out), why,
                   info_of(op)->setting);
  }
  return {};
}

static_assert(kOperationCount <= std::size(select_detail::whenever));

bool select_detail::find_whenever(Operation op) {
  // The override is read once (override_of); the table never changes.
  static const std::array<bool, kOperationCount> always = [] {
    std::array<bool, kOperationCount> all{};
    for (const OperationInfo& i : kOperations) {
      const Override& o = override_of(i.op);
      all[static_cast<size_t>(i.op)] = shared_memory_first(i.op) && o.error.empty() &&
                                       (!o.set || o.algorithm == Algorithm::kSharedMemory);
    }
    return all;
  }();
  const bool yes = always[static_cast<size_t>(op)];
  whenever[static_cast<size_t>(op)].store(yes ? 1 : 2, std::memory_order_relaxed);
  return yes;
}

const char* name(Operation op) {
  const OperationInfo* o = info_of(op);
  return o != nullptr ? o->name : "collective";
}

bool offers(Operation op, Algorithm a) { return info_of(op, a) != nullptr; }

const char* name(Algorithm a) {
  for (const AlgorithmInfo& i : kAlgorithms)
    if (i.algorithm == a) return i.name;
  return "?";
}

std::optional<std::string> validate_settings() {
  for (const OperationInfo& o : kOperations) {
    const Override& v = override_of(o.op);
    if (!v.error.empty()) return v.error;
  }
  return std::nullopt;
}

size_t pipeline_segment_bytes() {
  // Default 256 KiB: with 64 KiB the ring was 10-40% slower at 1-4 MiB on
  // 2 and 4 ranks (more rounds), 1 MiB was no better (less overlap along
  // the ring). Read once; at least one byte (a segment holds one element).
  static const size_t bytes = static_cast<size_t>(std::max<int64_t>(1, config::integer("FERRY_COLL_SEGMENT_SIZE")));
  return bytes;
}

size_t pipeline_max_segments() {
  static const size_t most = static_cast<size_t>(std::max<int64_t>(0, config::integer("FERRY_COLL_MAX_SEGMENTS")));
  return most;
}

}  // namespace ferry::coll
