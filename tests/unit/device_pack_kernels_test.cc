// Non-contiguous datatypes on GPU memory packed and unpacked by the pack
// kernels (device/kernels.h pack_blocks, kernels/pack.cu), through the
// point-to-point engine over the self transport, against the host-memory
// model of a GPU: its kernels are host twins found by the same names,
// which read the block list from "device" memory as a GPU would (and abort
// if it is not there), and the host cannot touch device memory otherwise.
// (One element of a subarray of two dimensions, like one of a vector, is a
// strided run that the copy engine moves: not these kernels' case.)
// A vector of several elements, an indexed type, a struct of contiguous
// blocks and a subarray, GPU to GPU and GPU to host and back, eager and in
// many chunks: the data arrives as the host path packs it, each chunk of
// each GPU side is one launch with two copies (the block list, the packed
// bytes), and no span of the buffer is copied to the host to be packed
// there. A failed launch fails the request with MPI_ERR_OTHER naming
// cuLaunchKernel, and the other side still completes.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/request.h"
#include "base/type_constructors.h"
#include "base/type_pack.h"
#include "device/device.h"
#include "device/kernels.h"
#include "device_model.h"
#include "p2p/data_access.h"
#include "p2p/engine.h"
#include "p2p/pack_stream.h"
#include "p2p/pt2pt.h"
#include "one_rank_engine.h"
#include "transport/self/self_transport.h"

namespace ferry::p2p {
namespace {

enum class Shape { kVector, kIndexed, kStruct, kSubarray };

struct Case {
  const char* name;
  Shape shape;
  bool send_gpu;
  bool recv_gpu;
  int count;  // elements of the type
};

class PackKernelsTest : public ::testing::TestWithParam<Case> {
 protected:
  static constexpr size_t kEagerLimit = 4096;

  void SetUp() override {
    device::install(device::model::ops());
    self_ = p2p::start_one_rank_engine(kEagerLimit, &comm_,
                                       [](auto* handler) { return std::make_unique<transport::SelfTransport>(0, handler); });
  }
  void TearDown() override {
    if (type_ != nullptr) datatypes::release(type_);
    finalize();
    device::install(nullptr);
  }

  // The shape's type, committed.
  const Datatype* make(Shape shape) {
    const Datatype* d = find_datatype(MPI_DOUBLE);
    const Datatype* t = nullptr;
    switch (shape) {
      case Shape::kVector:  // 2 of every 3 doubles, 4 times; several elements, so not one 2D copy
        EXPECT_TRUE(datatypes::vector(4, 2, 3, *d, &t).ok());
        break;
      case Shape::kIndexed: {
        int lengths[] = {3, 1, 7, 2};
        int displs[] = {0, 5, 9, 20};
        EXPECT_TRUE(datatypes::indexed(4, lengths, displs, *d, &t).ok());
        break;
      }
      case Shape::kStruct: {  // { int[2] at 0; double[3] at 16; char at 44 }: blocks of mixed types
        int lengths[] = {2, 3, 1};
        MPI_Aint displs[] = {0, 16, 44};
        const Datatype* types[] = {find_datatype(MPI_INT), d, find_datatype(MPI_CHAR)};
        EXPECT_TRUE(datatypes::structure(3, lengths, displs, types, &t).ok());
        break;
      }
      case Shape::kSubarray: {  // a 30 x 20 block of a 64 x 64 array of doubles
        int sizes[] = {64, 64}, subsizes[] = {30, 20}, starts[] = {7, 11};
        EXPECT_TRUE(datatypes::subarray(2, sizes, subsizes, starts, MPI_ORDER_C, *d, &t).ok());
        break;
      }
    }
    datatypes::commit(t);
    type_ = t;
    return t;
  }

