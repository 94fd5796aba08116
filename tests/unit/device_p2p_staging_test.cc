// GPU buffers through the point-to-point engine (p2p/data_access.h,
// p2p/pack_stream.h), in one process over a recording SelfTransport, with
// the host-memory model of a GPU (device_model.h), whose device memory the
// host cannot touch: any direct access would crash the test. Every pairing
// of host and GPU sender and receiver, contiguous and strided, at eager,
// one-chunk and many-chunk sizes, posted first or unexpected. The packets
// show the staging pipeline: GPU data leaves in DATA chunks of at most
// 256 KiB, never as one packet from the user's buffer. A failed GPU copy
// fails the request with MPI_ERR_OTHER naming the CUDA call, and never
// leaves the other side waiting.
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
#include "device/device.h"
#include "device/staging.h"
#include "device_model.h"
#include "p2p/data_access.h"
#include "p2p/engine.h"
#include "p2p/pack_stream.h"
#include "one_rank_engine.h"
#include "transport/self/self_transport.h"

namespace ferry::p2p {
namespace {

class RecordingSelf final : public Transport {
 public:
  explicit RecordingSelf(PacketHandler* handler) : inner_(0, handler) {}
  const char* name() const override { return "recording-self"; }
  const char* send(int peer, SendItem* item) override {
    sent.push_back(item->header);
    return inner_.send(peer, item);
  }
  int progress() override { return inner_.progress(); }
  int wait_fd() const override { return -1; }
  bool has_pending_sends() const override { return inner_.has_pending_sends(); }
  bool publish(transport::Exchange&, std::string*) override { return true; }
  bool connect(transport::Exchange&, std::string*) override { return true; }
  std::optional<transport::Reach> reach(int peer) const override { return inner_.reach(peer); }
  std::vector<PacketHeader> sent;

 private:
  transport::SelfTransport inner_;
};

struct Side {
  bool gpu;
  bool strided;          // every other double
  bool resized = false;  // ...as n doubles resized to 16 bytes, not one vector: not a 2D copy
};

struct Case {
  const char* name;
  Side send;
  Side recv;
  size_t doubles;
  bool posted_first;
};

// A buffer of `span` doubles on the host or in the model's GPU memory.
class Buffer {
 public:
  Buffer(bool gpu, size_t span, double fill) : gpu_(gpu), host_(span, fill) {
    if (gpu_) {
      device_ = device::model::alloc(span * sizeof(double));
      device::model::write(device_, host_.data(), span * sizeof(double));
    }
  }
  ~Buffer() {
    if (gpu_) device::model::free(device_);
  }
  void* data() { return gpu_ ? device_ : host_.data(); }
  // Sets double i (uploaded to the GPU by upload()).
  void set(size_t i, double v) { host_[i] = v; }
  void upload() {
    if (gpu_) device::model::write(device_, host_.data(), host_.size() * sizeof(double));
  }
  std::vector<double> contents() {
    if (gpu_) device::model::read(host_.data(), device_, host_.size() * sizeof(double));
    return host_;
  }

 private:
  bool gpu_;
  std::vector<double> host_;
  void* device_ = nullptr;
};

class DeviceStagingTest : public ::testing::TestWithParam<Case> {
 protected:
  static constexpr size_t kEagerLimit = 4096;

  void SetUp() override {
    device::install(device::model::ops());
    device::model::reset_counters();
    self_ = p2p::start_one_rank_engine(kEagerLimit, &comm_,
                                       [](auto* handler) { return std::make_unique<RecordingSelf>(handler); });
  }
  void TearDown() override {
    for (Request* r : held_) requests::release(r);
    for (const Datatype* t : types_) datatypes::release(t);
    EXPECT_EQ(unexpected_messages(), 0u);
    finalize();
    device::install(nullptr);
  }

  const Datatype* type_for(bool strided, size_t n, int* count, bool resized = false) {
    const Datatype* d = find_datatype(MPI_DOUBLE);
    if (!strided) {
      *count = static_cast<int>(n);
      return d;
    }
    const Datatype* t = nullptr;
    if (resized) {
      EXPECT_TRUE(datatypes::resized(*d, 0, 16, &t).ok());
      datatypes::commit(t);
      types_.push_back(t);
      *count = static_cast<int>(n);
      return t;
    }
    EXPECT_TRUE(datatypes::vector(static_cast<int>(n), 1, 2, *d, &t).ok());
    datatypes::commit(t);
    types_.push_back(t);
    *count = 1;
    return t;
  }

