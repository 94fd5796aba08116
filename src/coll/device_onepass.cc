#include "coll/device_onepass.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "base/revocation.h"
#include "coll/device_buffers.h"
#include "coll/device_schedule.h"
#include "coll/shm/host.h"
#include "coll/shm/segment.h"
#include "common/config.h"
#include "common/debug.h"
#include "device/device.h"
#include "device/ipc_exports.h"

namespace ferry::coll::gpu::onepass {
namespace {

using device::kernels::Element;
using device::kernels::Reduction;

// What coll/shm's onepass_slot holds: whether the communicator's ranks all
// share this host and all have the driver loaded, agreed at its first
// eligible call.
struct State {
  bool ready = false;
};

// The calls this protocol makes itself (its allgather and allreduces) must
// not start it again; and neither may the inner call of today's GPU path
// (a staging or a GPU-scratch scope lives then), which every rank that
// makes one makes after this protocol declined.
thread_local bool busy = false;

struct Busy {
  Busy() { busy = true; }
  ~Busy() { busy = false; }
};

// The peers' mappings, for every communicator (keyed by world rank).
std::mutex mappings_lock;
std::unique_ptr<device::IpcCache> mappings;

// Whether [p, p + bytes) lies in the allocation `info` describes.
bool inside(const device::PointerInfo& info, const void* p, size_t bytes) {
  auto a = reinterpret_cast<uintptr_t>(p);
  return a >= info.base && a - info.base + bytes <= info.size;
}

const Datatype* ints() { return find_datatype(MPI_INT); }
const Op* min_op() { return find_op(MPI_MIN); }

// Step 0's agreement, once per communicator: every rank shares this host
// and has the driver loaded. An allreduce MIN over c, so every rank keeps
// the same answer.
bool communicator_ready(Communicator* c) {
  std::shared_ptr<void>& slot = shm::onepass_slot(c);
  if (!slot) {
    int mine[2] = {device::enabled() ? 1 : 0, 1};
    for (int r = 0; r < c->size && mine[1] == 1; ++r)
      if (r != c->rank && !shm::shares_memory(c->world_rank(r))) mine[1] = 0;
    int all[2] = {0, 0};
    Err e = coll::allreduce(mine, all, 2, ints(), min_op(), c);
    auto st = std::make_shared<State>();
    st->ready = !e && all[0] == 1 && all[1] == 1;
    if (debug::on(debug::kCuda))
      debug::print("one-pass GPU collectives on this communicator (%d ranks): %s", c->size,
                   st->ready ? "yes" : e ? e.message().c_str()
                                         : all[1] == 0 ? "no, its ranks span hosts"
                                                       : "no, a rank has no CUDA driver loaded");
    slot = st;
  }
  return static_cast<State*>(slot.get())->ready;
}

// Step 0 without communication: the same answer on every rank.
bool eligible(Communicator* c, Launch how, MPI_Count count, const Datatype* type, const Op* op, Element* element,
              Reduction* reduction) {
  if (how.form != Launch::Form::kBlocking || c->inter || c->size < 2 || c->size > device::kernels::kMaxInputs ||
      c->fixed_collective_tag >= 0 || busy)
    return false;
  const int64_t at_least = threshold();
  if (at_least < 0 || static_cast<int64_t>(type->bytes(count)) < at_least) return false;
  if (ScratchOnGpu::near() != nullptr || HostStaging::active()) return false;
  if (op->user() || !type->predefined() || !type->contiguous || type->lb != 0) return false;
  std::optional<Element> e = element_of(*type);
  std::optional<Reduction> r = reduction_of(*op);
  if (!e || !r || !device::kernels::defined(*e, *r)) return false;
  if (revocation::is_revoked(c->context)) [[unlikely]] return false;
  *element = *e;
  *reduction = *r;
  return true;
}

}  // namespace

int64_t threshold() {
  static const int64_t bytes = config::integer("FERRY_CUDA_ONEPASS_THRESHOLD");
  return bytes;
}

void close_mappings() {
  std::lock_guard<std::mutex> hold(mappings_lock);
  mappings.reset();
}

Slice slice_of(size_t count, size_t element_bytes, int p, int r) {
  const size_t unit = std::max<size_t>(1, 16 / element_bytes);
  const size_t units = count / unit;
  const size_t per = units / static_cast<size_t>(p), extra = units % static_cast<size_t>(p);
  const size_t rr = static_cast<size_t>(r);
  Slice s;
  s.first = (rr * per + std::min(rr, extra)) * unit;
  s.count = (per + (rr < extra ? 1 : 0)) * unit;
  if (r == p - 1) s.count += count - units * unit;
  return s;
}

Entry describe_buffers(const void* sendbuf, void* recvbuf, size_t bytes, bool kernel) {
  Entry mine;
  if (!device::enabled() || !kernel) return mine;
  device::PointerInfo recv = device::describe(recvbuf);
  if (recv.memory != device::Memory::kDevice || !inside(recv, recvbuf, bytes)) return mine;
  if (device::export_allocation(recv, &mine.recv) != 0) return mine;
  mine.recv_offset = reinterpret_cast<uintptr_t>(recvbuf) - recv.base;
  if (sendbuf == MPI_IN_PLACE) {
    mine.in_place = 1;
  } else {
    device::PointerInfo send = device::describe(sendbuf);
    // One GPU: the kernel runs in the receive buffer's context.
    if (send.memory != device::Memory::kDevice || send.device != recv.device || !inside(send, sendbuf, bytes))
      return mine;
    if (device::export_allocation(send, &mine.send) != 0) return mine;
    mine.send_offset = reinterpret_cast<uintptr_t>(sendbuf) - send.base;
  }
  mine.usable = 1;
  return mine;
}

bool all_usable(const Entry* entries, int p) {
  for (int q = 0; q < p; ++q)
    if (entries[q].usable != 1) return false;
  return true;
}

bool open_peers(const Entry* entries, int p, int me, const int* peer_ids, const void* sendbuf, void* recvbuf,
                int device, device::IpcCache& cache, Mapped* mapped, std::string* error) {
  for (int q = 0; q < p; ++q) {
    const Entry& e = entries[q];
    if (q == me) {
      mapped->outputs[q] = recvbuf;
      mapped->inputs[q] = e.in_place ? recvbuf : sendbuf;
      continue;
    }
    void* recv = cache.open(peer_ids[q], e.recv, device, error);
    if (recv == nullptr) return false;
    mapped->outputs[q] = static_cast<char*>(recv) + e.recv_offset;
    if (e.in_place) {
      mapped->inputs[q] = mapped->outputs[q];
      continue;
    }
    void* send = cache.open(peer_ids[q], e.send, device, error);
    if (send == nullptr) return false;
    mapped->inputs[q] = static_cast<const char*>(send) + e.send_offset;
  }
  return true;
}

std::optional<std::string> reduce_slice(const Mapped& mapped, int p, int me, size_t count, size_t element_bytes,
                                        Element element, Reduction op) {
  Slice s = slice_of(count, element_bytes, p, me);
  if (s.count == 0) return std::nullopt;
  const size_t at = s.first * element_bytes;
  const void* inputs[device::kernels::kMaxInputs];
  void* outputs[device::kernels::kMaxOutputs];
  for (int q = 0; q < p; ++q) inputs[q] = static_cast<const char*>(mapped.inputs[q]) + at;
  // Its own output first: reduce_to runs the kernel in that context.
  outputs[0] = static_cast<char*>(mapped.outputs[me]) + at;
  int m = 1;
  for (int q = 0; q < p; ++q)
    if (q != me) outputs[m++] = static_cast<char*>(mapped.outputs[q]) + at;
  return device::kernels::reduce_to(outputs, m, inputs, p, s.count, element, op);
}

std::optional<Err> allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                             Communicator* c, Launch how) {
  Element element{};
  Reduction reduction{};
  if (!eligible(c, how, count, type, op, &element, &reduction)) return std::nullopt;
  Busy guard;
  if (!communicator_ready(c)) return std::nullopt;
  const int p = c->size, me = c->rank;
  const size_t bytes = type->bytes(count);

  // Phase 1: every rank's buffers and exports.
  Entry mine = describe_buffers(sendbuf, recvbuf, bytes, device::kernels::supports(element, reduction));
  std::vector<Entry> entries(static_cast<size_t>(p));
  const Datatype* raw = find_datatype(MPI_BYTE);
  if (Err e = coll::allgather(&mine, sizeof mine, raw, entries.data(), sizeof mine, raw, c)) return e;
  if (!all_usable(entries.data(), p)) {
    FERRY_DEBUG(kCuda, "MPI_Allreduce of %zu bytes: not every rank's buffers are GPU memory for CUDA IPC, the usual "
                       "path",
                bytes);
    return std::nullopt;
  }

  // Phase 2: map the others' buffers; my input must be final before
  // anyone reads it.
  Mapped mapped;
  std::string error;
  int opened = 0;
  {
    std::vector<int> peers(static_cast<size_t>(p));
    for (int q = 0; q < p; ++q) peers[static_cast<size_t>(q)] = c->world_rank(q);
    device::PointerInfo where = device::describe(recvbuf);
    std::lock_guard<std::mutex> hold(mappings_lock);
    if (!mappings) mappings = std::make_unique<device::IpcCache>(device::installed);
    opened = open_peers(entries.data(), p, me, peers.data(), sendbuf, recvbuf, where.device, *mappings, &mapped,
                        &error)
                 ? 1
                 : 0;
    if (opened == 1)
      if (int code = device::installed->synchronize_legacy(where.context, where.device); code != 0) {
        error = device::error_text("cuStreamSynchronize", code);
        opened = 0;
      }
  }
  if (opened == 0) FERRY_DEBUG(kCuda, "MPI_Allreduce one pass: %s", error.c_str());

  // Phase 3: the entry barrier, and everyone opened everything.
  int all_opened = 0;
  if (Err e = coll::allreduce(&opened, &all_opened, 1, ints(), min_op(), c)) return e;
  if (all_opened != 1) {
    FERRY_DEBUG(kCuda, "MPI_Allreduce of %zu bytes: a rank could not map the others' GPU buffers, the usual path",
                bytes);
    return std::nullopt;
  }

  // Phase 4: my slice of everyone's input into everyone's output.
  FERRY_DEBUG(kCuda, "MPI_Allreduce of %zu bytes on %d ranks: one pass over CUDA IPC", bytes, p);
  std::optional<std::string> failed = reduce_slice(mapped, p, me, static_cast<size_t>(count), type->size, element,
                                                   reduction);

  // Phase 5: the exit barrier; every rank learns whether a slice failed.
  int done = failed ? 0 : 1, all_done = 0;
  if (Err e = coll::allreduce(&done, &all_done, 1, ints(), min_op(), c)) return e;
  if (failed) return fail(MPI_ERR_OTHER, "MPI_Allreduce on GPU buffers: %s", failed->c_str());
  if (all_done != 1)
    return fail(MPI_ERR_OTHER, "MPI_Allreduce on GPU buffers: another rank's GPU reduction failed");
  return Err();
}

}  // namespace ferry::coll::gpu::onepass
