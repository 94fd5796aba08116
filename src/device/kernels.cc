#include "device/kernels.h"

#include <atomic>
#include <iterator>
#include <map>
#include <mutex>

#include "common/debug.h"
#include "device/device.h"
#include "device/kernels/reduce_abi.h"
#include "device/staging.h"

#ifdef FERRY_CUDA_KERNELS
// reduce.cu's fatbin, embedded by cmake/FerryCudaKernels.cmake (hidden).
extern "C" const unsigned char ferry_reduce_fatbin[];
#endif

namespace ferry::device::kernels {
namespace {

static_assert(std::size(ReduceInputs{}.p) == kMaxInputs);

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

// MPI-3.1 §5.9.2: the bitwise operations are for integers; the logical ones
// take floating point too, as MPICH and the host path do (zero is false).
bool defined(Element element, Reduction op) {
  bool integer = element != Element::kFloat && element != Element::kDouble;
  bool bitwise = op == Reduction::kBand || op == Reduction::kBor || op == Reduction::kBxor;
  return integer || !bitwise;
}

// The kernels loaded into one CUDA context, looked up as they are first used.
struct Module {
  void* module = nullptr;  // nullptr: loading failed
  void* functions[kReductions][kElements] = {};
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

// The kernel for (element, op) in the context of the allocation `info`
// describes, loading the module there the first time.
void* function_for(const PointerInfo& info, Element element, Reduction op, std::string* error) {
  const void* key = info.context != nullptr ? info.context : reinterpret_cast<const void*>(uintptr_t(info.device + 1));
  std::lock_guard<std::mutex> hold(state.lock);
  if (!loadable_locked()) {
    *error = "GPU reduction kernels: not available in this libmpi or driver";
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

bool supports(Element element, Reduction op) {
  if (installed == nullptr || failed || !defined(element, op)) return false;
  std::lock_guard<std::mutex> hold(state.lock);
  return loadable_locked();
}

std::optional<std::string> reduce(void* dst, const void* const* srcs, int n, size_t count, Element element,
                                  Reduction op) {
  if (n < 1 || n > kMaxInputs) return "GPU reduce: " + std::to_string(n) + " inputs (1 to 8 allowed)";
  if (!defined(element, op))
    return std::string("GPU reduce: ") + kReductionNames[static_cast<int>(op)] + " is not defined for " +
           kElementNames[static_cast<int>(element)];
  if (count == 0) return std::nullopt;
  if (installed == nullptr) return "GPU reduce: no device interface";
  PointerInfo info = describe(dst);
  if (info.memory == Memory::kHost) return "GPU reduce: the destination is not GPU memory";

  std::string error;
  void* function = function_for(info, element, op, &error);
  if (function == nullptr) return error;
  void* stream = staging::stream_for(info, &error);
  if (stream == nullptr) return error;

  // cuLaunchKernel's parameters: one pointer to each of the kernel's
  // (void* dst, ReduceInputs inputs, unsigned long long count).
  ReduceInputs inputs{};
  for (int k = 0; k < n; ++k) inputs.p[k] = srcs[k];
  inputs.n = n;
  unsigned long long elements = count;
  void* args[] = {&dst, &inputs, &elements};
  if (int code = installed->launch(function, blocks_for(count, element), kReduceThreads, args, stream); code != 0)
    return error_text("cuLaunchKernel", code);
  if (int code = installed->stream_synchronize(stream); code != 0) return error_text("cuStreamSynchronize", code);
  return std::nullopt;
}

void reset() {
  std::lock_guard<std::mutex> hold(state.lock);
  state.modules.clear();
  state.loadable = -1;
  failed = false;
}

}  // namespace ferry::device::kernels
