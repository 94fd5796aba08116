// Scan and exscan down a chain of the ranks in order, cut into segments
// that flow as a pipeline.
//
// Rank r receives the prefix of ranks 0..r-1 from r-1, segment by segment,
// combines its own input behind it and forwards the result to r+1 (an
// exscan forwards the same sum and keeps the prefix it received). Each rank
// combines every element once and each link carries the vector once, where
// recursive doubling has every rank exchange and combine the whole vector
// lg p times: p - 1 combines in all instead of about p lg p. On few ranks
// with long vectors, where the segments keep every link busy at once, that
// is the cheaper schedule (select.cc says where it runs).
//
// Cost = (p - 2 + S) * (alpha + (n/S) * (beta + gamma)), S segments of
// pipeline_segment_bytes() (FERRY_COLL_SEGMENT_SIZE) each.
//
// Order: the prefix of the lower ranks always goes in front of this rank's
// input, so non-commutative operations are safe.
#include "coll/scan/algorithms.h"
#include "coll/select.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void scan_pipelined_chain(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                          const Op* op, bool exclusive) {
  const int p = s.size();
  const int rank = s.rank();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const void* input = in_place ? recvbuf : sendbuf;
  const Blocks segs = blocks_of_about(count, type, pipeline_segment_bytes());
  auto at = [&](auto* buf, size_t k) { return element(buf, segs.start(k), type); };
  auto length = [&](size_t k) { return static_cast<MPI_Count>(segs.size(k)); };
  const bool has_next = rank + 1 < p;

  if (rank == 0) {
    // The head: its input is the first prefix; an inclusive scan's result too.
    for (size_t k = 0; k < segs.parts; ++k) {
      s.send(at(input, k), length(k), type, 1);
      s.end_round();
    }
    if (!exclusive && !in_place) {
      s.copy(input, count, type, recvbuf, count, type);
      s.end_round();
    }
    return;
  }

  // Where segment k of the lower ranks' prefix lands, and what goes on to
  // the next rank:
  // - scan, commutative op, not in place: the prefix lands in recvbuf and
  //   the input is combined into it (input op prefix = prefix op input);
  //   recvbuf goes on.
  // - scan otherwise: the prefix lands in scratch and is combined in front
  //   of the input, which is in recvbuf (copied there first unless in
  //   place); recvbuf goes on.
  // - exscan: the prefix lands in recvbuf (it is the result); a rank with
  //   a next combines it in front of a copy of its input, which goes on
  //   (the copy is taken first: in place, the prefix overwrites the input).
  const bool lands_in_recvbuf = exclusive || (op->commutative && !in_place);
  void* scratch = nullptr;
  if (!lands_in_recvbuf || (exclusive && has_next)) scratch = temp_buffer(s, static_cast<size_t>(count), type);
  if ((!exclusive && !lands_in_recvbuf && !in_place) || (exclusive && has_next)) {
    s.copy(input, count, type, exclusive ? scratch : recvbuf, count, type);
    s.end_round();
  }
  void* landing = lands_in_recvbuf ? recvbuf : scratch;
  void* onward = exclusive ? scratch : recvbuf;

  // Round k receives segment k and forwards segment k - 1, done in the
  // round before.
  for (size_t k = 0; k <= segs.parts; ++k) {
    if (k < segs.parts) s.recv(at(landing, k), length(k), type, rank - 1);
    if (has_next && k > 0) s.send(at(onward, k - 1), length(k - 1), type, rank + 1);
    if (k < segs.parts) {
      if (exclusive) {
        if (has_next) s.reduce(at(recvbuf, k), at(scratch, k), length(k), type, op);  // prefix op input
      } else if (lands_in_recvbuf) {
        s.reduce(at(input, k), at(recvbuf, k), length(k), type, op);  // input op prefix: commutative
      } else {
        s.reduce(at(scratch, k), at(recvbuf, k), length(k), type, op);  // prefix op input
      }
    }
    s.end_round();
  }
}

}  // namespace ferry::coll
