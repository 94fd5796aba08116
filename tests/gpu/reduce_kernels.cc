// The GPU reduction kernels (device/kernels.h) on a real GPU: every kernel
// against the host path's element functions (base/reduce_kernels.h), with
// 1, 2, 3 and 8 inputs, counts that do and do not fill 16-byte packs,
// pointers that are and are not 16-byte aligned (the vector and element
// paths), in place and not; then the bandwidth of a large sum. Then the
// pack kernels (kernels/pack.cu through kernels::pack_blocks): block lists
// of small, odd-sized, large and merged blocks gathered from and scattered
// into GPU memory, to host and GPU packed buffers, against memcpy; the
// bytes between the blocks untouched.
//
// Built by CMake as gpu_reduce_kernels when the kernels are
// (cmake/FerryCudaKernels.cmake). It links the device layer and
// ferry_common only, with libstdc++ static, so it runs on a GPU machine
// without PMIx or hwloc (scripts/gpu-bundle carries it, tests/gpu/run.sh
// runs it). GPU memory is allocated through libcuda.so.1 directly
// (dlopen), apart from the table under test.
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "base/reduce_kernels.h"
#include "device/device.h"
#include "device/kernels.h"
#include "device/kernels/reduce_abi.h"

namespace {

using namespace ferry::device;
using namespace ferry::device::kernels;

struct Cuda {
  int (*mem_alloc)(unsigned long long* p, size_t n);
  int (*mem_free)(unsigned long long p);
  int (*htod)(unsigned long long dst, const void* src, size_t n);
  int (*dtoh)(void* dst, unsigned long long src, size_t n);
};
Cuda cuda;
int checks = 0;
int failures = 0;

// A GPU buffer of n bytes starting `offset` bytes into its allocation.
struct GpuBuffer {
  unsigned long long base = 0;
  char* p = nullptr;
  GpuBuffer(size_t n, size_t offset) {
    if (cuda.mem_alloc(&base, n + offset) != 0) {
      std::printf("cuMemAlloc of %zu bytes failed\n", n + offset);
      std::exit(1);
    }
    p = reinterpret_cast<char*>(base) + offset;
  }
  ~GpuBuffer() { cuda.mem_free(base); }
  GpuBuffer(const GpuBuffer&) = delete;
};

template <typename T>
T value(size_t i, int k) {
  uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull + uint64_t(k) * 0xbf58476d1ce4e5b9ull;
  h ^= h >> 29;
  if constexpr (std::is_floating_point_v<T>) return T(int64_t(h % 2001) - 1000) / T(8);  // exact sums
  else return h % 5 == 0 ? T(0) : T(h >> 7);  // zeros for the logical operations
}

template <typename T, typename Op>
void check(const char* name, Element element, Reduction op, int n, size_t count, bool aligned, bool in_place) {
  size_t bytes = count * sizeof(T);
  size_t offset = aligned ? 0 : sizeof(T);  // a whole element off: the element path
  std::vector<std::vector<T>> in(n, std::vector<T>(count));
  std::vector<T> expected(count);
  for (size_t i = 0; i < count; ++i) {
    for (int k = 0; k < n; ++k) in[k][i] = value<T>(i, k);
    T acc = in[0][i];
    for (int k = 1; k < n; ++k) acc = Op::of(acc, in[k][i]);
    expected[i] = acc;
  }
  std::vector<GpuBuffer*> buffers;
  std::vector<const void*> srcs;
  for (int k = 0; k < n; ++k) {
    buffers.push_back(new GpuBuffer(bytes, offset));
    cuda.htod(reinterpret_cast<unsigned long long>(buffers.back()->p), in[k].data(), bytes);
    srcs.push_back(buffers.back()->p);
  }
  GpuBuffer* out = in_place ? nullptr : new GpuBuffer(bytes, offset);
  void* dst = in_place ? buffers[0]->p : out->p;
  ++checks;
  if (auto error = reduce(dst, srcs.data(), n, count, element, op)) {
    std::printf("FAILED %s n=%d count=%zu: %s\n", name, n, count, error->c_str());
    ++failures;
  } else {
    std::vector<T> got(count);
    cuda.dtoh(got.data(), reinterpret_cast<unsigned long long>(dst), bytes);
    if (std::memcmp(got.data(), expected.data(), bytes) != 0) {
      size_t i = 0;
      while (std::memcmp(&got[i], &expected[i], sizeof(T)) == 0) ++i;
      std::printf("FAILED %s n=%d count=%zu aligned=%d in_place=%d: [%zu] is %g, expected %g\n", name, n, count,
                  aligned, in_place, i, double(got[i]), double(expected[i]));
      ++failures;
    }
  }
  for (GpuBuffer* b : buffers) delete b;
  delete out;
}

// Several outputs (reduce_to, the one-pass allreduce's kernel): every
// output gets the whole result; with `in_place` the first output is the
// first input.
template <typename T, typename Op>
void check_outputs(const char* name, Element element, Reduction op, int n, int m, size_t count, bool aligned,
                   bool in_place) {
  size_t bytes = count * sizeof(T);
  size_t offset = aligned ? 0 : sizeof(T);
  std::vector<std::vector<T>> in(n, std::vector<T>(count));
  std::vector<T> expected(count);
  for (size_t i = 0; i < count; ++i) {
    for (int k = 0; k < n; ++k) in[k][i] = value<T>(i, k);
    T acc = in[0][i];
    for (int k = 1; k < n; ++k) acc = Op::of(acc, in[k][i]);
    expected[i] = acc;
  }
  std::vector<GpuBuffer*> buffers;
  std::vector<const void*> srcs;
  for (int k = 0; k < n; ++k) {
    buffers.push_back(new GpuBuffer(bytes, offset));
    cuda.htod(reinterpret_cast<unsigned long long>(buffers.back()->p), in[k].data(), bytes);
    srcs.push_back(buffers.back()->p);
  }
  std::vector<GpuBuffer*> outs;
  std::vector<void*> dsts;
  for (int j = 0; j < m; ++j) {
    if (j == 0 && in_place) {
      dsts.push_back(buffers[0]->p);
      continue;
    }
    outs.push_back(new GpuBuffer(bytes, offset));
    dsts.push_back(outs.back()->p);
  }
  ++checks;
  if (auto error = reduce_to(dsts.data(), m, srcs.data(), n, count, element, op)) {
    std::printf("FAILED %s n=%d m=%d count=%zu: %s\n", name, n, m, count, error->c_str());
    ++failures;
  } else {
    for (int j = 0; j < m; ++j) {
      std::vector<T> got(count);
      cuda.dtoh(got.data(), reinterpret_cast<unsigned long long>(dsts[j]), bytes);
      if (std::memcmp(got.data(), expected.data(), bytes) != 0) {
        std::printf("FAILED %s n=%d m=%d count=%zu aligned=%d in_place=%d: output %d differs\n", name, n, m, count,
                    aligned, in_place, j);
        ++failures;
        break;
      }
    }
  }
  for (GpuBuffer* b : buffers) delete b;
  for (GpuBuffer* b : outs) delete b;
}

template <typename T, typename Op>
void check_all(const char* name, Element element, Reduction op) {
  if (!supports(element, op)) {
    std::printf("FAILED %s: supports() says no\n", name);
    ++failures;
    return;
  }
  for (int n : {1, 2, 3, kMaxInputs})
    for (size_t count : {size_t(1), size_t(37), size_t(4096)})
      for (bool aligned : {true, false})
        for (bool in_place : {false, true}) check<T, Op>(name, element, op, n, count, aligned, in_place);
  for (int m : {2, kMaxOutputs})
    for (size_t count : {size_t(37), size_t(4096)})
      for (bool aligned : {true, false})
        for (bool in_place : {false, true}) check_outputs<T, Op>(name, element, op, 3, m, count, aligned, in_place);
  // Enough for every thread of a full grid to loop (1056 blocks x 256 threads x 16 bytes is 4.3 MB).
  for (int n : {2, kMaxInputs}) check<T, Op>(name, element, op, n, (size_t(3) << 22) / sizeof(T) + 5, true, false);
}

template <typename T>
void bench(const char* name, Element element, int n, size_t bytes) {
  size_t count = bytes / sizeof(T);
  std::vector<GpuBuffer*> buffers;
  std::vector<const void*> srcs;
  for (int k = 0; k < n; ++k) {
    buffers.push_back(new GpuBuffer(bytes, 0));
    srcs.push_back(buffers.back()->p);
  }
  GpuBuffer out(bytes, 0);
  reduce(out.p, srcs.data(), n, count, element, Reduction::kSum);  // loads the module
  constexpr int kRepeats = 20;
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < kRepeats; ++r) reduce(out.p, srcs.data(), n, count, element, Reduction::kSum);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kRepeats;
  std::printf("gpu-reduce sum %s, %d inputs of %zu MiB: %.3f ms, %.0f GB/s moved (reads and write)\n", name, n,
              bytes >> 20, s * 1e3, double(n + 1) * double(bytes) / s / 1e9);
  for (GpuBuffer* b : buffers) delete b;
}

