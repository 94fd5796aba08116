// The point-to-point engine (p2p/engine.h) driven in one process over the
// SelfTransport: eager and rendezvous protocols, unexpected messages,
// synchronous sends, truncation, probes, cancel and message order.
// Then the TCP transport on its own, over loopback, with a recording handler.
#include "p2p/engine.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/request.h"
#include "mpi.h"
#include "one_rank_engine.h"
#include "transport/self/self_transport.h"
#include "transport/tcp/tcp_transport.h"

namespace ferry::p2p {
namespace {

// A recognisable byte pattern per message, so a mix-up shows.
std::vector<char> pattern(size_t bytes, int seed) {
  std::vector<char> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<char>((seed * 131 + i * 7 + (i >> 8)) & 0xff);
  return v;
}

// The SelfTransport, with a record of every packet the engine sends, so
// tests can see which protocol it chose and how much data it asked for.
class RecordingSelfTransport final : public Transport {
 public:
  explicit RecordingSelfTransport(PacketHandler* handler) : inner_(0, handler) {}
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

  size_t count(PacketType type) const {
    size_t n = 0;
    for (const PacketHeader& h : sent) n += h.type == type ? 1 : 0;
    return n;
  }

  std::vector<PacketHeader> sent;

 private:
  transport::SelfTransport inner_;
};

class EngineTest : public ::testing::Test {
 protected:
  static constexpr size_t kEagerLimit = 256;

  void SetUp() override {
    baseline_ = requests::live();
    self_ = p2p::start_one_rank_engine(kEagerLimit, &comm_,
                                       [](auto* handler) { return std::make_unique<RecordingSelfTransport>(handler); });
  }

  void TearDown() override {
    EXPECT_EQ(unexpected_messages(), 0u) << "a test left unexpected messages behind";
    for (Request* r : held_) requests::release(r);
    finalize();
    self_.reset();
    EXPECT_EQ(requests::live(), baseline_);
  }

  // As pt2pt.cc describe() + launch() fill a request, with MPI_BYTE.
  Request* describe(Request::Kind kind, void* buffer, size_t bytes, int peer, int tag, uint32_t context) {
    Request* r = requests::acquire();
    held_.push_back(r);
    r->kind = kind;
    r->comm = &comm_;
    r->buffer = buffer;
    r->count = static_cast<int>(bytes);
    r->datatype = find_datatype(MPI_BYTE);
    r->bytes = bytes;
    r->peer = peer;
    r->tag = tag;
    r->context = context;
    r->active = true;
    return r;
  }

  Request* isend(const std::vector<char>& data, int tag, Request::Mode mode = Request::Mode::kStandard,
                 uint32_t context = 0) {
    Request* r = describe(Request::Kind::kSend, const_cast<char*>(data.data()), data.size(), 0, tag, context);
    r->mode = mode;
    r->world_peer = comm_.world_rank(r->peer);
    Err e = start_send(r);
    EXPECT_TRUE(e.ok()) << e.message();
    return r;
  }

  Request* irecv(std::vector<char>& buffer, int source, int tag, uint32_t context = 0) {
    Request* r = describe(Request::Kind::kRecv, buffer.data(), buffer.size(), source, tag, context);
    start_recv(r);
    return r;
  }

  // Progress until done() holds; false if it never does.
  bool drive(const std::function<bool()>& done, int rounds = 10000) {
    for (int i = 0; i < rounds && !done(); ++i) self_->progress();
    return done();
  }
  void spin(int rounds) {
    for (int i = 0; i < rounds; ++i) self_->progress();
  }

  std::unique_ptr<RecordingSelfTransport> self_;
  Communicator comm_;
  std::vector<Request*> held_;
  size_t baseline_ = 0;
};

TEST_F(EngineTest, EagerMessageLandsInAPostedReceive) {
  std::vector<char> out = pattern(64, 1);
  std::vector<char> in(100, 0);
  Request* r = irecv(in, 0, 5);
  Request* s = isend(out, 5);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));

  EXPECT_EQ(std::memcmp(in.data(), out.data(), out.size()), 0);
  EXPECT_EQ(in[64], 0);  // nothing beyond the message
  EXPECT_EQ(r->status.MPI_SOURCE, 0);
  EXPECT_EQ(r->status.MPI_TAG, 5);
  EXPECT_EQ(status_bytes(r->status), 64u);
  EXPECT_EQ(r->error, MPI_SUCCESS);
  EXPECT_TRUE(r->matched);
  EXPECT_EQ(s->error, MPI_SUCCESS);
  EXPECT_EQ(unexpected_messages(), 0u);
}

