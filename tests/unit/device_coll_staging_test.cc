// How collectives stage GPU buffers through host memory
// (coll/device_buffers.h), against the host-memory model of a GPU: a GPU
// input is copied in over exactly the span of its elements, an output is
// copied back by finish() and only then, host memory and MPI_IN_PLACE pass
// through untouched, the spans of the v-forms cover every block (int and
// MPI_Count arrays alike), a failed copy is the call's error (MPI_ERR_OTHER,
// naming the CUDA call), and only the blocking form of a collective stages:
// the nonblocking and persistent forms refuse GPU buffers.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/datatype.h"
#include "base/type_constructors.h"
#include "base/communicator.h"
#include "base/op.h"
#include "coll/collectives.h"
#include "coll/device_buffers.h"
#include "coll/device_collectives.h"
#include "device/device.h"
#include "device_model.h"

namespace ferry::coll {
namespace {

class CollStagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device::install(device::model::ops());
    device::model::reset_counters();
  }
  void TearDown() override { device::install(nullptr); }
};

TEST_F(CollStagingTest, AGpuBufferIsReplacedByAHostCopyAndCopiedBackAtTheEnd) {
  constexpr int n = 1000;
  const Datatype* t = find_datatype(MPI_INT);
  auto* d = static_cast<int*>(device::model::alloc(n * sizeof(int)));
  std::vector<int> start(n);
  for (int i = 0; i < n; ++i) start[i] = i * 3;
  device::model::write(d, start.data(), n * sizeof(int));

  HostStaging st;
  ByteSpan s = span_of(t, n);
  EXPECT_EQ(s.lo, 0);
  EXPECT_EQ(s.hi, n * static_cast<MPI_Aint>(sizeof(int)));
  auto* h = static_cast<int*>(st.stage(d, s.lo, s.hi, true, true));
  ASSERT_NE(h, d);
  for (int i = 0; i < n; ++i) ASSERT_EQ(h[i], i * 3) << "copied in";
  for (int i = 0; i < n; ++i) h[i] = -i;  // what the host algorithm leaves
  std::vector<int> before(n);
  device::model::read(before.data(), d, n * sizeof(int));
  EXPECT_EQ(before, start) << "nothing reaches the GPU before finish()";
  ASSERT_TRUE(st.finish().ok());
  std::vector<int> after(n);
  device::model::read(after.data(), d, n * sizeof(int));
  for (int i = 0; i < n; ++i) ASSERT_EQ(after[i], -i) << "copied back";
  device::model::free(d);
}

TEST_F(CollStagingTest, HostBuffersAndInPlacePassThrough) {
  std::vector<int> host(10);
  HostStaging st;
  EXPECT_EQ(st.stage(host.data(), 0, 40, true, true), host.data());
  EXPECT_EQ(st.stage(MPI_IN_PLACE, 0, 40, true, true), MPI_IN_PLACE);
  EXPECT_FALSE(st.staged_any());
  EXPECT_TRUE(st.finish().ok());
  EXPECT_EQ(device::model::counters().copies, 0u);
}

TEST_F(CollStagingTest, AnInputOnlyBufferIsNotCopiedBack) {
  auto* d = static_cast<int*>(device::model::alloc(64));
  HostStaging st;
  st.stage(d, 0, 64, true, false);
  ASSERT_TRUE(st.finish().ok());
  EXPECT_EQ(device::model::counters().copies, 1u);
  device::model::free(d);
}

TEST_F(CollStagingTest, VSpansCoverEveryBlockAndStridedTypesTheirData) {
  const Datatype* t = find_datatype(MPI_DOUBLE);
  int counts[] = {2, 0, 3};
  int displs[] = {10, 0, 4};
  ByteSpan s = span_of(t, counts, displs, 3);
  EXPECT_EQ(s.lo, 4 * 8);
  EXPECT_EQ(s.hi, 12 * 8);
  const Datatype* v = nullptr;
  ASSERT_TRUE(datatypes::vector(3, 1, 4, *t, &v).ok());  // doubles 0, 4, 8
  datatypes::commit(v);
  ByteSpan sv = span_of(v, 2);  // extent 9 doubles: the second element ends at 9 + 8 + 1
  EXPECT_EQ(sv.lo, 0);
  EXPECT_EQ(sv.hi, (9 + 9) * 8);
  EXPECT_EQ(span_of_blocks(t, 5, 4).hi, 20 * 8);
  datatypes::release(v);
}

