#include "io/nonblocking_collective.h"

#include "base/datatype.h"
#include "base/type_pack.h"
#include "progress/progress.h"

namespace ferry::io {

namespace {

// The file whose queue the calling thread runs, if any.
thread_local const File* running_for = nullptr;

}  // namespace

CollectiveQueue::CollectiveQueue(File& f) : file_(f), thread_([this] { run(); }) {}

CollectiveQueue::~CollectiveQueue() {
  {
    std::lock_guard<std::mutex> hold(mutex_);
    quitting_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void CollectiveQueue::push(Job job) {
  {
    std::lock_guard<std::mutex> hold(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void CollectiveQueue::run() {
  running_for = &file_;
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> hold(mutex_);
      wake_.wait(hold, [this] { return quitting_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    // The blocking form's code, on this thread: the point-to-point messages
    // and the collectives inside take the engine lock as any caller's do,
    // and a wait here drives progress for the whole process.
    MPI_Status status{};
    Err e = access(file_, job.direction, job.where, job.offset, job.buffer, &status, Coordination::kCollective,
                   std::move(job.checked));
    // The wait reports it: say which call started the access.
    if (!e.ok()) e = fail(e.mpi_class(), "%s: %s", job.call, e.message().c_str());
    // The last touch of the request and of the user's buffer: under the
    // engine lock, as every request completes, so a waiter that sees it
    // complete sees the data too.
    progress::Lock lock;
    job.request->status = status;
    datatypes::release(job.buffer.type);
    file_.collectives_started.fetch_sub(1, std::memory_order_release);
    complete(job.request, e);
  }
}

namespace nonblocking_collective {

Err start(File& f, const char* call, Direction direction, Where where, MPI_Offset offset, const Buffer& buffer,
          Request** out) {
  // Before any engine Lock of this call: from now on another thread of
  // ours drives progress (progress::enable_locking).
  progress::enable_locking();

  // The file pointer is read and moved now, as the access had completed
  // (§13.4.3), so that the next access of this process starts after it.
  Err checked = check_access(f, direction, where, offset, buffer);
  MPI_Offset at = offset;
  if (where == Where::kIndividualPointer) {
    std::lock_guard<std::mutex> hold(f.pointer_mutex);
    at = f.position;
    if (checked.ok()) {
      uint64_t bytes = f.view.file_bytes(*buffer.type, buffer.count);  // in the file's sizes, as positions are
      f.position = at + static_cast<MPI_Offset>(bytes / f.view.etype().size);
    }
    where = Where::kFromPointer;
  }

  // Started by this process's first nonblocking collective on the file;
  // collectives of one file are started by one thread at a time (MPI-3.1
  // §5.13: their order is the program's), so this needs no lock of its own.
  if (f.collective_queue == nullptr) f.collective_queue = new CollectiveQueue(f);
  Request* r;
  {
    progress::Lock lock;
    r = requests::acquire();
    r->kind = Request::Kind::kCollective;
    r->comm = f.comm;  // every live request names a communicator; the file's outlives it
    r->active = true;
    r->complete = false;
  }
  datatypes::retain(buffer.type);  // the program may free it before the access ends
  f.collectives_started.fetch_add(1, std::memory_order_relaxed);
  // After the engine lock is let go: the woken thread wants it at once.
  f.collective_queue->push({call, direction, where, at, buffer, std::move(checked), r});
  *out = r;
  return {};
}

void wait_for_started(File& f) {
  if (f.collectives_started.load(std::memory_order_acquire) == 0) return;
  if (running_for == &f) return;  // the file's thread, running one of them
  progress::Lock lock;
  // Each completion happens under the lock and is announced, so the wait
  // wakes for it; meanwhile this thread drives progress too.
  progress::wait_until(lock, [&f] { return f.collectives_started.load(std::memory_order_acquire) == 0; });
}

void stop(File& f) {
  if (f.collective_queue == nullptr) return;
  wait_for_started(f);
  delete f.collective_queue;  // joins the thread, which has nothing left to do
  f.collective_queue = nullptr;
}

}  // namespace nonblocking_collective
}  // namespace ferry::io