TEST_F(EngineTest, UnexpectedEagerMessageIsBufferedUntilItsReceive) {
  std::vector<char> out = pattern(200, 2);
  const std::vector<char> sent = out;
  Request* s = isend(out, 9);
  ASSERT_TRUE(drive([&] { return s->complete; })) << "an eager send completes without its receive";
  EXPECT_EQ(unexpected_messages(), 1u);
  // The send buffer is the user's again: the engine kept its own copy.
  std::fill(out.begin(), out.end(), 'z');

  std::vector<char> in(200, 0);
  Request* r = irecv(in, 0, 9);
  EXPECT_TRUE(r->complete) << "a receive that finds its eager message completes at once";
  EXPECT_EQ(in, sent);
  EXPECT_EQ(status_bytes(r->status), 200u);
  EXPECT_EQ(r->status.MPI_TAG, 9);
  EXPECT_EQ(r->error, MPI_SUCCESS);
  EXPECT_EQ(unexpected_messages(), 0u);
}

TEST_F(EngineTest, ZeroByteMessagesMatchPostedAndUnexpected) {
  std::vector<char> none;
  std::vector<char> in_posted;
  Request* r1 = irecv(in_posted, MPI_ANY_SOURCE, 1);
  Request* s1 = isend(none, 1);
  Request* s2 = isend(none, 2);
  ASSERT_TRUE(drive([&] { return r1->complete && s1->complete && s2->complete; }));
  EXPECT_EQ(status_bytes(r1->status), 0u);
  EXPECT_EQ(unexpected_messages(), 1u);
  std::vector<char> in_late;
  Request* r2 = irecv(in_late, 0, MPI_ANY_TAG);
  ASSERT_TRUE(r2->complete);
  EXPECT_EQ(r2->status.MPI_TAG, 2);
  EXPECT_EQ(status_bytes(r2->status), 0u);
}

TEST_F(EngineTest, EagerLimitIsTheLargestMessageSentEagerly) {
  std::vector<char> at_limit = pattern(kEagerLimit, 3);
  std::vector<char> above = pattern(kEagerLimit + 1, 4);
  Request* eager = isend(at_limit, 1);
  Request* rendezvous = isend(above, 2);
  spin(50);
  EXPECT_TRUE(eager->complete) << "a message of eager_limit bytes goes eagerly";
  EXPECT_FALSE(rendezvous->complete) << "a message above eager_limit waits for its receive";
  ASSERT_EQ(self_->sent.size(), 2u);
  EXPECT_EQ(self_->sent[0].type, PacketType::kEager);
  EXPECT_EQ(self_->sent[0].payload_bytes, kEagerLimit);
  EXPECT_EQ(self_->sent[1].type, PacketType::kRendezvousRequest);
  EXPECT_EQ(self_->sent[1].payload_bytes, 0u) << "a rendezvous request carries no data";
  EXPECT_EQ(self_->sent[1].message_bytes, kEagerLimit + 1);

  std::vector<char> in1(kEagerLimit), in2(kEagerLimit + 1);
  Request* r1 = irecv(in1, 0, 1);
  Request* r2 = irecv(in2, 0, 2);
  ASSERT_TRUE(drive([&] { return r1->complete && r2->complete && rendezvous->complete; }));
  EXPECT_EQ(in1, at_limit);
  EXPECT_EQ(in2, above);
}

TEST_F(EngineTest, RendezvousMessageLandsInAPostedReceive) {
  std::vector<char> out = pattern(100000, 5);
  std::vector<char> in(100000, 0);
  Request* r = irecv(in, MPI_ANY_SOURCE, MPI_ANY_TAG);
  Request* s = isend(out, 77);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
  EXPECT_EQ(r->status.MPI_SOURCE, 0);
  EXPECT_EQ(r->status.MPI_TAG, 77);
  EXPECT_EQ(status_bytes(r->status), 100000u);
  EXPECT_EQ(r->error, MPI_SUCCESS);
  EXPECT_EQ(s->error, MPI_SUCCESS);
}

TEST_F(EngineTest, UnexpectedRendezvousMessageWaitsForItsReceive) {
  std::vector<char> out = pattern(50000, 6);
  Request* s = isend(out, 3);
  spin(100);
  EXPECT_FALSE(s->complete) << "the data of a rendezvous send stays with the sender until matched";
  EXPECT_EQ(unexpected_messages(), 1u);

  std::vector<char> in(50000, 0);
  Request* r = irecv(in, 0, 3);
  EXPECT_EQ(unexpected_messages(), 0u);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
  EXPECT_EQ(status_bytes(r->status), 50000u);
  EXPECT_EQ(r->error, MPI_SUCCESS);
}