TEST_F(CollStagingTest, AFailedCopyIsTheCallsError) {
  auto* d = static_cast<int*>(device::model::alloc(64));
  HostStaging st;
  device::model::fail_next_copy(700);
  st.stage(d, 0, 64, true, true);
  Err e = st.finish();
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OTHER);
  EXPECT_NE(e.message().find("cuMemcpyAsync"), std::string::npos) << e.message();
  device::model::free(d);
}

TEST_F(CollStagingTest, ReduceLocalOnGpuBuffersReducesOnHostCopies) {
  constexpr int n = 300;
  std::vector<int> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = i, b[i] = 1000 * i;
  void* in = device::model::alloc(n * sizeof(int));
  void* inout = device::model::alloc(n * sizeof(int));
  device::model::write(in, a.data(), n * sizeof(int));
  device::model::write(inout, b.data(), n * sizeof(int));
  ASSERT_TRUE(reduce_local(in, inout, n, find_datatype(MPI_INT), find_op(MPI_SUM)).ok());
  std::vector<int> got(n);
  device::model::read(got.data(), inout, n * sizeof(int));
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 1001 * i) << i;
  device::model::free(in);
  device::model::free(inout);
}

TEST_F(CollStagingTest, LargeCountSpansAreNotTruncated) {
  const Datatype* t = find_datatype(MPI_BYTE);
  MPI_Count counts[] = {3'000'000'000LL, 0};
  MPI_Count displs[] = {1'000'000'000LL, 0};
  ByteSpan s = span_of(t, counts, displs, 2);  // the _c v-forms' arrays, read in place
  EXPECT_EQ(s.lo, 1'000'000'000LL);
  EXPECT_EQ(s.hi, 4'000'000'000LL);
  EXPECT_EQ(span_of_blocks(t, 3'000'000'000LL, 2).hi, 6'000'000'000LL);
}

TEST_F(CollStagingTest, OnlyTheBlockingFormStagesTheOthersRefuseGpuBuffers) {
  // MPI_Gather has no path on the GPU buffers themselves: blocking, it is
  // staged; nonblocking or persistent, it is refused before anything moves.
  Communicator comm;
  comm.handle = MPI_COMM_WORLD;
  comm.rank = 0;
  comm.size = 1;
  const Datatype* t = find_datatype(MPI_INT);
  void* d = device::model::alloc(64 * sizeof(int));
  std::vector<int> host(64);
  Request* r = nullptr;
  for (Launch how : {nonblocking(&r), persistent(&r)}) {
    gpu::Outcome refused = gpu::gather(host.data(), 64, t, d, 64, t, 0, &comm, how);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->mpi_class(), MPI_ERR_OTHER);
    const char* form = how.form == Launch::Form::kPersistent ? "persistent" : "nonblocking";
    EXPECT_NE(refused->message().find(form), std::string::npos) << refused->message();
    std::vector<int> host_out(64);
    EXPECT_FALSE(gpu::gather(host.data(), 64, t, host_out.data(), 64, t, 0, &comm, how).has_value())
        << "host buffers run as usual";
  }
  EXPECT_EQ(r, nullptr) << "a refused call starts nothing";
  gpu::Outcome staged = gpu::gather(host.data(), 64, t, d, 64, t, 0, &comm, Launch{});
  ASSERT_TRUE(staged.has_value());
  EXPECT_TRUE(staged->ok()) << staged->message();
  // for_launch: one branch without a driver, and nothing while a collective
  // already runs on GPU buffers (its inner call runs as usual).
  int asked = 0;
  auto gpu = [&] {
    ++asked;
    return gpu::Outcome(Err{});
  };
  EXPECT_TRUE(gpu::for_launch(Launch{}, d, nullptr, gpu).has_value());
  {
    gpu::ScratchOnGpu inner(d);
    EXPECT_FALSE(gpu::for_launch(Launch{}, d, nullptr, gpu).has_value());
  }
  device::install(nullptr);
  EXPECT_FALSE(gpu::for_launch(Launch{}, d, nullptr, gpu).has_value()) << "no driver: one branch";
  EXPECT_EQ(asked, 1);
  device::install(device::model::ops());
  device::model::free(d);
}

}  // namespace
}  // namespace ferry::coll
