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
#include "device/staging.h"

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

// Step 0 without communication, the part every collective shares: the
// same answer on every rank.
bool eligible_call(Communicator* c, Launch how, size_t bytes) {
  // The size first: it turns the small calls away, whose latency matters,
  // before anything costlier (busy and the scopes are thread-locals, a call
  // each in a shared library).
  const int64_t at_least = threshold();
  if (static_cast<int64_t>(bytes) < at_least || at_least < 0) return false;
  if (how.form != Launch::Form::kBlocking || c->inter || c->size < 2 || c->size > device::kernels::kMaxInputs ||
      c->fixed_collective_tag >= 0 || busy)
    return false;
  if (ScratchOnGpu::near() != nullptr || HostStaging::active()) return false;
  if (revocation::is_revoked(c->context)) [[unlikely]] return false;
  return true;
}

// A reduction's part of step 0: a predefined op and type that MPI defines
// together (the same op and type on every rank, MPI-3.1 §5.9.1).
bool reducible(const Datatype* type, const Op* op, Element* element, Reduction* reduction) {
  if (op->user() || !type->predefined() || !type->contiguous || type->lb != 0) return false;
  std::optional<Element> e = element_of(*type);
  std::optional<Reduction> r = reduction_of(*op);
  if (!e || !r || !device::kernels::defined(*e, *r)) return false;
  *element = *e;
  *reduction = *r;
  return true;
}

// Whether a rank's own datatype lets its buffer be moved as plain bytes.
bool dense(const Datatype* type) { return type != nullptr && type->contiguous && type->lb == 0; }

