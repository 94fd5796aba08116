#include "rma/active_message.h"

#include <cstring>

#include "base/type_pack.h"
#include "p2p/engine.h"
#include "p2p/pt2pt.h"
#include "progress/progress.h"
#include "progress/tasks.h"
#include "rma/active_message_parts.h"
#include "rma/window.h"

namespace ferry::rma {

using namespace wire;

namespace {

// Flow control: an origin has at most this many operations, carrying or
// fetching at most this many bytes, unanswered at one target; a further one
// waits (progressing) until answers come back. An epoch may hold any number
// of operations that nobody completes until its end (MPICH's manyget: 100000
// gets of 128 KiB between two fences); without a bound, the target's answers
// would pile up in both processes (12 GiB for that test). One operation
// larger than the bytes allowed goes alone.
constexpr uint64_t kMaxOperationsInFlight = 64;
constexpr uint64_t kMaxBytesInFlight = uint64_t{16} << 20;
// Silent operations (a fence epoch's puts and accumulates) in a row to one
// target, at most: the next one is acknowledged, and its answer retires
// them. Half the limits above, so that the acknowledged one always fits.
constexpr uint64_t kSilentOperations = kMaxOperationsInFlight / 2;
constexpr uint64_t kSilentBytes = kMaxBytesInFlight / 2;

// The service as a progress task: it lives while the window does.
class Task final : public progress::Task {
 public:
  Task(std::shared_ptr<bool> alive, Service* s) : alive_(std::move(alive)), service_(s) {}
  bool advance() override {
    if (!*alive_) return true;
    return service_->advance();
  }

