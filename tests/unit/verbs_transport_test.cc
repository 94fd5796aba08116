// The verbs transport's protocol against the in-process model of RC queue
// pairs (transport/verbs/model_device.h): connections made at first send,
// eager frames with credits, rendezvous reads, the registration cache, and
// how device errors end the job. (No RDMA device is needed or used.)
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "transport/verbs/model_device.h"
#include "transport/verbs/verbs_transport.h"

namespace ferry::transport::verbs {
namespace {

std::vector<char> pattern(size_t bytes, int seed) {
  std::vector<char> out(bytes);
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>((i * 131 + static_cast<size_t>(seed) * 7919) >> 3);
  return out;
}

class Inbox final : public PacketHandler {
 public:
  struct Packet {
    int peer = -1;
    PacketHeader header{};
    std::vector<char> data;
    bool complete = false;
  };
  Destination on_header(int peer, const PacketHeader& h) override {
    Packet& p = packets.emplace_back();
    p.peer = peer;
    p.header = h;
    p.data.resize(h.payload_bytes);
    return Destination{p.data.data(), p.data.size(), &p};
  }
  void on_payload(int, const PacketHeader&, const Destination& d) override {
    static_cast<Packet*>(d.context)->complete = true;
  }
  size_t complete() const {
    size_t n = 0;
    for (const Packet& p : packets) n += p.complete ? 1 : 0;
    return n;
  }
  std::deque<Packet> packets;
};

struct Outgoing {
  SendItem item;
  std::vector<char> payload;
  bool sent = false;
};

void mark_sent(SendItem* item) { reinterpret_cast<Outgoing*>(item)->sent = true; }

// Two ranks of one job, each with a model device on one fabric; cards are
// exchanged directly, fatal errors are recorded.
struct Pair {
  ModelFabric fabric;
  ModelDevice* devices[2] = {};
  Inbox inbox[2];
  std::unique_ptr<VerbsTransport> ranks[2];
  std::vector<std::string> fatal[2];
  std::string cards[2];

  explicit Pair(VerbsOptions base = {}, LinkLayer link = LinkLayer::kInfiniBand, bool start = true) {
    for (int r = 0; r < 2; ++r) {
      auto device = fabric.add_device(link);
      devices[r] = device.get();
      VerbsOptions o = base;
      o.my_rank = r;
      o.world_size = 2;
      o.my_job = 7;
      o.port = 1;
      o.card_of = [this](int rank, std::string* card) {
        *card = cards[rank];
        return !card->empty();
      };
      o.fatal = [this, r](const std::string& m) { fatal[r].push_back(m); };
      ranks[r] = std::make_unique<VerbsTransport>(o, std::move(device), &inbox[r]);
    }
    if (start) {
      for (int r = 0; r < 2; ++r) {
        std::string error;
        EXPECT_TRUE(ranks[r]->start(&error)) << error;
        cards[r] = encode_card(ranks[r]->card());
      }
    }
  }
  // Progress both until `done` or a bound on rounds (no timing).
  template <typename F>
  bool run(F done, int rounds = 100000) {
    for (int i = 0; i < rounds; ++i) {
      if (done()) return true;
      ranks[0]->progress();
      ranks[1]->progress();
    }
    return done();
  }
  Outgoing* queue(int from, size_t bytes, int seed, std::deque<Outgoing>& keep) {
    Outgoing& o = keep.emplace_back();
    o.payload = pattern(bytes, seed);
    o.item.header.type = PacketType::kEager;
    o.item.header.tag = seed;
    o.item.header.payload_bytes = bytes;
    o.item.payload = o.payload.data();
    o.item.on_sent = mark_sent;
    EXPECT_EQ(ranks[from]->send(1 - from, &o.item), nullptr);
    return &o;
  }
};

TEST(VerbsModelTransport, ConnectsOnlyAtTheFirstSendAndDeliversThePacket) {
  Pair pair;
  EXPECT_EQ(pair.ranks[0]->connected_peers(), 0);
  EXPECT_EQ(pair.ranks[1]->connected_peers(), 0);
  std::deque<Outgoing> keep;
  pair.queue(0, 100, 1, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }));
  EXPECT_EQ(pair.inbox[1].packets[0].peer, 0);
  EXPECT_EQ(pair.inbox[1].packets[0].data, pattern(100, 1));
  EXPECT_TRUE(keep[0].sent);
  EXPECT_EQ(pair.ranks[0]->connected_peers(), 1);
  // The responder is connected once the requester's first frame arrived.
  EXPECT_EQ(pair.ranks[1]->connected_peers(), 1);
  EXPECT_TRUE(pair.fatal[0].empty() && pair.fatal[1].empty());
}

