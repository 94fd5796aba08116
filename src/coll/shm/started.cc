// Started shared-memory collectives (started.h): a queue per segment, in
// start order, whose head the progress engine moves along; each kind
// below is its blocking algorithm's steps (barrier.cc, bcast.cc,
// reduce.cc) cut where the blocking form waits, resumed at the next pass.
#include "coll/shm/started.h"

#include <cstring>
#include <utility>
#include <vector>

#include "base/revocation.h"
#include "coll/at_once.h"
#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/blocks.h"
#include "coll/shm/cells.h"
#include "coll/typed_buffer.h"
#include "p2p/pt2pt.h"
#include "p2p/revoke.h"
#include "progress/progress.h"

namespace ferry::coll::shm {
namespace {

// One started operation and where it stands.
struct Started {
  Call call;
  uint64_t s = 0;              // its number on the segment
  Request* request = nullptr;  // nullptr: nobody waits (Call::Kind::kNothing)
  bool holds = false;          // a reference on call.type and call.op
  uint8_t phase = 0;
  int next = 0;                // the rank whose flag it checks next
  // The flag it last found short of `target` (started_can_advance()), and
  // a second one that would do as well (a writer's record or its arrival
  // flag, CommSegment::arrived()).
  const std::atomic<uint64_t>* waits_on = nullptr;
  uint64_t target = 0;
  const std::atomic<uint64_t>* or_on = nullptr;
  uint64_t or_target = 0;
  Err error;
};

}  // namespace

// A ring of the started operations, oldest first; it grows (doubling) to
// the most ever outstanding and is reused from then on.
struct StartedQueue {
  std::vector<Started> ring;
  size_t head = 0;
  size_t count = 0;
  uint32_t context = 0;  // the communicator's (revocation ends a wait, wait.h)

  // The segment's side (CommSegment befriends this struct).
  static std::atomic<int>& outstanding(CommSegment& seg) { return seg.outstanding_; }
  static StartedQueue* of(const CommSegment* seg) { return seg->started_; }

