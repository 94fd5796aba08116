// Scan and exscan beyond a cell (the blocking forms, where scan_streams
// says, algorithms.h): a chain through the ranks' cells within one
// operation number, as the message-based pipelined chain runs but in chunks
// (CommSegment::chunk_bytes) and with no message. Rank r takes chunk j of the prefix of
// ranks 0..r-1 from rank r-1's cell j % kCells, combines it into its own
// chunk j in its own cell (prefix op mine: the order MPI-3.1 §5.11.1 asks,
// also of a non-commutative operation), and counts the chunk (segment.h,
// count_chunks). That count tells rank r+1 that the prefix of 0..r is
// there, and tells rank r-1 that rank r has taken its chunk j, so that
// r-1 may fill that cell again kCells chunks later: one word per rank
// serves both neighbours. Every rank but rank 0 (and an exscan's last,
// which only copies) applies the operation once per element, and while
// rank r combines chunk j, rank r+1 combines chunk j-1: the work of
// n ranks overlaps where the message chain sends whole segments of 256 KiB
// hop by hop (issue 29: Exscan of 512 KiB at 4 ranks, 1.45-1.51x Open
// MPI's linear exscan).
//
// The cells hold the signature's basic elements packed (scan_streams: a
// predefined operation with a kernel for them), so ranks that pass other
// layouts of one signature agree on the bytes and on the chunks. A rank
// whose predecessor recorded other bytes fails (naming it), and so does
// every rank after it: one whose own size differs from its predecessor's
// on that check, one whose size matches on finding its predecessor left
// without counting (predecessor_failed then names the rank whose size
// differs).
#include <algorithm>

#include "base/op.h"
#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/cells.h"
#include "coll/shm/stream.h"

namespace ferry::coll::shm {
namespace {

// My predecessor left without its chunks: it failed its check, on a rank
// before it whose size differs from its own, which is mine. That rank is
// the error, as where I had read its cell myself (reduce.cc's scan).
Err predecessor_failed(CommSegment& seg, uint64_t s, size_t bytes, bool exclusive) {
  for (int r = 0; r < seg.rank() - 1; ++r) {
    if (Err w = seg.wait_arrived(r, s)) return w;
    if (Err e = check(seg, r, s, bytes)) return e;
  }
  return fail(MPI_ERR_OTHER, "rank %d, before this one in the %s, failed its part", seg.rank() - 1,
              exclusive ? "exscan" : "scan");
}

}  // namespace

Err scan_in_chunks(CommSegment& seg, uint64_t s, const void* sendbuf, void* recvbuf, MPI_Count count,
                   const Datatype* type, const Op* op, bool exclusive) {
  const int me = seg.rank();
  const int last = seg.size() - 1;
  const size_t bytes = type->bytes(count);
  const Datatype* basic = find_datatype(type->single_basic());
  // Whole elements per chunk, so that the kernel never splits one.
  const size_t chunk = seg.chunk_bytes() / basic->size * basic->size;
  const uint64_t chunks = (bytes + chunk - 1) / chunk;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const void* mine = in_place ? recvbuf : sendbuf;
  // My cells may hold my earlier operations' data, which others may still read.
  if (Err e = seg.wait_all_left(s - 1)) return e;
  seg.start_chunks(s);
  seg.record_data(s, bytes);  // the size, for my successor's check; the prefix follows chunk by chunk
  Err e;
  if (me > 0) {
    if (Err w = seg.wait_arrived(me - 1, s)) return w;
    e = check(seg, me - 1, s, bytes);
  }
  for (uint64_t j = 0; e.ok() && j < chunks; ++j) {
    // My successor has combined my chunk j - kCells: that cell is free again.
    if (me < last && j >= CommSegment::kCells)
      if (Err w = seg.wait_chunks(me + 1, s, j - CommSegment::kCells + 1)) return w;
    const char* prefix = nullptr;
    if (me > 0) {
      if (Err w = seg.wait_chunks(me - 1, s, j + 1)) return w;
      if (!seg.counted(me - 1, s, j + 1)) {
        e = predecessor_failed(seg, s, bytes, exclusive);
        break;
      }
      prefix = seg.chunk_cell(me - 1, j);
    }
    const uint64_t from = j * chunk;
    const size_t n = std::min<size_t>(chunk, bytes - from);
    if (exclusive && me == last) {
      // Its own operand is nobody's: only the prefix, into recvbuf.
      from_cell_range(prefix, from, n, recvbuf, count, type);
    } else {
      char* cell = seg.chunk_cell(me, j);
      to_cell_range(mine, count, type, from, n, cell);
      if (prefix != nullptr) apply(*op, prefix, cell, static_cast<MPI_Count>(n / basic->size), *basic);
      // In place, my chunk j of recvbuf is in my cell before this overwrites it.
      if (exclusive && prefix != nullptr) from_cell_range(prefix, from, n, recvbuf, count, type);
      if (!exclusive && !(me == 0 && in_place)) from_cell_range(cell, from, n, recvbuf, count, type);
    }
    seg.count_chunks(s, j + 1);
  }
  seg.publish_and_leave(s);
  // My cells hold my prefix until my successor is done with it.
  if (me < last)
    if (Err w = seg.wait_left_by(me + 1, s)) return w;
  return e;
}

}  // namespace ferry::coll::shm