TEST(VerbsModelTransport, PacketsOfEverySizeArriveInOrderAndWhole) {
  VerbsOptions o;
  o.eager_limit = 1024;  // small buffers: most packets span several frames
  Pair pair(o);
  std::deque<Outgoing> keep;
  std::vector<size_t> sizes = {0, 1, 8, 60, 100, 1000, 1023, 1024, 1025, 3000, 65536, 200000};
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < sizes.size(); ++i) pair.queue(0, sizes[i], static_cast<int>(round * 100 + i), keep);
  size_t n = keep.size();
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == n; }));
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(pair.inbox[1].packets[i].header.tag, keep[i].item.header.tag) << "packet " << i << " out of order";
    EXPECT_EQ(pair.inbox[1].packets[i].data, keep[i].payload) << "packet " << i;
  }
  ASSERT_TRUE(pair.run([&] { return !pair.ranks[0]->has_pending_sends(); }, 1000));
}

// The responder's QP reaches RTS before the requester's leaves INIT; were
// the responder to send then, its packets would be dropped and retried.
TEST(VerbsModelTransport, TheRespondingRankHoldsItsPacketsUntilTheRequesterIsReady) {
  Pair pair;
  std::deque<Outgoing> keep;
  pair.queue(0, 10, 1, keep);
  pair.ranks[0]->progress();
  pair.ranks[1]->progress();  // takes the request, accepts
  pair.queue(1, 20, 2, keep);  // rank 0's QP is still in INIT
  pair.ranks[1]->progress();
  ASSERT_TRUE(pair.run([&] { return pair.inbox[0].complete() == 1 && pair.inbox[1].complete() == 1; }));
  EXPECT_EQ(pair.devices[1]->unready_tries(), 0) << "rank 1 sent to a QP not yet in RTR";
  EXPECT_EQ(pair.devices[0]->unready_tries(), 0);
  EXPECT_EQ(pair.inbox[0].packets[0].data, pattern(20, 2));
}

TEST(VerbsModelTransport, BothRanksSendingFirstAgreeOnOneQueuePair) {
  Pair pair;
  std::deque<Outgoing> keep;
  pair.queue(0, 10, 1, keep);
  pair.queue(1, 20, 2, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[0].complete() == 1 && pair.inbox[1].complete() == 1; }));
  EXPECT_EQ(pair.inbox[0].packets[0].data, pattern(20, 2));
  EXPECT_EQ(pair.inbox[1].packets[0].data, pattern(10, 1));
  EXPECT_EQ(pair.ranks[0]->connected_peers(), 1);
  EXPECT_EQ(pair.ranks[1]->connected_peers(), 1);
}

TEST(VerbsModelTransport, LostHandshakeDatagramsAreSentAgain) {
  Pair pair;
  pair.fabric.drop_datagrams = 3;  // the request, then its first retries
  std::deque<Outgoing> keep;
  pair.queue(0, 10, 1, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }, 100000000));
  EXPECT_TRUE(pair.fatal[0].empty());
}

