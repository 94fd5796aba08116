// The TCP transport's connections over loopback: which sockets carry which
// direction, order on them, and what happens when a peer goes away.
// (Framing, truncation and the job secret: p2p_engine_test.cc, TcpLoopbackTest.)
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "progress/progress.h"
#include "transport/tcp/tcp_transport.h"

namespace ferry::transport::tcp {
namespace {

std::vector<char> pattern(size_t bytes, int seed) {
  std::vector<char> out(bytes);
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>((i * 131 + static_cast<size_t>(seed) * 7919) >> 3);
  return out;
}

// Keeps every packet that arrives, with its payload.
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

  std::deque<Packet> packets;  // a deque: pointers to elements stay valid
};

// A packet to send, with its payload, and whether the transport is done with it.
struct Outgoing {
  SendItem item;  // first: the transport's pointer is the Outgoing's
  std::vector<char> payload;
  int sent_calls = 0;

  Outgoing(int source, int tag, std::vector<char> bytes) : payload(std::move(bytes)) {
    item.header = PacketHeader{};
    item.header.type = PacketType::kEager;
    item.header.source = source;
    item.header.tag = tag;
    item.header.payload_bytes = payload.size();
    item.header.message_bytes = payload.size();
    item.payload = payload.empty() ? nullptr : payload.data();
    item.on_sent = [](SendItem* i) { ++reinterpret_cast<Outgoing*>(i)->sent_calls; };
  }
};

class TcpTransportTest : public ::testing::Test {
 public:
  void SetUp() override {
    for (size_t i = 0; i < kSecretBytes; ++i) secret_[i] = static_cast<uint8_t>(29 * i + 5);
  }

  // A listening transport for `rank` of a `world`-rank job on one host.
  std::unique_ptr<TcpTransport> make(int rank, int world, PacketHandler* handler) {
    TcpOptions o;
    o.my_rank = rank;
    o.world_size = world;
    o.my_hostname = "ferry-unit-test-host";
    std::memcpy(o.secret, secret_, kSecretBytes);
    o.connect_timeout_ms = 5000;
    o.card_of = [this](int peer, std::string* card) {
      *card = cards_[peer];
      return !card->empty();
    };
    o.fatal = [this](const std::string& message) { fatal_.push_back(message); };
    auto t = std::make_unique<TcpTransport>(std::move(o), handler);
    std::string error;
    EXPECT_TRUE(t->listen("", &cards_[rank], &error)) << error;
    return t;
  }

  template <typename Done>
  static bool progress_until(std::initializer_list<TcpTransport*> transports, Done done, double seconds = 10) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      for (TcpTransport* t : transports) t->progress();
    }
    return true;
  }

  // The packets `inbox` holds from `peer` are `sent`, in order, intact.
  static void expect_in_order(const Inbox& inbox, int peer, const std::deque<Outgoing>& sent) {
    std::vector<const Inbox::Packet*> from;
    for (const Inbox::Packet& p : inbox.packets)
      if (p.peer == peer) from.push_back(&p);
    ASSERT_EQ(from.size(), sent.size());
    for (size_t i = 0; i < sent.size(); ++i) {
      EXPECT_EQ(from[i]->header.tag, sent[i].item.header.tag) << "packet " << i << " from rank " << peer;
      EXPECT_TRUE(from[i]->data == sent[i].payload) << "packet " << i << " from rank " << peer << " corrupted";
      EXPECT_EQ(sent[i].sent_calls, 1) << "packet " << i << " to rank " << peer;
    }
  }

  uint8_t secret_[kSecretBytes];
  std::map<int, std::string> cards_;
  std::vector<std::string> fatal_;
};

