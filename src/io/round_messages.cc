#include "io/round_messages.h"

#include <climits>

#include "base/datatype.h"
#include "coll/collectives.h"
#include "p2p/pt2pt.h"
#include "progress/progress.h"

namespace ferry::io {

RoundMessages::~RoundMessages() { (void)wait(); }

void RoundMessages::post(bool sending, const void* data, uint64_t count, bool words, int peer) {
  if (count == 0 || !error_.ok()) return;
  if (count > static_cast<uint64_t>(INT_MAX)) {
    error_ = fail(MPI_ERR_INTERN, "a collective IO message of %llu %s is too large",
                  static_cast<unsigned long long>(count), words ? "words" : "bytes");
    return;
  }
  const Datatype* type = find_datatype(words ? MPI_UINT64_T : MPI_BYTE);
  Request* r = nullptr;
  Err e = sending ? pt2pt::isend(pt2pt::Message{data, static_cast<int>(count), type}, peer, tag_, comm_,
                                 Request::Mode::kStandard, &r, pt2pt::Context::kCollective)
                  : pt2pt::irecv(const_cast<void*>(data), static_cast<int>(count), type, peer, tag_, comm_, &r,
                                 pt2pt::Context::kCollective);
  if (r != nullptr) pending_.push_back(r);
  if (e && error_.ok()) error_ = std::move(e);
}

void RoundMessages::recv(void* data, uint64_t bytes, int source) { post(false, data, bytes, false, source); }
void RoundMessages::send(const void* data, uint64_t bytes, int dest) { post(true, data, bytes, false, dest); }
void RoundMessages::recv_words(uint64_t* words, uint64_t n, int source) { post(false, words, n, true, source); }
void RoundMessages::send_words(const uint64_t* words, uint64_t n, int dest) { post(true, words, n, true, dest); }

Err RoundMessages::wait() {
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

Err exchange_counts(Communicator* c, const std::vector<int64_t>& out, std::vector<int64_t>* in) {
  in->resize(out.size());
  const Datatype* word = find_datatype(MPI_INT64_T);
  return coll::alltoall(out.data(), 2, word, in->data(), 2, word, c);
}

}  // namespace ferry::io
