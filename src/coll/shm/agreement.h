// How the ranks of a communicator with a shared-memory segment (coll/shm)
// find out that they did not pass the same sizes to a collective, instead
// of waiting for each other forever.
//
// Every rank chooses between shared memory and messages from the bytes of
// its type signature for the call (select.cc), which MPI requires to agree
// (MPI-4.0 §6.1: "the type signatures ... must be equal"; bcast, reduce:
// the same on every rank). In a legal program they all choose alike. In an
// erroneous one, ranks whose data fits a cell (or, for a bcast, gather,
// reduce or scan, streams beyond it: algorithms.h) run the call through memory while the
// others send messages, and each side waits on the other. So:
//
// - A rank on the shared-memory path checks what each rank it reads from
//   recorded for the operation (segment.h, FlagLine): a rank that runs it
//   by message, or passed other bytes, fails the call (check()).
// - A rank on the message path, on a communicator with a segment, first
//   takes part in the operation's numbering anyway: it records its bytes
//   as "by message", raises its flag (so shared-memory ranks waiting on it
//   see the record), and waits for every rank's record of the operation.
//   Only if all run it by message with the same bytes does it go on to
//   send (agree_on_messages()); otherwise it fails before any message.
//
// Cost: nothing on the shared-memory path but a store and a load of words
// in lines already touched; on the message path (data above the cell, not
// streamed) one
// flag round among the communicator's ranks, n-1 loads, before data that
// takes microseconds to move. Every rank takes the same operation number
// either way, and no rank fails after taking a collective tag, so the
// communicator stays in step after the error (MPI_ERRORS_RETURN).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/error.h"
#include "coll/shm/segment.h"

namespace ferry::coll::shm {

// What rank r recorded for operation s against my `want` bytes on the
// shared-memory path; call after wait_arrived(r, s). No record of s (a rank
// with nothing to move) is 0 bytes.
// Other bytes: MPI_ERR_TRUNCATE if more (as a message would be), else
// MPI_ERR_OTHER; the same bytes by message: MPI_ERR_OTHER.
// Inline for the usual answer, the same bytes through shared memory: a
// call per operand combined was about 30 instructions (issue 29).
Err check_slowly(const CommSegment& seg, int r, uint64_t s, size_t want);
inline Err check(const CommSegment& seg, int r, uint64_t s, size_t want) {
  if (seg.has_record(r, s) && !seg.by_message(r, s) && seg.bytes_in(r, s) == want) [[likely]] return {};
  return check_slowly(seg, r, s, want);
}

// - A rank with no data at all (coll/at_once.h: 0 bytes, 0 elements) on a
//   communicator with a segment takes the operation's number too, and
//   raises its flags without a record (CommSegment::defer_nothing,
//   segment.h, says when): a flag of s without a record of s means
//   "0 bytes" to whoever reads it (check(), agree_on_messages()).
//   Every operation that can finish at once for lack of data has, on the
//   ranks with data, a shared-memory algorithm or the agreement above
//   (choose.h), so all ranks number alike; in an erroneous program those
//   that read from this rank, or agree on messages, fail. A rank whose own
//   part needs nothing from the others (this one, a bcast's root) returns.
//   A nonblocking call with no data raises its flags in its turn among the
//   started operations (started.h, kNothing).

// The message path's side (see above), for a call of `bytes` per rank
// (what select.cc's Query holds). Returns with the operation finished on
// the segment; an error means the ranks disagree and no message was sent.
Err agree_on_messages(CommSegment& seg, size_t bytes);

}  // namespace ferry::coll::shm
