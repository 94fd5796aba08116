#include "rma/rdma.h"

#include <cstring>
#include <memory>

#include "base/type_pack.h"
#include "coll/collectives.h"
#include "common/debug.h"
#include "p2p/engine.h"
#include "progress/progress.h"
#include "rma/window.h"

namespace ferry::rma::rdma {

// One request through the NIC, from its start to its completion.
struct Op : transport::OneSided {
  std::shared_ptr<State> state;
  int target = 0;
  const char* call = "";
  // A request waited for in the call (MPI_REPLACE's compare-and-swap):
  // its old value, and whether it completed.
  uint64_t old = 0;
  bool waited = false;
  bool done = false;
  Err error;
};

namespace {

// What every rank tells the others at creation.
struct Card {
  transport::RemoteBuffer buffer;  // key_bytes 0: its memory is not exposed
  char transport[8];               // the transport the key belongs to
  uint8_t nic_atomics;             // its hint
  uint8_t has_atomics;             // its NIC executes atomics on its memory
};

void finished(transport::OneSided* one, const char* error) {
  auto* op = static_cast<Op*>(one);
  State& s = *op->state;
  if (error != nullptr) {
    Err e = fail(MPI_ERR_OTHER, "%s to rank %d through the NIC failed: %s", op->call, op->target, error);
    if (op->waited) op->error = std::move(e);
    else if (s.first_error.ok()) s.first_error = std::move(e);
  }
  if (op->waited) {
    op->done = true;  // the caller owns it
    return;
  }
  --s.in_flight[static_cast<size_t>(op->target)];
  delete op;
}

// An 8-byte C integer: what the NIC's atomics compute on.
bool nic_integer(const Datatype* t) {
  if (t == nullptr || !t->predefined() || t->size != 8) return false;
  switch (t->handle) {
    case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG:
    case MPI_INT64_T: case MPI_UINT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
      return true;
    default:
      return false;
  }
}

Op* new_op(Window& w, int target, uint64_t address, void* local, size_t bytes, const char* call) {
  auto* op = new Op;
  const State& s = *w.rdma;
  op->state = w.rdma;
  op->target = target;
  op->call = call;
  op->peer = w.comm->world_rank(target);
  op->remote = s.remote[static_cast<size_t>(target)];
  op->remote.address = address;  // registered by virtual address: the target's own
  op->local.data = local;
  op->bytes = bytes;
  op->caller_reports = true;
  op->on_done = finished;
  return op;
}

// Engine lock held. False: the transport cannot (not connected yet, failed
// earlier): the caller takes the active-message path.
bool launch(State& s, Op* op, transport::Started (transport::Transport::*start)(transport::OneSided*)) {
  transport::Started started = (s.via[static_cast<size_t>(op->target)]->*start)(op);
  if (started == transport::Started::kUnsupported) {
    delete op;
    return false;
  }
  ++s.in_flight[static_cast<size_t>(op->target)];
  if (started == transport::Started::kDone) finished(op, nullptr);  // completed in the call
  return true;
}

// MPI_REPLACE as the NIC has no swap: compare-and-swap from the value last
// seen until the word held it when the swap took. Waited for in the call,
// each try a round trip. False: not started (take the messages).
bool replace(Window& w, int target, uint64_t address, uint64_t value, void* result, Err* e) {
  State& s = *w.rdma;
  uint64_t expected = 0;
  for (bool first = true;; first = false) {
    Op* op = new_op(w, target, address, nullptr, 8, "MPI_Fetch_and_op(MPI_REPLACE)");
    op->local.data = &op->old;
    op->atomic = transport::AtomicKind::kCompareSwap;
    op->compare = expected;
    op->operand = value;
    op->waited = true;
    progress::Lock lock;
    transport::Started started = s.via[static_cast<size_t>(target)]->start_atomic(op);
    if (started == transport::Started::kUnsupported) {
      delete op;
      if (first) return false;
      *e = fail(MPI_ERR_OTHER, "MPI_Fetch_and_op(MPI_REPLACE) to rank %d: the NIC's connection went away", target);
      return true;
    }
    progress::wait_until(lock, [&] { return op->done || started == transport::Started::kDone; });
    ++s.atomics;
    std::unique_ptr<Op> owned(op);
    if (!op->error.ok()) {
      *e = std::move(op->error);
      return true;
    }
    if (op->old == expected) {
      std::memcpy(result, &op->old, 8);
      *e = {};
      return true;
    }
    expected = op->old;
  }
}

}  // namespace

Err setup(Window& w, const Info* hints) {
  auto s = std::make_shared<State>();
  auto n = static_cast<size_t>(w.comm->size);
  s->remote.assign(n, transport::RemoteBuffer{});
  s->via.assign(n, nullptr);
  s->in_flight.assign(n, 0);
  Card mine{};
  const std::string* hint = hints != nullptr ? hints->get("ferry_nic_atomics") : nullptr;
  mine.nic_atomics = hint != nullptr && *hint == "true" ? 1 : 0;
  if (w.flavor != Flavor::kDynamic && w.size > 0 && w.base != nullptr) {
    progress::Lock lock;
    for (size_t r = 0; r < n; ++r) {
      if (w.targets[r].reach != Reach::kMessages) continue;
      transport::Transport* t = p2p::route_transport(w.comm->world_rank(static_cast<int>(r)));
      if (t == nullptr || !t->expose_window({w.base}, static_cast<size_t>(w.size), &mine.buffer)) continue;
      s->exposed_on = t;
      s->mine = mine.buffer;
      mine.has_atomics = t->has_atomics(-1) ? 1 : 0;
      std::strncpy(mine.transport, t->name(), sizeof mine.transport - 1);
      break;
    }
  }
  std::vector<Card> cards(n);
  if (Err e = coll::allgather(&mine, sizeof mine, find_datatype(MPI_BYTE), cards.data(), sizeof mine,
                              find_datatype(MPI_BYTE), w.comm)) {
    w.rdma = s;
    teardown(w);
    return e;
  }
  // NIC atomics only if every rank asked (the promise is about locations,
  // whichever origin updates them) and every exposed window's NIC has them
  // (its registration then allows remote atomics).
  bool all_atomics = true;
  int reached = 0;
  for (size_t r = 0; r < n; ++r) {
    all_atomics = all_atomics && cards[r].nic_atomics != 0 &&
                  (cards[r].buffer.key_bytes == 0 || cards[r].has_atomics != 0);
    if (w.targets[r].reach != Reach::kMessages || cards[r].buffer.key_bytes == 0) continue;
    transport::Transport* t = p2p::route_transport(w.comm->world_rank(static_cast<int>(r)));
    if (t == nullptr || std::strncmp(t->name(), cards[r].transport, sizeof cards[r].transport) != 0) continue;
    s->remote[r] = cards[r].buffer;
    s->via[r] = t;
    ++reached;
  }
  s->nic_atomics = all_atomics;
  FERRY_DEBUG(kRma, "window: %d targets reached through the NIC (RDMA), NIC atomics %s", reached,
              all_atomics ? "on (ferry_nic_atomics)" : "off");
  w.rdma = std::move(s);
  return {};
}

void teardown(Window& w) {
  if (w.rdma == nullptr) return;
  progress::Lock lock;
  if (w.rdma->exposed_on != nullptr) w.rdma->exposed_on->conceal(w.rdma->mine);
  w.rdma->exposed_on = nullptr;
}

bool try_start(Window& w, const Operation& o, uint64_t address, bool request, Err* e) {
  State* s = w.rdma.get();
  if (s == nullptr || request || o.target == w.rank()) return false;
  auto t = static_cast<size_t>(o.target);
  if (s->via[t] == nullptr) return false;
  const Datatype& tt = *o.target_type;
  uint64_t bytes = tt.bytes(o.target_count);
  if (o.kind == OpKind::kPut || o.kind == OpKind::kGet) {
    // One run of target memory, and the origin's bytes dense.
    const char* at = type::dense_run(tt, reinterpret_cast<void*>(address), static_cast<uint64_t>(o.target_count));
    const char* origin = type::dense_run(*o.origin_type, o.origin, static_cast<uint64_t>(o.origin_count));
    if (at == nullptr || origin == nullptr || bytes == 0) return false;
    bool put = o.kind == OpKind::kPut;
    Op* op = new_op(w, o.target, reinterpret_cast<uint64_t>(at), const_cast<char*>(origin), bytes,
                    put ? "MPI_Put (RDMA write)" : "MPI_Get (RDMA read)");
    progress::Lock lock;
    if (!launch(*s, op, put ? &transport::Transport::start_write : &transport::Transport::start_read)) return false;
    ++(put ? s->writes : s->reads);
    *e = {};
    return true;
  }
  // The atomics: one 8-byte integer, naturally aligned, on a window whose
  // ranks all promised (the hint) that nothing else updates it.
  if (!s->nic_atomics || (o.kind != OpKind::kGetAccumulate && o.kind != OpKind::kCompareAndSwap)) return false;
  if (!nic_integer(&tt) || o.target_count != 1 || o.result_count != 1 || (address & 7) != 0) return false;
  if (o.result_type == nullptr || o.result_type->handle != tt.handle || o.result == nullptr) return false;
  if (!s->via[t]->has_atomics(w.comm->world_rank(o.target))) return false;
  uint64_t value = 0;
  Op* op = nullptr;
  if (o.kind == OpKind::kCompareAndSwap) {
    if (o.origin_type == nullptr || o.origin_type->handle != tt.handle || o.compare == nullptr) return false;
    op = new_op(w, o.target, address, o.result, 8, "MPI_Compare_and_swap (NIC compare-and-swap)");
    op->atomic = transport::AtomicKind::kCompareSwap;
    std::memcpy(&op->compare, o.compare, 8);
    std::memcpy(&op->operand, o.origin, 8);
  } else {
    MPI_Op mpi_op = o.op->handle;
    bool no_op = mpi_op == MPI_NO_OP;
    if (!no_op && (o.origin_type == nullptr || o.origin_type->handle != tt.handle || o.origin_count != 1)) return false;
    if (!no_op) std::memcpy(&value, o.origin, 8);
    if (mpi_op == MPI_REPLACE) return replace(w, o.target, address, value, o.result, e);
    if (mpi_op != MPI_SUM && !no_op) return false;
    // Two's complement: the unsigned sum is the signed one.
    op = new_op(w, o.target, address, o.result, 8, no_op ? "MPI_Fetch_and_op(MPI_NO_OP) (NIC fetch-and-add of 0)"
                                                         : "MPI_Fetch_and_op(MPI_SUM) (NIC fetch-and-add)");
    op->atomic = transport::AtomicKind::kFetchAdd;
    op->operand = no_op ? 0 : value;
  }
  progress::Lock lock;
  if (!launch(*s, op, &transport::Transport::start_atomic)) return false;
  ++s->atomics;
  *e = {};
  return true;
}

Err wait(Window& w, int target) {
  State* s = w.rdma.get();
  if (s == nullptr) return {};
  progress::Lock lock;
  progress::wait_until(lock, [&] {
    if (target >= 0) return s->in_flight[static_cast<size_t>(target)] == 0;
    for (uint64_t n : s->in_flight)
      if (n != 0) return false;
    return true;
  });
  Err e = std::move(s->first_error);
  s->first_error = Err();
  return e;
}

}  // namespace ferry::rma::rdma
