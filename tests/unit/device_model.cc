#include "device_model.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "base/reduce_kernels.h"
#include "device/kernels/pack_abi.h"
#include "device/kernels/reduce_abi.h"

namespace ferry::device::model {
namespace {

struct Allocation {
  size_t size;        // what was asked
  size_t mapped;      // page-rounded
  int device;
  uint64_t buffer_id;
  bool managed;
};
std::map<uintptr_t, Allocation> allocations;
uint64_t next_buffer_id = 1;
Counters counted;
int failing_copy = 0;
int failing_module_load = 0;
int failing_launch = 0;
int failing_ipc_open = 0;
LastReduce last_reduce_seen;
int stream_token = 0;
int module_token = 0;

const Allocation* find(const void* p, uintptr_t* base) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto it = allocations.upper_bound(a);
  if (it == allocations.begin()) return nullptr;
  --it;
  if (a - it->first >= it->second.size) return nullptr;
  *base = it->first;
  return &it->second;
}

// Opens the allocation holding p for the host while `f` runs.
template <typename F>
void with_access(const void* p, F f) {
  uintptr_t base = 0;
  const Allocation* a = find(p, &base);
  if (a != nullptr && !a->managed) mprotect(reinterpret_cast<void*>(base), a->mapped, PROT_READ | PROT_WRITE);
  f();
  if (a != nullptr && !a->managed) mprotect(reinterpret_cast<void*>(base), a->mapped, PROT_NONE);
}

void raw_copy(void* dst, const void* src, size_t n) {
  with_access(dst, [&] { with_access(src, [&] { std::memcpy(dst, src, n); }); });
}

int pointer_info(const void* p, PointerInfo* info) {
  ++counted.pointer_queries;
  *info = PointerInfo{};
  uintptr_t base = 0;
  if (const Allocation* a = find(p, &base)) {
    info->memory = a->managed ? Memory::kManaged : Memory::kDevice;
    info->device = a->device;
    info->buffer_id = a->buffer_id;
    info->base = base;
    info->size = a->size;
  }
  return 0;
}

int stream_create(void*, int, void** stream) {
  *stream = &stream_token;
  return 0;
}

int copy_async(void* dst, const void* src, size_t n, void*) {
  ++counted.copies;
  if (failing_copy != 0) {
    int code = failing_copy;
    failing_copy = 0;
    return code;
  }
  raw_copy(dst, src, n);
  return 0;
}

int copy_2d_async(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width, size_t rows, void*) {
  ++counted.copies_2d;
  if (failing_copy != 0) {
    int code = failing_copy;
    failing_copy = 0;
    return code;
  }
  // Both strided ranges lie inside one allocation each: opened once.
  with_access(dst, [&] {
    with_access(src, [&] {
      for (size_t r = 0; r < rows; ++r)
        std::memcpy(static_cast<char*>(dst) + r * dst_pitch, static_cast<const char*>(src) + r * src_pitch, width);
    });
  });
  return 0;
}

int stream_synchronize(void*) {
  ++counted.stream_syncs;
  return 0;
}

int pinned_alloc(void** p, size_t n) {
  ++counted.pinned_allocs;
  *p = std::malloc(n);
  return *p != nullptr ? 0 : 2;  // CUDA_ERROR_OUT_OF_MEMORY
}

int pinned_free(void* p) {
  std::free(p);
  return 0;
}

struct Handle {
  uintptr_t base;
  uint64_t buffer_id;
};

int ipc_get_handle(const void* base, IpcHandle* handle) {
  ++counted.ipc_exports;
  uintptr_t b = 0;
  const Allocation* a = find(base, &b);
  if (a == nullptr) return 1;  // CUDA_ERROR_INVALID_VALUE
  std::memset(handle->bytes, 0, sizeof handle->bytes);
  Handle h{b, a->buffer_id};
  std::memcpy(handle->bytes, &h, sizeof h);
  return 0;
}

int ipc_open_handle(const IpcHandle& handle, int, void** mapped) {
  Handle h;
  std::memcpy(&h, handle.bytes, sizeof h);
  uintptr_t b = 0;
  const Allocation* a = find(reinterpret_cast<void*>(h.base), &b);
  if (a == nullptr || a->buffer_id != h.buffer_id) return 400;  // CUDA_ERROR_INVALID_HANDLE
  if (failing_ipc_open != 0) {
    int code = failing_ipc_open;
    failing_ipc_open = 0;
    return code;
  }
  ++counted.ipc_opens;
  *mapped = reinterpret_cast<void*>(h.base);  // one process: the same address
  return 0;
}

int ipc_close_handle(void*) {
  ++counted.ipc_closes;
  return 0;
}

// The kernels: the host path's element functions (base/reduce_kernels.h)
// folded as reduce.cu folds them, with every allocation they touch opened.
using HostKernel = void (*)(void** args);

template <typename T, typename Op>
void host_reduce(void** args) {
  const auto& out = *static_cast<const kernels::ReduceOutputs*>(args[0]);
  const auto& in = *static_cast<const kernels::ReduceInputs*>(args[1]);
  size_t count = *static_cast<unsigned long long*>(args[2]);
  LastReduce& last = last_reduce_seen;
  last.outputs.assign(out.p, out.p + out.n);
  last.inputs.assign(in.p, in.p + in.n);
  last.count = count;
  std::set<std::pair<uintptr_t, const Allocation*>> opened;
  for (int k = 0; k < out.n + in.n; ++k) {
    const void* p = k < out.n ? out.p[k] : in.p[k - out.n];
    uintptr_t base = 0;
    if (const Allocation* a = find(p, &base); a != nullptr && !a->managed) opened.insert({base, a});
  }
  for (auto [base, a] : opened) mprotect(reinterpret_cast<void*>(base), a->mapped, PROT_READ | PROT_WRITE);
  for (size_t i = 0; i < count; ++i) {
    T acc = static_cast<const T*>(in.p[0])[i];
    for (int k = 1; k < in.n; ++k) acc = Op::of(acc, static_cast<const T*>(in.p[k])[i]);
    for (int k = 0; k < out.n; ++k) static_cast<T*>(out.p[k])[i] = acc;
  }
  for (auto [base, a] : opened) mprotect(reinterpret_cast<void*>(base), a->mapped, PROT_NONE);
}

// The pack kernels (pack_abi.h): (void* to, const void* from, const
// PackBlock* blocks, unsigned long long n), the block list read from
// "device" memory as the GPU reads it, every allocation opened.
template <bool kGather>
void host_pack(void** args) {
  auto* to = static_cast<char*>(*static_cast<void**>(args[0]));
  const auto* from = static_cast<const char*>(*static_cast<const void**>(args[1]));
  const auto* blocks = *static_cast<const kernels::PackBlock**>(args[2]);
  auto n = *static_cast<unsigned long long*>(args[3]);
  uintptr_t list_base = 0;
  if (const Allocation* a = find(blocks, &list_base); a == nullptr || a->managed) std::abort();  // must be GPU memory
  std::set<std::pair<uintptr_t, const Allocation*>> opened;
  for (const void* p : {static_cast<const void*>(to), static_cast<const void*>(from),
                        static_cast<const void*>(blocks)}) {
    uintptr_t base = 0;
    if (const Allocation* a = find(p, &base); a != nullptr && !a->managed) opened.insert({base, a});
  }
  for (auto [base, a] : opened) mprotect(reinterpret_cast<void*>(base), a->mapped, PROT_READ | PROT_WRITE);
  for (unsigned long long b = 0; b < n; ++b) {
    const kernels::PackBlock& k = blocks[b];
    if (kGather) std::memcpy(to + k.packed, from + k.offset, k.bytes);
    else std::memcpy(to + k.offset, from + k.packed, k.bytes);
  }
  for (auto [base, a] : opened) mprotect(reinterpret_cast<void*>(base), a->mapped, PROT_NONE);
}

const std::map<std::string, HostKernel>& host_kernels() {
  using namespace ferry::reduce;
  static const std::map<std::string, HostKernel> table = {
#define FERRY_MODEL_KERNEL(op, Operation, type, T) {"ferry_reduce_" #op "_" #type, host_reduce<T, Operation>},
      FERRY_REDUCE_KERNELS(FERRY_MODEL_KERNEL)
#undef FERRY_MODEL_KERNEL
      {"ferry_pack_gather", host_pack<true>},
      {"ferry_pack_scatter", host_pack<false>},
  };
  return table;
}

int module_load(void*, int, const void*, void** module) {
  ++counted.module_loads;
  if (failing_module_load != 0) {
    int code = failing_module_load;
    failing_module_load = 0;
    return code;
  }
  *module = &module_token;
  return 0;
}

int module_function(void*, const char* name, void** function) {
  auto it = host_kernels().find(name);
  if (it == host_kernels().end()) return 500;  // CUDA_ERROR_NOT_FOUND
  *function = reinterpret_cast<void*>(it->second);
  return 0;
}

int launch(void* function, unsigned grid, unsigned block, void** args, void*) {
  ++counted.launches;
  counted.last_grid = grid;
  counted.last_block = block;
  if (failing_launch != 0) {
    int code = failing_launch;
    failing_launch = 0;
    return code;
  }
  reinterpret_cast<HostKernel>(function)(args);
  return 0;
}

const char* error_string(int code) {
  switch (code) {
    case 1: return "invalid argument";
    case 2: return "out of memory";
    case 209: return "no kernel image is available for execution on the device";
    case 500: return "named symbol not found";
    case 719: return "unspecified launch failure";
    case 400: return "invalid resource handle";
    case 700: return "an illegal memory access was encountered";
    default: return "unknown error";
  }
}

void* map(size_t n, int device, bool managed);

int device_alloc(void*, int device, void** p, size_t n) {
  ++counted.device_allocs;
  *p = map(n, device < 0 ? 0 : device, false);
  return 0;
}

void unmap(void* p);

int device_free(void*, void* p) {
  unmap(p);
  return 0;
}

int synchronize_legacy(void*, int) {
  ++counted.legacy_syncs;
  return 0;
}

// An event: the copies are done at once, so "running" is only pretended,
// for as many queries as set_event_polls() said when it was recorded.
struct Event {
  int polls_left = 0;
  int failing = 0;
  bool running = false;  // counted in `running` until a query says it is done
};
int event_polls = 0;
int failing_event = 0;
int running = 0;  // events recorded whose polls are not over

int event_create(void*, void** event) {
  ++counted.events_made;
  *event = new Event;
  return 0;
}

int event_record(void* event, void*) {
  ++counted.event_records;
  auto* e = static_cast<Event*>(event);
  if (e->running) --running;  // recorded again before a query saw it done
  e->polls_left = event_polls;
  e->running = event_polls > 0;
  if (e->running) ++running;
  e->failing = failing_event;
  failing_event = 0;
  return 0;
}

int event_query(void* event) {
  ++counted.event_queries;
  auto* e = static_cast<Event*>(event);
  if (e->polls_left > 0) {
    --e->polls_left;
    return kNotReady;
  }
  if (e->running) {
    e->running = false;
    --running;
  }
  return e->failing;
}

int event_destroy(void* event) {
  ++counted.events_destroyed;
  if (static_cast<Event*>(event)->running) --running;
  delete static_cast<Event*>(event);
  return 0;
}

int buffer_id(const void* p, uint64_t* id) {
  ++counted.id_queries;
  uintptr_t base = 0;
  const Allocation* a = find(p, &base);
  *id = a != nullptr ? a->buffer_id : 0;
  return 0;
}

const Ops kOps = {"host model",     pointer_info,     buffer_id,        stream_create,  copy_async,
                  copy_2d_async,    stream_synchronize, pinned_alloc,   pinned_free,    ipc_get_handle,
                  ipc_open_handle,  ipc_close_handle, error_string,     module_load,    module_function,
                  launch,           device_alloc,     device_free,      synchronize_legacy,
                  event_create,     event_record,     event_query,      event_destroy};

// Like the CUDA driver under unified addressing, GPU allocations come from
// an address range reserved apart from host memory, 2 MiB aligned; as the
// driver does, a freed range is handed out again (to device or managed
// memory alike), while buffer ids are never reused.
constexpr size_t kReserved = size_t(64) << 30;
constexpr size_t kAlignment = size_t(2) << 20;
char* reserved = nullptr;
size_t used = 0;
std::multimap<size_t, char*> freed;  // mapped size -> range, for reuse

void* map(size_t n, int device, bool managed) {
  if (reserved == nullptr) {
    void* r = mmap(nullptr, kReserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) std::abort();
    reserved = static_cast<char*>(r);
  }
  size_t mapped = (n + kAlignment - 1) / kAlignment * kAlignment;
  if (mapped == 0) mapped = kAlignment;
  char* p = nullptr;
  if (auto it = freed.find(mapped); it != freed.end()) {
    p = it->second;
    freed.erase(it);
  } else {
    if (used + mapped > kReserved) std::abort();
    p = reserved + used;
    used += mapped;
  }
  if (managed) mprotect(p, mapped, PROT_READ | PROT_WRITE);
  allocations[reinterpret_cast<uintptr_t>(p)] = Allocation{n, mapped, device, next_buffer_id++, managed};
  return p;
}

}  // namespace

