// A GPU send in chunks over a transport that takes time to put each chunk
// on the wire (TCP), against the host-memory model of a GPU whose copies
// pretend to run for a few event polls (device_model.h set_event_polls):
// the copy of the next chunk off the GPU runs while the transport still
// holds the chunk before it, and progress goes on meanwhile, instead of
// each copy being waited for (cuStreamSynchronize) before anything else
// moves. The transport here holds every DATA packet until its progress()
// puts it on the "wire", and notes whether a copy was running then.
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/request.h"
#include "device/device.h"
#include "device/staging.h"
#include "device_model.h"
#include "p2p/engine.h"
#include "p2p/pack_stream.h"
#include "p2p/pt2pt.h"
#include "transport/self/self_transport.h"

namespace ferry::p2p {
namespace {

class SlowWire final : public Transport {
 public:
  explicit SlowWire(PacketHandler* handler) : inner_(0, handler) {}
  const char* name() const override { return "slow-wire"; }
  const char* send(int peer, SendItem* item) override {
    if (item->header.type != PacketType::kRendezvousData) return inner_.send(peer, item);
    held_.push_back(item);
    return nullptr;
  }
  // Each pass puts one held chunk on the wire (delivers it, then its
  // on_sent), as a socket drains one chunk at a time.
  int progress() override {
    int events = inner_.progress();
    if (held_.empty()) return events;
    ++chunks_sent;
    if (device::model::copies_running() > 0) ++sent_while_copying;
    SendItem* item = held_.front();
    held_.pop_front();
    inner_.send(0, item);
    return events + inner_.progress();
  }
  int wait_fd() const override { return -1; }
  bool has_pending_sends() const override { return !held_.empty() || inner_.has_pending_sends(); }
  bool publish(transport::Exchange&, std::string*) override { return true; }
  bool connect(transport::Exchange&, std::string*) override { return true; }
  std::optional<transport::Reach> reach(int peer) const override { return inner_.reach(peer); }

  int chunks_sent = 0;
  int sent_while_copying = 0;  // chunks that went on the wire while a GPU copy ran

 private:
  transport::SelfTransport inner_;
  std::deque<SendItem*> held_;
};

class CopyOverlapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device::install(device::model::ops());
    device::model::reset_counters();
    init(0, 1);
    wire_ = std::make_unique<SlowWire>(packet_handler());
    set_route(0, Route{wire_.get(), transport::Reach{4096, SIZE_MAX}});
    comm_.handle = MPI_COMM_WORLD;
    comm_.context = 0;
    comm_.rank = 0;
    comm_.size = 1;
  }
  void TearDown() override {
    finalize();
    device::install(nullptr);
  }

  // Sends `doubles` from the GPU to a host buffer; true if both ended.
  bool run(size_t doubles, std::vector<double>* got, Request** s_out, Request** r_out) {
    std::vector<double> data(doubles);
    for (size_t i = 0; i < doubles; ++i) data[i] = static_cast<double>(i) + 0.5;
    gpu_ = device::model::alloc(doubles * sizeof(double));
    device::model::write(gpu_, data.data(), doubles * sizeof(double));
    got->assign(doubles, -1.0);
    const Datatype* t = find_datatype(MPI_DOUBLE);
    auto n = static_cast<MPI_Count>(doubles);
    EXPECT_TRUE(pt2pt::irecv(got->data(), n, t, 0, 9, &comm_, r_out).ok());
    EXPECT_TRUE(pt2pt::isend(pt2pt::Message{gpu_, n, t}, 0, 9, &comm_, Request::Mode::kStandard, s_out).ok());
    for (int i = 0; i < 100000 && !((*r_out)->complete && (*s_out)->complete); ++i) wire_->progress();
    return (*r_out)->complete && (*s_out)->complete;
  }

  std::unique_ptr<SlowWire> wire_;
  Communicator comm_;
  void* gpu_ = nullptr;
};

TEST_F(CopyOverlapTest, TheNextChunksCopyRunsWhileAChunkIsOnTheWire) {
  constexpr size_t kDoubles = 200000;  // 1.6 MB: seven chunks
  device::model::set_event_polls(3);   // each copy "runs" for three polls
  std::vector<double> got;
  Request* s = nullptr;
  Request* r = nullptr;
  ASSERT_TRUE(run(kDoubles, &got, &s, &r));
  EXPECT_EQ(s->error, MPI_SUCCESS);
  EXPECT_EQ(r->error, MPI_SUCCESS);
  for (size_t i = 0; i < kDoubles; ++i) ASSERT_EQ(got[i], static_cast<double>(i) + 0.5) << i;
  EXPECT_EQ(wire_->chunks_sent, 7);
  // Each chunk but the last goes on the wire while the next one's copy
  // runs; serialized copies would leave no copy running at any send.
  EXPECT_EQ(wire_->sent_while_copying, 6);
  EXPECT_GT(device::model::counters().event_queries, 0u);
  EXPECT_EQ(device::model::copies_running(), 0) << "every copy was polled to its end";
  EXPECT_LE(device::model::counters().events_made, 2u) << "events are reused from the pool";
  requests::release(r);
  requests::release(s);
  device::model::free(gpu_);
}

