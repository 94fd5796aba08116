// Shared-memory collectives among the ranks of a communicator that all
// share one host (coll/shm, segment.h): data moves by loads and stores
// through each rank's cell and flags, with no message. Chosen by the
// selection table (select.cc, algorithm "shared_memory") for blocking
// calls whose data fits a cell (reduce_scatter: a rank's whole input;
// bcast, gather, reduce and scans also beyond, streamed through the
// writers' cells: bcast_streams, gather_streams, reduce_streams,
// scan_streams);
// the nonblocking forms of barrier, bcast, gather, scatter, allgather,
// alltoall, reduce and allreduce run the same steps through started.h;
// the other nonblocking forms and every persistent one keep the
// message-based algorithms.
//
// Cost, for n ranks and b bytes: one flag store per rank, and each rank
// waits on the flags of the ranks whose cells it reads (all of them for
// barrier, allreduce, allgather, alltoall, reduce_scatter; the root's for
// bcast and scatter; the root waits on all for reduce and gather; rank r
// on ranks 0..r for scan). Data: one copy
// into the writer's cell, one out of it per reader; reductions apply the
// operation n-1 times on every rank that needs the result (allreduce: every
// rank, in rank order, so every rank gets the same bits and
// non-commutative operations are applied as MPI-3.1 §5.9.1 requires).
// Beyond a cell, a streamed bcast, gather or reduce moves at most the
// same copies chunk by chunk; a streamed scan is a chain instead: rank r waits on rank
// r-1 alone and applies the operation once per element (rank 0 and an
// exscan's last rank only copy).
//
// A call whose wait ends because the communicator was revoked (wait.h)
// returns MPIX_ERR_REVOKED at once, its flags left as they are: no later
// collective on the communicator uses the segment.
#pragma once

#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "coll/count_array.h"
#include "coll/shm/segment.h"

