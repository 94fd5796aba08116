#include "coll/schedule.h"

#include <algorithm>
#include <climits>

#include "base/revocation.h"
#include "coll/device_schedule.h"
#include "coll/packed_bytes.h"
#include "device/staging.h"
#include "coll/typed_buffer.h"

#include "progress/progress.h"
#include "progress/tasks.h"
#include "p2p/pt2pt.h"
#include "p2p/revoke.h"

namespace ferry::coll {

// On an intercommunicator every schedule also takes a tag of the local
// intracommunicator, used or not, so that its members stay in step.
Schedule::Schedule(Communicator* c)
    : comm_(c),
      scratch_near_(gpu::ScratchOnGpu::near()),
      tag_(c->next_collective_tag()),
      local_tag_(c->inter ? c->local->next_collective_tag() : -1) {}

Schedule::Schedule(Communicator* c, std::vector<int> members, int my_index)
    : comm_(c),
      members_(std::move(members)),
      my_index_(my_index),
      scratch_near_(gpu::ScratchOnGpu::near()),
      tag_(c->next_collective_tag()) {}

Schedule::~Schedule() {
  // A schedule is only destroyed finished; anything left would be a bug, but
  // never leave a request pointing into freed scratch memory.
  for (Request* r : pending_) {
    progress::Lock lock;
    progress::wait_until(lock, [r] { return r->complete; });
    requests::release(r);
  }
  for (const GpuScratch& g : gpu_scratch_) device::staging::give_device(g.buffer, g.bytes);
  for (const scratch_cache::Block& b : scratch_) scratch_cache::give(b);
  for (const Datatype* t : held_types_) datatypes::release(t);
  for (const Op* op : held_ops_) ops::release(*op);
}

void Schedule::hold(const Op* op) {
  ops::retain(*op);
  held_ops_.push_back(op);
}

void Schedule::rearm() {
  round_ = 0;
  started_ = false;
  finished_ = false;
  stopped_ = false;
  error_ = build_error_.ok() ? Err() : Err(build_error_.mpi_class(), build_error_.message());
}

// A nonblocking collective outlives the call that started it, and the user
// may free its datatypes meanwhile (MPI-3.1 §4.1.9: that must not affect
// pending communication), so the schedule holds a reference on each
// derived type it uses.
void Schedule::hold(const Datatype* t) {
  if (t == nullptr || t->predefined()) return;
  datatypes::retain(t);
  held_types_.push_back(t);
}

namespace {

// Messages and copies up to this size go as built: point-to-point carries
// them whole (int counts, 64-bit byte sizes), as it always did. Only a
// larger one, which an int count may not describe, is cut into pieces of
// Schedule::kPieceBytes. Both sides of a message decide by its byte size,
// which they agree on, so they cut it alike.
constexpr size_t kWholeUpTo = INT_MAX;

// A buffer of a contiguous type as the bytes it is (its data starts at the
// buffer: contiguous types have no offset).
bool as_bytes(MPI_Count* count, const Datatype** type) {
  if (!(*type)->contiguous || *type == packed_bytes()) return (*type)->contiguous;
  *count = *count * static_cast<MPI_Count>((*type)->size);
  *type = packed_bytes();
  return true;
}

// Whole elements of `type` in one piece: at least one.
MPI_Count elements_per_piece(const Datatype* type) {
  return std::max<MPI_Count>(1, static_cast<MPI_Count>(Schedule::kPieceBytes / std::max<size_t>(1, type->size)));
}

}  // namespace

void Schedule::message(Step::Kind kind, const void* in, void* out, MPI_Count count, const Datatype* type, int peer) {
  hold(type);
  const size_t bytes = static_cast<size_t>(count) * type->size;
  auto push = [&](const void* i, void* o, MPI_Count n, const Datatype* t) {
    steps_.push_back(Step{kind, i, o, n, t, comm_rank(peer), 0, nullptr, nullptr, local_mode_});
  };
  // The common case, as the algorithm built it.
  if (bytes <= kWholeUpTo && count <= INT_MAX) return push(in, out, bytes == 0 ? 0 : count, type);
  // Pieces: bytes of a contiguous type, else runs of whole elements.
  const bool contiguous = as_bytes(&count, &type);
  const MPI_Count per = contiguous ? static_cast<MPI_Count>(kPieceBytes) : elements_per_piece(type);
  for (MPI_Count first = 0; first < count; first += per) {
    MPI_Count n = std::min(per, count - first);
    push(in == nullptr ? nullptr : element(in, static_cast<size_t>(first), type),
         out == nullptr ? nullptr : element(out, static_cast<size_t>(first), type), n, type);
  }
}

void Schedule::send(const void* buf, MPI_Count count, const Datatype* type, int peer) {
  message(Step::Kind::kSend, buf, nullptr, count, type, peer);
}

void Schedule::recv(void* buf, MPI_Count count, const Datatype* type, int peer) {
  message(Step::Kind::kRecv, nullptr, buf, count, type, peer);
}

void Schedule::reduce(const void* in, void* inout, MPI_Count count, const Datatype* type, const Op* op) {
  hold(type);
  // Element-wise (MPI-3.1 §5.9.1), so any cut is the same reduction.
  const MPI_Count per = INT_MAX;
  for (MPI_Count first = 0; first == 0 || first < count; first += per)
    steps_.push_back(Step{Step::Kind::kReduce, element(in, static_cast<size_t>(first), type),
                          element(inout, static_cast<size_t>(first), type), std::min(per, count - first), type, 0, 0,
                          nullptr, op});
}

void Schedule::copy(const void* src, MPI_Count scount, const Datatype* stype, void* dst, MPI_Count rcount,
                    const Datatype* rtype) {
  hold(stype);
  hold(rtype);
  auto push = [&](const void* i, MPI_Count sn, const Datatype* st, void* o, MPI_Count rn, const Datatype* rt) {
    steps_.push_back(Step{Step::Kind::kCopy, i, o, sn, st, 0, rn, rt, nullptr});
  };
  if (std::max(static_cast<size_t>(scount) * stype->size, static_cast<size_t>(rcount) * rtype->size) <= kWholeUpTo &&
      scount <= INT_MAX && rcount <= INT_MAX)
    return push(src, scount, stype, dst, rcount, rtype);
  // Cut so that each piece is whole elements on both sides: a contiguous
  // side is bytes and can be cut anywhere.
  const bool s_bytes = as_bytes(&scount, &stype), r_bytes = as_bytes(&rcount, &rtype);
  // The pieces below walk both sides in step, so both must hold the same
  // bytes (the ranks' counts disagree otherwise: MPI-3.1 §5.1).
  const size_t from = static_cast<size_t>(scount) * stype->size, to = static_cast<size_t>(rcount) * rtype->size;
  if (from != to) {
    if (build_error_.ok())
      build_error_ = fail(MPI_ERR_TRUNCATE, "a collective copy of %zu bytes into %zu (do all ranks pass the same "
                          "counts and types?)", from, to);
    return;
  }
  if (!s_bytes && !r_bytes && stype != rtype) {
    if (build_error_.ok())
      build_error_ = fail(MPI_ERR_COUNT, "a collective copy of %lld elements between two different non-contiguous "
                          "datatypes is more than one piece of %zu bytes (not supported)",
                          static_cast<long long>(scount), kPieceBytes);
    return;
  }
  // Elements of the typed side (either, when both are bytes or the same type).
  const Datatype* unit = s_bytes ? rtype : stype;
  const MPI_Count per = unit == packed_bytes() ? static_cast<MPI_Count>(kPieceBytes) : elements_per_piece(unit);
  const MPI_Count total = s_bytes ? rcount : scount;
  const MPI_Count scale = static_cast<MPI_Count>(unit->size);  // bytes per element on a bytes side
  for (MPI_Count first = 0; first < total; first += per) {
    MPI_Count n = std::min(per, total - first);
    MPI_Count s_first = s_bytes && unit != stype ? first * scale : first,
              s_n = s_bytes && unit != stype ? n * scale : n;
    MPI_Count r_first = r_bytes && unit != rtype ? first * scale : first,
              r_n = r_bytes && unit != rtype ? n * scale : n;
    push(element(src, static_cast<size_t>(s_first), stype), s_n, stype,
         element(dst, static_cast<size_t>(r_first), rtype), r_n, rtype);
  }
}

void Schedule::local_checked(std::function<Err()> work) {
  local([this, work = std::move(work)] {
    if (Err e = work(); e && error_.ok()) error_ = std::move(e);
  });
}

void Schedule::local(std::function<void()> work) {
  local_work_.push_back(std::move(work));
  steps_.push_back(Step{Step::Kind::kLocal, nullptr, nullptr, static_cast<int>(local_work_.size() - 1), nullptr, 0,
                        0, nullptr, nullptr});
}

void Schedule::end_round() {
  const size_t begin = round_ends_.empty() ? 0 : round_ends_.back();
  if (begin == steps_.size()) return;
  round_ends_.push_back(steps_.size());
  // A pairwise step: exactly one send and one receive, to and from the same
  // peer, the receive at least as large (MPI_Sendrecv's test, p2p/pt2pt.cc).
  Step* send = nullptr;
  const Step* recv = nullptr;
  for (size_t i = begin; i < steps_.size(); ++i) {
    Step& s = steps_[i];
    if (s.kind == Step::Kind::kSend) {
      if (send != nullptr) return;
      send = &s;
    } else if (s.kind == Step::Kind::kRecv) {
      if (recv != nullptr) return;
      recv = &s;
    }
  }
  if (send != nullptr && recv != nullptr && send->peer == recv->peer && send->on_local == recv->on_local &&
      static_cast<size_t>(recv->count) * recv->type->size >= static_cast<size_t>(send->count) * send->type->size)
    send->exchange = true;
}

void* Schedule::scratch(size_t bytes) {
  // Not zeroed: every algorithm writes its scratch before reading it, and
  // clearing megabytes per call would cost more than the copy that fills it.
  if (scratch_near_ != nullptr) {  // beside the user's GPU buffers (coll/device_schedule.h)
    std::string error;
    void* p = device::staging::take_device(scratch_near_, bytes, &error);
    if (p != nullptr) {
      gpu_scratch_.push_back(GpuScratch{p, bytes});
      return p;
    }
    if (build_error_.ok()) build_error_ = fail(MPI_ERR_NO_MEM, "GPU scratch of %zu bytes: %s", bytes, error.c_str());
  }
  scratch_.push_back(scratch_cache::take(bytes));
  return scratch_.back().memory;
}

void Schedule::post_round() {
  size_t begin = round_ == 0 ? 0 : round_ends_[round_ - 1];
  size_t end = round_ends_[round_];
  // Receives first, so that the round's incoming messages find them posted.
  for (int pass = 0; pass < 2 && !stopped_; ++pass) {
    for (size_t i = begin; i < end && !stopped_; ++i) {
      const Step& s = steps_[i];
      Request* r = nullptr;
      Err e;
      Communicator* via = s.on_local ? comm_->local : comm_;
      int tag = s.on_local ? local_tag_ : tag_;
      if (pass == 0 && s.kind == Step::Kind::kRecv) {
        e = pt2pt::irecv(s.out, s.count, s.type, s.peer, tag, via, &r, pt2pt::Context::kCollective);
      } else if (pass == 1 && s.kind == Step::Kind::kSend) {
        e = pt2pt::isend(pt2pt::Message{s.in, s.count, s.type}, s.peer, tag, via,
                         Request::Mode::kStandard, &r, pt2pt::Context::kCollective, s.exchange);
      }
      if (r != nullptr) pending_.push_back(r);
      // A message that cannot even start: the schedule cannot go on.
      if (e) {
        if (error_.ok()) error_ = std::move(e);
        stopped_ = true;
      }
    }
  }
}

void Schedule::finish_round() {
  size_t begin = round_ == 0 ? 0 : round_ends_[round_ - 1];
  size_t end = round_ends_[round_];
  // Only a schedule made for GPU buffers (gpu::ScratchOnGpu alive: the
  // entry point found one) has steps that may touch GPU memory; the others
  // work on host buffers and host scratch, and skip the two memory-type
  // checks per step (most of what a loaded driver cost a small host
  // collective: docs/performance.md).
  const bool may_touch_gpu = scratch_near_ != nullptr;
  for (size_t i = begin; i < end; ++i) {
    const Step& s = steps_[i];
    if (s.kind == Step::Kind::kReduce) {
      if (may_touch_gpu && gpu::touches_gpu(s.in, s.out)) {
        Err e = gpu::reduce(*s.op, s.in, s.out, s.count, *s.type);
        if (e && error_.ok()) error_ = std::move(e);
      } else {
        apply(*s.op, s.in, s.out, s.count, *s.type);
      }
    } else if (s.kind == Step::Kind::kCopy) {
      Err e = may_touch_gpu && gpu::touches_gpu(s.in, s.out) ? gpu::copy(s.in, s.count, *s.type, s.out, s.count2, *s.type2)
                                            : copy_typed(s.in, s.count, *s.type, s.out, s.count2, *s.type2);
      if (e && error_.ok()) error_ = std::move(e);
    } else if (s.kind == Step::Kind::kLocal) {
      local_work_[static_cast<size_t>(s.count)]();
    }
  }
}

Err Schedule::start() {
  end_round();
  error_ = build_error_.ok() ? Err() : Err(build_error_.mpi_class(), build_error_.message());
  started_ = true;
  // On a revoked communicator it fails as its first message would, and so
  // does one with no messages at all (an intercommunicator's rank passing
  // MPI_PROC_NULL, a persistent call with no data): ULFM fails every
  // collective there. The context is the one its messages take (a group
  // collective's, which stays open for MPIX_Comm_agree, is not marked).
  if (revocation::is_revoked(comm_->collective_context())) [[unlikely]] {
    if (error_.ok()) error_ = p2p::revoke::refusal();
    finished_ = true;
    return {};
  }
  if (round_ends_.empty()) {
    finished_ = true;
    return {};
  }
  progress::Lock lock;
  post_round();
  return {};
}

bool Schedule::advance() {
  if (finished_) return true;
  for (;;) {
    for (Request* r : pending_)
      if (!r->complete) return false;
    for (Request* r : pending_) {
      if (r->error != MPI_SUCCESS && error_.ok())
        error_ = Err(error_code::class_of(r->error), error_code::text(r->error));
      // Every rank computes the same message sizes from arguments MPI
      // requires to agree; a shorter message means they did not (a longer
      // one already failed as MPI_ERR_TRUNCATE). Report it, do not hang.
      if (r->kind == Request::Kind::kRecv && error_.ok() && status_bytes(r->status) != r->bytes)
        error_ = fail(MPI_ERR_OTHER, "collective message from rank %d has %zu bytes, expected %zu (do all ranks pass "
                      "the same counts, types and root?)", r->status.MPI_SOURCE, status_bytes(r->status), r->bytes);
      requests::release(r);
    }
    pending_.clear();
    // A message of the wrong size (ranks that disagree on counts) is the
    // schedule's error, but the schedule still runs to its end, so that
    // the ranks after this one finish too rather than wait for messages
    // that would never come.
    finish_round();
    if (stopped_ || ++round_ == round_ends_.size()) {
      finished_ = true;
      return true;
    }
    post_round();
  }
}

Err Schedule::run() {
  if (Err e = start()) return e;
  progress::Lock lock;
  progress::wait_until(lock, [this] { return advance(); });
  return std::move(error_);
}

namespace {

// A nonblocking collective: its schedule, advanced by the progress engine,
// and the user's request, completed (with the schedule's error, if any) when
// the schedule ends.
class NonblockingCollective final : public progress::Task {
 public:
  NonblockingCollective(std::unique_ptr<Schedule> schedule, Request* request)
      : schedule_(std::move(schedule)), request_(request) {}
  bool advance() override {
    if (!schedule_->advance()) return false;
    complete(request_, schedule_->error());
    return true;
  }

 private:
  std::unique_ptr<Schedule> schedule_;
  Request* request_;
};

}  // namespace

Request* start_nonblocking(std::unique_ptr<Schedule> schedule, Err* error) {
  progress::Lock lock;
  Request* r = requests::acquire();
  r->kind = Request::Kind::kCollective;
  r->comm = schedule->comm();
  r->active = true;
  r->status = pt2pt::empty_status();
  *error = schedule->start();
  auto task = std::make_unique<NonblockingCollective>(std::move(schedule), r);
  // Its first round may be over already (a schedule with nothing to wait for).
  if (!task->advance()) progress::start(std::move(task));
  return r;
}

}  // namespace ferry::coll