TEST_F(TcpTransportTest, TheReplyTravelsOnTheConnectionTheFirstSenderOpened) {
  Inbox in0, in1;
  auto t0 = make(0, 2, &in0);
  auto t1 = make(1, 2, &in1);
  Outgoing request(0, 1, pattern(100, 1));
  ASSERT_EQ(t0->send(1, &request.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return in1.complete() == 1; }));
  Outgoing reply(1, 2, pattern(200, 2));
  ASSERT_EQ(t1->send(0, &reply.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return in0.complete() == 1; }));

  EXPECT_EQ(in0.packets[0].peer, 1);
  EXPECT_TRUE(in0.packets[0].data == reply.payload);
  EXPECT_EQ(t0->open_connections(), 1) << "rank 1 opened a connection of its own";
  EXPECT_EQ(t1->open_connections(), 1);
  EXPECT_TRUE(fatal_.empty()) << fatal_.front();
}

TEST_F(TcpTransportTest, ManyPacketsBothWaysOnOneConnectionKeepTheirOrder) {
  Inbox in0, in1;
  auto t0 = make(0, 2, &in0);
  auto t1 = make(1, 2, &in1);
  std::deque<Outgoing> to1, to0;
  to1.emplace_back(0, 0, pattern(10, 0));
  ASSERT_EQ(t0->send(1, &to1.back().item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return in1.complete() == 1; }));
  // Now both ways at once, sizes from empty to larger than any socket
  // buffer, so that both sides wait for writability in turn.
  const size_t sizes[] = {0, 1, 48, 5000, 16 * 1024, 70000, 3 << 20};
  for (int i = 1; i < 60; ++i) {
    size_t bytes = sizes[static_cast<size_t>(i) % std::size(sizes)];
    to1.emplace_back(0, i, pattern(bytes, i));
    to0.emplace_back(1, i, pattern(bytes, 1000 + i));
    ASSERT_EQ(t0->send(1, &to1.back().item), nullptr);
    ASSERT_EQ(t1->send(0, &to0.back().item), nullptr);
  }
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] {
    return in1.complete() == to1.size() && in0.complete() == to0.size() && !t0->has_pending_sends() &&
           !t1->has_pending_sends();
  }));
  expect_in_order(in1, 0, to1);
  expect_in_order(in0, 1, to0);
  EXPECT_EQ(t0->open_connections(), 1);
  EXPECT_EQ(t1->open_connections(), 1);
}

// Both ranks queue packets for each other before either has heard from the
// other (an allgather, MPI_Win_allocate's exchange): each dials, and each
// sends on its own connection at first. The pair must still end on one
// connection (two one-way connections cost a bare ACK per message for the
// rest of the job), and no packet may overtake another (MPI-3.1 §3.5) while
// the higher rank moves from its connection to the lower rank's: packets
// large enough that the move waits for one to finish, then more traffic
// both ways once the pair has settled.
void cross_and_settle(TcpTransport* t0, TcpTransport* t1, Inbox& in0, Inbox& in1, size_t large) {
  std::deque<Outgoing> to1, to0;
  for (int i = 0; i < 20; ++i) {
    size_t bytes = i % 5 == 4 ? large : static_cast<size_t>(i) * 100;
    to1.emplace_back(0, i, pattern(bytes, i));
    to0.emplace_back(1, i, pattern(bytes, 500 + i));
    ASSERT_EQ(t0->send(1, &to1.back().item), nullptr);
    ASSERT_EQ(t1->send(0, &to0.back().item), nullptr);
  }
  auto all_in = [&] {
    return in1.complete() == to1.size() && in0.complete() == to0.size() && !t0->has_pending_sends() &&
           !t1->has_pending_sends();
  };
  ASSERT_TRUE(TcpTransportTest::progress_until({t0, t1}, all_in));
  ASSERT_TRUE(TcpTransportTest::progress_until(
      {t0, t1}, [&] { return t0->open_connections() == 1 && t1->open_connections() == 1; }, 5))
      << "still " << t0->open_connections() << " and " << t1->open_connections()
      << " connections: each rank kept sending on the one it dialed";
  for (int i = 20; i < 60; ++i) {
    size_t bytes = i % 7 == 3 ? large : static_cast<size_t>(i) * 10;
    to1.emplace_back(0, i, pattern(bytes, i));
    to0.emplace_back(1, i, pattern(bytes, 500 + i));
    ASSERT_EQ(t0->send(1, &to1.back().item), nullptr);
    ASSERT_EQ(t1->send(0, &to0.back().item), nullptr);
  }
  ASSERT_TRUE(TcpTransportTest::progress_until({t0, t1}, all_in));
  TcpTransportTest::expect_in_order(in1, 0, to1);
  TcpTransportTest::expect_in_order(in0, 1, to0);
  EXPECT_EQ(t0->open_connections(), 1);
  EXPECT_EQ(t1->open_connections(), 1);
}

