// A stream: data larger than a cell moved through all kCells of the
// writer's cells within one operation (bcast.cc, gather.cc,
// reduce_stream.cc, scan_stream.cc; segment.h, count_chunks): chunk j in
// cell j % kCells, the writer filling chunk j once its readers have counted
// j - kCells, its readers counting each chunk as they take it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "base/op.h"
#include "coll/shm/agreement.h"
#include "coll/shm/cells.h"

namespace ferry::coll::shm {

// Chunks (CommSegment::chunk_bytes, each at the start of its cell) in
// `bytes`, the last one short.
inline uint64_t chunks_of(const CommSegment& seg, size_t bytes) {
  return (bytes + seg.chunk_bytes() - 1) / seg.chunk_bytes();
}

// The writer's side of operation s: `bytes` of `count` elements of `type`
// at buf, read by every other rank (`reader` < 0: a bcast's root) or by
// `reader` alone (a gather's or reduce's rank, whose root counts rounds). The writer's
// cells hold its earlier operations' data until every rank has left them,
// and this one's until its readers have left it (a later operation of the
// writer's writes a cell without looking at chunks).
inline Err write_stream(CommSegment& seg, uint64_t s, const void* buf, MPI_Count count, const Datatype* type,
                        size_t bytes, int reader) {
  const size_t chunk = seg.chunk_bytes();
  const uint64_t chunks = chunks_of(seg, bytes);
  if (Err e = seg.wait_all_left(s - 1)) return e;
  seg.start_chunks(s);
  seg.record_data(s, bytes);  // the size, for the readers' check; data follows chunk by chunk
  for (uint64_t j = 0; j < chunks; ++j) {
    if (j >= CommSegment::kCells)
      for (int r = 0; r < seg.size(); ++r)
        if (r != seg.rank() && (reader < 0 || r == reader))
          if (Err e = seg.wait_chunks(r, s, j - CommSegment::kCells + 1)) return e;
    const uint64_t from = j * chunk;
    to_cell_range(buf, count, type, from, std::min<size_t>(chunk, bytes - from), seg.chunk_cell(seg.rank(), j));
    seg.count_chunks(s, j + 1);
  }
  seg.publish_and_leave(s);
  return reader < 0 ? seg.wait_all_left(s) : seg.wait_left_by(reader, s);
}

// A root that reads streams in rounds (gather.cc, reduce_stream.cc): rank
// r's chunk j of operation s, of `bytes` from each rank, in *chunk; nullptr
// where r recorded another size (the call's error, kept in *first at round
// 0), which the root skips. At round 0 it waits for r, and at the first
// writer's arrival, which frees my slot of s, records my bytes and starts
// my count of rounds. An error return: a wait failed (revoked).
inline Err chunk_of_round(CommSegment& seg, uint64_t s, int r, uint64_t j, size_t bytes, bool* recorded, Err* first,
                          const char** chunk) {
  *chunk = nullptr;
  if (j == 0) {
    if (Err e = seg.wait_arrived(r, s)) return e;
    if (!*recorded) {
      seg.start_chunks(s);
      seg.record(s, bytes);
      *recorded = true;
    }
  }
  // A rank's record stays while I have not left s: the same answer each round.
  if (Err e = check(seg, r, s, bytes)) {
    if (j == 0 && first->ok()) *first = std::move(e);
    return {};
  }
  if (Err e = seg.wait_chunks(r, s, j + 1)) return e;
  *chunk = seg.chunk_cell(r, j);
  return {};
}

// A reduce beyond a cell, operation s (reduce_stream.cc): the other ranks
// stream their operands to the root, which folds them chunk by chunk.
Err reduce_in_chunks(CommSegment& seg, uint64_t s, const void* sendbuf, void* recvbuf, MPI_Count count,
                     const Datatype* type, const Op* op, int root);
// A scan or exscan beyond a cell, operation s (scan_stream.cc): a chain of
// streams, each rank reading its predecessor's and writing its own.
Err scan_in_chunks(CommSegment& seg, uint64_t s, const void* sendbuf, void* recvbuf, MPI_Count count,
                   const Datatype* type, const Op* op, bool exclusive);

}  // namespace ferry::coll::shm