TEST_F(EngineTest, SynchronousSendCompletesOnlyAfterItsReceiveIsPosted) {
  std::vector<char> out = pattern(8, 7);  // small: would go eagerly in standard mode
  Request* s = isend(out, 4, Request::Mode::kSynchronous);
  spin(100);
  EXPECT_FALSE(s->complete) << "MPI-3.1 §3.4: a synchronous send completes only once its receive matched";
  EXPECT_EQ(unexpected_messages(), 1u);
  EXPECT_EQ(self_->count(PacketType::kEager), 0u);
  EXPECT_EQ(self_->count(PacketType::kRendezvousRequest), 1u);

  std::vector<char> in(8, 0);
  Request* r = irecv(in, 0, 4);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
  EXPECT_EQ(status_bytes(r->status), 8u);
}

TEST_F(EngineTest, SynchronousSendToAPostedReceive) {
  std::vector<char> out = pattern(16, 8);
  std::vector<char> in(16, 0);
  Request* r = irecv(in, 0, 4);
  Request* s = isend(out, 4, Request::Mode::kSynchronous);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
}

TEST_F(EngineTest, ZeroByteSynchronousSendStillWaitsForItsReceive) {
  std::vector<char> none;
  Request* s = isend(none, 4, Request::Mode::kSynchronous);
  spin(50);
  EXPECT_FALSE(s->complete);
  std::vector<char> in;
  Request* r = irecv(in, 0, 4);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(status_bytes(r->status), 0u);
}

// Truncation (MPI-3.1 §3.2.4): the receive reports MPI_ERR_TRUNCATE, its
// status counts the bytes that fit, and nothing is written past its buffer.
struct TruncationCase {
  const char* name;
  size_t message_bytes;
  bool posted_first;
};

class TruncationTest : public EngineTest, public ::testing::WithParamInterface<TruncationCase> {};

