// Collectives run on GPU buffers themselves (coll/device_schedule.h),
// against the host-memory model of a GPU (device_model.h): scratch made
// while a ScratchOnGpu lives is GPU memory, reused from the pool; a copy
// step between GPU buffers is one GPU copy, and one with holes keeps them;
// a reduction with a kernel runs as one launch, one without (a user's
// function) goes through the host and still gives the right answer; and a
// blocking collective on GPU buffers takes this path, not whole-buffer
// staging through the host.
#include <gtest/gtest.h>

#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/op.h"
#include "base/type_constructors.h"
#include "coll/collectives.h"
#include "coll/device_collectives.h"
#include "coll/device_schedule.h"
#include "coll/schedule.h"
#include "device/device.h"
#include "device/kernels.h"
#include "device/staging.h"
#include "device_model.h"

namespace ferry::coll {
namespace {

class DeviceScheduleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device::install(device::model::ops());
    device::model::reset_counters();
    comm_.handle = MPI_COMM_WORLD;
    comm_.context = 0;
    comm_.rank = 0;
    comm_.size = 1;
  }
  void TearDown() override { device::install(nullptr); }

  static std::vector<int> read_ints(const void* d, size_t n) {
    std::vector<int> v(n);
    device::model::read(v.data(), d, n * sizeof(int));
    return v;
  }
  static void* gpu_ints(const std::vector<int>& v) {
    void* d = device::model::alloc(v.size() * sizeof(int));
    device::model::write(d, v.data(), v.size() * sizeof(int));
    return d;
  }

  Communicator comm_;
};

TEST_F(DeviceScheduleTest, ScratchIsGpuMemoryWhileAScopeLivesAndGoesBackToThePool) {
  void* user = device::model::alloc(4096);
  {
    gpu::ScratchOnGpu scope(user);
    Schedule s(&comm_);
    void* scratch = s.scratch(1000);
    EXPECT_EQ(device::memory_of(scratch), device::Memory::kDevice);
    EXPECT_EQ(device::model::counters().device_allocs, 1u);
  }
  EXPECT_EQ(device::staging::pooled_device(), 1u) << "kept for the next collective";
  {
    gpu::ScratchOnGpu scope(user);
    Schedule s(&comm_);
    s.scratch(500);
  }
  EXPECT_EQ(device::model::counters().device_allocs, 1u) << "the pooled buffer was reused";
  Schedule host(&comm_);
  EXPECT_EQ(device::memory_of(host.scratch(100)), device::Memory::kHost) << "no scope: host scratch";
  device::model::free(user);
}

TEST_F(DeviceScheduleTest, ACopyBetweenGpuBuffersIsOneGpuCopyAndHolesKeepTheirBytes) {
  std::vector<int> a(64), b(64, -1);
  for (int i = 0; i < 64; ++i) a[i] = i;
  void* src = gpu_ints(a);
  void* dst = gpu_ints(b);
  const Datatype* t = find_datatype(MPI_INT);
  ASSERT_TRUE(gpu::copy(src, 64, *t, dst, 64, *t).ok());
  EXPECT_EQ(device::model::counters().copies, 1u);
  EXPECT_EQ(read_ints(dst, 64), a);

  const Datatype* every_other = nullptr;
  ASSERT_TRUE(datatypes::vector(32, 1, 2, *t, &every_other).ok());
  datatypes::commit(every_other);
  device::model::write(dst, b.data(), 64 * sizeof(int));
  ASSERT_TRUE(gpu::copy(src, 32, *t, dst, 1, *every_other).ok());
  std::vector<int> got = read_ints(dst, 64);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(got[i], i % 2 == 0 ? i / 2 : -1) << i;
  datatypes::release(every_other);
  device::model::free(src);
  device::model::free(dst);
}

void user_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}

