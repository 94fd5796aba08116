// How collectives stage GPU buffers through host memory
// (coll/device_buffers.h), against the host-memory model of a GPU: a GPU
// input is copied in over exactly the span of its elements, an output is
// copied back by finish() and only then, host memory and MPI_IN_PLACE pass
// through untouched, the spans of the v-forms cover every block (int and
// MPI_Count arrays alike), a failed copy is the call's error (MPI_ERR_OTHER,
// naming the CUDA call), and the nonblocking and persistent forms stage too,
// their copies rounds of the schedule (each start of a persistent one
// copies again).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/op.h"
#include "base/type_constructors.h"
#include "coll/collectives.h"
#include "coll/device_buffers.h"
#include "coll/device_collectives.h"
#include "device/device.h"
#include "device_model.h"
#include "p2p/pt2pt.h"

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

// Reads n ints of GPU memory.
std::vector<int> gpu_ints(const void* d, int n) {
  std::vector<int> v(static_cast<size_t>(n));
  device::model::read(v.data(), d, static_cast<size_t>(n) * sizeof(int));
  return v;
}

TEST_F(CollStagingTest, NonblockingAndPersistentFormsStageWithTheCopiesAsRoundsOfTheirSchedule) {
  // MPI_Gather has no path on the GPU buffers themselves, so every form is
  // staged; one rank, so each schedule ends as soon as it starts.
  Communicator comm;
  comm.handle = MPI_COMM_WORLD;
  comm.rank = 0;
  comm.size = 1;
  const Datatype* t = find_datatype(MPI_INT);
  void* in = device::model::alloc(64 * sizeof(int));
  void* out = device::model::alloc(64 * sizeof(int));
  std::vector<int> first(64), second(64), zeros(64, 0);
  for (int i = 0; i < 64; ++i) first[i] = i + 1, second[i] = -i;
  device::model::write(in, first.data(), 64 * sizeof(int));
  device::model::write(out, zeros.data(), 64 * sizeof(int));

  Request* r = nullptr;
  gpu::Outcome started = gpu::gather(in, 64, t, out, 64, t, 0, &comm, nonblocking(&r));
  ASSERT_TRUE(started.has_value());
  ASSERT_TRUE(started->ok()) << started->message();
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(r->error, MPI_SUCCESS);
  EXPECT_EQ(gpu_ints(out, 64), first) << "copied back by the schedule's last round";
  requests::release(r);
  EXPECT_EQ(take_deferred_staging(), nullptr) << "the schedule took the host copies";

  // Persistent: nothing moves at the call; each start copies in and out again.
  device::model::write(out, zeros.data(), 64 * sizeof(int));
  Request* p = nullptr;
  started = gpu::gather(in, 64, t, out, 64, t, 0, &comm, persistent(&p));
  ASSERT_TRUE(started.has_value() && started->ok());
  EXPECT_EQ(gpu_ints(out, 64), zeros) << "the call only builds";
  // Each start, and what MPI_Wait does to a completed persistent request.
  auto start_and_wait = [p] {
    Err e = pt2pt::start(p);
    EXPECT_TRUE(p->complete);
    p->active = false;
    return e;
  };
  ASSERT_TRUE(start_and_wait().ok());
  EXPECT_EQ(gpu_ints(out, 64), first);
  device::model::write(in, second.data(), 64 * sizeof(int));
  ASSERT_TRUE(start_and_wait().ok());
  EXPECT_EQ(gpu_ints(out, 64), second) << "the second start read the input again";

  // A failed copy is the request's error, MPI_ERR_OTHER naming the call.
  device::model::fail_next_copy(700);
  ASSERT_TRUE(start_and_wait().ok());
  EXPECT_EQ(error_code::class_of(p->error), MPI_ERR_OTHER);
  EXPECT_NE(error_code::text(p->error).find("cuMemcpyAsync"), std::string::npos) << error_code::text(p->error);
  p->persistent = false;  // so that release frees it
  requests::release(p);
  device::model::free(in);
  device::model::free(out);
}