TEST_P(TruncationTest, ReceiveReportsErrTruncateAndFillsOnlyItsBuffer) {
  const TruncationCase& c = GetParam();
  constexpr size_t kCapacity = 40;
  constexpr size_t kGuard = 64;
  std::vector<char> out = pattern(c.message_bytes, 9);
  std::vector<char> space(kCapacity + kGuard, static_cast<char>(0xee));
  Request* r = nullptr;
  Request* s = nullptr;
  auto post = [&] {
    r = describe(Request::Kind::kRecv, space.data(), kCapacity, 0, 6, 0);
    start_recv(r);
  };
  if (c.posted_first) post();
  s = isend(out, 6);
  if (!c.posted_first) {
    spin(5);
    post();
  }
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));

  EXPECT_EQ(error_code::class_of(r->error), MPI_ERR_TRUNCATE);
  EXPECT_EQ(r->status.MPI_ERROR, r->error);
  EXPECT_NE(error_code::text(r->error).find("truncated"), std::string::npos) << error_code::text(r->error);
  EXPECT_EQ(status_bytes(r->status), kCapacity);
  EXPECT_EQ(r->status.MPI_TAG, 6);
  EXPECT_EQ(std::memcmp(space.data(), out.data(), kCapacity), 0);
  for (size_t i = kCapacity; i < space.size(); ++i) ASSERT_EQ(space[i], static_cast<char>(0xee)) << "byte " << i;
  EXPECT_EQ(s->error, MPI_SUCCESS) << "truncation is the receiver's error, not the sender's";
  // A truncated rendezvous sends only what the receive holds.
  for (const PacketHeader& h : self_->sent) {
    if (h.type == PacketType::kRendezvousData) {
      EXPECT_EQ(h.payload_bytes, kCapacity);
    }
  }
  EXPECT_EQ(self_->count(PacketType::kRendezvousData), c.message_bytes > kEagerLimit ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(Protocols, TruncationTest,
                         ::testing::Values(TruncationCase{"EagerPosted", 100, true},
                                           TruncationCase{"EagerUnexpected", 100, false},
                                           TruncationCase{"RendezvousPosted", 5000, true},
                                           TruncationCase{"RendezvousUnexpected", 5000, false}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(EngineTest, ExactFitIsNotTruncation) {
  std::vector<char> out = pattern(kEagerLimit + 10, 10);
  std::vector<char> in(out.size());
  Request* r = irecv(in, 0, 1);
  Request* s = isend(out, 1);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(r->error, MPI_SUCCESS);
  EXPECT_EQ(in, out);
}

TEST_F(EngineTest, ProbeReportsEnvelopeAndSizeWithoutReceiving) {
  MPI_Status st{};
  EXPECT_FALSE(probe(0, MPI_ANY_SOURCE, MPI_ANY_TAG, &st));

  std::vector<char> small = pattern(100, 11);
  std::vector<char> big = pattern(4000, 12);
  isend(small, 7);
  Request* big_send = isend(big, 8);
  spin(5);

  ASSERT_TRUE(probe(0, MPI_ANY_SOURCE, MPI_ANY_TAG, &st));
  EXPECT_EQ(st.MPI_SOURCE, 0);
  EXPECT_EQ(st.MPI_TAG, 7);
  EXPECT_EQ(status_bytes(st), 100u);
  EXPECT_FALSE(status_cancelled(st));

  MPI_Status big_status{};
  ASSERT_TRUE(probe(0, 0, 8, &big_status));
  EXPECT_EQ(status_bytes(big_status), 4000u) << "a rendezvous message's size is known from its request";
  EXPECT_FALSE(probe(0, 0, 9, &st));
  EXPECT_FALSE(probe(2, MPI_ANY_SOURCE, MPI_ANY_TAG, &st)) << "another context";
  EXPECT_EQ(unexpected_messages(), 2u) << "probing receives nothing";

  std::vector<char> in_small(100), in_big(4000);
  Request* r1 = irecv(in_small, 0, 7);
  Request* r2 = irecv(in_big, 0, 8);
  ASSERT_TRUE(drive([&] { return r1->complete && r2->complete && big_send->complete; }));
  EXPECT_EQ(in_small, small);
  EXPECT_EQ(in_big, big);
}

TEST_F(EngineTest, TakenMessageIsReceivedOnlyByItsMatchedReceive) {
  std::vector<char> first = pattern(50, 13);
  std::vector<char> second = pattern(60, 14);
  isend(first, 5);
  isend(second, 5);
  spin(5);

  MPI_Status st{};
  UnexpectedMessage* m = take_message(0, 0, 5, &st);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(status_bytes(st), 50u);
  EXPECT_EQ(unexpected_messages(), 1u);

  // A wildcard receive can no longer see the taken message: it gets the second.
  std::vector<char> in_any(100, 0);
  Request* any = irecv(in_any, MPI_ANY_SOURCE, MPI_ANY_TAG);
  ASSERT_TRUE(any->complete);
  EXPECT_EQ(status_bytes(any->status), 60u);
  EXPECT_EQ(std::memcmp(in_any.data(), second.data(), 60), 0);

  std::vector<char> in(50, 0);
  Request* r = describe(Request::Kind::kRecv, in.data(), in.size(), 0, 5, 0);
  start_matched_recv(r, m);
  ASSERT_TRUE(drive([&] { return r->complete; }));
  EXPECT_EQ(in, first);
  EXPECT_EQ(r->error, MPI_SUCCESS);
}

TEST_F(EngineTest, TakenRendezvousMessageIsReceived) {
  std::vector<char> out = pattern(3000, 15);
  Request* s = isend(out, 5);
  spin(5);
  MPI_Status st{};
  UnexpectedMessage* m = take_message(0, MPI_ANY_SOURCE, MPI_ANY_TAG, &st);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(status_bytes(st), 3000u);
  EXPECT_EQ(take_message(0, MPI_ANY_SOURCE, MPI_ANY_TAG, &st), nullptr);

  std::vector<char> in(3000, 0);
  Request* r = describe(Request::Kind::kRecv, in.data(), in.size(), 0, 5, 0);
  start_matched_recv(r, m);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
}

TEST_F(EngineTest, CancelTakesBackAnUnmatchedReceive) {
  std::vector<char> in(32, 'k');
  Request* r = irecv(in, 0, 3);
  ASSERT_TRUE(cancel_recv(r));
  EXPECT_TRUE(r->complete);
  EXPECT_TRUE(r->cancelled);
  EXPECT_TRUE(status_cancelled(r->status));
  EXPECT_FALSE(cancel_recv(r)) << "a receive is cancelled once";

  // A message for the cancelled receive's envelope now waits unexpected.
  std::vector<char> out = pattern(32, 16);
  isend(out, 3);
  spin(5);
  EXPECT_EQ(unexpected_messages(), 1u);
  EXPECT_EQ(in, std::vector<char>(32, 'k'));

  std::vector<char> in2(32, 0);
  Request* r2 = irecv(in2, 0, 3);
  ASSERT_TRUE(r2->complete);
  EXPECT_EQ(in2, out);
}

TEST_F(EngineTest, CancelFailsForAMatchedReceive) {
  std::vector<char> out = pattern(5000, 17);  // rendezvous: matched before the data is in
  std::vector<char> in(5000, 0);
  Request* r = irecv(in, 0, 3);
  Request* s = isend(out, 3);
  ASSERT_TRUE(drive([&] { return r->matched; }));
  EXPECT_FALSE(cancel_recv(r));
  EXPECT_FALSE(r->cancelled);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
  EXPECT_FALSE(status_cancelled(r->status));
}

TEST_F(EngineTest, ContextsIsolateTraffic) {
  std::vector<char> out = pattern(10, 18);
  std::vector<char> in(10, 0);
  Request* other_context = irecv(in, MPI_ANY_SOURCE, MPI_ANY_TAG, /*context=*/1);
  isend(out, 1, Request::Mode::kStandard, /*context=*/0);
  spin(10);
  EXPECT_FALSE(other_context->complete);
  EXPECT_EQ(unexpected_messages(), 1u);

  std::vector<char> in0(10, 0);
  Request* r = irecv(in0, 0, 1, 0);
  ASSERT_TRUE(r->complete);
  EXPECT_EQ(in0, out);
  EXPECT_TRUE(cancel_recv(other_context));
}

TEST_F(EngineTest, ReceiveWithAnotherTagDoesNotTakeTheMessage) {
  std::vector<char> out = pattern(10, 19);
  std::vector<char> in(10, 0);
  Request* wrong = irecv(in, 0, 2);
  isend(out, 1);
  spin(10);
  EXPECT_FALSE(wrong->complete);
  std::vector<char> right_in(10);
  Request* right = irecv(right_in, 0, 1);
  ASSERT_TRUE(right->complete);
  EXPECT_EQ(right_in, out);
  EXPECT_TRUE(cancel_recv(wrong));
}

// A stream transport (TCP) hands the engine a header first and the payload
// later; these drive the engine's PacketHandler the same way.
TEST_F(EngineTest, PostedReceiveGetsItsPayloadStraightIntoItsBuffer) {
  std::vector<char> in(64, 0);
  Request* r = irecv(in, 0, 4);
  PacketHeader h{};
  h.type = PacketType::kEager;
  h.source = 0;
  h.tag = 4;
  h.payload_bytes = h.message_bytes = 50;
  Destination d = packet_handler()->on_header(0, h);
  EXPECT_EQ(d.data, in.data()) << "no intermediate copy for a posted receive";
  EXPECT_EQ(d.capacity, in.size());
  EXPECT_TRUE(r->matched);
  EXPECT_FALSE(r->complete) << "complete only once the payload is in";
  std::vector<char> out = pattern(50, 20);
  std::memcpy(d.data, out.data(), 50);
  packet_handler()->on_payload(0, h, d);
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(status_bytes(r->status), 50u);
  EXPECT_EQ(std::memcmp(in.data(), out.data(), 50), 0);
}

TEST_F(EngineTest, ReceiveMatchingAnEagerMessageStillArrivingCompletesWhenItsDataIsIn) {
  PacketHeader h{};
  h.type = PacketType::kEager;
  h.source = 0;
  h.tag = 4;
  h.payload_bytes = h.message_bytes = 100;
  Destination d = packet_handler()->on_header(0, h);
  ASSERT_NE(d.data, nullptr);
  ASSERT_EQ(d.capacity, 100u);
  EXPECT_EQ(unexpected_messages(), 1u);
  MPI_Status st{};
  ASSERT_TRUE(probe(0, 0, 4, &st));
  EXPECT_EQ(status_bytes(st), 100u);

  std::vector<char> in(100, 0);
  Request* r = irecv(in, 0, 4);
  EXPECT_TRUE(r->matched);
  EXPECT_FALSE(r->complete) << "its data has not arrived yet";
  EXPECT_FALSE(cancel_recv(r)) << "a matched receive cannot be cancelled";
  EXPECT_EQ(unexpected_messages(), 0u);

  // A second receive for the same envelope must not take the claimed message.
  std::vector<char> in2(100, 0);
  Request* r2 = irecv(in2, MPI_ANY_SOURCE, MPI_ANY_TAG);
  EXPECT_FALSE(r2->matched);

  std::vector<char> out = pattern(100, 21);
  std::memcpy(d.data, out.data(), 100);
  packet_handler()->on_payload(0, h, d);
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(in, out);
  EXPECT_EQ(r->error, MPI_SUCCESS);
  EXPECT_FALSE(r2->complete);
  EXPECT_TRUE(cancel_recv(r2));
}

// MPI-3.1 §3.5: messages from one sender on one communicator are received in
// the order they were sent, whatever their size, mode and protocol. Sizes
// straddle the eager limit (256); every fifth send is synchronous.
class OrderTest : public EngineTest {
 protected:
  static constexpr size_t kSizes[] = {0,   1,   100, 256, 257,    5000, 1, 70000,
                                      255, 256, 3,   100000, 0,   256,  12345, 7};
  static constexpr int kMessages = 64;

  // Posts `posted_before` receives, sends every message, then posts the rest.
  void check_order(int posted_before, int source, int tag) {
    std::vector<std::vector<char>> out;
    std::vector<std::vector<char>> in;
    for (int i = 0; i < kMessages; ++i) {
      size_t n = kSizes[i % std::size(kSizes)];
      out.push_back(pattern(n, 100 + i));
      in.emplace_back(n, static_cast<char>(0x5a));
    }
    std::vector<Request*> receives;
    std::vector<Request*> sends;
    for (int i = 0; i < posted_before; ++i) receives.push_back(irecv(in[i], source, tag));
    for (int i = 0; i < kMessages; ++i)
      sends.push_back(isend(out[i], 5, i % 5 == 4 ? Request::Mode::kSynchronous : Request::Mode::kStandard));
    spin(3);
    for (int i = posted_before; i < kMessages; ++i) receives.push_back(irecv(in[i], source, tag));
    ASSERT_TRUE(drive([&] {
      for (int i = 0; i < kMessages; ++i)
        if (!receives[i]->complete || !sends[i]->complete) return false;
      return true;
    }));
    for (int i = 0; i < kMessages; ++i) {
      EXPECT_EQ(receives[i]->error, MPI_SUCCESS) << "receive " << i << ": "
                                                 << error_code::text(receives[i]->error);
      EXPECT_EQ(status_bytes(receives[i]->status), out[i].size()) << "receive " << i;
      EXPECT_TRUE(in[i] == out[i]) << "receive " << i << " got another message's data";
    }
  }
};

TEST_F(OrderTest, MessagesAreReceivedInSendOrderWhenAllArriveUnexpected) { check_order(0, 0, 5); }
TEST_F(OrderTest, MessagesAreReceivedInSendOrderWhenAllReceivesArePosted) { check_order(kMessages, 0, 5); }
TEST_F(OrderTest, MessagesAreReceivedInSendOrderWhenHalfArePosted) { check_order(kMessages / 2, 0, 5); }
TEST_F(OrderTest, WildcardReceivesKeepSendOrder) {
  check_order(kMessages / 3, MPI_ANY_SOURCE, MPI_ANY_TAG);
}

// --- the TCP transport on its own, over loopback ---

namespace tcp_loopback {

using transport::tcp::TcpOptions;
using transport::tcp::TcpTransport;

// Records every packet: its header, its payload, and the order of arrival.
class RecordingHandler final : public PacketHandler {
 public:
  static constexpr size_t kGuardBytes = 4096;
  static constexpr char kGuard = static_cast<char>(0xee);

  struct Packet {
    int peer = -1;
    PacketHeader header{};
    std::vector<char> space;  // the destination, then guard bytes for a whole payload's overrun
    size_t kept = 0;          // the destination's capacity
    bool complete = false;

    std::vector<char> data() const { return std::vector<char>(space.begin(), space.begin() + kept); }
    bool guard_intact() const {
      for (size_t i = kept; i < space.size(); ++i)
        if (space[i] != kGuard) return false;
      return true;
    }
  };

  Destination on_header(int peer, const PacketHeader& h) override {
    Packet& p = packets.emplace_back();
    p.peer = peer;
    p.header = h;
    p.kept = std::min<uint64_t>(h.payload_bytes, capacity_limit);
    p.space.assign(h.payload_bytes + kGuardBytes, kGuard);
    return Destination{p.space.data(), p.kept, &p};
  }
  void on_payload(int peer, const PacketHeader& h, const Destination& d) override {
    auto* p = static_cast<Packet*>(d.context);
    if (p != &packets.back() || p->complete || std::memcmp(&p->header, &h, sizeof h) != 0) ++mismatched_payloads;
    p->complete = true;
  }
  size_t complete_count() const {
    size_t n = 0;
    for (const Packet& p : packets) n += p.complete ? 1 : 0;
    return n;
  }

  std::deque<Packet> packets;  // a deque: pointers to elements stay valid
  uint64_t capacity_limit = UINT64_MAX;
  int mismatched_payloads = 0;
};

// A SendItem that notes when the transport is done with it.
struct TrackedItem {
  SendItem item;  // first: the transport's pointer is the TrackedItem's
  int sent_calls = 0;
  static void on_sent(SendItem* i) { ++reinterpret_cast<TrackedItem*>(i)->sent_calls; }
};

class TcpLoopbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (size_t i = 0; i < transport::tcp::kSecretBytes; ++i) secret_[i] = static_cast<uint8_t>(17 * i + 3);
  }

  // A transport for `rank` of a 2-rank job, listening, its card published.
  std::unique_ptr<TcpTransport> make(int rank, const uint8_t (&secret)[transport::tcp::kSecretBytes],
                                     PacketHandler* handler, bool publish = true) {
    TcpOptions o;
    o.my_rank = rank;
    o.world_size = 2;
    o.my_hostname = "ferry-unit-test-host";  // both on the same host: loopback
    std::memcpy(o.secret, secret, transport::tcp::kSecretBytes);
    o.connect_timeout_ms = 5000;
    o.card_of = [this](int peer, std::string* card) {
      *card = cards_[peer];
      return !card->empty();
    };
    o.fatal = [this](const std::string& message) { fatal_messages_.push_back(message); };
    auto t = std::make_unique<TcpTransport>(std::move(o), handler);
    std::string card;
    std::string error;
    EXPECT_TRUE(t->listen("", &card, &error)) << error;
    if (publish) cards_[rank] = card;
    return t;
  }

  template <typename Done>
  bool progress_until(std::initializer_list<TcpTransport*> transports, Done done, double seconds = 10) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      for (TcpTransport* t : transports) t->progress();
    }
    return true;
  }

  static void prepare(TrackedItem& t, PacketType type, int tag, const std::vector<char>& payload) {
    t.item.header = PacketHeader{};
    t.item.header.type = type;
    t.item.header.source = 0;
    t.item.header.tag = tag;
    t.item.header.context = 42;
    t.item.header.payload_bytes = payload.size();
    t.item.header.message_bytes = payload.size() + 1000;
    t.item.header.sender_cookie = 0x1122334455667788ull + tag;
    t.item.header.receiver_cookie = 0x99aabbccddeeff00ull - tag;
    t.item.payload = payload.empty() ? nullptr : payload.data();
    t.item.on_sent = &TrackedItem::on_sent;
  }

  uint8_t secret_[transport::tcp::kSecretBytes];
  std::string cards_[2];
  std::vector<std::string> fatal_messages_;
};