template <typename F>
void resolve(void* library, F* slot, const char* name) {
  *slot = reinterpret_cast<F>(dlsym(library, name));
  if (*slot == nullptr) {
    std::printf("libcuda.so.1 lacks %s\n", name);
    std::exit(1);
  }
}

// One block list against the host: gather from a GPU buffer of `span`
// bytes into host and GPU packed bytes, then scatter them into a buffer of
// 0xee bytes, whose gaps must stay 0xee.
void check_pack(const char* name, size_t span, const std::vector<PackBlock>& blocks) {
  uint64_t total = 0;
  for (const PackBlock& b : blocks) total += b.bytes;
  std::vector<unsigned char> data(span), want(total), expected(span, 0xee);
  for (size_t i = 0; i < span; ++i) data[i] = static_cast<unsigned char>(i * 13 + 7);
  for (const PackBlock& b : blocks) {
    std::memcpy(want.data() + b.packed, data.data() + b.offset, b.bytes);
    std::memcpy(expected.data() + b.offset, data.data() + b.offset, b.bytes);
  }
  unsigned long long src = 0, dst = 0, packed = 0;
  cuda.mem_alloc(&src, span);
  cuda.mem_alloc(&dst, span);
  cuda.mem_alloc(&packed, total);
  cuda.htod(src, data.data(), span);
  PointerInfo where = describe(reinterpret_cast<void*>(src));
  for (bool packed_on_gpu : {false, true}) {
    ++checks;
    std::vector<unsigned char> host_packed(total), got(span, 0xee);
    void* out = packed_on_gpu ? reinterpret_cast<void*>(packed) : host_packed.data();
    auto e = pack_blocks(where, reinterpret_cast<void*>(src), blocks.data(), blocks.size(), total, out, packed_on_gpu,
                         true);
    if (!e && packed_on_gpu) cuda.dtoh(host_packed.data(), packed, total);
    cuda.htod(dst, got.data(), span);
    if (!e)
      e = pack_blocks(where, reinterpret_cast<void*>(dst), blocks.data(), blocks.size(), total, out, packed_on_gpu,
                      false);
    if (!e) cuda.dtoh(got.data(), dst, span);
    if (e || host_packed != want || got != expected) {
      std::printf("FAILED: pack %s, packed bytes on the %s: %s\n", name, packed_on_gpu ? "GPU" : "host",
                  e ? e->c_str() : host_packed != want ? "gathered bytes differ" : "scattered bytes differ");
      ++failures;
    }
  }
  cuda.mem_free(src);
  cuda.mem_free(dst);
  cuda.mem_free(packed);
}