TEST(VerbsModelTransport, AFloodOfUnexpectedPacketsWaitsForCreditsWithoutRnr) {
  VerbsOptions o;
  o.credits = 8;
  o.rnr_retry = 1;  // an RNR NAK would fail the QP at once
  Pair pair(o);
  std::deque<Outgoing> keep;
  pair.queue(0, 10, 0, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }));
  int posted = pair.devices[1]->posted_receives();
  // The receiver does not progress while 500 packets are sent.
  for (int i = 1; i <= 500; ++i) pair.queue(0, 100, i, keep);
  for (int i = 0; i < 1000; ++i) pair.ranks[0]->progress();
  EXPECT_EQ(pair.devices[0]->rnr_naks(), 0);
  EXPECT_GE(pair.devices[1]->posted_receives(), 0);
  EXPECT_LE(posted - pair.devices[1]->posted_receives(), 8 + 1) << "more frames in flight than credits";
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 501; }));
  for (int i = 0; i <= 500; ++i) EXPECT_EQ(pair.inbox[1].packets[static_cast<size_t>(i)].header.tag, i);
  EXPECT_EQ(pair.devices[0]->rnr_naks(), 0);
  EXPECT_EQ(pair.devices[1]->posted_receives(), posted) << "every receive buffer goes back";
  EXPECT_TRUE(pair.fatal[0].empty() && pair.fatal[1].empty());
}

TEST(VerbsModelTransport, CreditsComeBackWhenOnlyOneSideSends) {
  VerbsOptions o;
  o.credits = 4;
  Pair pair(o);
  std::deque<Outgoing> keep;
  for (int i = 0; i < 200; ++i) pair.queue(0, 8, i, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 200; }));
  EXPECT_TRUE(pair.fatal[0].empty() && pair.fatal[1].empty());
}

TEST(VerbsModelTransport, FloodsBothWaysAtOnceCarryEachOthersCredits) {
  VerbsOptions o;
  o.credits = 3;
  o.rnr_retry = 1;
  o.eager_limit = 256;  // most packets take several frames, hence several credits
  Pair pair(o);
  std::deque<Outgoing> keep;
  for (int i = 0; i < 300; ++i) {
    pair.queue(0, static_cast<size_t>(i * 7 % 1000), i, keep);
    pair.queue(1, static_cast<size_t>(i * 13 % 1000), 1000 + i, keep);
  }
  ASSERT_TRUE(pair.run([&] { return pair.inbox[0].complete() == 300 && pair.inbox[1].complete() == 300; }));
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(pair.inbox[1].packets[static_cast<size_t>(i)].data, pattern(static_cast<size_t>(i * 7 % 1000), i));
    EXPECT_EQ(pair.inbox[0].packets[static_cast<size_t>(i)].data, pattern(static_cast<size_t>(i * 13 % 1000), 1000 + i));
  }
  EXPECT_EQ(pair.devices[0]->rnr_naks() + pair.devices[1]->rnr_naks(), 0);
  EXPECT_TRUE(pair.fatal[0].empty() && pair.fatal[1].empty());
}

TEST(VerbsModelTransport, CompletionsAreSignaledInBatches) {
  Pair pair;
  std::deque<Outgoing> keep;
  for (int i = 0; i < 320; ++i) pair.queue(0, 8, i, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 320; }));
  EXPECT_GE(pair.ranks[0]->frames_sent(), 320u);
  EXPECT_LE(pair.ranks[0]->signaled_sends() * 8, pair.ranks[0]->frames_sent());
  // Finalize's drain: the last unsignaled frames are asked to complete.
  ASSERT_TRUE(pair.run([&] { return !pair.ranks[0]->has_pending_sends(); }, 1000));
}

TEST(VerbsModelTransport, RendezvousReadsTheExposedBufferInPlace) {
  Pair pair;
  std::deque<Outgoing> keep;
  pair.queue(0, 8, 0, keep);  // connects
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }));
  std::vector<char> source = pattern(3 << 20, 5), sink(3 << 20, 0);
  RemoteBuffer remote;
  ASSERT_TRUE(pair.ranks[0]->expose(1, MemoryRef{source.data()}, source.size(), &remote));
  struct Read {
    OneSided op;
    const char* error = "not done";
    bool done = false;
  } read;
  read.op.peer = 0;
  read.op.remote = remote;
  read.op.local = MemoryRef{sink.data()};
  read.op.bytes = sink.size();
  read.op.on_done = [](OneSided* op, const char* error) {
    auto* r = reinterpret_cast<Read*>(op);
    r->done = true;
    r->error = error;
  };
  ASSERT_EQ(pair.ranks[1]->start_read(&read.op), Started::kPending);
  ASSERT_TRUE(pair.run([&] { return read.done; }));
  EXPECT_EQ(read.error, nullptr);
  EXPECT_EQ(sink, source);
  pair.ranks[0]->conceal(remote);
}