TEST_F(TcpLoopbackTest, PacketsArriveInOrderWithIntactHeadersAndData) {
  RecordingHandler h0, h1;
  auto t0 = make(0, secret_, &h0);
  auto t1 = make(1, secret_, &h1);

  std::vector<std::vector<char>> payloads = {
      {},                            // header only (a rendezvous request)
      pattern(100, 1),               // small
      pattern(4 << 20, 2),           // 4 MiB: read straight into its destination
      {},                            // zero-byte eager message
      pattern(16 * 1024 - 1, 3),     // just under the direct-read size
      pattern(70000, 4),             // more than one read buffer
      pattern(1, 5),
  };
  const PacketType types[] = {PacketType::kRendezvousRequest, PacketType::kEager, PacketType::kRendezvousData,
                              PacketType::kEager,             PacketType::kEager, PacketType::kEager,
                              PacketType::kRendezvousReady};
  std::vector<TrackedItem> items(payloads.size());
  for (size_t i = 0; i < payloads.size(); ++i) {
    prepare(items[i], types[i], static_cast<int>(i), payloads[i]);
    ASSERT_EQ(t0->send(1, &items[i].item), nullptr);
  }
  EXPECT_TRUE(t0->has_pending_sends());

  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return h1.complete_count() == payloads.size(); }))
      << h1.complete_count() << " of " << payloads.size() << " packets arrived";
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return !t0->has_pending_sends(); }));

  ASSERT_EQ(h1.packets.size(), payloads.size());
  for (size_t i = 0; i < payloads.size(); ++i) {
    const RecordingHandler::Packet& p = h1.packets[i];
    EXPECT_EQ(p.peer, 0) << "packet " << i;
    EXPECT_EQ(std::memcmp(&p.header, &items[i].item.header, sizeof(PacketHeader)), 0) << "packet " << i;
    EXPECT_TRUE(p.data() == payloads[i]) << "packet " << i << " (" << payloads[i].size() << " bytes) corrupted";
    EXPECT_TRUE(p.guard_intact()) << "packet " << i << " written past its destination";
    EXPECT_EQ(items[i].sent_calls, 1) << "packet " << i;
  }
  EXPECT_EQ(h1.mismatched_payloads, 0);
  EXPECT_TRUE(h0.packets.empty()) << "nothing was sent to rank 0";
  EXPECT_EQ(t1->refused_connections(), 0);
  EXPECT_TRUE(fatal_messages_.empty()) << fatal_messages_.front();
}

