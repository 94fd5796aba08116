// How often a message asks the driver what its buffers are (issue 33:
// "carry the answer with the request"), counted by the host-memory model of
// a GPU (device_model.h): a send and its receive through pt2pt over the
// self transport, host or GPU buffers, contiguous or not, eager or in many
// chunks, ask about each user buffer exactly once, when the request is
// described; the chunks' copies and the pinned staging buffers ask nothing.
// A question is a full description (cuPointerGetAttributes) or the cheap
// buffer-id check that confirms a cached GPU allocation; the model counts
// both. Host buffers here are mapped with mmap (memory the cache never
// remembers, as a large malloc block), so each question reaches the driver.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/op.h"
#include "base/request.h"
#include "base/type_constructors.h"
#include "coll/collectives.h"
#include "coll/device_collectives.h"
#include "device/device.h"
#include "device_model.h"
#include "p2p/data_access.h"
#include "p2p/engine.h"
#include "p2p/pt2pt.h"
#include "one_rank_engine.h"
#include "transport/self/self_transport.h"

namespace ferry {
namespace {

// Host memory the memory-type cache asks about every time (above the
// program break), as glibc's large blocks are.
class Mapped {
 public:
  explicit Mapped(size_t n) : n_(n) {
    p_ = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p_, MAP_FAILED);
  }
  ~Mapped() { munmap(p_, n_); }
  double* data() { return static_cast<double*>(p_); }

 private:
  void* p_;
  size_t n_;
};

uint64_t questions() { return device::model::counters().pointer_queries + device::model::counters().id_queries; }
}  // namespace
}  // namespace ferry

namespace ferry::p2p {
namespace {

struct Case {
  const char* name;
  bool send_gpu;
  bool recv_gpu;
  bool strided;  // both sides: every other double (a vector: 2D copies on the GPU)
  bool resized;  // both sides: doubles resized to 16 bytes (a span through the host on the GPU)
  size_t doubles;
};

class MemoryQueriesTest : public ::testing::TestWithParam<Case> {
 protected:
  static constexpr size_t kEagerLimit = 4096;

  void SetUp() override {
    device::install(device::model::ops());
    self_ = p2p::start_one_rank_engine(kEagerLimit, &comm_,
                                       [](auto* handler) { return std::make_unique<transport::SelfTransport>(0, handler); });
  }
  void TearDown() override {
    for (const Datatype* t : types_) datatypes::release(t);
    finalize();
    device::install(nullptr);
  }

  const Datatype* type_for(size_t n, int* count) {
    const Case& c = GetParam();
    const Datatype* d = find_datatype(MPI_DOUBLE);
    *count = static_cast<int>(n);
    if (!c.strided && !c.resized) return d;
    const Datatype* t = nullptr;
    if (c.resized) {
      EXPECT_TRUE(datatypes::resized(*d, 0, 16, &t).ok());
    } else {
      EXPECT_TRUE(datatypes::vector(static_cast<int>(n), 1, 2, *d, &t).ok());
      *count = 1;
    }
    datatypes::commit(t);
    types_.push_back(t);
    return t;
  }