TEST_F(TcpTransportTest, RanksThatConnectAtOnceEndOnOneConnectionInOrder) {
  Inbox in0, in1;
  auto t0 = make(0, 2, &in0);
  auto t1 = make(1, 2, &in1);
  cross_and_settle(t0.get(), t1.get(), in0, in1, 1u << 20);
  EXPECT_TRUE(fatal_.empty()) << fatal_.front();
}

// The same with small packets only: the higher rank's move happens between
// packets, often before its own connection has finished connecting.
TEST_F(TcpTransportTest, RanksThatConnectAtOnceWithSmallPacketsEndOnOneConnectionInOrder) {
  for (int round = 0; round < 20; ++round) {
    Inbox in0, in1;
    auto t0 = make(0, 2, &in0);
    auto t1 = make(1, 2, &in1);
    cross_and_settle(t0.get(), t1.get(), in0, in1, 64);
    if (HasFailure()) break;
  }
  EXPECT_TRUE(fatal_.empty()) << fatal_.front();
}

// Which rank wins does not depend on which one sends first, nor on its
// rank being 0: ranks 2 and 5 of a larger job, the higher one first.
TEST_F(TcpTransportTest, CrossedConnectionsBetweenOtherRanksAlsoMerge) {
  Inbox in2, in5;
  auto t2 = make(2, 6, &in2);
  auto t5 = make(5, 6, &in5);
  std::deque<Outgoing> to2, to5;
  for (int i = 0; i < 10; ++i) {
    to2.emplace_back(5, i, pattern(i == 3 ? (1u << 20) : 40, i));
    to5.emplace_back(2, i, pattern(i == 6 ? (1u << 20) : 40, 900 + i));
    ASSERT_EQ(t5->send(2, &to2.back().item), nullptr);
    ASSERT_EQ(t2->send(5, &to5.back().item), nullptr);
  }
  ASSERT_TRUE(progress_until({t2.get(), t5.get()}, [&] {
    return in2.complete() == to2.size() && in5.complete() == to5.size() && t2->open_connections() == 1 &&
           t5->open_connections() == 1;
  }));
  expect_in_order(in2, 5, to2);
  expect_in_order(in5, 2, to5);
  EXPECT_TRUE(fatal_.empty()) << fatal_.front();
}