TEST_F(TcpLoopbackTest, BothDirectionsWorkAtOnce) {
  RecordingHandler h0, h1;
  auto t0 = make(0, secret_, &h0);
  auto t1 = make(1, secret_, &h1);
  std::vector<char> a = pattern(300000, 6);
  std::vector<char> b = pattern(200000, 7);
  TrackedItem to1, to0;
  prepare(to1, PacketType::kEager, 1, a);
  prepare(to0, PacketType::kEager, 2, b);
  to0.item.header.source = 1;
  ASSERT_EQ(t0->send(1, &to1.item), nullptr);
  ASSERT_EQ(t1->send(0, &to0.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return h0.complete_count() == 1 && h1.complete_count() == 1; }));
  EXPECT_EQ(h1.packets[0].peer, 0);
  EXPECT_EQ(h0.packets[0].peer, 1);
  EXPECT_TRUE(h1.packets[0].data() == a);
  EXPECT_TRUE(h0.packets[0].data() == b);
}

TEST_F(TcpLoopbackTest, BytesBeyondTheDestinationAreDiscardedAndTheStreamStaysFramed) {
  RecordingHandler h0, h1;
  h1.capacity_limit = 1000;  // every destination holds at most 1000 bytes
  auto t0 = make(0, secret_, &h0);
  auto t1 = make(1, secret_, &h1);
  std::vector<std::vector<char>> payloads = {pattern(1 << 20, 8), pattern(5000, 9), pattern(10, 10)};
  std::vector<TrackedItem> items(payloads.size());
  for (size_t i = 0; i < payloads.size(); ++i) {
    prepare(items[i], PacketType::kEager, static_cast<int>(i), payloads[i]);
    ASSERT_EQ(t0->send(1, &items[i].item), nullptr);
  }
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return h1.complete_count() == payloads.size(); }));
  for (size_t i = 0; i < payloads.size(); ++i) {
    const RecordingHandler::Packet& p = h1.packets[i];
    EXPECT_EQ(p.header.tag, static_cast<int>(i));
    EXPECT_EQ(p.header.payload_bytes, payloads[i].size());
    size_t kept = std::min<size_t>(payloads[i].size(), 1000);
    ASSERT_EQ(p.kept, kept);
    EXPECT_EQ(std::memcmp(p.space.data(), payloads[i].data(), kept), 0) << "packet " << i;
    EXPECT_TRUE(p.guard_intact()) << "packet " << i << ": bytes beyond the destination were written";
  }
}

