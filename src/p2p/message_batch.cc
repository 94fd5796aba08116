#include "p2p/message_batch.h"

#include "p2p/pt2pt.h"
#include "progress/progress.h"

namespace ferry::p2p {

void MessageBatch::post(bool sending, const void* data, MPI_Count count, const Datatype* type, int peer) {
  if (count == 0 || !error_.ok()) return;
  Request* r = nullptr;
  Err e = sending ? pt2pt::isend(pt2pt::Message{data, count, type}, peer, tag_, comm_, Request::Mode::kStandard, &r,
                                 pt2pt::Context::kCollective)
                  : pt2pt::irecv(const_cast<void*>(data), count, type, peer, tag_, comm_, &r,
                                 pt2pt::Context::kCollective);
  if (r != nullptr) pending_.push_back(r);
  if (e && error_.ok()) error_ = std::move(e);
}

void MessageBatch::send(const void* data, MPI_Count count, const Datatype* type, int dest) {
  post(true, data, count, type, dest);
}

void MessageBatch::recv(void* data, MPI_Count count, const Datatype* type, int source) {
  post(false, data, count, type, source);
}

Err MessageBatch::wait() {
  if (!pending_.empty()) {
    progress::Lock lock;
    progress::wait_until(lock, [this] {
      for (Request* r : pending_)
        if (!r->complete) return false;
      return true;
    });
    for (Request* r : pending_) {
      if (r->error != MPI_SUCCESS && error_.ok())
        error_ = Err(error_code::class_of(r->error), error_code::text(r->error));
      requests::release(r);
    }
    pending_.clear();
  }
  Err e = std::move(error_);
  error_ = Err();
  return e;
}

}  // namespace ferry::p2p