TEST(VerbsModelTransport, ARefusedReadEndsTheJobNamingThePeer) {
  Pair pair;
  std::deque<Outgoing> keep;
  pair.queue(0, 8, 0, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }));
  std::vector<char> source(4096), sink(4096);
  RemoteBuffer remote;
  ASSERT_TRUE(pair.ranks[0]->expose(1, MemoryRef{source.data()}, source.size(), &remote));
  uint32_t wrong = 0xdead;
  std::memcpy(remote.key, &wrong, sizeof wrong);
  OneSided op;
  const char* error = nullptr;
  static const char** seen;
  seen = &error;
  op.peer = 0;
  op.remote = remote;
  op.local = MemoryRef{sink.data()};
  op.bytes = sink.size();
  op.on_done = [](OneSided*, const char* e) { *seen = e ? e : "ok"; };
  ASSERT_EQ(pair.ranks[1]->start_read(&op), Started::kPending);
  ASSERT_TRUE(pair.run([&] { return !pair.fatal[1].empty(); }));
  EXPECT_NE(pair.fatal[1][0].find("RDMA read from rank 0"), std::string::npos) << pair.fatal[1][0];
  EXPECT_NE(pair.fatal[1][0].find("remote access error"), std::string::npos) << pair.fatal[1][0];
  EXPECT_NE(error, nullptr);
  EXPECT_STRNE(error, "ok");
  EXPECT_NE(pair.ranks[1]->send(0, &pair.queue(0, 1, 1, keep)->item), nullptr) << "later sends fail at once";
}

TEST(VerbsModelTransport, ADeadPeerEndsTheJobInsteadOfHanging) {
  Pair pair;
  std::deque<Outgoing> keep;
  pair.queue(0, 8, 0, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }));
  pair.devices[1]->kill();
  pair.queue(0, 8, 1, keep);
  ASSERT_TRUE(pair.run([&] { return !pair.fatal[0].empty(); }));
  EXPECT_NE(pair.fatal[0][0].find("does not answer"), std::string::npos) << pair.fatal[0][0];
}

TEST(VerbsModelTransport, ExhaustedRnrRetriesEndTheJobSayingWhy) {
  VerbsOptions o;
  o.rnr_retry = 1;
  Pair pair(o);
  std::deque<Outgoing> keep;
  pair.queue(0, 8, 0, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }));
  pair.devices[1]->steal_receives(1 << 20);  // credits say yes, the receive queue is empty
  pair.queue(0, 8, 1, keep);
  ASSERT_TRUE(pair.run([&] { return !pair.fatal[0].empty(); }));
  EXPECT_NE(pair.fatal[0][0].find("RNR retries exhausted"), std::string::npos) << pair.fatal[0][0];
  EXPECT_NE(pair.fatal[0][0].find("rank 1"), std::string::npos) << pair.fatal[0][0];
}

TEST(VerbsModelTransport, AQueuePairInTheErrorStateEndsTheJob) {
  Pair pair;
  std::deque<Outgoing> keep;
  pair.queue(0, 8, 0, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }));
  pair.devices[0]->break_qp(0);
  pair.queue(0, 8, 1, keep);
  ASSERT_TRUE(pair.run([&] { return !pair.fatal[0].empty(); }));
  EXPECT_NE(pair.fatal[0][0].find("error state"), std::string::npos) << pair.fatal[0][0];
}

TEST(VerbsModelTransport, AnUnansweredConnectionRequestTimesOut) {
  VerbsOptions o;
  o.connect_timeout_ms = 100;
  Pair pair(o);
  pair.devices[1]->kill();
  std::deque<Outgoing> keep;
  pair.queue(0, 8, 0, keep);
  ASSERT_TRUE(pair.run([&] { return !pair.fatal[0].empty(); }, 1 << 30));
  EXPECT_NE(pair.fatal[0][0].find("did not answer the connection request"), std::string::npos) << pair.fatal[0][0];
}