TEST_F(CollStagingTest, AlltoallwStagesTheSpanOfBlocksOfDifferentTypesAtByteDisplacements) {
  const Datatype* ints = find_datatype(MPI_INT);
  const Datatype* doubles = find_datatype(MPI_DOUBLE);
  const Datatype* types[] = {ints, doubles, ints};
  MPI_Count counts[] = {4, 2, 0};
  MPI_Aint displs[] = {32, 0, 1000};  // the empty block does not count
  ByteSpan s = span_of_w(types, CountArray(counts), DisplArray(displs), 3);
  EXPECT_EQ(s.lo, 0);
  EXPECT_EQ(s.hi, 48);

  // One rank: the block goes from the send buffer to the receive buffer,
  // blocking and nonblocking, and the receive buffer's other bytes stay.
  Communicator comm;
  comm.handle = MPI_COMM_WORLD;
  comm.rank = 0;
  comm.size = 1;
  for (bool nonblocking_form : {false, true}) {
    void* in = device::model::alloc(64 * sizeof(int));
    void* out = device::model::alloc(64 * sizeof(int));
    std::vector<int> data(64), before(64, -7);
    for (int i = 0; i < 64; ++i) data[i] = 3 * i;
    device::model::write(in, data.data(), 64 * sizeof(int));
    device::model::write(out, before.data(), 64 * sizeof(int));
    const Datatype* one_type[] = {ints};
    MPI_Count n[] = {16};
    MPI_Aint send_at[] = {4 * sizeof(int)}, recv_at[] = {8 * sizeof(int)};
    Request* r = nullptr;
    Launch how = nonblocking_form ? nonblocking(&r) : Launch{};
    gpu::Outcome done = gpu::alltoallw(in, CountArray(n), DisplArray(send_at), one_type, out, CountArray(n),
                                       DisplArray(recv_at), one_type, &comm, how);
    ASSERT_TRUE(done.has_value());
    ASSERT_TRUE(done->ok()) << done->message();
    if (nonblocking_form) {
      ASSERT_NE(r, nullptr);
      EXPECT_TRUE(r->complete);
      requests::release(r);
    }
    std::vector<int> got = gpu_ints(out, 64);
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(got[i], i >= 8 && i < 24 ? 3 * (i - 8 + 4) : -7) << i << (nonblocking_form ? " nonblocking" : "");
    device::model::free(in);
    device::model::free(out);
  }
}

TEST_F(CollStagingTest, AGpuBufferWithNothingToMoveRunsOnceOnTheHostPath) {
  // An empty span is not staged: the collective must not ask to stage it
  // again (that recursed until the stack ran out), in any form.
  Communicator comm;
  comm.handle = MPI_COMM_WORLD;
  comm.rank = 0;
  comm.size = 1;
  const Datatype* t = find_datatype(MPI_INT);
  void* in = device::model::alloc(64);
  void* out = device::model::alloc(64);
  int zero[1] = {0}, at[1] = {0};
  for (bool nonblocking_form : {false, true}) {
    Request* r = nullptr;
    Launch how = nonblocking_form ? nonblocking(&r) : Launch{};
    gpu::Outcome scanned = gpu::scan(in, out, 0, t, find_op(MPI_SUM), false, &comm, how);
    ASSERT_TRUE(scanned.has_value());
    EXPECT_TRUE(scanned->ok()) << scanned->message();
    if (r != nullptr) requests::release(r);
    r = nullptr;
    gpu::Outcome gathered = gpu::gatherv(in, 0, t, out, CountArray(zero), DisplArray(at), t, 0, &comm, how);
    ASSERT_TRUE(gathered.has_value());
    EXPECT_TRUE(gathered->ok()) << gathered->message();
    if (r != nullptr) requests::release(r);
  }
  EXPECT_FALSE(HostStaging::active());
  device::model::free(in);
  device::model::free(out);
}

