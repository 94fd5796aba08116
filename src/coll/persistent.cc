#include "coll/persistent.h"

#include "p2p/pt2pt.h"
#include "progress/progress.h"
#include "progress/tasks.h"

namespace ferry::coll {
namespace {

// A start's run: advances the schedule and completes the request when it
// ends. The persistent collective keeps it and hands the same one to the
// engine at every start (progress::start_kept: no allocation). Completing
// never frees the request: MPI_Request_free refuses an active persistent
// collective (pt2pt::free_request, MPI-4.0 §6.13), so the request, its
// schedule and this run outlive every start.
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
  PersistentCollective(std::unique_ptr<Schedule> schedule, Request* request)
      : schedule_(std::move(schedule)), run_(schedule_.get(), request) {}

  Err start(Request* r) override {
    r->active = true;
    r->complete = false;
    r->cancelled = false;
    r->error = MPI_SUCCESS;
    r->status = pt2pt::empty_status();
    schedule_->rearm();
    if (Err e = schedule_->start()) return e;
    // Its first round may be over already (nothing to wait for).
    if (!run_.advance()) progress::start_kept(&run_);
    return {};
  }

 private:
  std::unique_ptr<Schedule> schedule_;
  PersistentRun run_;
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
  r->restartable = new PersistentCollective(std::move(schedule), r);
  return r;
}

}  // namespace ferry::coll