TEST(VerbsModelTransport, APortThatIsDownIsAStartUpError) {
  Pair pair({}, LinkLayer::kInfiniBand, /*start=*/false);
  pair.devices[0]->set_port_active(false);
  std::string error;
  EXPECT_FALSE(pair.ranks[0]->start(&error));
  EXPECT_NE(error.find("port 1 is down"), std::string::npos) << error;
}

TEST(VerbsModelTransport, ALowLockedMemoryLimitIsAStartUpErrorThatSaysHowToRaiseIt) {
  Pair pair({}, LinkLayer::kInfiniBand, /*start=*/false);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_MEMLOCK, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = 64 * 1024;
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < low.rlim_cur) low.rlim_cur = saved.rlim_max;
  ASSERT_EQ(setrlimit(RLIMIT_MEMLOCK, &low), 0);
  std::string error;
  bool started = pair.ranks[0]->start(&error);
  setrlimit(RLIMIT_MEMLOCK, &saved);
  EXPECT_FALSE(started);
  EXPECT_NE(error.find("RLIMIT_MEMLOCK"), std::string::npos) << error;
  EXPECT_NE(error.find("64 KiB"), std::string::npos) << error;
  EXPECT_NE(error.find("ulimit -l unlimited"), std::string::npos) << error;
  EXPECT_NE(error.find("limits.conf"), std::string::npos) << error;
  EXPECT_NE(error.find("LimitMEMLOCK"), std::string::npos) << error;
  EXPECT_NE(error.find("memlock=-1"), std::string::npos) << error;
}

TEST(VerbsModelTransport, RoceUsesARoceV2GidByDefaultAndTheOneItIsTold) {
  Pair pair({}, LinkLayer::kEthernet);
  Card card;
  ASSERT_TRUE(decode_card(pair.cards[0], &card));
  EXPECT_EQ(card.link, LinkLayer::kEthernet);
  Gid expected;
  GidKind kind;
  ASSERT_TRUE(pair.devices[0]->query_gid(1, 3, &expected, &kind));
  EXPECT_EQ(kind, GidKind::kRoceV2);
  EXPECT_EQ(std::memcmp(card.gid.raw, expected.raw, 16), 0) << gid_text(card.gid);
  std::deque<Outgoing> keep;
  pair.queue(0, 100, 1, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }));

  VerbsOptions o;
  o.gid_index = 0;
  Pair told(o, LinkLayer::kEthernet);
  ASSERT_TRUE(decode_card(told.cards[0], &card));
  ASSERT_TRUE(told.devices[0]->query_gid(1, 0, &expected, &kind));
  EXPECT_EQ(std::memcmp(card.gid.raw, expected.raw, 16), 0);
}

TEST(VerbsModelTransport, SleepsOnTheCompletionChannelUntilAPacketArrives) {
  Pair pair;
  std::deque<Outgoing> keep;
  pair.queue(0, 8, 0, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }));
  ASSERT_TRUE(pair.ranks[1]->arm_wakeup()) << "nothing to do: it may sleep";
  pollfd fd{pair.ranks[1]->wait_fd(), POLLIN, 0};
  EXPECT_EQ(poll(&fd, 1, 0), 0);
  pair.queue(0, 8, 1, keep);
  EXPECT_EQ(poll(&fd, 1, 0), 1) << "the completion fired the channel";
  pair.ranks[1]->disarm_wakeup(true);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 2; }));
}

TEST(VerbsModelTransport, ArmingFindsWorkThatCameBeforeItAndKeepsIt) {
  Pair pair;
  std::deque<Outgoing> keep;
  pair.queue(0, 8, 0, keep);
  ASSERT_TRUE(pair.run([&] { return pair.inbox[1].complete() == 1; }));
  pair.queue(0, 8, 1, keep);
  EXPECT_FALSE(pair.ranks[1]->arm_wakeup());
  pair.ranks[1]->progress();
  EXPECT_EQ(pair.inbox[1].complete(), 2u);
}

}  // namespace
}  // namespace ferry::transport::verbs