  std::unique_ptr<transport::SelfTransport> self_;
  Communicator comm_;
  std::vector<const Datatype*> types_;
};

TEST_P(MemoryQueriesTest, EachBufferIsAskedAboutOncePerMessage) {
  const Case& c = GetParam();
  size_t span = (c.strided || c.resized) ? 2 * c.doubles : c.doubles;
  size_t bytes = span * sizeof(double);
  Mapped host_out(bytes), host_in(bytes);
  for (size_t i = 0; i < span; ++i) host_out.data()[i] = 1.5;
  void* out = c.send_gpu ? device::model::alloc(bytes) : host_out.data();
  void* in = c.recv_gpu ? device::model::alloc(bytes) : host_in.data();
  if (c.send_gpu) device::model::write(out, host_out.data(), bytes);
  int count = 0;
  const Datatype* t = type_for(c.doubles, &count);
  // The first question about a new GPU allocation describes it; these
  // messages count what a program sending from the same buffers again pays.
  device::describe(out);
  device::describe(in);

  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("message " + std::to_string(round));
    device::model::reset_counters();
    Request* r = nullptr;
    Request* s = nullptr;
    ASSERT_TRUE(pt2pt::irecv(in, count, t, 0, 7, &comm_, &r).ok());
    ASSERT_TRUE(pt2pt::isend(pt2pt::Message{out, count, t}, 0, 7, &comm_, Request::Mode::kStandard, &s).ok());
    for (int i = 0; i < 100000 && !(r->complete && s->complete); ++i) self_->progress();
    ASSERT_TRUE(r->complete && s->complete);
    EXPECT_EQ(r->error, MPI_SUCCESS);
    EXPECT_EQ(s->error, MPI_SUCCESS);
    requests::release(r);
    requests::release(s);
    if (c.send_gpu || c.recv_gpu) {
      EXPECT_GT(device::model::counters().copies + device::model::counters().copies_2d, 0u);
    }
    EXPECT_EQ(questions(), 2u) << "pointer_info " << device::model::counters().pointer_queries << ", buffer_id "
                               << device::model::counters().id_queries;
  }
  std::vector<double> got(span);
  if (c.recv_gpu) device::model::read(got.data(), in, bytes);
  else std::memcpy(got.data(), host_in.data(), bytes);
  for (size_t i = 0; i < span; i += (c.strided || c.resized) ? 2 : 1) ASSERT_EQ(got[i], 1.5) << i;
  if (c.send_gpu) device::model::free(out);
  if (c.recv_gpu) device::model::free(in);
}

constexpr size_t kEager = 100;
constexpr size_t kMany = 200000;  // 1.6 MB: seven 256 KiB chunks

INSTANTIATE_TEST_SUITE_P(
    Messages, MemoryQueriesTest,
    ::testing::Values(Case{"HostToHost", false, false, false, false, kMany},
                      Case{"StridedHostToHost", false, false, true, false, kMany},
                      Case{"EagerGpuToGpu", true, true, false, false, kEager},
                      Case{"EagerStridedGpuToGpu", true, true, true, false, kEager},
                      Case{"ChunksGpuToGpu", true, true, false, false, kMany},
                      Case{"ChunksGpuToHost", true, false, false, false, kMany},
                      Case{"ChunksHostToGpu", false, true, false, false, kMany},
                      Case{"ChunksStridedGpuToGpu", true, true, true, false, kMany},
                      Case{"ChunksResizedGpuToGpu", true, true, false, true, kMany}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// MPI_Pack and MPI_Unpack (p2p/data_access.h pack_into, unpack_from): the
// data and the packed bytes, each asked about once, whatever the copies.
TEST(MemoryQueries, PackAndUnpackAskAboutEachBufferOnce) {
  device::install(device::model::ops());
  const Datatype* d = find_datatype(MPI_DOUBLE);
  const Datatype* every_other = nullptr;
  ASSERT_TRUE(datatypes::vector(50000, 1, 2, *d, &every_other).ok());
  datatypes::commit(every_other);
  void* data = device::model::alloc(800000);
  void* packed = device::model::alloc(400000);
  device::describe(data);
  device::describe(packed);
  device::model::reset_counters();
  ASSERT_TRUE(pack_into(data, 1, every_other, 400000, packed).ok());
  EXPECT_EQ(questions(), 2u);
  device::model::reset_counters();
  ASSERT_TRUE(unpack_from(packed, 400000, data, 1, every_other).ok());
  EXPECT_EQ(questions(), 2u);
  device::model::free(data);
  device::model::free(packed);
  datatypes::release(every_other);
  device::install(nullptr);
}

}  // namespace
}  // namespace ferry::p2p

namespace ferry::coll {
namespace {

// A collective on GPU buffers (coll/device_schedule.h), one rank so that
// no message moves. Its messages, at more ranks, are requests like the ones
// above: one question per buffer per message. The collective's own
// questions are not carried yet (coll/ is outside this change): the entry
// point asks about sendbuf to choose a path (1), asks about both again to
// see whether it can run on them directly (2, 3), the copy step asks
// whether it touches the GPU (4: sendbuf) and the copy which context runs
// it (5: sendbuf again). This pins the count so that a change shows.
TEST(MemoryQueries, AnAllreduceOnGpuBuffersAsksFiveQuestionsAtOneRank) {
  device::install(device::model::ops());
  Communicator comm;
  comm.handle = MPI_COMM_WORLD;
  comm.rank = 0;
  comm.size = 1;
  void* send = device::model::alloc(4000);
  void* recv = device::model::alloc(4000);
  device::describe(send);
  device::describe(recv);
  device::model::reset_counters();
  gpu::Outcome done = gpu::allreduce(send, recv, 1000, find_datatype(MPI_INT), find_op(MPI_SUM), &comm, Launch{});
  ASSERT_TRUE(done.has_value());
  ASSERT_TRUE(done->ok()) << done->message();
  EXPECT_EQ(device::model::counters().copies, 1u);
  EXPECT_EQ(questions(), 5u) << "pointer_info " << device::model::counters().pointer_queries << ", buffer_id "
                             << device::model::counters().id_queries;
  device::model::free(send);
  device::model::free(recv);
  device::install(nullptr);
}

}  // namespace
}  // namespace ferry::coll