  Started& at(size_t i) { return ring[(head + i) & (ring.size() - 1)]; }
  void push(Started&& o) {
    if (count == ring.size()) {
      std::vector<Started> bigger(ring.empty() ? 4 : ring.size() * 2);
      for (size_t i = 0; i < count; ++i) bigger[i] = std::move(at(i));
      ring.swap(bigger);
      head = 0;
    }
    at(count) = std::move(o);
    ++count;
  }
  void pop() {
    at(0) = Started();
    head = (head + 1) & (ring.size() - 1);
    --count;
  }
};

StartedQueue& queue_of(CommSegment& seg) {
  if (seg.started_ == nullptr) {
    seg.started_ = new StartedQueue;
    seg.started_->context = seg.context_;
  }
  return *seg.started_;
}

namespace {

// Segments whose queue is not empty (engine lock held). An entry is
// cleared, not erased, when its segment goes during a pass (forget()).
std::vector<CommSegment*> active_;
bool advancing_ = false;
bool forgotten_ = false;  // a segment went during the pass

// Whether `word` has reached `target`; if not, the operation waits on it.
bool reached(Started& o, const std::atomic<uint64_t>& word, uint64_t target) {
  o.or_on = nullptr;
  if (word.load(std::memory_order_acquire) >= target) {
    o.waits_on = nullptr;
    return true;
  }
  o.waits_on = &word;
  o.target = target;
  return false;
}

// Rank r's data of operation s is in place, or its flag says it has none
// (CommSegment::arrived()); if not, the operation waits on both words.
bool arrived(CommSegment& seg, Started& o, int r) {
  if (seg.arrived(r, o.s)) {
    o.waits_on = o.or_on = nullptr;
    return true;
  }
  o.waits_on = &seg.record_word(r, o.s);
  o.target = 4 * o.s + 2;
  o.or_on = &seg.line(r).arrived;
  o.or_target = o.s;
  return false;
}

// Everyone has left s - depth: nobody reads my slot (and cell, for
// `bytes` of data) of s (segment.h).
bool cell_free(CommSegment& seg, Started& o, size_t bytes) {
  const uint64_t depth = seg.depth(bytes);
  if (o.s <= depth) return true;
  // A rank found short may leave before reached() looks again, and the
  // ranks after it were not looked at: on that, look at everyone again.
  for (;;) {
    const std::atomic<uint64_t>* short_of = seg.first_not_left(o.s - depth);
    if (short_of == nullptr) return true;
    if (!reached(o, *short_of, o.s - depth)) return false;
  }
}

bool barrier(CommSegment& seg, Started& o) {
  if (o.phase == 0) {
    // A barrier reads no cell: arriving is leaving (barrier.cc).
    seg.publish_and_leave(o.s);
    o.phase = 1;
  }
  for (; o.next < seg.size(); ++o.next)
    if (o.next != seg.rank() && !reached(o, seg.line(o.next).arrived, o.s)) return false;
  return true;
}

bool bcast(CommSegment& seg, Started& o) {
  const Call& c = o.call;
  const size_t bytes = c.type->bytes(c.count);
  if (seg.rank() == c.root) {
    if (!cell_free(seg, o, bytes)) return false;
    o.error = to_cell(c.recvbuf, c.count, c.type, seg.cell(c.root, o.s, bytes));
    seg.record_data(o.s, bytes);
    seg.publish_and_leave(o.s);
    return true;
  }
  if (!arrived(seg, o, c.root)) return false;
  seg.record(o.s, bytes);
  o.error = check(seg, c.root, o.s, bytes);
  if (o.error.ok()) o.error = from_cell(seg.cell(c.root, o.s, bytes), bytes, c.recvbuf, c.count, c.type);
  seg.leave(o.s);
  return true;
}

// Reduce and allreduce (reduce.cc): my input into my cell, then whoever
// needs the result combines the cells in rank order (fold_order,
// algorithms.h, as the blocking calls do: the same bits).
bool reduction(CommSegment& seg, Started& o) {
  const Call& c = o.call;
  const size_t bytes = c.type->bytes(c.count);
  if (o.phase == 0) {
    if (!cell_free(seg, o, bytes)) return false;
    // Packing into a cell of exactly its size cannot fail.
    (void)to_cell(c.sendbuf == MPI_IN_PLACE ? c.recvbuf : c.sendbuf, c.count, c.type, seg.cell(seg.rank(), o.s, bytes));
    seg.record_data(o.s, bytes);
    if (c.kind == Call::Kind::kReduce && seg.rank() != c.root) {
      seg.publish_and_leave(o.s);
      return true;
    }
    seg.publish(o.s);
    o.phase = 1;
    o.next = fold_order(*c.op, seg.size() - 1).first;
  }
  const FoldOrder order = fold_order(*c.op, seg.size() - 1);
  for (; o.next != order.end; o.next += order.step) {
    const int r = o.next;
    if (!arrived(seg, o, r)) return false;
    Err mismatch = check(seg, r, o.s, bytes);
    if (r == order.first) {
      o.error = std::move(mismatch);
      if (bytes != 0 && o.error.ok()) o.error = from_cell(seg.cell(r, o.s, bytes), bytes, c.recvbuf, c.count, c.type);
    } else if (mismatch) {
      if (o.error.ok()) o.error = std::move(mismatch);
    } else if (bytes != 0) {
      apply(*c.op, operand_from_cell(seg.cell(r, o.s, bytes), bytes, c.count, c.type), c.recvbuf, c.count, *c.type);
    }
  }
  seg.leave(o.s);
  return true;
}

// The first error of two.
void keep(Err& first, Err e) {
  if (!e.ok() && first.ok()) first = std::move(e);
}

// Block r of a buffer of blocks of `count` elements of `type`.
void* block_of(const void* buf, int r, MPI_Count count, const Datatype* type) {
  return element(const_cast<void*>(buf), static_cast<size_t>(r) * static_cast<size_t>(count), type);
}

// My own block of a gather or allgather, unless it is in place.
Err own_block(CommSegment& seg, const Call& c) {
  if (c.sendbuf == MPI_IN_PLACE) return {};
  return copy_typed(c.sendbuf, c.sendcount, *c.sendtype, block_of(c.recvbuf, seg.rank(), c.count, c.type), c.count,
                    *c.type);
}

// Gather and allgather (gather.cc): each writer packs its block into its
// cell; the root (every rank) unpacks each block as its flag comes up.
bool gathering(CommSegment& seg, Started& o) {
  const Call& c = o.call;
  const bool all = c.kind == Call::Kind::kAllgather;
  if (o.phase == 0) {
    if (all || seg.rank() != c.root) {
      // In place (allgather), my block is in recvbuf already (MPI-3.1 §5.7).
      const bool in_place = c.sendbuf == MPI_IN_PLACE;
      const void* mine = in_place ? block_of(c.recvbuf, seg.rank(), c.count, c.type) : c.sendbuf;
      const MPI_Count n = in_place ? c.count : c.sendcount;
      const Datatype* t = in_place ? c.type : c.sendtype;
      const size_t bytes = t->bytes(n);
      if (!cell_free(seg, o, bytes)) return false;
      o.error = to_cell(mine, n, t, seg.cell(seg.rank(), o.s, bytes));
      seg.record_data(o.s, bytes);
      if (!all) {
        seg.publish_and_leave(o.s);
        return true;
      }
      seg.publish(o.s);
    }
    keep(o.error, own_block(seg, c));
    o.phase = 1;
    o.next = 0;
  }
  for (; o.next < seg.size(); ++o.next) {
    const int r = o.next;
    if (r == seg.rank()) continue;
    if (!arrived(seg, o, r)) return false;
    // (Only here: a gather's other ranks pass no receive type.)
    const size_t want = c.type->bytes(c.count);
    // A gather's root writes no cell: it records once a writer has arrived
    // (segment.h, record()); it records again at each writer, harmlessly.
    if (!all) seg.record(o.s, want);
    Err e = check(seg, r, o.s, want);
    if (e.ok())
      e = from_cell(seg.cell(r, o.s, want), want, block_of(c.recvbuf, r, c.count, c.type), c.count, c.type);
    keep(o.error, std::move(e));
  }
  seg.leave(o.s);
  return true;
}

// Scatter and alltoall (scatter.cc): the root (every rank) packs a block
// per rank into its cell; each rank unpacks its own block out of each.
bool scattering(CommSegment& seg, Started& o) {
  const Call& c = o.call;
  const bool all = c.kind == Call::Kind::kAlltoall;
  if (o.phase == 0) {
    if (all || seg.rank() == c.root) {
      // In place (alltoall), the blocks to send are recvbuf's, packed
      // before any is replaced.
      const bool in_place = all && c.sendbuf == MPI_IN_PLACE;
      const size_t block = in_place ? c.type->bytes(c.count) : c.sendtype->bytes(c.sendcount);
      if (!cell_free(seg, o, blocks_bytes(seg, block))) return false;
      o.error = in_place ? pack_blocks(seg, o.s, c.recvbuf, c.count, c.type)
                         : pack_blocks(seg, o.s, c.sendbuf, c.sendcount, c.sendtype);
      // In place, the scatter root's block stays where it is (MPI-3.1 §5.6).
      const bool own = all ? !in_place : c.recvbuf != MPI_IN_PLACE;
      if (o.error.ok() && own)
        o.error = copy_typed(block_of(c.sendbuf, seg.rank(), c.sendcount, c.sendtype), c.sendcount, *c.sendtype,
                             all ? block_of(c.recvbuf, seg.rank(), c.count, c.type) : c.recvbuf, c.count, *c.type);
      if (!all) {
        seg.publish_and_leave(o.s);
        return true;
      }
      seg.publish(o.s);
    }
    o.phase = 1;
    o.next = 0;
  }
  for (; o.next < seg.size(); ++o.next) {
    const int r = o.next;
    if (r == seg.rank() || (!all && r != c.root)) continue;
    if (!arrived(seg, o, r)) return false;
    if (!all) seg.record(o.s, c.type->bytes(c.count));
    keep(o.error, my_block(seg, o.s, r, all ? block_of(c.recvbuf, r, c.count, c.type) : c.recvbuf, c.count, c.type));
  }
  seg.leave(o.s);
  return true;
}

// Moves `o` as far as it goes now; true once this rank's part is done.
bool step(CommSegment& seg, Started& o) {
  switch (o.call.kind) {
    case Call::Kind::kBarrier: return barrier(seg, o);
    case Call::Kind::kBcast: return bcast(seg, o);
    case Call::Kind::kReduce:
    case Call::Kind::kAllreduce: return reduction(seg, o);
    case Call::Kind::kGather:
    case Call::Kind::kAllgather: return gathering(seg, o);
    case Call::Kind::kScatter:
    case Call::Kind::kAlltoall: return scattering(seg, o);
    default:
      // No data (agreement.h, a flag without a record): flags only, nobody
      // waited for; started in its turn, after what this rank started before.
      seg.publish_and_leave(o.s);
      return true;
  }
}

void release_holds(Started& o) {
  if (!o.holds) return;
  datatypes::release(o.call.type);
  datatypes::release(o.call.sendtype);
  if (o.call.op != nullptr) ops::release(*o.call.op);
}

// Advances the queue's head, then the next, ... until one waits; the number
// that finished. Stops at once if completing a request freed the segment.
int advance_queue(CommSegment& seg, StartedQueue& q) {
  int finished = 0;
  while (q.count > 0) {
    Started& o = q.at(0);
    if (!step(seg, o)) {
      // The rank waited for revoked the communicator instead (wait.h): the
      // operation ends, its flags as they are.
      if (!revocation::is_revoked(q.context)) return finished;
      if (o.error.ok()) o.error = p2p::revoke::refusal();
    }
    Started done = std::move(o);
    q.pop();
    StartedQueue::outstanding(seg).fetch_sub(1, std::memory_order_relaxed);
    ++finished;
    release_holds(done);
    if (done.request != nullptr) {
      complete(done.request, done.error);
      if (forgotten_) return finished;
    }
  }
  return finished;
}

void retire(CommSegment* seg) {
  for (CommSegment*& a : active_)
    if (a == seg) {
      a = active_.back();
      active_.pop_back();
      return;
    }
}

}  // namespace

void start(CommSegment& seg, const Call& call, Request* r, bool hold) {
  progress::Lock lock;
  StartedQueue& q = queue_of(seg);
  Started o;
  o.call = call;
  o.s = seg.next();
  o.request = r;
  o.holds = hold;
  if (hold) {
    datatypes::retain(call.type);
    datatypes::retain(call.sendtype);
    if (call.op != nullptr) ops::retain(*call.op);
  }
  if (q.count == 0) active_.push_back(&seg);
  q.push(std::move(o));
  StartedQueue::outstanding(seg).fetch_add(1, std::memory_order_relaxed);
  // As far as it goes now: often to the end (a bcast's root, a barrier's
  // last rank, every rank of one whose peers are there already).
  if (advancing_) return;
  forgotten_ = false;
  advance_queue(seg, q);
  if (!forgotten_ && q.count == 0) retire(&seg);
}

Request* start_nonblocking(Communicator* c, CommSegment& seg, const Call& call) {
  progress::Lock lock;
  Request* r = collective_request(c);
  start(seg, call, r, true);
  return r;
}

void settle(CommSegment& seg) {
  if (seg.outstanding() == 0) [[likely]] return;
  progress::Lock lock;
  progress::wait_until(lock, [&seg] { return seg.outstanding() == 0; });
}

int advance_started() {
  if (active_.empty() || advancing_) [[likely]] return 0;
  advancing_ = true;
  int finished = 0;
  for (size_t i = 0; i < active_.size();) {
    CommSegment* seg = active_[i];
    forgotten_ = false;
    if (seg != nullptr) finished += advance_queue(*seg, *StartedQueue::of(seg));
    // A segment freed meanwhile left nullptr in its entry; one emptied goes.
    if (forgotten_ || active_[i] == nullptr || StartedQueue::of(active_[i])->count == 0) {
      if (forgotten_) {
        // Entries may have been cleared anywhere: drop them all, start over.
        std::erase(active_, nullptr);
        forgotten_ = false;
        i = 0;
        continue;
      }
      active_[i] = active_.back();
      active_.pop_back();
      continue;
    }
    ++i;
  }
  advancing_ = false;
  return finished;
}

bool started_can_advance() {
  for (CommSegment* seg : active_) {
    if (seg == nullptr) return true;
    StartedQueue& q = *StartedQueue::of(seg);
    if (q.count == 0) return true;
    const Started& o = q.at(0);
    if (o.waits_on == nullptr || o.waits_on->load(std::memory_order_acquire) >= o.target) return true;
    if (o.or_on != nullptr && o.or_on->load(std::memory_order_acquire) >= o.or_target) return true;
    if (revocation::is_revoked(q.context)) return true;
  }
  return false;
}

void forget(CommSegment* seg) {
  progress::Lock lock;
  for (CommSegment*& a : active_)
    if (a == seg) a = nullptr;
  if (!advancing_) std::erase(active_, nullptr);
  forgotten_ = true;
  StartedQueue* q = seg->started_;
  seg->started_ = nullptr;
  if (q != nullptr)
    for (size_t i = 0; i < q->count; ++i) release_holds(q->at(i));
  delete q;
}

}  // namespace ferry::coll::shm