// Rank 1 played by hand, to order the bytes as the lower rank may see them
// across two sockets: the higher rank's Reply ("crossed") and a packet on
// the lower rank's connection arrive before the higher rank's own
// connection has even been accepted, and before its end. The packet must
// wait for every packet on that connection (MPI-3.1 §3.5).
TEST_F(TcpTransportTest, APacketOnTheWinningConnectionWaitsUntilTheLosingOneEnds) {
  Inbox in0;
  auto t0 = make(0, 2, &in0);
  int port = 0;
  std::string error;
  int listener = listen_any(&port, &error);
  ASSERT_GE(listener, 0) << error;
  cards_[1] = make_card("ferry-unit-test-host", local_endpoints(port, ""));

  Outgoing first(0, 1, pattern(10, 1));
  ASSERT_EQ(t0->send(1, &first.item), nullptr);  // rank 0 dials: the connection that wins
  pollfd ready{listener, POLLIN, 0};
  ASSERT_EQ(poll(&ready, 1, 5000), 1);
  int won = accept(listener, nullptr, nullptr);
  ASSERT_GE(won, 0);
  for (int i = 0; i < 50; ++i) t0->progress();

  auto frame = [](std::vector<char>* wire, const void* bytes, size_t n) {
    wire->insert(wire->end(), static_cast<const char*>(bytes), static_cast<const char*>(bytes) + n);
  };
  auto frame_packet = [&](std::vector<char>* wire, const Outgoing& o) {
    frame(wire, &o.item.header, sizeof(PacketHeader));
    frame(wire, o.payload.data(), o.payload.size());
  };
  Outgoing early1(1, 10, pattern(3000, 10)), early2(1, 11, pattern(20, 11)), late(1, 12, pattern(30, 12));
  std::vector<char> on_won;
  Reply reply{kReplyMagic, 1};
  frame(&on_won, &reply, sizeof reply);
  frame_packet(&on_won, late);
  ASSERT_EQ(write(won, on_won.data(), on_won.size()), static_cast<ssize_t>(on_won.size()));
  for (int i = 0; i < 200; ++i) t0->progress();
  EXPECT_EQ(in0.complete(), 0u) << "a packet on the winning connection overtook the losing one's";

  // Rank 1's own connection, which carried its first packets.
  std::string host;
  std::vector<Endpoint> endpoints;
  ASSERT_TRUE(parse_card(cards_[0], &host, &endpoints));
  auto endpoint = choose_endpoint(endpoints, true, Family::kAuto);
  ASSERT_TRUE(endpoint.has_value());
  int lost = socket(endpoint->address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_EQ(connect(lost, reinterpret_cast<const sockaddr*>(&endpoint->address), endpoint->length), 0);
  Handshake h{kHandshakeMagic, kHandshakeVersion, 1, 0, {}};
  std::memcpy(h.secret, secret_, kSecretBytes);
  std::vector<char> on_lost;
  frame(&on_lost, &h, sizeof h);
  frame_packet(&on_lost, early1);
  frame_packet(&on_lost, early2);
  ASSERT_EQ(write(lost, on_lost.data(), on_lost.size()), static_cast<ssize_t>(on_lost.size()));
  ASSERT_TRUE(progress_until({t0.get()}, [&] { return in0.complete() == 2; }));
  for (int i = 0; i < 200; ++i) t0->progress();
  EXPECT_EQ(in0.complete(), 2u) << "a packet on the winning connection overtook the losing one's";

  shutdown(lost, SHUT_WR);  // the end of rank 1's stream: the late packet may follow
  ASSERT_TRUE(progress_until({t0.get()}, [&] { return in0.complete() == 3 && t0->open_connections() == 1; }));
  ASSERT_EQ(in0.packets.size(), 3u);
  EXPECT_EQ(in0.packets[0].header.tag, 10);
  EXPECT_EQ(in0.packets[1].header.tag, 11);
  EXPECT_EQ(in0.packets[2].header.tag, 12);
  EXPECT_TRUE(in0.packets[2].data == late.payload);
  char byte;
  EXPECT_EQ(read(lost, &byte, 1), 0) << "rank 0 did not close the connection that lost";
  EXPECT_TRUE(fatal_.empty()) << fatal_.front();
  close(lost);
  close(won);
  close(listener);
}

// A rank with one connection reads it without epoll most of the time; a
// third rank that connects later must still be accepted and heard.
TEST_F(TcpTransportTest, ALaterRankIsHeardByARankPollingItsOnlyConnection) {
  Inbox in0, in1, in2;
  auto t0 = make(0, 3, &in0);
  auto t1 = make(1, 3, &in1);
  auto t2 = make(2, 3, &in2);
  Outgoing hello(1, 1, pattern(64, 1));
  ASSERT_EQ(t1->send(0, &hello.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return in0.complete() == 1; }));
  for (int i = 0; i < 100; ++i) t0->progress();  // settles into reading rank 1 directly

  Outgoing late(2, 2, pattern(64, 2));
  ASSERT_EQ(t2->send(0, &late.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get(), t2.get()}, [&] { return in0.complete() == 2; }))
      << "rank 0 never heard rank 2";
  EXPECT_EQ(in0.packets[1].peer, 2);
  EXPECT_TRUE(in0.packets[1].data == late.payload);
  // And both peers still reach it, and it them.
  Outgoing again(1, 3, pattern(10, 3)), back(0, 4, pattern(10, 4));
  ASSERT_EQ(t1->send(0, &again.item), nullptr);
  ASSERT_EQ(t0->send(2, &back.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get(), t2.get()}, [&] { return in0.complete() == 3 && in2.complete() == 1; }));
  EXPECT_EQ(t0->open_connections(), 2);
}