 private:
  std::shared_ptr<bool> alive_;
  Service* service_;
};

}  // namespace

Service::Service(Window& w) : w_(w), alive_(std::make_shared<bool>(true)) {
  outstanding_.assign(static_cast<size_t>(w.comm->size), 0);
  in_flight_bytes_.assign(static_cast<size_t>(w.comm->size), 0);
  rung_at_.assign(static_cast<size_t>(w.comm->size), 0);
  sent_in_epoch_.assign(static_cast<size_t>(w.comm->size), 0);
  silent_.resize(static_cast<size_t>(w.comm->size));
  blocked_.assign(static_cast<size_t>(w.comm->size), 0);
  window_sends_.assign(static_cast<size_t>(w.comm->size), 0);
}

Service::~Service() { *alive_ = false; }

void Service::start() {
  progress::Lock lock;
  progress::start(std::make_unique<Task>(alive_, this));
  doorbell::add_service(this);
  running_ = true;
}

void Service::stop() {
  progress::Lock lock;
  if (stopped_) return;
  // Answers still leaving (the last unlock's acknowledgement) finish first.
  progress::wait_until(lock, [&] {
    finish_sends();
    return outgoing_.empty();
  });
  stopped_ = true;
  *alive_ = false;
  doorbell::remove_service(this);
}

void Service::finish_sends() {
  for (size_t i = 0; i < outgoing_.size();) {
    Outgoing* o = outgoing_[i];
    if ((o->r != nullptr && !o->r->complete) || (o->data_r != nullptr && !o->data_r->complete)) {
      ++i;
      continue;
    }
    if (o->r != nullptr) requests::release(o->r);
    if (o->data_r != nullptr) requests::release(o->data_r);
    if (o->from_user) --user_data_sends_;
    if (o->from_window) {
      --window_sends_[static_cast<size_t>(o->origin)];
      ++executed_[o->epoch];
    }
    delete o;
    outgoing_[i] = outgoing_.back();
    outgoing_.pop_back();
  }
}

Err Service::send(int target, const TargetOp& op, const std::vector<Run>& runs, const char* data,
                  uint64_t data_bytes, const char* compare, void* result, MPI_Count result_count,
                  const Datatype* result_type, uint64_t result_bytes, Request* request, bool fence_epoch,
                  std::vector<char> packed) {
  progress::Lock lock;
  size_t t = static_cast<size_t>(target);
  uint64_t flight = data_bytes + result_bytes;
  auto room = [&] {
    uint64_t n = outstanding_[t] + silent_[t].size();
    return n == 0 || (n < kMaxOperationsInFlight && in_flight_bytes_[t] + flight <= kMaxBytesInFlight);
  };
  progress::wait_until(lock, [&] {
    if (room()) return true;
    // Only silent operations in the way: ask for their acknowledgement.
    if (outstanding_[t] == 0 && !silent_[t].empty()) send_sync(target);
    return false;
  });
  bool counted = static_cast<uint32_t>(op.kind) != kLock && static_cast<uint32_t>(op.kind) != kUnlock &&
                 static_cast<uint32_t>(op.kind) != kSync;
  bool awaited = (result != nullptr && result_bytes > 0) || request != nullptr;
  uint64_t silent_bytes = 0;
  for (const Silent& q : silent_[t]) silent_bytes += q.bytes;
  bool silent = fence_epoch && counted && !awaited && silent_[t].size() + 1 < kSilentOperations &&
                silent_bytes + flight <= kSilentBytes;
  const bool apart = data_bytes >= kDataApartBytes;
  WireRequest h{static_cast<uint32_t>(op.kind), op.op,      op.basic,     op.exclusive ? 1u : 0u,
                epoch_,                         silent ? 1u : 0u, apart ? 1u : 0u, 0,
                next_id_++,                     op.basic_size, runs.size(), data_bytes,
                result_bytes};
  if (counted) ++sent_in_epoch_[t];
  uint64_t compare_bytes = op.kind == OpKind::kCompareAndSwap ? op.basic_size : 0;
  auto* out = new Outgoing;
  out->data.resize(sizeof h + runs.size() * sizeof(Run) + (apart ? 0 : data_bytes) + compare_bytes);
  char* at = out->data.data();
  std::memcpy(at, &h, sizeof h);
  at += sizeof h;
  if (!runs.empty()) std::memcpy(at, runs.data(), runs.size() * sizeof(Run));
  at += runs.size() * sizeof(Run);
  if (data_bytes > 0 && !apart) {
    std::memcpy(at, data, data_bytes);
    at += data_bytes;
  }
  if (compare_bytes > 0) std::memcpy(at, compare, compare_bytes);
  in_flight_bytes_[t] += flight;
  if (silent) {
    silent_[t].push_back({h.id, flight});
  } else {
    auto* p = new Pending{target, result, result_count, result_type, result_bytes, request, flight, awaited, Err()};
    datatypes::retain(result_type);
    pending_[h.id] = p;
    ++outstanding_[t];
    ++unanswered_;
    if (awaited) ++awaited_;
  }
  Err e = pt2pt::isend(pt2pt::Message{out->data.data(), static_cast<MPI_Count>(out->data.size()), &bytes_type()},
                       target, kTagRequest, w_.comm, Request::Mode::kStandard, &out->r);
  // The data right behind its request (one sender's messages keep their
  // order), from the origin's buffer, which MPI leaves alone until the
  // operation completes (MPI-4.0 §12.3), or from its packed copy, kept here.
  if (e.ok() && apart) {
    out->packed = std::move(packed);
    e = pt2pt::isend(pt2pt::Message{data, static_cast<MPI_Count>(data_bytes), &bytes_type()}, target, kTagData,
                     w_.comm, Request::Mode::kStandard, &out->data_r);
    out->from_user = out->packed.empty() && out->data_r != nullptr;
    if (out->from_user) ++user_data_sends_;
    // The request went, its data did not (the peer is gone): nobody will
    // answer it, so nothing waits for an answer.
    if (!e.ok()) forget(target, h.id, silent);
  }
  outgoing_.push_back(out);
  return e;
}

void Service::forget(int target, uint64_t id, bool silent) {
  size_t t = static_cast<size_t>(target);
  if (silent) {
    in_flight_bytes_[t] -= silent_[t].back().bytes;
    silent_[t].pop_back();
    return;
  }
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  Pending* p = it->second;
  pending_.erase(it);
  --outstanding_[t];
  --unanswered_;
  if (p->awaited) --awaited_;
  in_flight_bytes_[t] -= p->flight_bytes;
  datatypes::release(p->type);
  delete p;
}

void Service::send_sync(int target) {
  TargetOp op{static_cast<OpKind>(kSync)};
  (void)send(target, op, {}, nullptr, 0, nullptr, nullptr, 0, nullptr, 0, nullptr);
}

void Service::retire_silent(size_t target, uint64_t id) {
  std::deque<Silent>& q = silent_[target];
  while (!q.empty() && q.front().id < id) {
    in_flight_bytes_[target] -= q.front().bytes;
    q.pop_front();
  }
}

Err Service::request_lock(int target, bool exclusive) {
  TargetOp op{static_cast<OpKind>(kLock)};
  op.exclusive = exclusive;
  return send(target, op, {}, nullptr, 0, nullptr, nullptr, 0, nullptr, 0, nullptr);
}

Err Service::request_unlock(int target, bool exclusive) {
  TargetOp op{static_cast<OpKind>(kUnlock)};
  op.exclusive = exclusive;
  return send(target, op, {}, nullptr, 0, nullptr, nullptr, 0, nullptr, 0, nullptr);
}

Err Service::flush(int target) {
  progress::Lock lock;
  for (size_t t = 0; t < silent_.size(); ++t)
    if ((target < 0 || t == static_cast<size_t>(target)) && !silent_[t].empty()) send_sync(static_cast<int>(t));
  progress::wait_until(lock, [&] {
    if (target >= 0) return outstanding_[static_cast<size_t>(target)] == 0;
    for (uint64_t n : outstanding_)
      if (n != 0) return false;
    return true;
  });
  Err e = std::move(first_error_);
  first_error_ = Err();
  return e;
}

std::vector<uint64_t> Service::sent_this_epoch() {
  progress::Lock lock;
  return sent_in_epoch_;
}

Err Service::end_fence_epoch(uint64_t expected) {
  progress::Lock lock;
  progress::wait_until(lock, [&] {
    // The epoch's large data sent from the program's buffers has left
    // them too: after the fence the program may change or free them.
    finish_sends();
    if (user_data_sends_ != 0) return false;
    auto it = executed_.find(epoch_);
    uint64_t done = it == executed_.end() ? 0 : it->second;
    return done >= expected && awaited_ == 0;
  });
  executed_.erase(epoch_);
  ++epoch_;
  std::fill(sent_in_epoch_.begin(), sent_in_epoch_.end(), 0);
  // Every target executed this epoch's silent operations before it left
  // the fence; the next epoch's flow control starts afresh.
  for (size_t t = 0; t < silent_.size(); ++t) retire_silent(t, ~uint64_t{0});
  Err e = std::move(first_error_);
  first_error_ = Err();
  return e;
}

void Service::poke() {
  progress::Lock lock;
  progress::poll();
}

void Service::receive_new() {
  for (int tag : {kTagRequest, kTagReply}) {
    for (;;) {
      MPI_Status s{};
      p2p::UnexpectedMessage* m = p2p::take_message(w_.comm->context, MPI_ANY_SOURCE, tag, &s);
      if (m == nullptr) break;
      auto* in = new Incoming;
      in->source = s.MPI_SOURCE;
      in->data.resize(status_bytes(s));
      Request* r = requests::acquire();
      r->kind = Request::Kind::kRecv;
      r->comm = w_.comm;
      r->buffer = in->data.data();
      r->count = static_cast<MPI_Count>(in->data.size());
      r->datatype = &bytes_type();
      r->bytes = in->data.size();
      r->peer = s.MPI_SOURCE;
      r->tag = tag;
      r->context = w_.comm->context;
      r->active = true;
      p2p::start_matched_recv(r, m);
      in->r = r;
      if (tag == kTagRequest) incoming_.push_back(in);
      else replies_.push_back(in);
    }
  }
}

void Service::handle_reply(Incoming& in) {
  requests::release(in.r);
  Err lost;  // the answer's data apart did not arrive whole
  if (in.data_r != nullptr) {
    lost = data_lost(*in.data_r, in.source);
    requests::release(in.data_r);
  }
  WireReply h;
  std::memcpy(&h, in.data.data(), sizeof h);
  auto it = pending_.find(h.id);
  if (it == pending_.end()) {
    // A silent operation's error (or one retired by its fence already).
    if (h.error_class != MPI_SUCCESS && first_error_.ok())
      first_error_ = fail(h.error_class, "target rank %d: %s", in.source, h.message);
    retire_silent(static_cast<size_t>(in.source), h.id + 1);
    return;
  }
  Pending* p = it->second;
  pending_.erase(it);
  retire_silent(static_cast<size_t>(p->target), h.id);
  Err e = std::move(lost);
  if (h.error_class != MPI_SUCCESS) e = fail(h.error_class, "target rank %d: %s", p->target, h.message);
  else if (e.ok() && p->bytes > 0 && p->result != nullptr && !in.direct)
    type::unpack(*p->type, p->result, static_cast<uint64_t>(p->count), 0, std::min<uint64_t>(p->bytes, h.bytes),
                 h.data_apart != 0 ? in.payload.get() : in.data.data() + sizeof h);
  if (!e.ok() && first_error_.ok()) first_error_ = Err(e.mpi_class(), e.message());
  if (p->request != nullptr) complete(p->request, e);
  datatypes::release(p->type);
  --outstanding_[static_cast<size_t>(p->target)];
  --unanswered_;
  if (p->awaited) --awaited_;
  rung_at_[static_cast<size_t>(p->target)] = 0;
  in_flight_bytes_[static_cast<size_t>(p->target)] -= p->flight_bytes;
  delete p;
}

Service::Outgoing* Service::answer(int origin, uint64_t id, const Err& e, const char* data, uint64_t bytes,
                                   std::vector<char> kept) {
  auto* out = new Outgoing;
  WireReply h{};
  h.id = id;
  h.error_class = e.ok() ? MPI_SUCCESS : e.mpi_class();
  if (!e.ok()) std::snprintf(h.message, sizeof h.message, "%s", e.message().c_str());
  h.bytes = e.ok() ? bytes : 0;
  const bool apart = h.bytes >= kDataApartBytes;
  h.data_apart = apart ? 1 : 0;
  out->data.resize(sizeof h + (apart ? 0 : h.bytes));
  std::memcpy(out->data.data(), &h, sizeof h);
  if (h.bytes > 0 && !apart) std::memcpy(out->data.data() + sizeof h, data, h.bytes);
  (void)pt2pt::isend(pt2pt::Message{out->data.data(), static_cast<MPI_Count>(out->data.size()), &bytes_type()},
                     origin, kTagReply, w_.comm, Request::Mode::kStandard, &out->r);
  // From `kept` (the result vector) or the window itself: its memory may
  // not change under a get until the origin's flush (MPI-4.0 §12.7,
  // conflicting accesses are erroneous).
  if (apart) {
    out->packed = std::move(kept);
    (void)pt2pt::isend(pt2pt::Message{data, static_cast<MPI_Count>(h.bytes), &bytes_type()}, origin,
                       kTagReplyData, w_.comm, Request::Mode::kStandard, &out->data_r);
  }
  outgoing_.push_back(out);
  return out;
}

bool Service::try_grant(int origin, bool exclusive) {
  (void)origin;
  Slot* s = w_.targets[static_cast<size_t>(w_.rank())].slot;
  return exclusive ? try_lock_exclusive(*s) : try_lock_shared(*s);
}

uint32_t Service::epoch_of(const Incoming& in) {
  WireRequest h;
  std::memcpy(&h, in.data.data(), sizeof h);
  return h.epoch;
}

Err Service::check_runs(const std::vector<Run>& runs) const {
  const Target& self = w_.targets[static_cast<size_t>(w_.rank())];
  for (const Run& r : runs) {
    bool inside = false;
    if (w_.flavor == Flavor::kDynamic) {
      inside = attached(w_.regions, r.address, r.bytes);
    } else {
      inside = r.address >= self.base && r.address + r.bytes <= self.base + self.size;
    }
    if (!inside)
      return fail(MPI_ERR_RMA_RANGE, "%llu bytes at address 0x%llx are outside the window's memory",
                  static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(r.address));
  }
  return {};
}

void Service::handle(Incoming& in) {
  WireRequest h;
  std::memcpy(&h, in.data.data(), sizeof h);
  const char* at = in.data.data() + sizeof h;
  if (h.kind == kLock) {
    if (try_grant(in.source, h.exclusive != 0)) answer(in.source, h.id, {}, nullptr, 0);
    else {
      waiting_locks_.push_back({in.source, h.id});
      waiting_exclusive_.push_back(h.exclusive != 0);
    }
    return;
  }
  if (h.kind == kSync) {
    answer(in.source, h.id, {}, nullptr, 0);
    return;
  }
  Slot* mine = w_.targets[static_cast<size_t>(w_.rank())].slot;
  if (h.kind == kUnlock) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (h.exclusive) unlock_exclusive(*mine);
    else unlock_shared(*mine);
    answer(in.source, h.id, {}, nullptr, 0);
    return;
  }
  std::vector<Run> runs = runs_of(in);
  at += h.runs * sizeof(Run);
  const char* data = at;
  const char* compare = at + (h.data_apart != 0 ? 0 : h.data_bytes);
  Err lost;  // the data apart did not arrive whole (its sender failed)
  if (h.data_apart != 0) {
    lost = data_lost(*in.data_r, in.source);
    requests::release(in.data_r);
    in.data_r = nullptr;
    data = in.payload.get();
  }
  // The target's own memory, by pointer; checked against the window.
  Access a;
  const Target& self = w_.targets[static_cast<size_t>(w_.rank())];
  a.mapped = self.mapped;
  a.base = self.base;
  a.atomics = self.in_segment;
  a.slot = mine;
  Err e = lost.ok() ? check_runs(runs) : std::move(lost);
  TargetOp op{static_cast<OpKind>(h.kind), h.op, h.basic, h.basic_size, h.exclusive != 0};
  // A large get of one run answers from the window itself.
  if (e.ok() && op.kind == OpKind::kGet && runs.size() == 1 && h.result_bytes >= kDataApartBytes &&
      runs[0].bytes == h.result_bytes) {
    Outgoing* out = answer(in.source, h.id, e, reinterpret_cast<const char*>(runs[0].address), h.result_bytes);
    if (out->data_r == nullptr) {
      ++executed_[h.epoch];
      return;
    }
    out->from_window = true;
    out->origin = in.source;
    out->epoch = h.epoch;
    ++window_sends_[static_cast<size_t>(in.source)];
    return;
  }
  std::vector<char> result(h.result_bytes);
  // A put received into the window is done already.
  if (e.ok() && !in.direct) e = apply(a, op, runs, data, result.data(), compare);
  ++executed_[h.epoch];
  if (h.silent == 0 || !e.ok()) {
    const char* bytes = result.data();
    const uint64_t n = result.size();
    answer(in.source, h.id, e, bytes, n, std::move(result));
  }
}

