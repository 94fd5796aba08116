#include "io/shared_pointer.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "base/op.h"
#include "base/request.h"
#include "coll/collectives.h"
#include "io/agreement.h"
#include "p2p/pt2pt.h"
#include "progress/progress.h"
#include "progress/tasks.h"

namespace ferry::io {
namespace {

// A request's "etypes to add" that instead says: the sender is in
// MPI_Finalize and will ask no more.
constexpr int64_t kFinalizing = INT64_MIN;

}  // namespace

// The owner's side: the counter and the background task that serves the
// other processes' fetch-and-adds. One receive is always posted (from any
// process, the request tag); each request ({etypes to add, the sender's
// epoch}) is answered with the value before the add, or, when its sender is
// an epoch ahead, kept until the owner gets there. Replies in flight are
// kept until their sends complete; their slots are reused, so serving
// allocates nothing once warm.
class SharedPointerServer final : public progress::Task {
 public:
  SharedPointerServer(Communicator* comm, MPI_Offset initial) : comm_(comm), value_(initial) {}

  Err post() {
    return pt2pt::irecv(request_, 2, find_datatype(MPI_INT64_T), MPI_ANY_SOURCE, kSharedPointerRequestTag, comm_,
                        &recv_);
  }

  // Engine lock held (the task list runs inside poll()).
  bool advance() override {
    if (stopped_) return true;
    reap();
    while (recv_ != nullptr && recv_->complete) {
      int source = recv_->status.MPI_SOURCE;
      bool ok = recv_->error == MPI_SUCCESS;
      requests::release(recv_);
      recv_ = nullptr;
      if (ok && request_[0] == kFinalizing) ++finalized_peers_;
      else if (ok && request_[1] > epoch_) early_.push_back(Early{source, request_[0], request_[1]});
      else if (ok) answer(source, request_[0]);
      if (Err e = post()) recv_ = nullptr;  // cannot serve any more; the requesters' calls fail on close
    }
    return false;
  }

  // A setting collective ended here: the pointer is `value` from the next
  // epoch on; requests that waited for it are answered. Engine lock held.
  void next_epoch(MPI_Offset value) {
    value_ = value;
    ++epoch_;
    size_t kept = 0;
    for (const Early& e : early_) {
      if (e.epoch <= epoch_) answer(e.source, e.add);
      else early_[kept++] = e;
    }
    early_.resize(kept);
  }

  // MPI_File_close: no request can come any more (every process is past
  // its last shared-pointer call). Engine lock held.
  void stop(progress::Lock& lock) {
    if (recv_ != nullptr) {
      (void)pt2pt::cancel(recv_);
      progress::wait_until(lock, [this] { return recv_->complete; });
      requests::release(recv_);
      recv_ = nullptr;
    }
    for (Reply* r : in_flight_) {
      progress::wait_until(lock, [r] { return r->send->complete; });
      requests::release(r->send);
    }
    in_flight_.clear();
    stopped_ = true;  // the engine destroys the task at its next pass
  }

  MPI_Offset fetch_and_add(MPI_Offset add) {
    MPI_Offset before = value_;
    value_ += add;
    return before;
  }
  MPI_Offset value() const { return value_; }
  int finalized_peers() const { return finalized_peers_; }

 private:
  struct Early {
    int source;
    int64_t add, epoch;
  };

  struct Reply {
    int64_t value;
    Request* send;
  };

  void answer(int source, int64_t add) {
    Reply* r;
    if (!spare_.empty()) {
      r = spare_.back().release();
      spare_.pop_back();
    } else {
      r = new Reply{};
    }
    r->value = fetch_and_add(add);
    Err e = pt2pt::isend(pt2pt::Message{&r->value, 1, find_datatype(MPI_INT64_T)}, source, kSharedPointerReplyTag,
                         comm_, Request::Mode::kStandard, &r->send);
    if (!e.ok()) {
      spare_.emplace_back(r);
      return;
    }
    in_flight_.push_back(r);
  }

  // Returns the slots of replies whose sends have completed.
  void reap() {
    size_t kept = 0;
    for (Reply* r : in_flight_) {
      if (r->send->complete) {
        requests::release(r->send);
        spare_.emplace_back(r);
      } else {
        in_flight_[kept++] = r;
      }
    }
    in_flight_.resize(kept);
  }

