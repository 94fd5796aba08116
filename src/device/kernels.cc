#include "device/kernels.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <map>
#include <mutex>

#include "common/debug.h"
#include "device/device.h"
#include "device/kernels/pack_abi.h"
#include "device/kernels/reduce_abi.h"
#include "device/staging.h"

#ifdef FERRY_CUDA_KERNELS
// reduce.cu's fatbin, embedded by cmake/FerryCudaKernels.cmake (hidden).
extern "C" const unsigned char ferry_reduce_fatbin[];
#endif

namespace ferry::device::kernels {
namespace {

static_assert(std::size(ReduceInputs{}.p) == kMaxInputs);
static_assert(std::size(ReduceOutputs{}.p) == kMaxOutputs);

constexpr int kElements = 10;
constexpr int kReductions = 10;
// By enumerator: the names reduce_abi.h gives the kernels.
const char* const kElementNames[kElements] = {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"};
constexpr size_t kElementBytes[kElements] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
const char* const kReductionNames[kReductions] = {"sum",  "prod", "max",  "min", "land",
                                                  "lor",  "lxor", "band", "bor", "bxor"};

// Launch geometry. A kernel is memory-bound, so the grid only has to keep
// every SM's memory pipeline busy: one thread per 16-byte pack (the vector
// path's unit), and at most 1056 blocks = 132 SMs (an H100 or H200) x 8
// resident blocks of 256 threads (2048 threads per SM), one full wave on
// today's largest GPUs. Beyond that, each thread's grid-stride loop takes
// more packs, which costs nothing a bigger grid would save.
constexpr size_t kMaxBlocks = 1056;

unsigned blocks_for(size_t count, Element element) {
  size_t per_pack = 16 / kElementBytes[static_cast<int>(element)];
  size_t threads = (count + per_pack - 1) / per_pack;
  size_t blocks = (threads + kReduceThreads - 1) / kReduceThreads;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

const void* embedded_image() {
#ifdef FERRY_CUDA_KERNELS
  return ferry_reduce_fatbin;
#else
  return nullptr;
#endif
}

// The kernels loaded into one CUDA context, looked up as they are first used.
struct Module {
  void* module = nullptr;  // nullptr: loading failed
  void* functions[kReductions][kElements] = {};
  void* gather = nullptr;   // ferry_pack_gather
  void* scatter = nullptr;  // ferry_pack_scatter
};

struct State {
  std::mutex lock;
  std::map<const void*, Module> modules;  // keyed as staging's streams: context, or device ordinal + 1
  // Whether the installed table can load a module at all: 1 yes, 0 no, -1
  // not asked yet. Without an embedded image only the model can.
  int loadable = -1;
};
State state;
// A module failed to load somewhere: the kernels are as good as absent.
std::atomic<bool> failed{false};

bool loadable_locked() {
  if (state.loadable < 0) {
    state.loadable = 1;
    if (installed->launch == nullptr) {
      state.loadable = 0;  // cuda_driver.cc said which call is missing
    } else if (embedded_image() == nullptr) {
      // The driver refuses a null image without touching a context; the
      // model accepts it (its kernels are host code).
      void* probe = nullptr;
      if (installed->module_load(nullptr, 0, nullptr, &probe) != 0) {
        state.loadable = 0;
        FERRY_DEBUG(kCuda, "GPU reduction kernels: not built into libmpi (no nvcc), GPU reductions stage through "
                           "the host");
      }
    }
  }
  return state.loadable == 1;
}

// The module loaded in the context of the allocation `info` describes
// (loaded the first time); nullptr with `*error` set. Lock held.
Module* module_for(const PointerInfo& info, std::string* error) {
  const void* key = info.context != nullptr ? info.context : reinterpret_cast<const void*>(uintptr_t(info.device + 1));
  if (!loadable_locked()) {
    *error = "GPU kernels: not available in this libmpi or driver";
    return nullptr;
  }
  auto [it, fresh] = state.modules.try_emplace(key);
  Module& m = it->second;
  if (fresh) {
    if (int code = installed->module_load(info.context, info.device, embedded_image(), &m.module); code != 0) {
      m.module = nullptr;
      failed = true;
      FERRY_DEBUG(kCuda, "GPU reduction kernels: %s on GPU %d, GPU reductions stage through the host",
                  error_text("cuModuleLoadData", code).c_str(), info.device);
      *error = error_text("cuModuleLoadData", code);
      return nullptr;
    }
  }
  if (m.module == nullptr) {
    *error = "cuModuleLoadData: failed earlier in this context";
    return nullptr;
  }
  return &m;
}

// A kernel of that module by name, looked up once into `*slot`. Lock held.
void* function_named(Module& m, const char* name, void** slot, std::string* error) {
  if (*slot == nullptr) {
    if (int code = installed->module_function(m.module, name, slot); code != 0) {
      *slot = nullptr;
      *error = error_text("cuModuleGetFunction", code) + " (" + name + ")";
      return nullptr;
    }
  }
  return *slot;
}

// The kernel for (element, op) in the context of the allocation `info`
// describes, loading the module there the first time.
void* function_for(const PointerInfo& info, Element element, Reduction op, std::string* error) {
  std::lock_guard<std::mutex> hold(state.lock);
  Module* found = module_for(info, error);
  if (found == nullptr) return nullptr;
  Module& m = *found;
  void*& function = m.functions[static_cast<int>(op)][static_cast<int>(element)];
  if (function == nullptr) {
    std::string name = std::string("ferry_reduce_") + kReductionNames[static_cast<int>(op)] + "_" +
                       kElementNames[static_cast<int>(element)];
    if (int code = installed->module_function(m.module, name.c_str(), &function); code != 0) {
      function = nullptr;
      *error = error_text("cuModuleGetFunction", code) + " (" + name + ")";
      return nullptr;
    }
  }
  return function;
}

}  // namespace

// MPI-3.1 §5.9.2: the bitwise operations are for integers; the logical ones
// take floating point too, as MPICH and the host path do (zero is false).
bool defined(Element element, Reduction op) {
  bool integer = element != Element::kFloat && element != Element::kDouble;
  bool bitwise = op == Reduction::kBand || op == Reduction::kBor || op == Reduction::kBxor;
  return integer || !bitwise;
}

bool supports(Element element, Reduction op) {
  if (installed == nullptr || failed || !defined(element, op)) return false;
  std::lock_guard<std::mutex> hold(state.lock);
  return loadable_locked();
}

std::optional<std::string> reduce(void* dst, const void* const* srcs, int n, size_t count, Element element,
                                  Reduction op) {
  return reduce_to(&dst, 1, srcs, n, count, element, op);
}

std::optional<std::string> reduce_to(void* const* dsts, int m, const void* const* srcs, int n, size_t count,
                                     Element element, Reduction op) {
  if (n < 1 || n > kMaxInputs) return "GPU reduce: " + std::to_string(n) + " inputs (1 to 8 allowed)";
  if (m < 1 || m > kMaxOutputs) return "GPU reduce: " + std::to_string(m) + " outputs (1 to 8 allowed)";
  if (!defined(element, op))
    return std::string("GPU reduce: ") + kReductionNames[static_cast<int>(op)] + " is not defined for " +
           kElementNames[static_cast<int>(element)];
  if (count == 0) return std::nullopt;
  if (installed == nullptr) return "GPU reduce: no device interface";
  PointerInfo info = describe(dsts[0]);
  if (info.memory == Memory::kHost) return "GPU reduce: the destination is not GPU memory";

  std::string error;
  void* function = function_for(info, element, op, &error);
  if (function == nullptr) return error;
  void* stream = staging::stream_for(info, &error);
  if (stream == nullptr) return error;

  // cuLaunchKernel's parameters: one pointer to each of the kernel's
  // (ReduceOutputs outputs, ReduceInputs inputs, unsigned long long count).
  ReduceOutputs outputs{};
  for (int k = 0; k < m; ++k) outputs.p[k] = dsts[k];
  outputs.n = m;
  ReduceInputs inputs{};
  for (int k = 0; k < n; ++k) inputs.p[k] = srcs[k];
  inputs.n = n;
  unsigned long long elements = count;
  void* args[] = {&outputs, &inputs, &elements};
  if (int code = installed->launch(function, blocks_for(count, element), kReduceThreads, args, stream); code != 0)
    return error_text("cuLaunchKernel", code);
  if (int code = installed->stream_synchronize(stream); code != 0) return error_text("cuStreamSynchronize", code);
  return std::nullopt;
}

bool supports_pack() {
  if (installed == nullptr || failed) return false;
  std::lock_guard<std::mutex> hold(state.lock);
  return loadable_locked();
}

std::optional<std::string> pack_blocks(const PointerInfo& where, void* base, const PackBlock* blocks, size_t n,
                                       uint64_t packed_bytes, void* packed, bool packed_on_device, bool gather) {
  if (n == 0) return std::nullopt;
  if (installed == nullptr) return "GPU pack: no device interface";
  std::string error;
  void* function = nullptr;
  {
    std::lock_guard<std::mutex> hold(state.lock);
    Module* m = module_for(where, &error);
    if (m == nullptr) return error;
    function = gather ? function_named(*m, "ferry_pack_gather", &m->gather, &error)
                      : function_named(*m, "ferry_pack_scatter", &m->scatter, &error);
  }
  if (function == nullptr) return error;
  void* stream = staging::stream_for(where, &error);
  if (stream == nullptr) return error;

  // One GPU scratch buffer: the packed bytes (unless they are on the GPU
  // already), then the block list, 16-byte aligned.
  size_t list_bytes = n * sizeof(PackBlock);
  size_t dense_bytes = packed_on_device ? 0 : (static_cast<size_t>(packed_bytes) + 15) / 16 * 16;
  char* scratch = static_cast<char*>(staging::take_device(where, dense_bytes + list_bytes, &error));
  if (scratch == nullptr) return error;
  void* dense = packed_on_device ? packed : scratch;
  auto* list = reinterpret_cast<PackBlock*>(scratch + dense_bytes);
  std::optional<std::string> failure = staging::copy(where, list, blocks, list_bytes);
  if (!failure && !gather && !packed_on_device) failure = staging::copy(where, dense, packed, packed_bytes);
  if (!failure) {
    // cuLaunchKernel's parameters: one pointer to each of the kernel's
    // (void* to, const void* from, const PackBlock* blocks, unsigned long long n).
    void* to = gather ? dense : base;
    const void* from = gather ? static_cast<const void*>(base) : dense;
    unsigned long long count = n;
    void* args[] = {&to, &from, &list, &count};
    size_t warps_per_block = kPackThreads / kPackWarp;
    size_t grid = std::min<size_t>((n + warps_per_block - 1) / warps_per_block, kMaxBlocks);
    if (int code = installed->launch(function, static_cast<unsigned>(grid), kPackThreads, args, stream); code != 0)
      failure = error_text("cuLaunchKernel", code);
  }
  if (!failure && gather && !packed_on_device) failure = staging::copy(where, packed, dense, packed_bytes);
  if (!failure)
    if (int code = installed->stream_synchronize(stream); code != 0) failure = error_text("cuStreamSynchronize", code);
  staging::give_device(scratch, dense_bytes + list_bytes);
  return failure;
}

void reset() {
  std::lock_guard<std::mutex> hold(state.lock);
  state.modules.clear();
  state.loadable = -1;
  failed = false;
}

}  // namespace ferry::device::kernels