  std::unique_ptr<transport::SelfTransport> self_;
  Communicator comm_;
  const Datatype* type_ = nullptr;
};

TEST_P(PackKernelsTest, EachChunkIsOneLaunchAndNoSpanIsPackedOnTheHost) {
  const Case& c = GetParam();
  ASSERT_TRUE(device::kernels::supports_pack());
  const Datatype* t = make(c.shape);
  auto count = static_cast<uint64_t>(c.count);
  size_t span = static_cast<size_t>(t->true_lb + t->true_extent + (count - 1) * static_cast<uint64_t>(t->extent));
  uint64_t bytes = type::packed_bytes(*t, count);
  std::vector<unsigned char> source(span), expected(span, 0xee);
  for (size_t i = 0; i < span; ++i) source[i] = static_cast<unsigned char>(i * 7 + 1);
  // What the host path delivers: the elements, the bytes between them untouched.
  std::vector<unsigned char> packed(bytes);
  type::pack(*t, source.data(), count, 0, bytes, packed.data());
  type::unpack(*t, expected.data(), count, 0, bytes, packed.data());

  std::vector<unsigned char> host_out = source, host_in(span, 0xee);
  void* out = host_out.data();
  void* in = host_in.data();
  if (c.send_gpu) {
    out = device::model::alloc(span);
    device::model::write(out, source.data(), span);
  }
  if (c.recv_gpu) {
    in = device::model::alloc(span);
    device::model::write(in, host_in.data(), span);
  }
  device::model::reset_counters();
  Request* r = nullptr;
  Request* s = nullptr;
  ASSERT_TRUE(pt2pt::irecv(in, c.count, t, 0, 3, &comm_, &r).ok());
  ASSERT_TRUE(pt2pt::isend(pt2pt::Message{out, c.count, t}, 0, 3, &comm_, Request::Mode::kStandard, &s).ok());
  for (int i = 0; i < 100000 && !(r->complete && s->complete); ++i) self_->progress();
  ASSERT_TRUE(r->complete && s->complete);
  EXPECT_EQ(s->error, MPI_SUCCESS) << error_code::text(s->error);
  EXPECT_EQ(r->error, MPI_SUCCESS) << error_code::text(r->error);
  requests::release(r);
  requests::release(s);

  std::vector<unsigned char> got(span);
  if (c.recv_gpu) device::model::read(got.data(), in, span);
  else got = host_in;
  for (size_t i = 0; i < span; ++i) ASSERT_EQ(got[i], expected[i]) << "byte " << i;

  // Each GPU side packs or unpacks every chunk (the whole message, if
  // eager) with one launch and two copies: the block list, and the packed
  // bytes between the GPU scratch and the pinned chunk. A span staged
  // through the host would add a copy per chunk and launch nothing.
  uint64_t parts = bytes <= kEagerLimit ? 1 : (bytes + kChunkBytes - 1) / kChunkBytes;
  uint64_t gpu_sides = (c.send_gpu ? 1 : 0) + (c.recv_gpu ? 1 : 0);
  EXPECT_EQ(device::model::counters().launches, parts * gpu_sides);
  EXPECT_EQ(device::model::counters().copies, 2 * parts * gpu_sides);
  EXPECT_EQ(device::model::counters().copies_2d, 0u);
  if (c.send_gpu) device::model::free(out);
  if (c.recv_gpu) device::model::free(in);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, PackKernelsTest,
    ::testing::Values(Case{"EagerVectorGpuToGpu", Shape::kVector, true, true, 10},
                      Case{"ChunksVectorGpuToGpu", Shape::kVector, true, true, 40000},
                      Case{"ChunksVectorGpuToHost", Shape::kVector, true, false, 40000},
                      Case{"EagerIndexedGpuToHost", Shape::kIndexed, true, false, 3},
                      Case{"ChunksIndexedGpuToGpu", Shape::kIndexed, true, true, 20000},
                      Case{"ChunksIndexedHostToGpu", Shape::kIndexed, false, true, 20000},
                      Case{"ChunksStructGpuToGpu", Shape::kStruct, true, true, 30000},
                      Case{"ChunksStructGpuToHost", Shape::kStruct, true, false, 30000},
                      Case{"SubarraysGpuToGpu", Shape::kSubarray, true, true, 2},
                      Case{"ChunksSubarrayGpuToHost", Shape::kSubarray, true, false, 100},
                      Case{"ChunksSubarrayHostToGpu", Shape::kSubarray, false, true, 100}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// A GPU the module has no code for (CUDA_ERROR_NO_BINARY_FOR_GPU): the
// first part finds out, the kernels are off from then on, and every part
// goes through a host copy of its span instead, with the right data.
TEST_P(PackKernelsTest, AModuleTheGpuRefusesFallsBackToTheHostSpan) {
  const Case& c = GetParam();
  if (!c.send_gpu) GTEST_SKIP() << "the sender meets the refusal first";
  const Datatype* t = make(c.shape);
  auto count = static_cast<uint64_t>(c.count);
  size_t span = static_cast<size_t>(t->true_lb + t->true_extent + (count - 1) * static_cast<uint64_t>(t->extent));
  uint64_t bytes = type::packed_bytes(*t, count);
  std::vector<unsigned char> source(span), packed(bytes), expected(span, 0);
  for (size_t i = 0; i < span; ++i) source[i] = static_cast<unsigned char>(i * 5 + 3);
  type::pack(*t, source.data(), count, 0, bytes, packed.data());
  type::unpack(*t, expected.data(), count, 0, bytes, packed.data());
  void* out = device::model::alloc(span);
  device::model::write(out, source.data(), span);
  std::vector<unsigned char> in(span, 0);
  device::model::reset_counters();
  device::model::fail_next_module_load(209);
  Request* r = nullptr;
  Request* s = nullptr;
  ASSERT_TRUE(pt2pt::irecv(in.data(), c.count, t, 0, 4, &comm_, &r).ok());
  ASSERT_TRUE(pt2pt::isend(pt2pt::Message{out, c.count, t}, 0, 4, &comm_, Request::Mode::kStandard, &s).ok());
  for (int i = 0; i < 100000 && !(r->complete && s->complete); ++i) self_->progress();
  ASSERT_TRUE(r->complete && s->complete);
  EXPECT_EQ(s->error, MPI_SUCCESS) << error_code::text(s->error);
  EXPECT_EQ(r->error, MPI_SUCCESS) << error_code::text(r->error);
  requests::release(r);
  requests::release(s);
  EXPECT_FALSE(device::kernels::supports_pack());
  EXPECT_EQ(device::model::counters().launches, 0u);
  EXPECT_EQ(in, expected);
  device::model::free(out);
}

TEST(PackKernels, AFailedLaunchFailsTheSendAndTheReceiveStillEnds) {
  device::install(device::model::ops());
  init(0, 1);
  transport::SelfTransport self(0, packet_handler());
  set_route(0, Route{&self, transport::Reach{4096, SIZE_MAX}});
  Communicator comm;
  comm.handle = MPI_COMM_WORLD;
  comm.rank = 0;
  comm.size = 1;
  int lengths[] = {3, 1, 7, 2};
  int displs[] = {0, 5, 9, 20};
  const Datatype* t = nullptr;
  ASSERT_TRUE(datatypes::indexed(4, lengths, displs, *find_datatype(MPI_DOUBLE), &t).ok());
  datatypes::commit(t);
  constexpr int kCount = 20000;
  size_t span = static_cast<size_t>(t->extent) * kCount;
  void* out = device::model::alloc(span);
  std::vector<char> in(span);
  Request* r = nullptr;
  Request* s = nullptr;
  ASSERT_TRUE(pt2pt::irecv(in.data(), kCount, t, 0, 3, &comm, &r).ok());
  device::model::fail_next_launch(719);
  ASSERT_TRUE(pt2pt::isend(pt2pt::Message{out, kCount, t}, 0, 3, &comm, Request::Mode::kStandard, &s).ok());
  for (int i = 0; i < 100000 && !(r->complete && s->complete); ++i) self.progress();
  ASSERT_TRUE(r->complete && s->complete) << "nobody is left waiting";
  EXPECT_EQ(error_code::class_of(s->error), MPI_ERR_OTHER);
  std::string text = error_code::text(s->error);
  EXPECT_NE(text.find("cuLaunchKernel"), std::string::npos) << text;
  requests::release(r);
  requests::release(s);
  device::model::free(out);
  datatypes::release(t);
  finalize();
  device::install(nullptr);
}

}  // namespace
}  // namespace ferry::p2p