void Service::ring_overdue() {
  if (unanswered_ == 0 || bells_.empty() || stopped_) return;
  long long now = progress::now_us();
  for (size_t t = 0; t < outstanding_.size(); ++t) {
    if (outstanding_[t] == 0 || bells_[t].length == 0) continue;
    if (rung_at_[t] != 0 && now - rung_at_[t] < 1000) continue;
    doorbell::ring(bells_[t]);
    rung_at_[t] = now;
  }
}

bool Service::advance() {
  if (stopped_ || in_advance_) return stopped_;
  in_advance_ = true;
  receive_new();
  // Each origin's requests in arrival order: a later one waits for an
  // earlier one's data, and one of a fence epoch that this process has not
  // reached yet waits until it has (a get of the next epoch must see what
  // other origins put in this one; MPI-4.0 §12.5.1).
  bool held = false;
  for (auto it = incoming_.begin(); it != incoming_.end();) {
    Incoming* in = *it;
    size_t origin = static_cast<size_t>(in->source);
    if (held && blocked_[origin]) {
      ++it;
      continue;
    }
    // Its turn: the origin's last get is not being read out of the window
    // any more, the request is in and its epoch reached; then, if its data
    // comes apart, that data is in too.
    bool ready = window_sends_[origin] != 0 ? false
                 : in->data_r != nullptr
                     ? in->data_r->complete
                     : in->r->complete && static_cast<int32_t>(epoch_of(*in) - epoch_) <= 0 &&
                           !(receive_data_apart(*in) && !in->data_r->complete);
    if (!ready) {
      held = true;
      blocked_[origin] = 1;
      ++it;
      continue;
    }
    it = incoming_.erase(it);
    requests::release(in->r);
    handle(*in);
    delete in;
  }
  if (held) std::fill(blocked_.begin(), blocked_.end(), 0);
  // Replies in any order, once their data is in; but one target's large
  // answers post their data's receives in the order they were sent, as
  // their data messages come (so a reply waits behind an earlier one of
  // its target that is not in yet).
  held = false;
  for (size_t i = 0; i < replies_.size();) {
    Incoming* in = replies_[i];
    size_t target = static_cast<size_t>(in->source);
    if (held && blocked_[target]) {
      ++i;
      continue;
    }
    bool ready = in->data_r != nullptr ? in->data_r->complete
                                       : in->r->complete && !(receive_reply_apart(*in) && !in->data_r->complete);
    if (!ready) {
      if (in->data_r == nullptr) {  // its header is not in: later answers of its target wait
        held = true;
        blocked_[target] = 1;
      }
      ++i;
      continue;
    }
    replies_.erase(replies_.begin() + static_cast<long>(i));
    handle_reply(*in);
    delete in;
  }
  if (held) std::fill(blocked_.begin(), blocked_.end(), 0);
  for (size_t i = 0; i < waiting_locks_.size();) {
    if (try_grant(waiting_locks_[i].first, waiting_exclusive_[i])) {
      answer(waiting_locks_[i].first, waiting_locks_[i].second, {}, nullptr, 0);
      waiting_locks_.erase(waiting_locks_.begin() + static_cast<long>(i));
      waiting_exclusive_.erase(waiting_exclusive_.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
  finish_sends();
  in_advance_ = false;
  return false;
}

}  // namespace ferry::rma