  Request* start(Request::Kind kind, void* buf, const Datatype* t, int count) {
    Request* r = requests::acquire();
    held_.push_back(r);
    r->kind = kind;
    r->comm = &comm_;
    r->buffer = buf;
    locate(r);  // as pt2pt's describe does
    r->count = count;
    r->datatype = t;
    datatypes::retain(t);
    r->bytes = t->bytes(count);
    r->peer = 0;
    r->tag = 5;
    r->context = 0;
    r->active = true;
    r->world_peer = 0;
    if (kind == Request::Kind::kSend) EXPECT_TRUE(start_send(r).ok());
    else start_recv(r);
    return r;
  }

  bool drive(const std::function<bool()>& done) {
    for (int i = 0; i < 100000 && !done(); ++i) self_->progress();
    return done();
  }

  std::unique_ptr<RecordingSelf> self_;
  Communicator comm_;
  std::vector<Request*> held_;
  std::vector<const Datatype*> types_;
};

TEST_P(DeviceStagingTest, DataArrivesThroughHostStaging) {
  const Case& c = GetParam();
  size_t send_span = c.send.strided ? 2 * c.doubles : c.doubles;
  size_t recv_span = c.recv.strided ? 2 * c.doubles : c.doubles;
  Buffer out(c.send.gpu, send_span, -1.0), in(c.recv.gpu, recv_span, -2.0);
  std::vector<double> want(recv_span, -2.0);
  for (size_t k = 0; k < c.doubles; ++k) {
    out.set(c.send.strided ? 2 * k : k, static_cast<double>(k) + 0.25);
    want[c.recv.strided ? 2 * k : k] = static_cast<double>(k) + 0.25;
  }
  out.upload();
  int scount = 0, rcount = 0;
  const Datatype* st = type_for(c.send.strided, c.doubles, &scount, c.send.resized);
  const Datatype* rt = type_for(c.recv.strided, c.doubles, &rcount, c.recv.resized);
  device::model::reset_counters();

  Request* r = nullptr;
  if (c.posted_first) r = start(Request::Kind::kRecv, in.data(), rt, rcount);
  Request* s = start(Request::Kind::kSend, out.data(), st, scount);
  if (!c.posted_first) {
    for (int i = 0; i < 3; ++i) self_->progress();
    r = start(Request::Kind::kRecv, in.data(), rt, rcount);
  }
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(s->error, MPI_SUCCESS);
  EXPECT_EQ(r->error, MPI_SUCCESS);
  EXPECT_EQ(status_bytes(r->status), c.doubles * sizeof(double));
  EXPECT_EQ(r->stream, nullptr);
  EXPECT_EQ(s->stream, nullptr);
  std::vector<double> got = in.contents();
  for (size_t i = 0; i < recv_span; ++i) ASSERT_EQ(got[i], want[i]) << "receive buffer double " << i;

  // GPU data went through copies, in chunks no larger than the pipeline's.
  if (c.send.gpu || c.recv.gpu) {
    EXPECT_GT(device::model::counters().copies + device::model::counters().copies_2d, 0u);
  }
  // A vector on the GPU is packed by the copy engine (2D copies), never
  // through a host copy of its span.
  if ((c.send.gpu && c.send.strided && !c.send.resized) || (c.recv.gpu && c.recv.strided && !c.recv.resized)) {
    EXPECT_GT(device::model::counters().copies_2d, 0u);
  }
  for (const PacketHeader& h : self_->sent) {
    if (h.type == PacketType::kRendezvousData && (c.send.gpu || c.recv.gpu)) {
      EXPECT_LE(h.payload_bytes, kChunkBytes);
    }
    if (h.type == PacketType::kRendezvousReady && c.recv.gpu) {
      EXPECT_NE(h.flags & kFlagChunked, 0) << "a GPU receive takes chunks";
    }
  }
}

constexpr size_t kOneChunk = 20000;    // 160 KB
constexpr size_t kMany = 200000;       // 1.6 MB: seven chunks
constexpr Side kHost{false, false}, kGpu{true, false}, kGpuStrided{true, true}, kHostStrided{false, true};
constexpr Side kGpuResized{true, true, true};

INSTANTIATE_TEST_SUITE_P(
    Pairings, DeviceStagingTest,
    ::testing::Values(Case{"EagerGpuToHost", kGpu, kHost, 100, true}, Case{"EagerHostToGpu", kHost, kGpu, 100, true},
                      Case{"EagerGpuToGpu", kGpu, kGpu, 100, false},
                      Case{"EagerStridedGpuToGpu", kGpuStrided, kGpu, 100, true},
                      Case{"OneChunkGpuToHost", kGpu, kHost, kOneChunk, true},
                      Case{"OneChunkHostToGpuUnexpected", kHost, kGpu, kOneChunk, false},
                      Case{"ManyChunksGpuToGpu", kGpu, kGpu, kMany, true},
                      Case{"ManyChunksGpuToGpuUnexpected", kGpu, kGpu, kMany, false},
                      Case{"ManyChunksGpuToStridedHost", kGpu, kHostStrided, kMany, true},
                      Case{"ManyChunksStridedGpuToStridedGpu", kGpuStrided, kGpuStrided, kMany, true},
                      Case{"ManyChunksHostStridedToStridedGpu", kHostStrided, kGpuStrided, kMany, false},
                      Case{"EagerResizedGpuToResizedGpu", kGpuResized, kGpuResized, 100, true},
                      Case{"ManyChunksResizedGpuToStridedGpu", kGpuResized, kGpuStrided, kMany, true},
                      Case{"ManyChunksStridedGpuToResizedGpuUnexpected", kGpuStrided, kGpuResized, kMany, false}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST_F(DeviceStagingTest, AFailedCopyFailsTheSendAndStillEndsTheReceive) {
  constexpr size_t n = kMany;
  Buffer out(true, n, 1.0), in(false, n, 0.0);
  int count = 0;
  const Datatype* t = type_for(false, n, &count);
  Request* r = start(Request::Kind::kRecv, in.data(), t, count);
  device::model::fail_next_copy(700);
  Request* s = start(Request::Kind::kSend, out.data(), t, count);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; })) << "nobody is left waiting";
  EXPECT_EQ(error_code::class_of(s->error), MPI_ERR_OTHER);
  std::string text = error_code::text(s->error);
  EXPECT_NE(text.find("cuMemcpyAsync"), std::string::npos) << text;
  EXPECT_NE(text.find("illegal memory access"), std::string::npos) << text;
}

TEST_F(DeviceStagingTest, PinnedStagingBuffersAreReused) {
  device::model::reset_counters();
  for (int round = 0; round < 3; ++round) {
    Buffer out(true, kMany, 1.0), in(true, kMany, 0.0);
    int count = 0;
    const Datatype* t = type_for(false, kMany, &count);
    Request* r = start(Request::Kind::kRecv, in.data(), t, count);
    Request* s = start(Request::Kind::kSend, out.data(), t, count);
    ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
    ASSERT_EQ(r->error, MPI_SUCCESS);
  }
  // Two chunks for the send, two for the receive (each chunk's copy to the
  // GPU runs while the next lands), pinned once.
  EXPECT_EQ(device::model::counters().pinned_allocs, 4u);
  EXPECT_EQ(device::staging::pooled(), 4u);
}

}  // namespace
}  // namespace ferry::p2p