// The sole connection is read without epoll while the engine polls; before
// the engine sleeps on wait_fd(), arm_wakeup() must make a packet wake it.
TEST_F(TcpTransportTest, ASleepingRankIsWokenByAPacketOnItsSoleConnection) {
  Inbox in0, in1;
  auto t0 = make(0, 2, &in0);
  auto t1 = make(1, 2, &in1);
  Outgoing first(1, 1, pattern(10, 1));
  ASSERT_EQ(t1->send(0, &first.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return in0.complete() == 1; }));
  for (int i = 0; i < 100; ++i) t0->progress();  // reading rank 1 directly by now

  ASSERT_TRUE(t0->arm_wakeup());
  Outgoing second(1, 2, pattern(10, 2));
  ASSERT_EQ(t1->send(0, &second.item), nullptr);
  ASSERT_FALSE(t1->has_pending_sends());
  pollfd sleeper{t0->wait_fd(), POLLIN, 0};
  ASSERT_EQ(poll(&sleeper, 1, 5000), 1) << "the packet did not wake the sleeping rank";
  t0->disarm_wakeup(true);
  ASSERT_TRUE(progress_until({t0.get()}, [&] { return in0.complete() == 2; }));
  EXPECT_TRUE(in0.packets[1].data == second.payload);
}

// With the engine lock on (RMA's doorbell turns it on at any thread level)
// but nobody asleep on the epoll set, the sole connection still leaves the
// set while the engine polls: keeping it there costs every arriving segment
// epoll callbacks. A thread asleep on the set keeps it there.
TEST_F(TcpTransportTest, TheLockAloneDoesNotKeepTheSoleConnectionInTheEpollSet) {
  Inbox in0, in1;
  auto t0 = make(0, 2, &in0);
  auto t1 = make(1, 2, &in1);
  Outgoing first(1, 1, pattern(10, 1));
  ASSERT_EQ(t1->send(0, &first.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return in0.complete() == 1; }));
  bool threads = progress::threads_enabled, waits = progress::someone_waits;
  progress::threads_enabled = true;
  for (int i = 0; i < 100; ++i) t0->progress();
  EXPECT_FALSE(t0->sole_connection_watched()) << "the engine lock kept the sole connection in the epoll set";
  ASSERT_TRUE(t0->arm_wakeup());
  progress::someone_waits = true;  // as while a thread sleeps on the set
  for (int i = 0; i < 100; ++i) t0->progress();
  EXPECT_TRUE(t0->sole_connection_watched()) << "a poll took the connection from under a sleeping thread";
  t0->disarm_wakeup(true);
  progress::someone_waits = waits;
  progress::threads_enabled = threads;
}

TEST_F(TcpTransportTest, APeerThatClosesWithNothingQueuedIsNotAnErrorButLaterSendsFail) {
  Inbox in0, in1;
  auto t0 = make(0, 2, &in0);
  auto t1 = make(1, 2, &in1);
  Outgoing first(0, 1, pattern(10, 1));
  ASSERT_EQ(t0->send(1, &first.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return in1.complete() == 1 && !t0->has_pending_sends(); }));
  t1.reset();  // as at MPI_Finalize, once every send has left
  ASSERT_TRUE(progress_until({t0.get()}, [&] { return t0->open_connections() == 0; }))
      << "rank 0 never noticed the closed connection";
  EXPECT_TRUE(fatal_.empty()) << fatal_.front();
  Outgoing late(0, 2, pattern(10, 2));
  EXPECT_NE(t0->send(1, &late.item), nullptr);
  EXPECT_FALSE(t0->has_pending_sends());
}

