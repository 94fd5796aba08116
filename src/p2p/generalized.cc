#include "p2p/generalized.h"

#include <memory>
#include <mutex>
#include <vector>

#include "base/communicator.h"
#include "p2p/pt2pt.h"
#include "progress/tasks.h"

namespace ferry::generalized {
namespace {

int run_free(GeneralizedOps& ops) {
  if (ops.freed) return MPI_SUCCESS;
  ops.freed = true;
  return ops.free != nullptr ? ops.free(ops.extra_state) : MPI_SUCCESS;
}

// A polled request's state, shared by its task and complete(): the task
// stops touching the request once complete() has marked it done, because
// the program may free the request as soon as a wait returns.
struct Polled {
  Request* request;
  MPIX_Grequest_poll_function* poll;
  void* extra_state;
  bool done = false;
};
std::vector<Polled*> polled;  // engine lock held

class PollTask : public progress::Task {
 public:
  explicit PollTask(Polled* p) : p_(p) {}
  bool advance() override {
    if (!p_->done) {
      MPI_Status status = pt2pt::empty_status();
      // Its status and error are what query_fn reports later; the return
      // value says only whether the poll itself failed, which MPICH ignores too.
      (void)p_->poll(p_->extra_state, &status);
    }
    if (!p_->done) return false;
    std::erase(polled, p_);
    delete p_;
    return true;
  }

 private:
  Polled* p_;
};

std::mutex classes_mutex;
std::vector<Class> classes;
// Class handles start here, so that a small integer is no class.
constexpr int kFirstClass = 0x47520000;

}  // namespace

Request* start_polled(const GeneralizedOps& ops, MPIX_Grequest_poll_function* poll_fn) {
  Request* r = start(ops);
  if (poll_fn == nullptr) return r;
  progress::Lock lock;
  auto* p = new Polled{r, poll_fn, ops.extra_state};
  polled.push_back(p);
  progress::start(std::make_unique<PollTask>(p));
  return r;
}

int create_class(const Class& c) {
  std::lock_guard lock(classes_mutex);
  classes.push_back(c);
  return kFirstClass + static_cast<int>(classes.size()) - 1;
}

bool find_class(int handle, Class* out) {
  std::lock_guard lock(classes_mutex);
  if (handle < kFirstClass || handle - kFirstClass >= static_cast<int>(classes.size())) return false;
  *out = classes[static_cast<size_t>(handle - kFirstClass)];
  return true;
}

Request* start(const GeneralizedOps& ops) {
  progress::Lock lock;
  Request* r = requests::acquire();
  r->kind = Request::Kind::kGeneralized;
  // Errors of the completion calls go to MPI_COMM_WORLD's handler, as for
  // any call without a communicator; every live request names one.
  r->comm = &communicators::world();
  r->active = true;
  r->status = pt2pt::empty_status();
  r->generalized = new GeneralizedOps(ops);
  return r;
}

void complete(Request* r) {
  progress::Lock lock;
  for (Polled* p : polled)
    if (p->request == r) p->done = true;
  ferry::complete(r);
}

int query(Request* r, MPI_Status* status) {
  // MPI passes query_fn a status even where the caller ignores it.
  MPI_Status s = pt2pt::empty_status();
  int code = r->generalized->query != nullptr ? r->generalized->query(r->generalized->extra_state, &s) : MPI_SUCCESS;
  report_status(status, s);
  return code;
}

int finish(Request* r, MPI_Status* status) {
  int code = query(r, status);
  int freed = run_free(*r->generalized);
  return code != MPI_SUCCESS ? code : freed;
}

int cancel(Request* r) {
  GeneralizedOps& ops = *r->generalized;
  return ops.cancel != nullptr ? ops.cancel(ops.extra_state, r->complete ? 1 : 0) : MPI_SUCCESS;
}

int free(Request* r) { return run_free(*r->generalized); }

}  // namespace ferry::generalized
