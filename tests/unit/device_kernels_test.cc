// GPU reductions (device/kernels.h) against the host-memory model of a GPU,
// whose kernels are host functions found by the real kernels' names: the
// launcher passes the inputs, count and destination as the kernels take
// them, in place or not, with one to eight inputs; every predefined
// (element, op) pair the host path allows has a kernel; a refused module
// or a failed launch is the call's error, and a refused module turns
// supports() off so callers stage through the host; with no table
// installed nothing is supported.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device/device.h"
#include "device/kernels.h"
#include "device_model.h"

namespace ferry::device::kernels {
namespace {

class KernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    install(model::ops());
    // A libmpi built without nvcc has no image to load: its first
    // supports() asks the table once whether it loads a module without one
    // (the model does). Counted from here, loads are the modules' own.
    EXPECT_TRUE(supports(Element::kInt32, Reduction::kSum));
    model::reset_counters();
  }
  void TearDown() override {
    for (void* p : allocated_) model::free(p);
    install(nullptr);
  }

  template <typename T>
  T* on_gpu(const std::vector<T>& values) {
    void* p = model::alloc(values.size() * sizeof(T));
    model::write(p, values.data(), values.size() * sizeof(T));
    allocated_.push_back(p);
    return static_cast<T*>(p);
  }
  template <typename T>
  std::vector<T> back(const T* p, size_t n) {
    std::vector<T> values(n);
    model::read(values.data(), p, n * sizeof(T));
    return values;
  }

 private:
  std::vector<void*> allocated_;
};

TEST_F(KernelsTest, SumsThreeInt32InputsIntoAFourthBuffer) {
  constexpr size_t n = 1000;
  std::vector<int32_t> a(n), b(n), c(n), expected(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = int32_t(i);
    b[i] = -2 * int32_t(i);
    c[i] = 7;
    expected[i] = 7 - int32_t(i);
  }
  const void* srcs[] = {on_gpu(a), on_gpu(b), on_gpu(c)};
  int32_t* dst = on_gpu(std::vector<int32_t>(n, -1));
  ASSERT_TRUE(supports(Element::kInt32, Reduction::kSum));
  EXPECT_EQ(reduce(dst, srcs, 3, n, Element::kInt32, Reduction::kSum), std::nullopt);
  EXPECT_EQ(back(dst, n), expected);
  EXPECT_EQ(model::counters().module_loads, 1u);
  EXPECT_EQ(model::counters().launches, 1u);
  EXPECT_EQ(model::counters().last_block, 256u);
  EXPECT_EQ(model::counters().last_grid, 1u);  // 250 packs of 4: one block
}

TEST_F(KernelsTest, SumsInPlaceIntoTheFirstInput) {
  std::vector<int32_t> a = {1, 2, 3, 4, 5}, b = {10, 20, 30, 40, 50};
  int32_t* da = on_gpu(a);
  const void* srcs[] = {da, on_gpu(b)};
  EXPECT_EQ(reduce(da, srcs, 2, a.size(), Element::kInt32, Reduction::kSum), std::nullopt);
  EXPECT_EQ(back(da, a.size()), (std::vector<int32_t>{11, 22, 33, 44, 55}));
}

TEST_F(KernelsTest, TakesTheMaximumOfDoubles) {
  std::vector<double> a = {1.5, -3.0, 7.25, 0.0}, b = {2.5, -4.0, 7.0, -0.5}, c = {0.0, -3.5, 1.0, 1e300};
  const void* srcs[] = {on_gpu(a), on_gpu(b), on_gpu(c)};
  double* dst = on_gpu(std::vector<double>(4));
  EXPECT_EQ(reduce(dst, srcs, 3, 4, Element::kDouble, Reduction::kMax), std::nullopt);
  EXPECT_EQ(back(dst, 4), (std::vector<double>{2.5, -3.0, 7.25, 1e300}));
}

TEST_F(KernelsTest, XorsBytesOfEightInputs) {
  constexpr size_t n = 37;  // not a whole number of 16-byte packs
  std::vector<const void*> srcs;
  std::vector<uint8_t> expected(n, 0);
  for (int k = 0; k < kMaxInputs; ++k) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) {
      v[i] = uint8_t(i * 31 + k * 77 + 1);
      expected[i] ^= v[i];
    }
    srcs.push_back(on_gpu(v));
  }
  uint8_t* dst = on_gpu(std::vector<uint8_t>(n));
  EXPECT_EQ(reduce(dst, srcs.data(), kMaxInputs, n, Element::kUint8, Reduction::kBxor), std::nullopt);
  EXPECT_EQ(back(dst, n), expected);
}

TEST_F(KernelsTest, OneInputIsACopy) {
  std::vector<int64_t> a = {-1, 1LL << 40, 3};
  const void* srcs[] = {on_gpu(a)};
  int64_t* dst = on_gpu(std::vector<int64_t>(3, 0));
  EXPECT_EQ(reduce(dst, srcs, 1, 3, Element::kInt64, Reduction::kProd), std::nullopt);
  EXPECT_EQ(back(dst, 3), a);
}

TEST_F(KernelsTest, IntegerArithmeticWrapsAsOnTheHost) {
  std::vector<int8_t> a = {127, -128}, b = {1, -1};
  const void* srcs[] = {on_gpu(a), on_gpu(b)};
  int8_t* dst = on_gpu(std::vector<int8_t>(2));
  EXPECT_EQ(reduce(dst, srcs, 2, 2, Element::kInt8, Reduction::kSum), std::nullopt);
  EXPECT_EQ(back(dst, 2), (std::vector<int8_t>{-128, 127}));
}