TEST_F(TcpTransportTest, APeerLostWithPacketsQueuedIsFatalOnceAndNothingStaysPending) {
  Inbox in0, in1;
  auto t0 = make(0, 2, &in0);
  auto t1 = make(1, 2, &in1);
  Outgoing first(0, 1, pattern(10, 1));
  ASSERT_EQ(t0->send(1, &first.item), nullptr);
  ASSERT_TRUE(progress_until({t0.get(), t1.get()}, [&] { return in1.complete() == 1; }));
  // More than the kernel's buffers hold while rank 1 reads nothing.
  Outgoing big(0, 2, pattern(64 << 20, 2));
  ASSERT_EQ(t0->send(1, &big.item), nullptr);
  for (int i = 0; i < 100; ++i) t0->progress();
  ASSERT_TRUE(t0->has_pending_sends());
  t1.reset();
  ASSERT_TRUE(progress_until({t0.get()}, [&] { return !fatal_.empty(); })) << "the lost connection went unnoticed";
  for (int i = 0; i < 100; ++i) t0->progress();
  ASSERT_EQ(fatal_.size(), 1u) << fatal_[1];
  EXPECT_NE(fatal_[0].find("rank 1"), std::string::npos) << fatal_[0];
  EXPECT_FALSE(t0->has_pending_sends()) << "MPI_Finalize would wait forever";
  EXPECT_EQ(big.sent_calls, 0) << "a packet that never left was reported sent";
}

TEST_F(TcpTransportTest, AHandshakeSplitAcrossReadsIsStillAccepted) {
  Inbox in1;
  auto t1 = make(1, 2, &in1);
  std::string host;
  std::vector<Endpoint> endpoints;
  ASSERT_TRUE(parse_card(cards_[1], &host, &endpoints));
  auto endpoint = choose_endpoint(endpoints, true, Family::kAuto);
  ASSERT_TRUE(endpoint.has_value());
  int fd = socket(endpoint->address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(connect(fd, reinterpret_cast<const sockaddr*>(&endpoint->address), endpoint->length), 0);

  Handshake h{kHandshakeMagic, kHandshakeVersion, 0, 0, {}};
  std::memcpy(h.secret, secret_, kSecretBytes);
  Outgoing packet(0, 9, pattern(300, 9));
  std::vector<char> wire(reinterpret_cast<char*>(&h), reinterpret_cast<char*>(&h) + sizeof h);
  const char* header = reinterpret_cast<const char*>(&packet.item.header);
  wire.insert(wire.end(), header, header + sizeof(PacketHeader));
  wire.insert(wire.end(), packet.payload.begin(), packet.payload.end());
  // The handshake in three pieces, the packet with the last one.
  const size_t cuts[] = {0, 5, 21, wire.size()};
  for (size_t i = 0; i + 1 < std::size(cuts); ++i) {
    ASSERT_EQ(write(fd, wire.data() + cuts[i], cuts[i + 1] - cuts[i]), static_cast<ssize_t>(cuts[i + 1] - cuts[i]));
    for (int k = 0; k < 50; ++k) t1->progress();
  }
  ASSERT_TRUE(progress_until({t1.get()}, [&] { return in1.complete() == 1; }));
  EXPECT_EQ(in1.packets[0].peer, 0);
  EXPECT_TRUE(in1.packets[0].data == packet.payload);
  EXPECT_EQ(t1->refused_connections(), 0);
  close(fd);
}

}  // namespace
}  // namespace ferry::transport::tcp
