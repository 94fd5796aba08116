#include "coll/schedule.h"

#include <list>

#include "core/progress.h"
#include "core/pt2pt.h"

namespace ferry::coll {

Schedule::Schedule(Communicator* c) : comm_(c), tag_(c->next_collective_tag()) {}

Schedule::~Schedule() {
  // A schedule is only destroyed finished; anything left would be a bug, but
  // never leave a request pointing into freed scratch memory.
  for (Request* r : pending_) {
    progress::Lock lock;
    progress::wait_until(lock, [r] { return r->complete; });
    requests::release(r);
  }
}

void Schedule::send(const void* buf, int count, const Datatype* type, int peer) {
  steps_.push_back(Step{Step::Kind::kSend, buf, nullptr, count, type, peer, 0, nullptr, nullptr});
}

void Schedule::recv(void* buf, int count, const Datatype* type, int peer) {
  steps_.push_back(Step{Step::Kind::kRecv, nullptr, buf, count, type, peer, 0, nullptr, nullptr});
}

void Schedule::reduce(const void* in, void* inout, int count, const Datatype* type, const Op* op) {
  steps_.push_back(Step{Step::Kind::kReduce, in, inout, count, type, 0, 0, nullptr, op});
}

void Schedule::copy(const void* src, int scount, const Datatype* stype, void* dst, int rcount,
                    const Datatype* rtype) {
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
  scratch_.push_back(std::make_unique<char[]>(bytes > 0 ? bytes : 1));
  return scratch_.back().get();
}

void Schedule::post_round() {
  size_t begin = round_ == 0 ? 0 : round_ends_[round_ - 1];
  size_t end = round_ends_[round_];
  // Receives first, so that the round's incoming messages find them posted.
  for (int pass = 0; pass < 2 && error_.ok(); ++pass) {
    for (size_t i = begin; i < end && error_.ok(); ++i) {
      const Step& s = steps_[i];
      Request* r = nullptr;
      if (pass == 0 && s.kind == Step::Kind::kRecv) {
        error_ = pt2pt::irecv(s.out, s.count, s.type, s.peer, tag_, comm_, &r, pt2pt::Context::kCollective);
      } else if (pass == 1 && s.kind == Step::Kind::kSend) {
        error_ = pt2pt::isend(pt2pt::Message{s.in, s.count, s.type}, s.peer, tag_, comm_,
                              Request::Mode::kStandard, &r, pt2pt::Context::kCollective);
      }
      if (r != nullptr) pending_.push_back(r);
    }
  }
}

void Schedule::finish_round() {
  size_t begin = round_ == 0 ? 0 : round_ends_[round_ - 1];
  size_t end = round_ends_[round_];
  for (size_t i = begin; i < end && error_.ok(); ++i) {
    const Step& s = steps_[i];
    if (s.kind == Step::Kind::kReduce) apply(*s.op, s.in, s.out, s.count, *s.type);
    else if (s.kind == Step::Kind::kCopy) error_ = copy_typed(s.in, s.count, *s.type, s.out, s.count2, *s.type2);
    else if (s.kind == Step::Kind::kLocal) local_work_[static_cast<size_t>(s.count)]();
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
      requests::release(r);
    }
    pending_.clear();
    finish_round();
    if (!error_.ok() || ++round_ == round_ends_.size()) {
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

struct Running {
  std::unique_ptr<Schedule> schedule;
  Request* request;
};
// Nonblocking collectives in flight, advanced by every progress pass.
std::list<Running> running;

}  // namespace

Request* start_nonblocking(std::unique_ptr<Schedule> schedule, Err* error) {
  Request* r = requests::acquire();
  r->kind = Request::Kind::kCollective;
  r->comm = schedule->comm();
  r->active = true;
  r->status = pt2pt::empty_status();
  *error = schedule->start();
  progress::Lock lock;
  progress::set_extra_work(progress_nonblocking);
  running.push_back(Running{std::move(schedule), r});
  progress_nonblocking();
  return r;
}

int progress_nonblocking() {
  int events = 0;
  for (auto it = running.begin(); it != running.end();) {
    if (!it->schedule->advance()) {
      ++it;
      continue;
    }
    if (!it->schedule->error().ok()) {
      it->request->error = error_code::make(it->schedule->error().mpi_class(), it->schedule->error().message());
      it->request->status.MPI_ERROR = it->request->error;
    }
    complete(it->request);
    it = running.erase(it);
    ++events;
  }
  return events;
}

}  // namespace ferry::coll
