#include "io/worker.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/datatype.h"
#include "base/type_pack.h"
#include "progress/progress.h"
#include "progress/source.h"

namespace ferry::io::worker {
namespace {

// One queued access. Slots are reused (the spare list), so that a warm
// program allocates nothing per request.
struct Job {
  File* file;
  Task* task;  // the runtime's own work, or nullptr: an access
  const char* call;
  Direction direction;
  MPI_Offset offset;
  Buffer buffer;
  Request* request;
  // Filled by the worker.
  Err result;
  MPI_Status status;
};

class Worker final : public progress::Source {
 public:
  ~Worker() override {
    {
      std::lock_guard<std::mutex> hold(mutex_);
      quitting_ = true;
    }
    wake_worker_.notify_one();
    if (thread_.joinable()) thread_.join();
    if (event_fd_ >= 0) ::close(event_fd_);
  }

  // Engine lock held.
  Err submit(Job* job) {
    if (!started_) {
      event_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
      if (event_fd_ < 0) return fail(MPI_ERR_OTHER, "cannot start the I/O worker: eventfd failed");
      thread_ = std::thread([this] { run(); });
      progress::add_source(this);
      started_ = true;
    }
    job->file->background.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> hold(mutex_);
      queue_.push_back(job);
    }
    wake_worker_.notify_one();
    return {};
  }

  Job* take_spare() {
    if (spare_.empty()) return new Job{};
    Job* j = spare_.back().release();
    spare_.pop_back();
    return j;
  }

  // Completes the requests of finished jobs (engine lock held). Costs one
  // relaxed load while nothing has finished.
  int progress() override {
    if (finished_count_.load(std::memory_order_acquire) == 0) return 0;
    std::vector<Job*> done;
    {
      // The eventfd is drained with the list, under the lock the worker
      // holds while it posts to both: so it is readable exactly while
      // finished jobs wait, and a sleeping engine never spins on it.
      std::lock_guard<std::mutex> hold(mutex_);
      done.swap(finished_);
      finished_count_.store(0, std::memory_order_relaxed);
      uint64_t drained;
      (void)!::read(event_fd_, &drained, sizeof drained);
    }
    for (Job* job : done) {
      Request* r = job->request;
      r->status = job->status;
      if (job->buffer.type != nullptr) datatypes::release(job->buffer.type);
      job->file->background.fetch_sub(1, std::memory_order_release);
      complete(r, job->result);
      job->result = Err();
      spare_.emplace_back(job);
    }
    return static_cast<int>(done.size());
  }

  int wait_fd() const override { return event_fd_; }

 private:
  void run() {
    for (;;) {
      Job* job;
      {
        std::unique_lock<std::mutex> hold(mutex_);
        wake_worker_.wait(hold, [this] { return quitting_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = queue_.front();
        queue_.pop_front();
      }
      if (job->task != nullptr) {
        job->task->run();
      } else {
        MPI_Status status{};
        Err e = access(*job->file, job->direction, Where::kFromPointer, job->offset, job->buffer, &status);
        // The wait reports it: say which call started the access, and on
        // which file.
        if (!e.ok()) e = fail(e.mpi_class(), "%s: %s", job->call, e.message().c_str());
        job->result = std::move(e);
        job->status = status;
      }
      {
        std::lock_guard<std::mutex> hold(mutex_);
        finished_.push_back(job);
        finished_count_.fetch_add(1, std::memory_order_release);
        uint64_t one = 1;
        (void)!::write(event_fd_, &one, sizeof one);
      }
    }
  }

  bool started_ = false;
  int event_fd_ = -1;
  std::thread thread_;
  std::mutex mutex_;  // queue_, finished_, quitting_
  std::condition_variable wake_worker_;
  std::deque<Job*> queue_;
  std::vector<Job*> finished_;
  std::atomic<size_t> finished_count_{0};
  bool quitting_ = false;
  std::vector<std::unique_ptr<Job>> spare_;  // engine lock
};

Worker& the_worker() {
  static Worker w;
  return w;
}

}  // namespace

Err start(File& f, const char* call, Direction direction, MPI_Offset offset, const Buffer& buffer, Request** out) {
  progress::Lock lock;
  Worker& w = the_worker();
  Job* job = w.take_spare();
  Request* r = requests::acquire();
  r->kind = Request::Kind::kCollective;
  r->comm = f.comm;  // every live request names a communicator; the file's outlives it
  r->active = true;
  r->complete = false;
  datatypes::retain(buffer.type);  // the program may free it before the access ends
  *job = Job{&f, nullptr, call, direction, offset, buffer, r, Err(), MPI_Status{}};
  if (Err e = w.submit(job)) {
    datatypes::release(buffer.type);
    requests::release(r);
    delete job;
    return e;
  }
  *out = r;
  return {};
}

Err start_task(File& f, Task* task, Request** out) {
  progress::Lock lock;
  Worker& w = the_worker();
  Job* job = w.take_spare();
  Request* r = requests::acquire();
  r->kind = Request::Kind::kCollective;
  r->comm = f.comm;
  r->active = true;
  r->complete = false;
  *job = Job{&f, task, "", Direction::kWrite, 0, Buffer{}, r, Err(), MPI_Status{}};
  if (Err e = w.submit(job)) {
    requests::release(r);
    delete job;
    return e;
  }
  *out = r;
  return {};
}

Err start_access(File& f, const char* call, Direction direction, Where where, MPI_Offset offset,
                 const Buffer& buffer, Request** out) {
  if (Err e = check_access(f, direction, where, offset, buffer)) return e;
  if (where != Where::kIndividualPointer) return start(f, call, direction, offset, buffer, out);
  std::lock_guard<std::mutex> hold(f.pointer_mutex);
  MPI_Offset at = f.position;
  if (Err e = start(f, call, direction, at, buffer, out)) return e;
  uint64_t bytes = f.view.file_bytes(*buffer.type, buffer.count);  // in the file's sizes
  f.position = at + static_cast<MPI_Offset>(bytes / f.view.etype().size);
  return {};
}

void drain(File& f) {
  if (f.background.load(std::memory_order_acquire) == 0) return;
  progress::Lock lock;
  progress::wait_until(lock, [&f] { return f.background.load(std::memory_order_acquire) == 0; });
}

}  // namespace ferry::io::worker