namespace ferry::coll::shm {

Err barrier(CommSegment& seg);
Err bcast(CommSegment& seg, void* buf, MPI_Count count, const Datatype* type, int root);
// Whether a blocking bcast of `bytes`, more than a cell holds, runs on the
// segment, streamed through the root's cells (bcast.cc), rather than by a
// message schedule: where ranks share cores, from one cell on (4 ranks on
// 2 cores, 64 KiB cells, 128 KiB-4 MiB: 0.5-0.6 of the schedules' time; 3 ranks, 0.6-0.7
// from 128 KiB), else from kBcastStreamsFrom (2 ranks on 2 cores, us,
// streamed / binomial: 2 MiB 230-250 / 270-310, 4 MiB 480-490 / 510-520,
// 64 MiB 7.7-8.9 / 13.0-13.3 ms; but 1 MiB 117-122 / 88-102, 32-512 KiB
// 1.2-1.5x, where one single-copy message beats two copies through a
// cell). Every rank answers alike: the bytes agree, and so does the
// segment's ranks_share_cores().
constexpr size_t kBcastStreamsFrom = size_t{2} << 20;
inline bool bcast_streams(const CommSegment& seg, size_t bytes) {
  return (bytes >= kBcastStreamsFrom || seg.ranks_share_cores()) &&
         bytes / seg.chunk_bytes() < CommSegment::kChunkBase - 1;
}
// The same for a blocking gather of `bytes` per rank (gather.cc). The root
// copies every block out of the cells where one message would have it copy
// them straight from the ranks' buffers (single-copy), so streaming pays
// where the ranks' copies in overlap the root's: from kGatherStreamsFrom
// on ranks with cores of their own (2 ranks on 2 cores, us, streamed /
// linear: 2 MiB 361-367 / 415-427, 4 MiB 783-827 / 844-853; 1 MiB alike);
// where ranks share cores only up to kGatherStreamsUpTo, beyond which the
// extra copy costs more than the waits it saves (4 ranks on 2 cores, us,
// four alternating runs: 256 KiB 139-188 / 170-266, 512 KiB 317-334 /
// 406-484, 1 MiB 636-879 / 825-934; but 4 MiB 2508-2583 / 1654-1913).
constexpr size_t kGatherStreamsFrom = size_t{2} << 20;
constexpr size_t kGatherStreamsUpTo = size_t{1} << 20;
inline bool gather_streams(const CommSegment& seg, size_t bytes) {
  return seg.ranks_share_cores() ? bytes <= kGatherStreamsUpTo
                                 : bytes >= kGatherStreamsFrom && bytes / seg.chunk_bytes() < CommSegment::kChunkBase - 1;
}

// The same for a blocking scan or exscan of `bytes` (scan_stream.cc),
// where the data is of one basic type with a predefined operation that
// has a kernel for it (`elementwise`: the cells hold the basic elements,
// whatever layout each rank passed). Every rank combines every element
// once, as in the message chain, but a chunk passes on as soon
// as it is combined. Where ranks share cores from one cell on (us,
// alternating runs, streamed / pipelined chain: 4 ranks on 2 cores, Exscan
// 512 KiB 161-175 / 232-250, 4 MiB 1521-1695 / 2189-2439, Scan 4 MiB
// 1335-1432 / 2077-2140; 3 ranks, Exscan 1 MiB 235-308 / 507-669; 8 ranks,
// Exscan 512 KiB 460-509 / 679-779), else from 2 MiB (2 ranks, streamed /
// recursive doubling: Scan 2 MiB 315-339 / 336-361, 4 MiB 614-647 /
// 744-779, Exscan 4 MiB 404-416 / 448-460; but 1 MiB and below 1.1-2.3x,
// where one single-copy message beats two copies through a cell).
constexpr size_t kScanStreamsFrom = size_t{2} << 20;
// And for a blocking reduce (reduce_stream.cc), on the same condition:
// where ranks share cores from one cell on (4 ranks on 2 cores, us,
// alternating runs, streamed / messages (binomial to 512 KiB, then
// reduce-scatter-gather): 128 KiB 35-46 / 48-61, 256 KiB 75-87 / 98-109,
// 1 MiB 454-591 / 567-729, 4 MiB 1873-2127 / 2412-2585), else from
// kReduceStreamsFrom (2 ranks: 1 MiB 112-117 / 131-137, 8 MiB 995-1069 /
// 1284-1346; but 512 KiB 57-60 / 43-46: one single-copy message and a
// kernel reading it beat a copy into a cell).
constexpr size_t kReduceStreamsFrom = size_t{1} << 20;
inline bool reduce_streams(const CommSegment& seg, size_t bytes, bool elementwise) {
  return elementwise && (bytes >= kReduceStreamsFrom || seg.ranks_share_cores()) &&
         bytes / seg.chunk_bytes() < CommSegment::kChunkBase - 2;
}
inline bool scan_streams(const CommSegment& seg, size_t bytes, bool elementwise) {
  return elementwise && (bytes >= kScanStreamsFrom || seg.ranks_share_cores()) &&
         bytes / seg.chunk_bytes() < CommSegment::kChunkBase - 2;
}

Err gather(CommSegment& seg, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
           MPI_Count recvcount, const Datatype* recvtype, int root);
Err scatter(CommSegment& seg, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
            MPI_Count recvcount, const Datatype* recvtype, int root);
Err allgather(CommSegment& seg, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
              MPI_Count recvcount, const Datatype* recvtype);
Err alltoall(CommSegment& seg, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
             MPI_Count recvcount, const Datatype* recvtype);
// The order in which a rank combines the operands of ranks 0..last into
// its result (reduce.cc, started.cc). A commutative operation goes from
// rank 0 up, ((x0 op x1) op x2) ...: the order of a loop over the ranks and
// of the message-based algorithms on up to three ranks (binomial reduce,
// recursive doubling; a reduce to another root rotates the binomial tree),
// so that a small communicator's allreduces and reduces to rank 0 keep
// their bits whichever way they run (but for the sign of a zero under
// MIN and MAX: -0 and +0 compare equal, and which one is kept differs
// between the paths: 2 ranks, root 0, -0 through the cells, +0 by
// messages at 320-800 KB). apply() computes `in op inout`, so each step is
// x_r op acc: the same bits for a commutative operation. ScaLAPACK's
// eigensolver test xssep (PDSYEVX, N=27 on a 1x3 grid, its sums through a
// 3-rank segment) lost orthogonality in about half its runs when they went
// from the last rank down (||Q'Q - I|| 17-75 against its threshold of 50;
// 0.5-2.7 by messages and in this order), every sum exact for its order:
// why the order matters to it is not known. A non-commutative operation
// goes from the last rank down, x0 op (x1 op (... op xk)), which apply()
// computes in place with no temporary.
struct FoldOrder {
  int first;
  int step;  // +1: rank 0 up; -1: the last rank down
  int end;   // one step beyond the last rank combined
};
inline FoldOrder fold_order(const Op& op, int last) {
  if (op.commutative) return {0, 1, last + 1};
  return {last, -1, -1};
}

// Reductions: the cells hold packed data (cells.h: a rank whose datatype is
// not contiguous, such as MPI_DOUBLE_INT or a user's strided type, unpacks
// each operand).
Err reduce(CommSegment& seg, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
           int root);
Err allreduce(CommSegment& seg, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
              const Op* op);
// Scan (rank r: ranks 0..r) or exscan (0..r-1; nothing on rank 0).
// Beyond a cell (the blocking forms, where scan_streams says), a chain
// through the cells (scan_stream.cc).
Err scan(CommSegment& seg, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
         bool exclusive);
// Reduce_scatter(_block): every cell holds a rank's `total` elements; rank
// r combines its block (recvcounts[r] elements after those of ranks < r).
Err reduce_scatter(CommSegment& seg, const void* sendbuf, void* recvbuf, CountArray recvcounts, MPI_Count total,
                   const Datatype* type, const Op* op);

}  // namespace ferry::coll::shm