TEST_F(CopyOverlapTest, AFailedCopySeenByTheEventFailsTheSendAndTheDataStillGoes) {
  device::model::set_event_polls(2);
  device::model::fail_next_event(700);
  std::vector<double> got;
  Request* s = nullptr;
  Request* r = nullptr;
  ASSERT_TRUE(run(200000, &got, &s, &r)) << "nobody is left waiting";
  EXPECT_EQ(error_code::class_of(s->error), MPI_ERR_OTHER);
  std::string text = error_code::text(s->error);
  EXPECT_NE(text.find("cuMemcpyAsync"), std::string::npos) << text;
  EXPECT_EQ(r->error, MPI_SUCCESS);
  EXPECT_EQ(device::model::copies_running(), 0);
  requests::release(r);
  requests::release(s);
  device::model::free(gpu_);
}

// The receive side over the same wire: a GPU receive in chunks copies each
// chunk up to the GPU while the next one lands (in the other of two pinned
// buffers), never waiting for the stream; the receive completes once every
// copy has ended.
TEST_F(CopyOverlapTest, AGpuReceiveCopiesEachChunkUpWhileTheNextLands) {
  constexpr size_t kDoubles = 200000;  // 1.6 MB: seven chunks
  std::vector<double> data(kDoubles);
  for (size_t i = 0; i < kDoubles; ++i) data[i] = static_cast<double>(i) * 2.0 + 1.0;
  void* in = device::model::alloc(kDoubles * sizeof(double));
  device::model::set_event_polls(2);
  const Datatype* t = find_datatype(MPI_DOUBLE);
  auto n = static_cast<MPI_Count>(kDoubles);
  Request* r = nullptr;
  Request* s = nullptr;
  ASSERT_TRUE(pt2pt::irecv(in, n, t, 0, 9, &comm_, &r).ok());
  ASSERT_TRUE(pt2pt::isend(pt2pt::Message{data.data(), n, t}, 0, 9, &comm_, Request::Mode::kStandard, &s).ok());
  for (int i = 0; i < 100000 && !(r->complete && s->complete); ++i) wire_->progress();
  ASSERT_TRUE(r->complete && s->complete);
  EXPECT_EQ(r->error, MPI_SUCCESS);
  EXPECT_EQ(s->error, MPI_SUCCESS);
  std::vector<double> got(kDoubles);
  device::model::read(got.data(), in, kDoubles * sizeof(double));
  for (size_t i = 0; i < kDoubles; ++i) ASSERT_EQ(got[i], data[i]) << i;
  EXPECT_EQ(device::model::counters().copies, 7u);
  // Every chunk after the first came off the wire while the copy of the
  // one before it still ran.
  EXPECT_EQ(wire_->sent_while_copying, 6);
  EXPECT_EQ(device::model::counters().stream_syncs, 0u) << "no chunk's copy was waited for with the stream";
  EXPECT_EQ(device::model::counters().event_records, 7u);
  EXPECT_EQ(device::model::copies_running(), 0) << "the receive completed after every copy ended";
  requests::release(r);
  requests::release(s);
  device::model::free(in);
}

TEST_F(CopyOverlapTest, AFailedChunkCopyFailsTheGpuReceiveAndItStillEnds) {
  constexpr size_t kDoubles = 200000;
  std::vector<double> data(kDoubles, 3.0);
  void* in = device::model::alloc(kDoubles * sizeof(double));
  device::model::set_event_polls(1);
  device::model::fail_next_event(700);
  const Datatype* t = find_datatype(MPI_DOUBLE);
  auto n = static_cast<MPI_Count>(kDoubles);
  Request* r = nullptr;
  Request* s = nullptr;
  ASSERT_TRUE(pt2pt::irecv(in, n, t, 0, 9, &comm_, &r).ok());
  ASSERT_TRUE(pt2pt::isend(pt2pt::Message{data.data(), n, t}, 0, 9, &comm_, Request::Mode::kStandard, &s).ok());
  for (int i = 0; i < 100000 && !(r->complete && s->complete); ++i) wire_->progress();
  ASSERT_TRUE(r->complete && s->complete) << "nobody is left waiting";
  EXPECT_EQ(error_code::class_of(r->error), MPI_ERR_OTHER);
  std::string text = error_code::text(r->error);
  EXPECT_NE(text.find("cuMemcpyAsync"), std::string::npos) << text;
  EXPECT_EQ(s->error, MPI_SUCCESS);
  EXPECT_EQ(device::model::copies_running(), 0);
  requests::release(r);
  requests::release(s);
  device::model::free(in);
}

}  // namespace
}  // namespace ferry::p2p