TEST_F(CollStagingTest, TheHolesOfAStagedReceiveTypeKeepTheirBytes) {
  // A gather into every other int of a GPU buffer: the ints between are
  // not the receive's, blocking or nonblocking.
  Communicator comm;
  comm.handle = MPI_COMM_WORLD;
  comm.rank = 0;
  comm.size = 1;
  const Datatype* t = find_datatype(MPI_INT);
  const Datatype* every_other = nullptr;
  ASSERT_TRUE(datatypes::vector(4, 1, 2, *t, &every_other).ok());
  datatypes::commit(every_other);
  for (bool nonblocking_form : {false, true}) {
    void* in = device::model::alloc(4 * sizeof(int));
    void* out = device::model::alloc(8 * sizeof(int));
    std::vector<int> data = {1, 2, 3, 4}, before(8, -7);
    device::model::write(in, data.data(), 4 * sizeof(int));
    device::model::write(out, before.data(), 8 * sizeof(int));
    Request* r = nullptr;
    Launch how = nonblocking_form ? nonblocking(&r) : Launch{};
    gpu::Outcome done = gpu::gather(in, 4, t, out, 1, every_other, 0, &comm, how);
    ASSERT_TRUE(done.has_value() && done->ok());
    if (r != nullptr) requests::release(r);
    // The span ends at the last int received: the 8th int is outside it.
    EXPECT_EQ(gpu_ints(out, 8), (std::vector<int>{1, -7, 2, -7, 3, -7, 4, -7})) << nonblocking_form;
    device::model::free(in);
    device::model::free(out);
  }
  datatypes::release(every_other);
}

TEST_F(CollStagingTest, IntercommunicatorRanksThatTakeNoPartStageNothing) {
  // A rank of the root's group other than the root passes MPI_PROC_NULL:
  // its buffers and counts mean nothing and must not be looked at.
  Communicator comm;
  comm.handle = MPI_COMM_WORLD;
  comm.inter = true;
  comm.rank = 1;
  comm.size = 2;
  comm.remote_size = 2;
  const Datatype* t = find_datatype(MPI_INT);
  void* d = device::model::alloc(64);
  EXPECT_FALSE(gpu::gather(d, -12345, t, d, -1, t, MPI_PROC_NULL, &comm, Launch{}).has_value());
  EXPECT_FALSE(gpu::reduce(d, d, -12345, t, find_op(MPI_SUM), MPI_PROC_NULL, &comm, Launch{}).has_value());
  EXPECT_FALSE(gpu::bcast(d, -12345, t, MPI_PROC_NULL, &comm, Launch{}).has_value());
  EXPECT_EQ(device::model::counters().copies, 0u);
  device::model::free(d);
}

TEST_F(CollStagingTest, AFailedCopyInLeavesTheGpuOutputAlone) {
  Communicator comm;
  comm.handle = MPI_COMM_WORLD;
  comm.rank = 0;
  comm.size = 1;
  const Datatype* t = find_datatype(MPI_INT);
  void* in = device::model::alloc(16 * sizeof(int));
  void* out = device::model::alloc(16 * sizeof(int));
  std::vector<int> before(16, -3);
  device::model::write(out, before.data(), 16 * sizeof(int));
  device::model::fail_next_copy(700);
  Request* r = nullptr;
  gpu::Outcome started = gpu::gather(in, 16, t, out, 16, t, 0, &comm, nonblocking(&r));
  ASSERT_TRUE(started.has_value());
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(error_code::class_of(r->error), MPI_ERR_OTHER);
  EXPECT_EQ(gpu_ints(out, 16), before) << "no result was made: nothing is copied back";
  requests::release(r);
  device::model::free(in);
  device::model::free(out);
}

TEST_F(CollStagingTest, AStagingNotTakenByASchedulePassesToNoLaterCall) {
  {
    HostStaging st(/*deferred=*/true);
    void* d = device::model::alloc(64);
    st.stage(d, 0, 64, true, true);
    EXPECT_EQ(device::model::counters().copies, 0u) << "deferred: nothing copied at stage()";
    device::model::free(d);
  }  // the call failed before it built a schedule
  EXPECT_EQ(take_deferred_staging(), nullptr);
}

TEST_F(CollStagingTest, ForLaunchAsksOnlyWithADriverAndOutsideACollectiveOnGpuBuffers) {
  void* d = device::model::alloc(64 * sizeof(int));
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
