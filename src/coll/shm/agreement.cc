#include "coll/shm/agreement.h"

#include "mpi.h"

namespace ferry::coll::shm {
namespace {

// How a rank runs the call: by messages, through shared memory, or not at
// all (0 bytes, at_once.h; no rank with data runs a call of 0 bytes).
const char* path(size_t bytes, bool by_message) {
  if (by_message) return "messages";
  return bytes == 0 ? "nothing to move" : "shared memory";
}

Err mismatch(int r, size_t got, bool got_by_message, size_t want, bool want_by_message) {
  if (got != want)
    return fail(got > want ? MPI_ERR_TRUNCATE : MPI_ERR_OTHER,
                "rank %d passed %zu bytes (%s), this rank %zu (%s): do all ranks pass the same counts, types and "
                "root?",
                r, got, path(got, got_by_message), want, path(want, want_by_message));
  const char* kind[] = {"shared memory", "messages"};
  return fail(MPI_ERR_OTHER,
              "rank %d runs this call through %s, this rank through %s, with the same %zu bytes: do all ranks pass "
              "the same datatypes?",
              r, kind[got_by_message], kind[want_by_message], want);
}

}  // namespace

Err check_slowly(const CommSegment& seg, int r, uint64_t s, size_t want) {
  // Arrived without a record of s: it had nothing to move (agreement.h).
  if (!seg.has_record(r, s)) [[unlikely]] return mismatch(r, 0, false, want, false);
  const bool theirs = seg.by_message(r, s);
  const size_t got = seg.bytes_in(r, s);
  if (!theirs && got == want) [[likely]] return {};
  return mismatch(r, got, theirs, want, false);
}

Err agree_on_messages(CommSegment& seg, size_t bytes) {
  const uint64_t s = seg.next();
  // Phase 1: record "by message" where shared-memory ranks will look (my
  // slot of s, free once everyone has left s - ring(): no data goes there)
  // and raise my flag: a rank that waits for my cell sees the record and
  // fails.
  if (Err e = seg.wait_cell_free(s, 0)) return e;
  seg.record(s, bytes, true);
  seg.publish(s);
  // Phase 2: everyone's record of s. Nobody can record s + ring() in the
  // same slot before I leave s, so what I read is theirs of s.
  Err first;
  for (int r = 0; r < seg.size(); ++r) {
    if (r == seg.rank()) continue;
    if (Err e = seg.wait_recorded_or_arrived(r, s)) return e;
    const bool recorded = seg.has_record(r, s);
    const bool theirs = recorded && seg.by_message(r, s);
    const size_t got = recorded ? seg.bytes_in(r, s) : 0;
    if ((!theirs || got != bytes) && first.ok()) first = mismatch(r, got, theirs, bytes, true);
  }
  seg.leave(s);
  return first;
}

}  // namespace ferry::coll::shm
