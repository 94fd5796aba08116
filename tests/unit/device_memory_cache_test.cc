// The memory-type cache (device/memory_cache.h) and device::memory_of, run
// against the host-memory model of a GPU (device_model.h): the driver is
// asked once per allocation or host granule and never again for the same
// one; managed memory is told apart from device memory; an allocation the
// driver no longer knows is forgotten by refresh(); and with no table
// installed every pointer is host memory without asking anyone.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "device/device.h"
#include "device/memory_cache.h"
#include "device_model.h"
#include "p2p/data_access.h"

namespace ferry::device {
namespace {

class MemoryCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { model::reset_counters(); }
  void TearDown() override { install(nullptr); }
};

TEST_F(MemoryCacheTest, ADeviceAllocationIsDescribedOnceWhereverItIsPointedAt) {
  MemoryCache cache(model::ops());
  auto* d = static_cast<char*>(model::alloc(1 << 20, 1));
  int error = 0;
  PointerInfo first = cache.lookup(d + 100, &error);
  EXPECT_EQ(first.memory, Memory::kDevice);
  EXPECT_EQ(first.device, 1);
  EXPECT_EQ(first.base, reinterpret_cast<uintptr_t>(d));
  EXPECT_EQ(first.size, size_t(1) << 20);
  EXPECT_EQ(cache.driver_queries(), 1u);
  for (size_t off : {size_t(0), size_t(4096), (size_t(1) << 20) - 1}) {
    PointerInfo again = cache.lookup(d + off, &error);
    EXPECT_EQ(again.memory, Memory::kDevice) << off;
    EXPECT_EQ(again.buffer_id, first.buffer_id) << off;
  }
  EXPECT_EQ(cache.driver_queries(), 1u) << "interior pointers of a known allocation ask nobody";
  EXPECT_EQ(error, 0);
  model::free(d);
}

TEST_F(MemoryCacheTest, HostMemoryIsAskedOncePerGranule) {
  MemoryCache cache(model::ops());
  std::vector<char> host(1000);
  int error = 0;
  EXPECT_EQ(cache.lookup(host.data(), &error).memory, Memory::kHost);
  EXPECT_EQ(cache.lookup(host.data(), &error).memory, Memory::kHost);
  EXPECT_EQ(cache.driver_queries(), 1u);
  EXPECT_EQ(model::counters().pointer_queries, 1u);
}

TEST_F(MemoryCacheTest, HostMemoryThatCouldBeUnmappedIsAskedEachTime) {
  // A large malloc block is mmap'd and unmapped on free without any hook
  // seeing it; the driver may then reserve its addresses for GPU memory. So
  // only the brk heap and the main stack are remembered as host.
  MemoryCache cache(model::ops());
  int error = 0;
  char on_stack[64];
  EXPECT_EQ(cache.lookup(on_stack, &error).memory, Memory::kHost);
  EXPECT_EQ(cache.lookup(on_stack + 8, &error).memory, Memory::kHost);
  EXPECT_EQ(cache.driver_queries(), 1u) << "the main thread's stack is remembered";
  void* mapped = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  EXPECT_EQ(cache.lookup(mapped, &error).memory, Memory::kHost);
  EXPECT_EQ(cache.lookup(mapped, &error).memory, Memory::kHost);
  EXPECT_EQ(cache.driver_queries(), 3u) << "mmap'd memory is asked about each time";
  munmap(mapped, 1 << 20);
  EXPECT_EQ(error, 0);
}

TEST_F(MemoryCacheTest, ManagedMemoryIsManagedAndMovesAsHostMemory) {
  install(model::ops());
  void* m = model::alloc_managed(4096);
  void* d = model::alloc(4096);
  EXPECT_EQ(memory_of(m), Memory::kManaged);
  EXPECT_EQ(memory_of(d), Memory::kDevice);
  // The host may touch managed memory: a transport may too.
  EXPECT_EQ(p2p::memory_kind(m), transport::MemoryKind::kHost);
  EXPECT_EQ(p2p::memory_kind(d), transport::MemoryKind::kDevice);
  model::free(m);
  model::free(d);
}

TEST_F(MemoryCacheTest, RefreshForgetsAFreedAllocation) {
  MemoryCache cache(model::ops());
  auto* d = static_cast<char*>(model::alloc(8192));
  int error = 0;
  EXPECT_EQ(cache.lookup(d, &error).memory, Memory::kDevice);
  model::free(d);
  // The freed allocation's id is gone: lookup notices, as refresh() does.
  EXPECT_EQ(cache.lookup(d, &error).memory, Memory::kHost);
  EXPECT_EQ(cache.allocations(), 0u);
  auto* e = static_cast<char*>(model::alloc(8192));
  EXPECT_EQ(cache.lookup(e, &error).memory, Memory::kDevice);
  model::free(e);
  EXPECT_EQ(cache.refresh(e, &error).memory, Memory::kHost);
  EXPECT_EQ(cache.allocations(), 0u);
}

TEST_F(MemoryCacheTest, AnAddressFreedAndAllocatedAgainIsDescribedAfresh) {
  // The sequence that crashed the first run on a GPU: managed memory freed,
  // device memory allocated at the same address, then sent from.
  MemoryCache cache(model::ops());
  int error = 0;
  void* m = model::alloc_managed(1 << 20);
  EXPECT_EQ(cache.lookup(m, &error).memory, Memory::kManaged);
  model::free(m);
  void* d = model::alloc(1 << 20);
  ASSERT_EQ(d, m) << "the model hands a freed range out again, as the driver does";
  EXPECT_EQ(cache.lookup(d, &error).memory, Memory::kDevice);
  model::free(d);
  void* again = model::alloc_managed(1 << 20);
  ASSERT_EQ(again, m);
  EXPECT_EQ(cache.lookup(again, &error).memory, Memory::kManaged);
  EXPECT_EQ(cache.allocations(), 1u) << "the replaced entries are gone";
  // A hit on an allocation still there costs one id query, no description.
  uint64_t before = cache.driver_queries();
  EXPECT_EQ(cache.lookup(static_cast<char*>(again) + 5, &error).memory, Memory::kManaged);
  EXPECT_EQ(cache.driver_queries(), before);
  EXPECT_EQ(error, 0);
  model::free(again);
}

TEST_F(MemoryCacheTest, NothingInstalledMeansHostWithoutAsking) {
  install(nullptr);
  void* d = model::alloc(4096);
  EXPECT_FALSE(enabled());
  EXPECT_EQ(memory_of(d), Memory::kHost);
  EXPECT_EQ(p2p::memory_kind(d), transport::MemoryKind::kHost);
  EXPECT_EQ(model::counters().pointer_queries, 0u);
  model::free(d);
}

TEST_F(MemoryCacheTest, ManyAllocationsAreEachAskedOnce) {
  install(model::ops());
  std::vector<void*> buffers;
  for (int i = 0; i < 64; ++i) buffers.push_back(model::alloc(4096 * (i + 1), i % 2));
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < buffers.size(); ++i) {
      PointerInfo info = describe(static_cast<char*>(buffers[i]) + 17);
      ASSERT_EQ(info.memory, Memory::kDevice);
      ASSERT_EQ(info.device, static_cast<int>(i % 2));
    }
  EXPECT_EQ(model::counters().pointer_queries, buffers.size());
  // What a repeated check costs (printed, not asserted: tests do not time).
  auto start = std::chrono::steady_clock::now();
  constexpr int kChecks = 1000000;
  int device_seen = 0;
  for (int i = 0; i < kChecks; ++i) device_seen += memory_of(buffers[static_cast<size_t>(i) & 63]) == Memory::kDevice;
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / kChecks;
  EXPECT_EQ(device_seen, kChecks);
  std::printf("repeated memory-type check of 64 known allocations: %.1f ns\n", ns);
  for (void* b : buffers) model::free(b);
}

TEST_F(MemoryCacheTest, AKnownHostBufferIsAnsweredWithoutAskingAgain) {
  // Every MPI call on a host buffer asks this where a driver is loaded:
  // the answer must come from the table, without the driver.
  install(model::ops());
  std::vector<char> heap(256);  // below the program break: remembered
  EXPECT_EQ(memory_of(heap.data()), Memory::kHost);
  uint64_t queries = model::counters().pointer_queries;
  auto start = std::chrono::steady_clock::now();
  constexpr int kChecks = 1000000;
  int host_seen = 0;
  for (int i = 0; i < kChecks; ++i) host_seen += memory_of(heap.data() + (i & 255)) == Memory::kHost;
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / kChecks;
  EXPECT_EQ(host_seen, kChecks);
  EXPECT_EQ(model::counters().pointer_queries, queries) << "no further question to the driver";
  EXPECT_EQ(model::counters().id_queries, 0u);
  std::printf("repeated memory-type check of a host buffer: %.1f ns\n", ns);
}

}  // namespace
}  // namespace ferry::device