  Communicator* comm_;
  MPI_Offset value_;
  int64_t epoch_ = 0;
  int64_t request_[2] = {};  // {etypes to add, the sender's epoch}
  std::vector<Early> early_;  // requests from a later epoch
  int finalized_peers_ = 0;   // processes that said they are in MPI_Finalize
  Request* recv_ = nullptr;
  std::vector<Reply*> in_flight_;
  std::vector<std::unique_ptr<Reply>> spare_;
  bool stopped_ = false;
};

namespace shared_pointer {
namespace {

bool is_owner(const File& f) { return f.comm->rank == 0; }

}  // namespace

Err start(File& f, MPI_Offset initial) {
  if (!is_owner(f)) return {};
  auto server = std::make_unique<SharedPointerServer>(f.comm, initial);
  progress::Lock lock;
  if (f.comm->size > 1) {
    if (Err e = server->post()) return e;
  }
  f.shared_server = server.get();
  progress::start(std::move(server));
  return {};
}

void stop(File& f) {
  if (f.shared_server == nullptr) return;
  progress::Lock lock;
  f.shared_server->stop(lock);
  f.shared_server = nullptr;
}

namespace {

// Every process enters the next epoch after a setting collective succeeded
// everywhere; the owner with the pointer's new value.
void next_epoch(File& f, MPI_Offset value) {
  ++f.shared_epoch;
  if (f.shared_server == nullptr) return;
  progress::Lock lock;
  f.shared_server->next_epoch(value);
}

MPI_Offset owner_value(File& f) {
  progress::Lock lock;
  return f.shared_server->value();
}

}  // namespace

Err fetch_and_add(File& f, MPI_Offset add, MPI_Offset* before) {
  if (f.shared_server != nullptr) {
    progress::Lock lock;
    *before = f.shared_server->fetch_and_add(add);
    return {};
  }
  // One request in flight per process and file: under
  // MPI_THREAD_MULTIPLE two threads' replies could otherwise swap.
  std::lock_guard<std::mutex> one_at_a_time(f.shared_mutex);
  const Datatype* int64 = find_datatype(MPI_INT64_T);
  int64_t reply = 0;
  Request* r = nullptr;
  if (Err e = pt2pt::irecv(&reply, 1, int64, 0, kSharedPointerReplyTag, f.comm, &r)) return e;
  int64_t request[2] = {add, f.shared_epoch};
  Err sent = pt2pt::send(pt2pt::Message{request, 2, int64}, 0, kSharedPointerRequestTag, f.comm,
                         Request::Mode::kStandard);
  progress::Lock lock;
  if (!sent.ok()) {
    (void)pt2pt::cancel(r);
    progress::wait_until(lock, [r] { return r->complete; });
    requests::release(r);
    return sent;
  }
  progress::wait_until(lock, [r] { return r->complete; });
  int code = r->error;
  requests::release(r);
  if (code != MPI_SUCCESS)
    return fail(MPI_ERR_OTHER, "the shared file pointer's owner (process 0) did not answer: %s",
                error_code::text(code).c_str());
  *before = reply;
  return {};
}

void view_changed(File& f) { next_epoch(f, 0); }

void finalize(File& f) {
  if (f.comm->size == 1) return;
  if (f.shared_server != nullptr) {
    progress::Lock lock;
    const int others = f.comm->size - 1;
    progress::wait_until(lock, [&f, others] { return f.shared_server->finalized_peers() >= others; });
    return;
  }
  int64_t request[2] = {kFinalizing, f.shared_epoch};
  (void)pt2pt::send(pt2pt::Message{request, 2, find_datatype(MPI_INT64_T)}, 0, kSharedPointerRequestTag, f.comm,
                    Request::Mode::kStandard);
}

Err current_byte_offset(File& f, MPI_Offset* bytes) {
  int64_t offset = 0;
  if (is_owner(f)) {
    uint64_t position = static_cast<uint64_t>(owner_value(f)) * f.view.etype().size;
    offset = f.view.filetype().size == 0 ? f.view.disp() : static_cast<int64_t>(f.view.file_offset(position));
  }
  if (Err e = coll::bcast(&offset, 1, find_datatype(MPI_INT64_T), 0, f.comm)) return e;
  *bytes = offset;
  return {};
}

Err seek(File& f, MPI_Offset offset, int whence, Err local) {
  if (local.ok() && whence == MPI_SEEK_SET && offset < 0)
    local = fail(MPI_ERR_ARG, "invalid offset %lld with MPI_SEEK_SET (must be >= 0)", static_cast<long long>(offset));
  if (Err e = agree(f.comm, std::move(local), {{"offset", offset}, {"whence", whence}})) return e;
  // Every earlier request has been answered (its sender joined the
  // agreement after): the owner's value is the one to move from.
  MPI_Offset to = offset;
  if (is_owner(f) && whence != MPI_SEEK_SET) {
    MPI_Offset from = owner_value(f);
    if (whence == MPI_SEEK_END) {
      MPI_Offset size = 0;
      local = get_size(f, &size);
      uint64_t bytes = f.view.position_of_offset(static_cast<uint64_t>(size));
      uint64_t etype_size = f.view.etype().size;
      from = static_cast<MPI_Offset>((bytes + etype_size - 1) / etype_size);
    }
    to = from + offset;
    if (local.ok() && to < 0)
      local = fail(MPI_ERR_ARG, "offset %lld would put the shared file pointer before the start of the view (at %lld)",
                   static_cast<long long>(offset), static_cast<long long>(to));
  }
  // Only the owner knows where MPI_SEEK_CUR and _END lead: a second
  // agreement tells the others whether that was allowed.
  if (whence != MPI_SEEK_SET) {
    if (Err e = agree(f.comm, std::move(local))) return e;
  }
  next_epoch(f, to);
  return {};
}

Err ordered_slot(File& f, MPI_Offset mine, MPI_Offset* start, Err local) {
  // Everybody's outcome first, so that a failing process makes nobody move
  // the pointer; after it, every earlier request has been answered.
  if (Err e = agree(f.comm, std::move(local))) return e;
  // Each process's share and the owner's pointer, everywhere: the etypes
  // before this process, the total and the base follow.
  const Datatype* int64 = find_datatype(MPI_INT64_T);
  std::vector<int64_t> words(2 * static_cast<size_t>(f.comm->size));
  int64_t my_words[2] = {mine, is_owner(f) ? owner_value(f) : 0};
  if (Err e = coll::allgather(my_words, 2, int64, words.data(), 2, int64, f.comm)) return e;
  int64_t base = words[1], before = 0, total = 0;
  for (int i = 0; i < f.comm->size; ++i) {
    if (i < f.comm->rank) before += words[2 * static_cast<size_t>(i)];
    total += words[2 * static_cast<size_t>(i)];
  }
  *start = base + before;
  next_epoch(f, base + total);
  return {};
}

}  // namespace shared_pointer
}  // namespace ferry::io