TEST_F(TcpLoopbackTest, ConnectionWithAnotherSecretIsRefusedAndDeliversNothing) {
  RecordingHandler h1, h_intruder;
  auto t1 = make(1, secret_, &h1);
  uint8_t wrong[transport::tcp::kSecretBytes];
  std::memcpy(wrong, secret_, sizeof wrong);
  wrong[5] ^= 0x10;  // one bit
  auto intruder = make(0, wrong, &h_intruder);

  std::vector<char> payload = pattern(1000, 11);
  TrackedItem item;
  prepare(item, PacketType::kEager, 1, payload);
  ASSERT_EQ(intruder->send(1, &item.item), nullptr);

  ASSERT_TRUE(progress_until({intruder.get(), t1.get()}, [&] { return t1->refused_connections() > 0; }))
      << "the receiver never refused the connection";
  // Give anything that slipped through a chance to show up.
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  while (std::chrono::steady_clock::now() < until) {
    intruder->progress();
    t1->progress();
  }
  EXPECT_EQ(t1->refused_connections(), 1);
  EXPECT_TRUE(h1.packets.empty()) << h1.packets.size() << " packets delivered from a refused connection";
  // The sender may or may not learn of it (its bytes may all have left
  // before the receiver closed the connection); only record what happened.
  RecordProperty("intruder_fatal_calls", static_cast<int>(fatal_messages_.size()));
  if (!fatal_messages_.empty()) std::printf("intruder's fatal: %s\n", fatal_messages_.front().c_str());
}

