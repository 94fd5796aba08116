#include "coll/persistent.h"

#include "p2p/pt2pt.h"
#include "progress/progress.h"
#include "progress/tasks.h"

namespace ferry::coll {
namespace {

// One start's run: advances the schedule and completes the request when it
// ends. It does not own the schedule (the request does). Completing never
// frees the request: MPI_Request_free refuses an active persistent
// collective (pt2pt::free_request, MPI-4.0 §6.13), so the request and its
// schedule outlive every run.
class PersistentRun final : public progress::Task {
 public:
  PersistentRun(Schedule* schedule, Request* request) : schedule_(schedule), request_(request) {}
  bool advance() override {
    if (!schedule_->advance()) return false;
    complete(request_, schedule_->error());
    return true;
  }

 private:
  Schedule* schedule_;
  Request* request_;
};

class PersistentCollective final : public Restartable {
 public:
  explicit PersistentCollective(std::unique_ptr<Schedule> schedule) : schedule_(std::move(schedule)) {}

  Err start(Request* r) override {
    r->active = true;
    r->complete = false;
    r->cancelled = false;
    r->error = MPI_SUCCESS;
    r->status = pt2pt::empty_status();
    schedule_->rearm();
    if (Err e = schedule_->start()) return e;
    auto run = std::make_unique<PersistentRun>(schedule_.get(), r);
    // Its first round may be over already (nothing to wait for).
    if (!run->advance()) progress::start(std::move(run));
    return {};
  }

 private:
  std::unique_ptr<Schedule> schedule_;
};

}  // namespace

Request* make_persistent(std::unique_ptr<Schedule> schedule) {
  progress::Lock lock;
  Request* r = requests::acquire();
  r->kind = Request::Kind::kCollective;
  r->comm = schedule->comm();
  r->persistent = true;
  r->active = false;
  r->status = pt2pt::empty_status();
  r->restartable = new PersistentCollective(std::move(schedule));
  return r;
}

}  // namespace ferry::coll