const Ops* ops() { return &kOps; }
void* alloc(size_t n, int device) { return map(n, device, false); }
void* alloc_managed(size_t n) { return map(n, 0, true); }

void free(void* p) { unmap(p); }

namespace {
void unmap(void* p) {
  auto it = allocations.find(reinterpret_cast<uintptr_t>(p));
  if (it == allocations.end()) std::abort();
  mprotect(p, it->second.mapped, PROT_NONE);
  madvise(p, it->second.mapped, MADV_DONTNEED);
  freed.emplace(it->second.mapped, static_cast<char*>(p));
  allocations.erase(it);
}
}  // namespace

void write(void* device_dst, const void* host_src, size_t n) { raw_copy(device_dst, host_src, n); }
void read(void* host_dst, const void* device_src, size_t n) { raw_copy(host_dst, device_src, n); }

Counters& counters() { return counted; }
void reset_counters() {
  counted = Counters{};
  event_polls = 0;
  failing_event = 0;
  failing_ipc_open = 0;
  last_reduce_seen = LastReduce{};
}
void fail_next_copy(int code) { failing_copy = code; }
void fail_next_module_load(int code) { failing_module_load = code; }
void fail_next_launch(int code) { failing_launch = code; }
void fail_next_ipc_open(int code) { failing_ipc_open = code; }
const LastReduce& last_reduce() { return last_reduce_seen; }
void set_event_polls(int n) { event_polls = n; }
int copies_running() { return running; }
void fail_next_event(int code) { failing_event = code; }

}  // namespace ferry::device::model