TEST_F(TcpLoopbackTest, ListenerStillAcceptsTheJobAfterRefusingAnIntruder) {
  RecordingHandler h0, h1, h_intruder;
  auto t1 = make(1, secret_, &h1);
  uint8_t wrong[transport::tcp::kSecretBytes] = {};
  auto intruder = make(0, wrong, &h_intruder, /*publish=*/false);
  auto t0 = make(0, secret_, &h0);

  std::vector<char> bad = pattern(10, 12);
  std::vector<char> good = pattern(10, 13);
  TrackedItem bad_item, good_item;
  prepare(bad_item, PacketType::kEager, 666, bad);
  prepare(good_item, PacketType::kEager, 7, good);
  ASSERT_EQ(intruder->send(1, &bad_item.item), nullptr);
  ASSERT_TRUE(progress_until({intruder.get(), t1.get()}, [&] { return t1->refused_connections() > 0; }));
  ASSERT_EQ(t0->send(1, &good_item.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get(), intruder.get()}, [&] { return h1.complete_count() == 1; }));
  ASSERT_EQ(h1.packets.size(), 1u);
  EXPECT_EQ(h1.packets[0].header.tag, 7);
  EXPECT_TRUE(h1.packets[0].data() == good);
}

TEST_F(TcpLoopbackTest, MissingContactCardIsFatal) {
  RecordingHandler h0;
  auto t0 = make(0, secret_, &h0);
  // Rank 1 never published a card.
  TrackedItem item;
  std::vector<char> none;
  prepare(item, PacketType::kEager, 1, none);
  EXPECT_EQ(t0->send(1, &item.item), nullptr);  // the failure is reported through fatal
  ASSERT_EQ(fatal_messages_.size(), 1u);
  EXPECT_NE(fatal_messages_[0].find("rank 1"), std::string::npos) << fatal_messages_[0];
  // Later sends to that rank fail at once.
  TrackedItem again;
  prepare(again, PacketType::kEager, 2, none);
  EXPECT_NE(t0->send(1, &again.item), nullptr);
}

}  // namespace tcp_loopback
}  // namespace
}  // namespace ferry::p2p
