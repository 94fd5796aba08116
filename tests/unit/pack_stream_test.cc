// Non-contiguous datatypes through the point-to-point engine
// (p2p/pack_stream.h), in one process over a recording SelfTransport: every
// pairing of a contiguous or strided sender with a contiguous or strided
// receiver, at eager, one-chunk and many-chunk sizes, posted first or
// unexpected, and truncated. The packets show the protocol: a packed eager
// message, rendezvous DATA chunks of at most 256 KiB at increasing offsets,
// and the chunked flag of a strided receiver.
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

// How a side lays out its n doubles.
enum class Layout { kContiguous, kEveryOther, kBlocksOfThree };

struct Case {
  const char* name;
  Layout send;
  Layout recv;
  size_t doubles;       // sent
  size_t recv_doubles;  // room in the receive
  bool posted_first;
};

class PackStreamTest : public ::testing::TestWithParam<Case> {
 protected:
  static constexpr size_t kEagerLimit = 4096;

  void SetUp() override {
    self_ = p2p::start_one_rank_engine(kEagerLimit, &comm_,
                                       [](auto* handler) { return std::make_unique<RecordingSelf>(handler); });
  }
  void TearDown() override {
    for (Request* r : held_) requests::release(r);
    for (const Datatype* t : types_) datatypes::release(t);
    EXPECT_EQ(unexpected_messages(), 0u);
    finalize();
    EXPECT_EQ(datatypes::live(), 0u);
  }

  // A type for n doubles laid out as asked, and the buffer length it spans.
  const Datatype* type_for(Layout l, size_t n, size_t* span) {
    const Datatype* d = find_datatype(MPI_DOUBLE);
    const Datatype* t = nullptr;
    switch (l) {
      case Layout::kContiguous:
        *span = n;
        return d;
      case Layout::kEveryOther:
        EXPECT_TRUE(datatypes::vector(static_cast<int>(n), 1, 2, *d, &t).ok());
        *span = 2 * n;
        break;
      case Layout::kBlocksOfThree:  // 3 doubles every 5
        EXPECT_TRUE(datatypes::vector(static_cast<int>(n / 3), 3, 5, *d, &t).ok());
        *span = n / 3 * 5;
        break;
    }
    datatypes::commit(t);
    types_.push_back(t);
    return t;
  }
  static size_t place(Layout l, size_t k) {
    switch (l) {
      case Layout::kContiguous: return k;
      case Layout::kEveryOther: return 2 * k;
      case Layout::kBlocksOfThree: return k / 3 * 5 + k % 3;
    }
    return k;
  }