void check_packs() {
  std::vector<PackBlock> small, odd, large;
  uint64_t at = 0;
  for (long long b = 0; b < 100000; ++b, at += 8) small.push_back(PackBlock{16 * b, at, 8});  // every other double
  at = 0;
  for (long long b = 0; b < 5000; ++b) {  // 1 to 37 bytes at odd offsets
    unsigned long long n = 1 + static_cast<unsigned long long>(b) % 37;
    odd.push_back(PackBlock{53 * b + 3, at, n});
    at += n;
  }
  at = 0;
  for (long long b = 0; b < 7; ++b, at += 1 << 20) large.push_back(PackBlock{(3 << 20) * b + 5, at, 1 << 20});
  check_pack("small", 16 * 100000, small);
  check_pack("odd", 53 * 5000 + 64, odd);
  check_pack("large", (3 << 20) * 7, large);
}

}  // namespace

int main() {
  std::string error;
  if (!load(Mode::kOn, &error)) {
    std::printf("%s\n", error.c_str());
    return 1;
  }
  void* library = dlopen("libcuda.so.1", RTLD_NOW);
  int (*device_get)(int*, int);
  int (*retain)(void**, int);
  int (*set_current)(void*);
  resolve(library, &device_get, "cuDeviceGet");
  resolve(library, &retain, "cuDevicePrimaryCtxRetain");
  resolve(library, &set_current, "cuCtxSetCurrent");
  resolve(library, &cuda.mem_alloc, "cuMemAlloc_v2");
  resolve(library, &cuda.mem_free, "cuMemFree_v2");
  resolve(library, &cuda.htod, "cuMemcpyHtoD_v2");
  resolve(library, &cuda.dtoh, "cuMemcpyDtoH_v2");
  int device = 0;
  void* context = nullptr;
  if (device_get(&device, 0) != 0 || retain(&context, device) != 0 || set_current(context) != 0) {
    std::printf("cannot make GPU 0's primary context current\n");
    return 1;
  }

  using namespace ferry::reduce;
#define FERRY_ELEMENT_i8 Element::kInt8
#define FERRY_ELEMENT_u8 Element::kUint8
#define FERRY_ELEMENT_i16 Element::kInt16
#define FERRY_ELEMENT_u16 Element::kUint16
#define FERRY_ELEMENT_i32 Element::kInt32
#define FERRY_ELEMENT_u32 Element::kUint32
#define FERRY_ELEMENT_i64 Element::kInt64
#define FERRY_ELEMENT_u64 Element::kUint64
#define FERRY_ELEMENT_f32 Element::kFloat
#define FERRY_ELEMENT_f64 Element::kDouble
#define FERRY_REDUCTION_sum Reduction::kSum
#define FERRY_REDUCTION_prod Reduction::kProd
#define FERRY_REDUCTION_max Reduction::kMax
#define FERRY_REDUCTION_min Reduction::kMin
#define FERRY_REDUCTION_land Reduction::kLand
#define FERRY_REDUCTION_lor Reduction::kLor
#define FERRY_REDUCTION_lxor Reduction::kLxor
#define FERRY_REDUCTION_band Reduction::kBand
#define FERRY_REDUCTION_bor Reduction::kBor
#define FERRY_REDUCTION_bxor Reduction::kBxor
#define FERRY_CHECK(op, Operation, type, T) \
  check_all<T, Operation>(#op "_" #type, FERRY_ELEMENT_##type, FERRY_REDUCTION_##op);
  FERRY_REDUCE_KERNELS(FERRY_CHECK)
  if (supports(Element::kFloat, Reduction::kBxor)) {
    std::printf("FAILED: supports() admits bxor on float\n");
    ++failures;
  }
  if (!supports_pack()) {
    std::printf("FAILED: supports_pack() is false with the kernels built in\n");
    ++failures;
  } else {
    check_packs();
  }
  std::printf("gpu-reduce: %d checks, %d failed\n", checks, failures);

  bench<float>("f32", Element::kFloat, 2, size_t(256) << 20);
  bench<double>("f64", Element::kDouble, 8, size_t(64) << 20);
  bench<int8_t>("i8", Element::kInt8, 2, size_t(256) << 20);
  return failures == 0 ? 0 : 1;
}