namespace ferry::p2p {
namespace {

// MPI_Pack/MPI_Unpack, MPI_Bsend's and MPI_Sendrecv_replace's copies: the
// data and the packed bytes each on the host or the GPU.
TEST(DeviceWholeMessage, PackAndUnpackWithEitherSideOnTheGpu) {
  device::install(device::model::ops());
  const Datatype* d = find_datatype(MPI_DOUBLE);
  const Datatype* every_other = nullptr;
  ASSERT_TRUE(datatypes::vector(500, 1, 2, *d, &every_other).ok());
  datatypes::commit(every_other);
  std::vector<double> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<double>(i);
  for (bool data_on_gpu : {false, true})
    for (bool packed_on_gpu : {false, true}) {
      SCOPED_TRACE(std::string(data_on_gpu ? "GPU" : "host") + " data, " + (packed_on_gpu ? "GPU" : "host") +
                   " packed bytes");
      void* buf = data.data();
      if (data_on_gpu) {
        buf = device::model::alloc(8000);
        device::model::write(buf, data.data(), 8000);
      }
      void* packed = packed_on_gpu ? device::model::alloc(4000) : std::malloc(4000);
      ASSERT_TRUE(pack_into(buf, 1, every_other, 4000, packed).ok());
      std::vector<double> got(500);
      if (packed_on_gpu) device::model::read(got.data(), packed, 4000);
      else std::memcpy(got.data(), packed, 4000);
      for (size_t k = 0; k < 500; ++k) ASSERT_EQ(got[k], 2.0 * k) << k;

      std::vector<double> zero(1000, -1.0);
      void* back = zero.data();
      if (data_on_gpu) {
        back = device::model::alloc(8000);
        device::model::write(back, zero.data(), 8000);
      }
      ASSERT_TRUE(unpack_from(packed, 4000, back, 1, every_other).ok());
      std::vector<double> out(1000);
      if (data_on_gpu) device::model::read(out.data(), back, 8000);
      else out = zero;
      for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(out[i], i % 2 == 0 ? static_cast<double>(i) : -1.0) << i;
      if (data_on_gpu) {
        device::model::free(buf);
        device::model::free(back);
      }
      if (packed_on_gpu) device::model::free(packed);
      else std::free(packed);
    }
  datatypes::release(every_other);
  device::install(nullptr);
}

}  // namespace
}  // namespace ferry::p2p