// Steps 1 to 5 around `work`, this rank's part given every rank's entry and
// mapped buffers: std::nullopt when some rank could not take part (all
// fall back alike), else the call's outcome. `only`: the one rank whose
// buffers the others map (bcast's root), or -1 for all.
template <typename Work>
std::optional<Err> run(const char* name, Communicator* c, size_t bytes, const Buffers& b, int only, Work&& work) {
  const int p = c->size, me = c->rank;

  // Phase 1: every rank's buffers and exports.
  Entry mine = describe_buffers(b);
  std::vector<Entry> entries(static_cast<size_t>(p));
  const Datatype* raw = find_datatype(MPI_BYTE);
  if (Err e = coll::allgather(&mine, sizeof mine, raw, entries.data(), sizeof mine, raw, c)) return e;
  if (!all_usable(entries.data(), p)) {
    FERRY_DEBUG(kCuda, "%s of %zu bytes: not every rank's buffers are GPU memory for CUDA IPC, the usual path", name,
                bytes);
    return std::nullopt;
  }

  // Phase 2: map the others' buffers; my input must be final before
  // anyone reads it.
  Mapped mapped;
  std::string error;
  int opened = 0;
  device::PointerInfo where = device::describe(b.recv != nullptr ? b.recv : b.send);
  {
    std::vector<int> peers(static_cast<size_t>(p));
    for (int q = 0; q < p; ++q) peers[static_cast<size_t>(q)] = c->world_rank(q);
    std::lock_guard<std::mutex> hold(mappings_lock);
    if (!mappings) mappings = std::make_unique<device::IpcCache>(device::installed);
    opened = open_peers(entries.data(), p, me, peers.data(), b.send, b.recv, where.device, *mappings, &mapped,
                        &error, only)
                 ? 1
                 : 0;
  }
  if (opened == 1)
    if (int code = device::installed->synchronize_legacy(where.context, where.device); code != 0) {
      error = device::error_text("cuStreamSynchronize", code);
      opened = 0;
    }
  if (opened == 0) FERRY_DEBUG(kCuda, "%s one pass: %s", name, error.c_str());

  // Phase 3: the entry barrier, and everyone opened everything.
  int all_opened = 0;
  if (Err e = coll::allreduce(&opened, &all_opened, 1, ints(), min_op(), c)) return e;
  if (all_opened != 1) {
    FERRY_DEBUG(kCuda, "%s of %zu bytes: a rank could not map the others' GPU buffers, the usual path", name, bytes);
    return std::nullopt;
  }

  // Phase 4: this rank's part.
  FERRY_DEBUG(kCuda, "%s of %zu bytes on %d ranks: one pass over CUDA IPC", name, bytes, p);
  std::optional<std::string> failed = work(entries.data(), mapped, where);

  // Phase 5: the exit barrier (every peer is done with my buffers); every
  // rank learns whether a part failed.
  int done = failed ? 0 : 1, all_done = 0;
  if (Err e = coll::allreduce(&done, &all_done, 1, ints(), min_op(), c)) return e;
  if (failed) return fail(MPI_ERR_OTHER, "%s on GPU buffers: %s", name, failed->c_str());
  if (all_done != 1) return fail(MPI_ERR_OTHER, "%s on GPU buffers: another rank's part failed", name);
  return Err();
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

Entry describe_buffers(const Buffers& b) {
  Entry mine;
  if (!device::enabled() || !b.ok) return mine;
  int gpu = -1;
  if (b.recv != nullptr) {
    device::PointerInfo recv = device::describe(b.recv);
    if (recv.memory != device::Memory::kDevice || !inside(recv, b.recv, b.recv_bytes)) return mine;
    if (b.share_recv) {
      if (device::export_allocation(recv, &mine.recv) != 0) return mine;
      mine.recv_offset = reinterpret_cast<uintptr_t>(b.recv) - recv.base;
      mine.has_recv = 1;
    }
    gpu = recv.device;
  }
  if (b.send == MPI_IN_PLACE) {
    if (b.recv == nullptr) return mine;
    mine.in_place = 1;
  } else if (b.send != nullptr) {
    device::PointerInfo send = device::describe(b.send);
    // One GPU: the work runs in the receive buffer's context.
    if (send.memory != device::Memory::kDevice || (gpu >= 0 && send.device != gpu) ||
        !inside(send, b.send, b.send_bytes))
      return mine;
    if (b.share_send) {
      if (device::export_allocation(send, &mine.send) != 0) return mine;
      mine.send_offset = reinterpret_cast<uintptr_t>(b.send) - send.base;
      mine.has_send = 1;
    }
  }
  mine.usable = 1;
  return mine;
}

Entry describe_buffers(const void* sendbuf, void* recvbuf, size_t bytes, bool kernel) {
  Buffers b;
  b.send = sendbuf;
  b.send_bytes = bytes;
  b.recv = recvbuf;
  b.recv_bytes = bytes;
  b.ok = kernel;
  return describe_buffers(b);
}

bool all_usable(const Entry* entries, int p) {
  for (int q = 0; q < p; ++q)
    if (entries[q].usable != 1) return false;
  return true;
}

bool open_peers(const Entry* entries, int p, int me, const int* peer_ids, const void* sendbuf, void* recvbuf,
                int device, device::IpcCache& cache, Mapped* mapped, std::string* error, int only) {
  for (int q = 0; q < p; ++q) {
    const Entry& e = entries[q];
    if (q == me) {
      mapped->outputs[q] = recvbuf;
      mapped->inputs[q] = e.in_place ? recvbuf : sendbuf;
      continue;
    }
    if (only >= 0 && q != only) continue;
    if (e.has_recv) {
      void* recv = cache.open(peer_ids[q], e.recv, device, error);
      if (recv == nullptr) return false;
      mapped->outputs[q] = static_cast<char*>(recv) + e.recv_offset;
    }
    if (e.in_place) {
      mapped->inputs[q] = mapped->outputs[q];
    } else if (e.has_send) {
      void* send = cache.open(peer_ids[q], e.send, device, error);
      if (send == nullptr) return false;
      mapped->inputs[q] = static_cast<const char*>(send) + e.send_offset;
    }
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

std::optional<std::string> reduce_block(const Mapped& mapped, int p, int me, size_t count, size_t element_bytes,
                                        Element element, Reduction op) {
  if (count == 0) return std::nullopt;
  const size_t at = static_cast<size_t>(me) * count * element_bytes;
  const void* inputs[device::kernels::kMaxInputs];
  for (int q = 0; q < p; ++q) inputs[q] = static_cast<const char*>(mapped.inputs[q]) + at;
  void* output = mapped.outputs[me];
  return device::kernels::reduce_to(&output, 1, inputs, p, count, element, op);
}

std::optional<std::string> gather_blocks(const Entry* entries, const Mapped& mapped, int p, int me,
                                         size_t block_bytes) {
  std::vector<device::staging::Copy> copies;
  char* out = static_cast<char*>(mapped.outputs[me]);
  for (int q = 0; q < p; ++q) {
    const size_t at = static_cast<size_t>(q) * block_bytes;
    // In place, q's block is already where it belongs in q's own output.
    if (q == me && entries[q].in_place) continue;
    const char* from = static_cast<const char*>(mapped.inputs[q]) + (entries[q].in_place ? at : 0);
    copies.push_back({out + at, from, block_bytes});
  }
  return device::staging::copy_many(device::describe(out), copies.data(), copies.size());
}

std::optional<Err> allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                             Communicator* c, Launch how) {
  Element element{};
  Reduction reduction{};
  if (c->inter) return std::nullopt;  // types may be absent where they are not significant
  const size_t bytes = type->bytes(count);
  if (!eligible_call(c, how, bytes) || !reducible(type, op, &element, &reduction)) return std::nullopt;
  Busy guard;
  if (!communicator_ready(c)) return std::nullopt;
  Buffers b;
  b.send = sendbuf;
  b.send_bytes = bytes;
  b.recv = recvbuf;
  b.recv_bytes = bytes;
  b.ok = device::kernels::supports(element, reduction);
  const int p = c->size, me = c->rank;
  return run("MPI_Allreduce", c, bytes, b, -1, [&](const Entry*, const Mapped& mapped, const device::PointerInfo&) {
    return reduce_slice(mapped, p, me, static_cast<size_t>(count), type->size, element, reduction);
  });
}

std::optional<Err> reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type,
                                        const Op* op, Communicator* c, Launch how) {
  Element element{};
  Reduction reduction{};
  if (c->inter) return std::nullopt;
  const size_t block = type->bytes(recvcount);
  const size_t bytes = block * static_cast<size_t>(c->size);
  if (!eligible_call(c, how, bytes) || !reducible(type, op, &element, &reduction)) return std::nullopt;
  Busy guard;
  if (!communicator_ready(c)) return std::nullopt;
  Buffers b;
  b.send = sendbuf;
  b.send_bytes = bytes;
  b.recv = recvbuf;
  b.recv_bytes = block;
  b.share_recv = false;  // only its own rank writes it
  // In place, rank r would write block 0 of its buffer while rank 0 reads it.
  b.ok = sendbuf != MPI_IN_PLACE && device::kernels::supports(element, reduction);
  const int p = c->size, me = c->rank;
  return run("MPI_Reduce_scatter_block", c, bytes, b, -1,
             [&](const Entry*, const Mapped& mapped, const device::PointerInfo&) {
               return reduce_block(mapped, p, me, static_cast<size_t>(recvcount), type->size, element, reduction);
             });
}

std::optional<Err> allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                             MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how) {
  if (c->inter) return std::nullopt;
  const size_t block = recvtype->bytes(recvcount);  // the same on every rank (matching signatures)
  const size_t bytes = block * static_cast<size_t>(c->size);
  if (!eligible_call(c, how, bytes)) return std::nullopt;
  Busy guard;
  if (!communicator_ready(c)) return std::nullopt;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  Buffers b;
  b.send = sendbuf;
  b.send_bytes = block;
  b.recv = recvbuf;
  b.recv_bytes = bytes;
  b.share_recv = in_place;  // the others read my block there
  b.ok = dense(recvtype) && (in_place || (dense(sendtype) && sendtype->bytes(sendcount) == block));
  const int p = c->size, me = c->rank;
  return run("MPI_Allgather", c, bytes, b, -1,
             [&](const Entry* entries, const Mapped& mapped, const device::PointerInfo&) {
               return gather_blocks(entries, mapped, p, me, block);
             });
}

std::optional<Err> bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c, Launch how) {
  if (c->inter) return std::nullopt;
  const size_t bytes = type->bytes(count);  // the same on every rank (matching signatures)
  if (!eligible_call(c, how, bytes) || root < 0 || root >= c->size) return std::nullopt;
  Busy guard;
  if (!communicator_ready(c)) return std::nullopt;
  const int me = c->rank;
  Buffers b;
  b.ok = dense(type);
  if (me == root) {
    b.send = buf;
    b.send_bytes = bytes;
  } else {
    b.recv = buf;
    b.recv_bytes = bytes;
    b.share_recv = false;
  }
  return run("MPI_Bcast", c, bytes, b, root,
             [&](const Entry*, const Mapped& mapped, const device::PointerInfo& where)
                 -> std::optional<std::string> {
               if (me == root) return std::nullopt;
               device::staging::Copy copy{buf, mapped.inputs[root], bytes};
               return device::staging::copy_many(where, &copy, 1);
             });
}

}  // namespace ferry::coll::gpu::onepass