  Request* start(Request::Kind kind, void* buf, const Datatype* t, int count) {
    Request* r = requests::acquire();
    held_.push_back(r);
    r->kind = kind;
    r->comm = &comm_;
    r->buffer = buf;
    r->count = count;
    r->datatype = t;
    datatypes::retain(t);  // as pt2pt does
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

TEST_P(PackStreamTest, DataArrivesInPlaceThroughBoundedChunks) {
  const Case& c = GetParam();
  size_t send_span = 0, recv_span = 0;
  const Datatype* st = type_for(c.send, c.doubles, &send_span);
  const Datatype* rt = type_for(c.recv, c.recv_doubles, &recv_span);
  std::vector<double> out(send_span, -1.0), in(recv_span, -2.0);
  for (size_t k = 0; k < c.doubles; ++k) out[place(c.send, k)] = static_cast<double>(k) + 0.5;
  int scount = c.send == Layout::kContiguous ? static_cast<int>(c.doubles) : 1;
  int rcount = c.recv == Layout::kContiguous ? static_cast<int>(c.recv_doubles) : 1;

  Request* r = nullptr;
  Request* s = nullptr;
  if (c.posted_first) r = start(Request::Kind::kRecv, in.data(), rt, rcount);
  s = start(Request::Kind::kSend, out.data(), st, scount);
  if (!c.posted_first) {
    for (int i = 0; i < 3; ++i) self_->progress();
    r = start(Request::Kind::kRecv, in.data(), rt, rcount);
  }
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(s->error, MPI_SUCCESS);
  EXPECT_EQ(r->stream, nullptr) << "the receive's bounce buffer is gone";
  EXPECT_EQ(s->stream, nullptr) << "the send's chunk buffers are gone";

  size_t arrived = std::min(c.doubles, c.recv_doubles);
  EXPECT_EQ(status_bytes(r->status), arrived * sizeof(double));
  EXPECT_EQ(error_code::class_of(r->error), c.doubles > c.recv_doubles ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
  std::vector<double> want(recv_span, -2.0);
  for (size_t k = 0; k < arrived; ++k) want[place(c.recv, k)] = static_cast<double>(k) + 0.5;
  for (size_t i = 0; i < recv_span; ++i) ASSERT_EQ(in[i], want[i]) << "receive buffer double " << i;

  // The protocol, from the packets.
  uint64_t bytes = c.doubles * sizeof(double);
  bool noncontiguous = c.send != Layout::kContiguous || c.recv != Layout::kContiguous;
  uint64_t next_offset = 0, data_packets = 0;
  for (const PacketHeader& h : self_->sent) {
    if (h.type == PacketType::kEager) {
      EXPECT_EQ(h.payload_bytes, bytes);
    }
    if (h.type == PacketType::kRendezvousReady) {
      EXPECT_EQ((h.flags & kFlagChunked) != 0, c.recv != Layout::kContiguous);
    }
    if (h.type != PacketType::kRendezvousData) continue;
    ++data_packets;
    EXPECT_LE(h.payload_bytes, noncontiguous ? kChunkBytes : bytes);
    EXPECT_EQ(h.offset, next_offset) << "chunks go in order here (one transport, one queue)";
    next_offset += h.payload_bytes;
  }
  if (bytes > kEagerLimit) {
    EXPECT_EQ(next_offset, arrived * sizeof(double)) << "a truncated rendezvous sends only what fits";
    if (noncontiguous) EXPECT_EQ(data_packets, std::max<uint64_t>(1, (next_offset + kChunkBytes - 1) / kChunkBytes));
    else EXPECT_EQ(data_packets, 1u) << "contiguous on both sides: one DATA packet, as before";
  }
}

constexpr size_t kMany = 3 * 100000;  // 2.4 MB: ten chunks

INSTANTIATE_TEST_SUITE_P(
    Pairings, PackStreamTest,
    ::testing::Values(
        Case{"EagerStridedToContiguous", Layout::kEveryOther, Layout::kContiguous, 30, 30, true},
        Case{"EagerContiguousToStrided", Layout::kContiguous, Layout::kEveryOther, 30, 30, true},
        Case{"EagerStridedToBlocksUnexpected", Layout::kEveryOther, Layout::kBlocksOfThree, 30, 30, false},
        Case{"OneChunkStridedToBlocks", Layout::kEveryOther, Layout::kBlocksOfThree, 3000, 3000, true},
        Case{"ManyChunksStridedToContiguous", Layout::kEveryOther, Layout::kContiguous, kMany, kMany, true},
        Case{"ManyChunksContiguousToStrided", Layout::kContiguous, Layout::kEveryOther, kMany, kMany, true},
        Case{"ManyChunksStridedToBlocks", Layout::kEveryOther, Layout::kBlocksOfThree, kMany, kMany, true},
        Case{"ManyChunksStridedToBlocksUnexpected", Layout::kBlocksOfThree, Layout::kEveryOther, kMany, kMany,
             false},
        Case{"ContiguousBothWaysStaysOnePacket", Layout::kContiguous, Layout::kContiguous, kMany, kMany, true},
        Case{"TruncatedEagerIntoStrided", Layout::kContiguous, Layout::kEveryOther, 30, 12, true},
        Case{"TruncatedChunksIntoStrided", Layout::kBlocksOfThree, Layout::kEveryOther, kMany, kMany / 2, true},
        Case{"TruncatedChunksIntoContiguous", Layout::kEveryOther, Layout::kContiguous, kMany, kMany / 3, false}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace ferry::p2p
