#include "p2p/isendrecv.h"

#include <memory>
#include <new>
#include <vector>

#include "base/type_pack.h"
#include "p2p/data_access.h"
#include "progress/progress.h"
#include "progress/tasks.h"

namespace ferry::pt2pt {
namespace {

// The pair in flight: completes the user's request once both halves have,
// then returns their requests to the pool.
class SendRecvPair final : public progress::Task {
 public:
  explicit SendRecvPair(Request* user) : user_(user) {}

  // Made and freed with the engine lock held (isendrecv, the task's end in
  // progress), so a few freed ones are kept for the next call: a program
  // that exchanges halos with MPI_Isendrecv every step costs no allocation
  // (without the list, a malloc and a free: an 8-byte MPI_Isendrecv + MPI_Wait
  // to oneself 2,371 instructions instead of 2,267, callgrind).
  // The class is final: every one asked for is sizeof(SendRecvPair).
  static void* operator new(size_t bytes) {
    if (!spare().empty()) {
      void* p = spare().back();
      spare().pop_back();
      return p;
    }
    return ::operator new(bytes);
  }
  static void operator delete(void* p) {
    if (spare().size() < kMaxSpare) {
      spare().push_back(p);
      return;
    }
    ::operator delete(p);
  }

  // Starts both halves (engine lock held). On an error nothing is left in
  // flight but what already started, which the task still waits for.
  Err start(Message m, int dest, int send_tag, void* buffer, MPI_Count count, const Datatype* t, int source, int recv_tag,
            Communicator* c) {
    if (Err e = irecv(buffer, count, t, source, recv_tag, c, &recv_)) return e;
    // An exchange, as in MPI_Sendrecv (pt2pt::sendrecv), when the receive
    // can take as much as is sent: the send may then offer its buffer in
    // place below the eager limit (Reach::exchange_one_sided_threshold).
    bool exchange = source != MPI_PROC_NULL && recv_->bytes >= m.datatype->bytes(m.count);
    return isend(m, dest, send_tag, c, Request::Mode::kStandard, &send_, Context::kPointToPoint, exchange);
  }

  bool advance() override {
    if ((recv_ != nullptr && !recv_->complete) || (send_ != nullptr && !send_->complete)) return false;
    Err e;
    for (Request* half : {recv_, send_})
      if (half != nullptr && half->error != MPI_SUCCESS && e.ok())
        e = Err(error_code::class_of(half->error), error_code::text(half->error));
    if (recv_ != nullptr) user_->status = recv_->status;
    for (Request* half : {recv_, send_})
      if (half != nullptr) requests::release(half);
    recv_ = send_ = nullptr;
    complete(user_, e);
    return true;
  }

  // MPI_Isendrecv_replace's packed copy of the outgoing data.
  std::unique_ptr<char[]> outgoing;
  Datatype outgoing_type{};

 private:
  Request* user_;
  Request* recv_ = nullptr;
  Request* send_ = nullptr;

  static constexpr size_t kMaxSpare = 16;
  static std::vector<void*>& spare() {
    static std::vector<void*>* kept = new std::vector<void*>();  // never freed: tasks may end at exit
    return *kept;
  }
};

Request* user_request(Communicator* c) {
  Request* r = requests::acquire();
  r->kind = Request::Kind::kCollective;  // a compound operation: not a send or receive of its own
  r->comm = c;
  r->active = true;
  r->status = empty_status();
  return r;
}

// Hands the pair to the progress engine, or finishes it now.
Err launch(std::unique_ptr<SendRecvPair> pair, Err started) {
  if (!pair->advance()) progress::start(std::move(pair));
  return started;
}

}  // namespace

Err isendrecv(Message m, int dest, int send_tag, void* buffer, MPI_Count count, const Datatype* t, int source,
              int recv_tag, Communicator* c, Request** out) {
  progress::Lock lock;
  *out = user_request(c);
  auto pair = std::make_unique<SendRecvPair>(*out);
  Err e = pair->start(m, dest, send_tag, buffer, count, t, source, recv_tag, c);
  return launch(std::move(pair), std::move(e));
}

Err isendrecv_replace(void* buffer, MPI_Count count, const Datatype* t, int dest, int send_tag, int source, int recv_tag,
                      Communicator* c, Request** out) {
  progress::Lock lock;
  *out = user_request(c);
  auto pair = std::make_unique<SendRecvPair>(*out);
  const size_t bytes = t->bytes(count);
  pair->outgoing = std::make_unique_for_overwrite<char[]>(bytes > 0 ? bytes : 1);
  // Packed, so any datatype's data fits in `bytes` (and goes as plain bytes);
  // from GPU memory too (p2p/data_access.h). A failed copy starts neither half.
  if (Err e = p2p::pack_into(buffer, count, t, bytes, pair->outgoing.get()))
    return launch(std::move(pair), std::move(e));
  pair->outgoing_type = type::packed_view(*t);
  Err e = pair->start(Message{pair->outgoing.get(), count, &pair->outgoing_type}, dest, send_tag, buffer, count, t,
                      source, recv_tag, c);
  return launch(std::move(pair), std::move(e));
}

}  // namespace ferry::pt2pt