TEST_F(DeviceScheduleTest, AReductionWithoutAKernelGoesThroughTheHost) {
  std::vector<int> a(100), b(100);
  for (int i = 0; i < 100; ++i) a[i] = i, b[i] = 7 * i;
  void* in = gpu_ints(a);
  void* inout = gpu_ints(b);
  MPI_Op handle = ops::create(user_sum, true);
  const Op* user = find_op(handle);
  EXPECT_FALSE(gpu::gpu_reducible(*user, *find_datatype(MPI_INT)));
  ASSERT_TRUE(gpu::reduce(*user, in, inout, 100, *find_datatype(MPI_INT)).ok());
  std::vector<int> got = read_ints(inout, 100);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(got[i], 8 * i) << i;
  ASSERT_TRUE(ops::free(handle).ok());
  device::model::free(in);
  device::model::free(inout);
}

TEST_F(DeviceScheduleTest, AReductionWithAKernelIsOneLaunchOnTheGpu) {
  std::vector<int> a(1000), b(1000);
  for (int i = 0; i < 1000; ++i) a[i] = i, b[i] = -3 * i;
  void* in = gpu_ints(a);
  void* inout = gpu_ints(b);
  const Op* sum = find_op(MPI_SUM);
  ASSERT_TRUE(gpu::gpu_reducible(*sum, *find_datatype(MPI_INT)));
  EXPECT_FALSE(gpu::gpu_reducible(*find_op(MPI_MAXLOC), *find_datatype(MPI_2INT)));
  ASSERT_TRUE(gpu::reduce(*sum, in, inout, 1000, *find_datatype(MPI_INT)).ok());
  EXPECT_EQ(device::model::counters().launches, 1u);
  EXPECT_EQ(device::model::counters().copies, 0u) << "nothing left the GPU";
  std::vector<int> got = read_ints(inout, 1000);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(got[i], -2 * i) << i;
  device::model::free(in);
  device::model::free(inout);
}

TEST_F(DeviceScheduleTest, AnAllreduceOnGpuBuffersRunsThereWithoutWholeBufferStaging) {
  std::vector<int> a(1000);
  for (int i = 0; i < 1000; ++i) a[i] = 3 * i;
  void* send = gpu_ints(a);
  void* recv = device::model::alloc(1000 * sizeof(int));
  gpu::Outcome done = gpu::allreduce(send, recv, 1000, find_datatype(MPI_INT), find_op(MPI_SUM), &comm_, Launch{});
  ASSERT_TRUE(done.has_value());
  ASSERT_TRUE(done->ok()) << done->message();
  EXPECT_EQ(read_ints(recv, 1000), a);
  if (gpu::gpu_reducible(*find_op(MPI_SUM), *find_datatype(MPI_INT))) {
    EXPECT_EQ(device::model::counters().copies, 1u) << "one GPU copy, sendbuf to recvbuf; nothing through the host";
  }
  device::model::free(send);
  device::model::free(recv);
}

TEST_F(DeviceScheduleTest, CollectivesWithoutReductionsRunOnGpuBuffersWithoutKernels) {
  // The inner call (coll::allgather on the same GPU buffers) must run as
  // usual, not come back here: for_launch steps aside while a collective
  // already runs on GPU buffers.
  std::vector<int> a(256);
  for (int i = 0; i < 256; ++i) a[i] = i * i;
  void* send = gpu_ints(a);
  void* recv = device::model::alloc(256 * sizeof(int));
  const Datatype* t = find_datatype(MPI_INT);
  gpu::Outcome done = gpu::allgather(send, 256, t, recv, 256, t, &comm_, Launch{});
  ASSERT_TRUE(done.has_value());
  ASSERT_TRUE(done->ok()) << done->message();
  EXPECT_EQ(read_ints(recv, 256), a);
  EXPECT_EQ(device::model::counters().copies, 1u) << "one GPU copy; no staging through the host";
  done = gpu::bcast(recv, 256, t, 0, &comm_, Launch{});
  ASSERT_TRUE(done.has_value());
  EXPECT_TRUE(done->ok()) << done->message();
  // In place, the send type is ignored and may be MPI_DATATYPE_NULL (no
  // Datatype): the first GPU run crashed reading it.
  done = gpu::allgather(MPI_IN_PLACE, 0, nullptr, recv, 256, t, &comm_, Launch{});
  ASSERT_TRUE(done.has_value());
  EXPECT_TRUE(done->ok()) << done->message();
  EXPECT_EQ(read_ints(recv, 256), a);
  device::model::free(send);
  device::model::free(recv);
}

}  // namespace
}  // namespace ferry::coll
