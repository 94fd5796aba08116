#include "coll/schedule.h"

#include "progress/progress.h"
#include "progress/tasks.h"
#include "p2p/pt2pt.h"

namespace ferry::coll {

// On an intercommunicator every schedule also takes a tag of the local
// intracommunicator, used or not, so that its members stay in step.
Schedule::Schedule(Communicator* c)
    : comm_(c), tag_(c->next_collective_tag()), local_tag_(c->inter ? c->local->next_collective_tag() : -1) {}

Schedule::Schedule(Communicator* c, std::vector<int> members, int my_index)
    : comm_(c), members_(std::move(members)), my_index_(my_index), tag_(c->next_collective_tag()) {}

Schedule::~Schedule() {
  // A schedule is only destroyed finished; anything left would be a bug, but
  // never leave a request pointing into freed scratch memory.
  for (Request* r : pending_) {
    progress::Lock lock;
    progress::wait_until(lock, [r] { return r->complete; });
    requests::release(r);
  }
  for (const Datatype* t : held_types_) datatypes::release(t);
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

void Schedule::send(const void* buf, int count, const Datatype* type, int peer) {
  hold(type);
  steps_.push_back(Step{Step::Kind::kSend, buf, nullptr, count, type, comm_rank(peer), 0, nullptr, nullptr, local_mode_});
}

void Schedule::recv(void* buf, int count, const Datatype* type, int peer) {
  hold(type);
  steps_.push_back(Step{Step::Kind::kRecv, nullptr, buf, count, type, comm_rank(peer), 0, nullptr, nullptr, local_mode_});
}

void Schedule::reduce(const void* in, void* inout, int count, const Datatype* type, const Op* op) {
  hold(type);
  steps_.push_back(Step{Step::Kind::kReduce, in, inout, count, type, 0, 0, nullptr, op});
}

void Schedule::copy(const void* src, int scount, const Datatype* stype, void* dst, int rcount,
                    const Datatype* rtype) {
  hold(stype);
  hold(rtype);
  steps_.push_back(Step{Step::Kind::kCopy, src, dst, scount, stype, 0, rcount, rtype, nullptr});
}

void Schedule::local(std::function<void()> work) {
  local_work_.push_back(std::move(work));
  steps_.push_back(Step{Step::Kind::kLocal, nullptr, nullptr, static_cast<int>(local_work_.size() - 1), nullptr, 0,
                        0, nullptr, nullptr});
}

void Schedule::end_round() {
  if (round_ends_.empty() ? !steps_.empty() : round_ends_.back() != steps_.size())
    round_ends_.push_back(steps_.size());
}

void* Schedule::scratch(size_t bytes) {
  // Not zeroed: every algorithm writes its scratch before reading it, and
  // clearing megabytes per call would cost more than the copy that fills it.
  scratch_.push_back(std::make_unique_for_overwrite<char[]>(bytes > 0 ? bytes : 1));
  return scratch_.back().get();
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
        e = pt2pt::isend(pt2pt::Message{s.in, s.count, s.type}, s.peer, tag, via, Request::Mode::kStandard, &r,
                         pt2pt::Context::kCollective);
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
  for (size_t i = begin; i < end; ++i) {
    const Step& s = steps_[i];
    if (s.kind == Step::Kind::kReduce) {
      apply(*s.op, s.in, s.out, s.count, *s.type);
    } else if (s.kind == Step::Kind::kCopy) {
      Err e = copy_typed(s.in, s.count, *s.type, s.out, s.count2, *s.type2);
      if (e && error_.ok()) error_ = std::move(e);
    } else if (s.kind == Step::Kind::kLocal) {
      local_work_[static_cast<size_t>(s.count)]();
    }
  }
}

Err Schedule::start() {
  end_round();
  started_ = true;
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