TEST_F(KernelsTest, BitwiseOperationsAreForIntegersOnly) {
  for (Element e : {Element::kFloat, Element::kDouble})
    for (Reduction op : {Reduction::kBand, Reduction::kBor, Reduction::kBxor}) {
      EXPECT_FALSE(supports(e, op));
      const void* srcs[] = {nullptr};
      EXPECT_NE(reduce(nullptr, srcs, 1, 1, e, op), std::nullopt);
    }
  EXPECT_EQ(model::counters().launches, 0u);
}

TEST_F(KernelsTest, EverySupportedPairHasAKernelAndSumCoversEveryElement) {
  // One launch per pair that supports() admits: a pair without a kernel of
  // its name would be the error "cuModuleGetFunction: ...".
  int supported = 0;
  for (int e = 0; e <= static_cast<int>(Element::kDouble); ++e) {
    auto element = static_cast<Element>(e);
    EXPECT_TRUE(supports(element, Reduction::kSum)) << "element " << e;
    for (int o = 0; o <= static_cast<int>(Reduction::kBxor); ++o) {
      auto op = static_cast<Reduction>(o);
      if (!supports(element, op)) continue;
      ++supported;
      double* buffer = on_gpu(std::vector<double>(2, 1.0));  // 16 bytes: room for two of any element
      const void* srcs[] = {buffer, buffer};
      EXPECT_EQ(reduce(buffer, srcs, 2, 1, element, op), std::nullopt) << "element " << e << " op " << o;
    }
  }
  EXPECT_EQ(supported, 7 * 10 + 3 * 8);  // arithmetic and logical on all ten, bitwise on the eight integers
}

TEST_F(KernelsTest, AFailedLaunchIsTheCallsError) {
  std::vector<float> a = {1.0f};
  const void* srcs[] = {on_gpu(a)};
  float* dst = on_gpu(std::vector<float>(1));
  model::fail_next_launch(719);
  auto error = reduce(dst, srcs, 1, 1, Element::kFloat, Reduction::kSum);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->rfind("cuLaunchKernel: unspecified launch failure", 0), 0u) << *error;
  EXPECT_TRUE(supports(Element::kFloat, Reduction::kSum));  // a failed launch is no reason to give up
}

TEST_F(KernelsTest, ARefusedModuleTurnsTheKernelsOffUntilTheNextInstall) {
  std::vector<float> a = {1.0f};
  const void* srcs[] = {on_gpu(a)};
  float* dst = on_gpu(std::vector<float>(1));
  model::fail_next_module_load(209);
  auto error = reduce(dst, srcs, 1, 1, Element::kFloat, Reduction::kSum);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->rfind("cuModuleLoadData: no kernel image", 0), 0u) << *error;
  EXPECT_FALSE(supports(Element::kFloat, Reduction::kSum));
  EXPECT_EQ(model::counters().launches, 0u);

  install(model::ops());
  EXPECT_TRUE(supports(Element::kFloat, Reduction::kSum));  // install() forgot the failure
  model::reset_counters();
  EXPECT_EQ(reduce(dst, srcs, 1, 1, Element::kFloat, Reduction::kSum), std::nullopt);
  EXPECT_EQ(model::counters().module_loads, 1u);
}

TEST_F(KernelsTest, TheModuleIsLoadedOncePerContext) {
  std::vector<uint16_t> a(100, 3);
  const void* srcs[] = {on_gpu(a)};
  uint16_t* dst = on_gpu(std::vector<uint16_t>(100));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(reduce(dst, srcs, 1, 100, Element::kUint16, Reduction::kMin), std::nullopt);
  EXPECT_EQ(model::counters().module_loads, 1u);
  EXPECT_EQ(model::counters().launches, 3u);
}

TEST_F(KernelsTest, TheGridIsCappedAndCoversSmallCounts) {
  size_t big = size_t(2) << 20;  // 2 Mi floats: 512 Ki packs, more than one wave of 1056 x 256
  void* p = model::alloc(big * sizeof(float));
  const void* srcs[] = {p};
  EXPECT_EQ(reduce(p, srcs, 1, big, Element::kFloat, Reduction::kMax), std::nullopt);
  EXPECT_EQ(model::counters().last_grid, 1056u);
  model::free(p);
  int8_t* small = on_gpu(std::vector<int8_t>(17));
  const void* one[] = {small};
  EXPECT_EQ(reduce(small, one, 1, 17, Element::kInt8, Reduction::kMax), std::nullopt);
  EXPECT_EQ(model::counters().last_grid, 1u);
}

TEST_F(KernelsTest, WrongArgumentsAreRefusedBeforeTheGpu) {
  std::vector<int32_t> a = {1};
  const void* srcs[] = {on_gpu(a)};
  int32_t host = 0;
  EXPECT_NE(reduce(&host, srcs, 1, 1, Element::kInt32, Reduction::kSum), std::nullopt);
  int32_t* dst = on_gpu(std::vector<int32_t>(1));
  EXPECT_NE(reduce(dst, srcs, 0, 1, Element::kInt32, Reduction::kSum), std::nullopt);
  EXPECT_NE(reduce(dst, srcs, kMaxInputs + 1, 1, Element::kInt32, Reduction::kSum), std::nullopt);
  EXPECT_EQ(model::counters().launches, 0u);
}

TEST(KernelsWithoutTable, NothingIsSupported) {
  install(nullptr);
  EXPECT_FALSE(supports(Element::kInt32, Reduction::kSum));
  EXPECT_FALSE(supports(Element::kDouble, Reduction::kMax));
  int32_t a = 1, b = 0;
  const void* srcs[] = {&a};
  EXPECT_NE(reduce(&b, srcs, 1, 1, Element::kInt32, Reduction::kSum), std::nullopt);
}

}  // namespace
}  // namespace ferry::device::kernels
