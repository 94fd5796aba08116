// The shared-memory ring and transport: bytes come out in the order they went
// in, across the wrap-around, in pieces when larger than the ring, and
// between two processes.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "transport/shm/ring.h"
#include "transport/shm/shm_transport.h"

namespace ferry::transport::shm {
namespace {

constexpr size_t kRing = 4096;

struct SharedRing {
  SharedRing() {
    base = mmap(nullptr, ring_footprint(kRing), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    std::memset(base, 0, ring_footprint(kRing));
  }
  ~SharedRing() { munmap(base, ring_footprint(kRing)); }
  void* base;
};

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
  return v;
}

TEST(ShmRingTest, ControlWordsSitOnSeparateCacheLines) {
  EXPECT_EQ(offsetof(RingControl, writer_wants) - offsetof(RingControl, head), kCacheLine);
  EXPECT_EQ(offsetof(RingControl, tail) - offsetof(RingControl, writer_wants), kCacheLine);
}

TEST(ShmRingTest, WrapsAroundKeepingBytesInOrder) {
  SharedRing shared;
  Ring producer(shared.base, kRing), consumer(shared.base, kRing);
  // Writes of 3000 bytes through a 4096-byte ring wrap on the second one.
  for (int round = 0; round < 10; ++round) {
    auto in = pattern(3000, static_cast<uint8_t>(round));
    ASSERT_EQ(producer.write(in.data(), in.size()), in.size());
    ASSERT_EQ(consumer.readable(), in.size());
    std::vector<uint8_t> out(in.size());
    consumer.read(out.data(), out.size());
    EXPECT_EQ(in, out) << "round " << round;
  }
}

TEST(ShmRingTest, TakesNoMoreThanTheFreeSpaceAndFreesItAFrameAtATime) {
  SharedRing shared;
  Ring producer(shared.base, kRing), consumer(shared.base, kRing);
  auto in = pattern(10000, 1);
  // One frame fills the ring: all of it but the frame's 8-byte stamp.
  EXPECT_EQ(producer.write(in.data(), in.size()), kRing - 8);
  EXPECT_EQ(producer.write(in.data(), 1), 0u);
  ASSERT_EQ(consumer.readable(), kRing - 8);
  consumer.read(nullptr, 100);
  EXPECT_EQ(producer.write(in.data(), 1), 0u) << "a frame's space returns only once all of it is read";
  consumer.read(nullptr, kRing - 8 - 100);
  EXPECT_EQ(consumer.readable(), 0u);
  EXPECT_EQ(producer.write(in.data(), in.size()), kRing - 8);
}

TEST(ShmRingTest, ASmallPacketFillsOneCacheLine) {
  SharedRing shared;
  Ring producer(shared.base, kRing), consumer(shared.base, kRing);
  auto header = pattern(48, 3), payload = pattern(8, 4);
  ASSERT_TRUE(producer.write_all(header.data(), header.size(), payload.data(), payload.size()));
  EXPECT_EQ(producer.free_space(), kRing - kCacheLine);
  ASSERT_EQ(consumer.readable(), 56u);
  std::vector<uint8_t> out(56);
  consumer.read(out.data(), out.size());
  EXPECT_TRUE(std::equal(header.begin(), header.end(), out.begin()));
  EXPECT_TRUE(std::equal(payload.begin(), payload.end(), out.begin() + 48));
  EXPECT_FALSE(producer.write_all(pattern(kRing, 1).data(), kRing)) << "all or nothing";
}

TEST(ShmRingTest, AStampFromAnEarlierLapIsNotANewFrame) {
  SharedRing shared;
  Ring producer(shared.base, kRing), consumer(shared.base, kRing);
  // Lap 1 leaves a stamp at every line; lap 2 writes one frame over the
  // first half only. The consumer must stop after it, where the old stamps are.
  auto line = pattern(kCacheLine - 8, 5);
  for (size_t i = 0; i < kRing / kCacheLine; ++i) ASSERT_EQ(producer.write(line.data(), line.size()), line.size());
  for (size_t i = 0; i < kRing / kCacheLine; ++i) {
    ASSERT_EQ(consumer.readable(), line.size());
    consumer.read(nullptr, line.size());
  }
  EXPECT_EQ(consumer.readable(), 0u);
  auto half = pattern(kRing / 2 - 8, 6);
  ASSERT_EQ(producer.write(half.data(), half.size()), half.size());
  ASSERT_EQ(consumer.readable(), half.size());
  consumer.read(nullptr, half.size());
  EXPECT_EQ(consumer.readable(), 0u) << "a stale stamp was taken for a frame";
}

TEST(ShmRingTest, PayloadOfAnEarlierLapIsNotANewFrame) {
  SharedRing shared;
  Ring producer(shared.base, kRing), consumer(shared.base, kRing);
  // A 200-byte frame whose payload, at ring offset 64, holds exactly the
  // stamp a frame starting there one lap later would have (frame number
  // (4096 + 64) / 64 + 1, 10 bytes). The consumer reaches that position
  // after 61 one-line frames, with nothing more written: it must see nothing.
  std::vector<uint8_t> first(200, 0);
  uint64_t forged = ((uint64_t{(kRing + 64) / 64 + 1}) << 16) | 10;
  std::memcpy(first.data() + 56, &forged, sizeof forged);
  ASSERT_EQ(producer.write(first.data(), first.size()), first.size());
  ASSERT_EQ(consumer.readable(), first.size());
  consumer.read(nullptr, first.size());
  auto line = pattern(kCacheLine - 8, 7);
  for (int i = 0; i < 61; ++i) {
    ASSERT_EQ(producer.write(line.data(), line.size()), line.size());
    ASSERT_EQ(consumer.readable(), line.size()) << "frame " << i;
    consumer.read(nullptr, line.size());
  }
  EXPECT_EQ(consumer.readable(), 0u) << "old payload bytes were taken for a frame";
}

// Collects what the transport delivers, as the engine would.
struct Collector : PacketHandler {
  std::vector<std::vector<uint8_t>> payloads;
  std::vector<int32_t> tags;
  size_t capacity = SIZE_MAX;
  size_t completed = 0;
  Destination on_header(int, const PacketHeader& h) override {
    payloads.emplace_back(std::min<uint64_t>(h.payload_bytes, capacity));
    tags.push_back(h.tag);
    return Destination{payloads.back().data(), payloads.back().size(), nullptr};
  }
  void on_payload(int, const PacketHeader& h, const Destination& d) override {
    EXPECT_EQ(d.data, payloads.back().data());
    EXPECT_EQ(tags.back(), h.tag);
    ++completed;
  }
};

SendItem make_item(int tag, const std::vector<uint8_t>& payload) {
  SendItem item;
  item.header.type = PacketType::kEager;
  item.header.tag = tag;
  item.header.payload_bytes = payload.size();
  item.payload = payload.data();
  return item;
}

std::string segment_name(const char* what) {
  return "/ferry-test-" + std::string(what) + "-" + std::to_string(getpid());
}

// Rank 0 and rank 1 of one "host", both in this process.
struct Pair {
  Pair(size_t ring_bytes, const char* what)
      : a(0, 2, {0, 1}, &at_a, ring_bytes), b(1, 2, {0, 1}, &at_b, ring_bytes) {
    std::string error;
    EXPECT_TRUE(a.create(segment_name(what) + "-0", &error)) << error;
    EXPECT_TRUE(b.create(segment_name(what) + "-1", &error)) << error;
    EXPECT_TRUE(a.attach(1, segment_name(what) + "-1", &error)) << error;
    EXPECT_TRUE(b.attach(0, segment_name(what) + "-0", &error)) << error;
    // The names stay until the transports end, as in a job: a sender backs
    // more of its ring through the name as it reaches further.
  }
  void run_until(size_t packets) {
    for (int i = 0; i < 1000000 && at_b.completed < packets; ++i) {
      a.progress();
      b.progress();
    }
  }
  Collector at_a, at_b;
  ShmTransport a, b;
};

TEST(ShmTransportTest, LargePayloadPassesInPiecesAndPacketsStayInOrder) {
  Pair pair(kRing, "order");
  std::vector<std::vector<uint8_t>> payloads = {pattern(10, 1), pattern(100000, 2), pattern(0, 3),
                                                pattern(4096, 4), pattern(5000, 5)};
  std::vector<SendItem> items;
  for (size_t i = 0; i < payloads.size(); ++i) items.push_back(make_item(static_cast<int>(i), payloads[i]));
  for (SendItem& item : items) ASSERT_EQ(pair.a.send(1, &item), nullptr);
  EXPECT_TRUE(pair.a.has_pending_sends());  // 100 kB cannot fit a 4 kB ring at once
  pair.run_until(payloads.size());
  ASSERT_EQ(pair.at_b.payloads.size(), payloads.size());
  for (size_t i = 0; i < payloads.size(); ++i) {
    EXPECT_EQ(pair.at_b.tags[i], static_cast<int>(i));
    EXPECT_EQ(pair.at_b.payloads[i], payloads[i]) << "packet " << i;
  }
  EXPECT_FALSE(pair.a.has_pending_sends());
}

TEST(ShmTransportTest, BytesBeyondTheDestinationAreDiscarded) {
  Pair pair(kRing, "truncate");
  pair.at_b.capacity = 1000;
  auto big = pattern(20000, 9);
  auto next = pattern(50, 3);
  SendItem first = make_item(1, big), second = make_item(2, next);
  pair.a.send(1, &first);
  pair.a.send(1, &second);
  pair.run_until(2);
  ASSERT_EQ(pair.at_b.payloads.size(), 2u);
  EXPECT_EQ(pair.at_b.payloads[0], std::vector<uint8_t>(big.begin(), big.begin() + 1000));
  EXPECT_EQ(pair.at_b.payloads[1], next);
}

TEST(ShmRingTest, CarriesAStreamBetweenProcesses) {
  SharedRing shared;
  constexpr size_t kTotal = 8 << 20;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Ring producer(shared.base, kRing);
    auto data = pattern(kTotal, 42);
    size_t sent = 0;
    while (sent < kTotal) sent += producer.write(data.data() + sent, std::min<size_t>(kTotal - sent, 1500));
    _exit(0);
  }
  Ring consumer(shared.base, kRing);
  std::vector<uint8_t> out(kTotal);
  size_t got = 0;
  while (got < kTotal) {
    size_t n = std::min(consumer.readable(), kTotal - got);
    consumer.read(out.data() + got, n);
    got += n;
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(out == pattern(kTotal, 42));
}

}  // namespace
}  // namespace ferry::transport::shm
