// The shared-memory transport's wake-ups (transport/shm/wakeup.h): a peer rings a
// rank's doorbell only while it sleeps, a rank never goes to sleep on work
// that arrived before it announced the sleep, and both a new packet and
// freed ring space wake it, across processes too.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "transport/shm/shm_transport.h"
#include "transport/shm/wakeup.h"

namespace ferry::transport::shm {
namespace {

// True if `fd` is readable within `ms` milliseconds.
bool readable(int fd, int ms = 0) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) == 1;
}

CmaOptions cma(CmaOptions::Mode mode, size_t threshold = 64 * 1024) {
  CmaOptions o;
  o.mode = mode;
  o.threshold = threshold;
  return o;
}

std::string name(const char* what) { return "/ferry-test-wake-" + std::string(what) + "-" + std::to_string(getpid()); }

struct SharedWord {
  SharedWord() {
    void* p = mmap(nullptr, sizeof(WakeWord), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    word = new (p) WakeWord{};
  }
  ~SharedWord() { munmap(word, sizeof(WakeWord)); }
  WakeWord* word;
};

TEST(ShmWakeupTest, ABellRingsOnlyWhileItsOwnerSleeps) {
  SharedWord shared;
  Doorbell doorbell;
  Bell bell;
  std::string error, path = "/dev/shm" + name("bell");
  ASSERT_TRUE(doorbell.create(path, shared.word, &error)) << error;
  ASSERT_TRUE(bell.open(path, shared.word, true, &error)) << error;
  doorbell.unlink();

  bell.ring_if_asleep();  // nobody sleeps: no system call, nothing to read
  EXPECT_FALSE(readable(doorbell.fd()));

  doorbell.arm();
  bell.ring_if_asleep();
  bell.ring_if_asleep();  // a burst of peers: still one byte
  EXPECT_TRUE(readable(doorbell.fd()));
  char bytes[8];
  EXPECT_EQ(read(doorbell.fd(), bytes, sizeof bytes), 1);
  doorbell.woke(true);

  EXPECT_FALSE(readable(doorbell.fd()));
  bell.ring_if_asleep();  // awake again
  EXPECT_FALSE(readable(doorbell.fd()));
}

// A rank keeps only a few bells open (descriptors independent of the job
// size): the others open the pipe for each ring and hold no descriptor.
TEST(ShmWakeupTest, ABellNotKeptOpenStillRingsAndHoldsNoDescriptor) {
  SharedWord shared;
  Doorbell doorbell;
  Bell bell;
  std::string error, path = "/dev/shm" + name("unkept");
  ASSERT_TRUE(doorbell.create(path, shared.word, &error)) << error;
  int before = dup(0);
  close(before);
  ASSERT_TRUE(bell.open(path, shared.word, false, &error)) << error;
  int after = dup(0);
  close(after);
  EXPECT_EQ(after, before) << "the bell kept a descriptor";
  doorbell.arm();
  bell.ring_if_asleep();
  EXPECT_TRUE(readable(doorbell.fd()));
  doorbell.woke(true);
  after = dup(0);
  close(after);
  EXPECT_EQ(after, before) << "ringing left a descriptor open";
}

TEST(ShmWakeupTest, WakingDrainsThePipe) {
  SharedWord shared;
  Doorbell doorbell;
  Bell bell;
  std::string error, path = "/dev/shm" + name("drain");
  ASSERT_TRUE(doorbell.create(path, shared.word, &error)) << error;
  ASSERT_TRUE(bell.open(path, shared.word, true, &error)) << error;
  doorbell.unlink();
  doorbell.arm();
  bell.ring_if_asleep();
  doorbell.woke(true);
  EXPECT_FALSE(readable(doorbell.fd())) << "a byte left behind wakes the next sleep for nothing";
  doorbell.arm();
  bell.ring_if_asleep();  // rung was reset: the next sleep gets its byte
  EXPECT_TRUE(readable(doorbell.fd()));
  doorbell.woke(true);
}

struct Sink : PacketHandler {
  std::vector<std::vector<uint8_t>> payloads;
  Destination on_header(int, const PacketHeader& h) override {
    payloads.emplace_back(h.payload_bytes);
    return Destination{payloads.back().data(), payloads.back().size(), nullptr};
  }
  void on_payload(int, const PacketHeader&, const Destination&) override {}
};

// Ranks 0 and 1 of one host, both in this process.
struct Pair {
  explicit Pair(const char* what, size_t ring_bytes = 4096)
      : a(0, 2, {0, 1}, &at_a, ring_bytes, cma(CmaOptions::kOff)),
        b(1, 2, {0, 1}, &at_b, ring_bytes, cma(CmaOptions::kOff)) {
    std::string error;
    EXPECT_TRUE(a.create(name(what) + "-0", &error)) << error;
    EXPECT_TRUE(b.create(name(what) + "-1", &error)) << error;
    EXPECT_TRUE(a.attach(1, name(what) + "-1", &error)) << error;
    EXPECT_TRUE(b.attach(0, name(what) + "-0", &error)) << error;
    // The names stay until the transports end, as in a job: a sender backs
    // more of its ring through the name as it reaches further.
  }
  Sink at_a, at_b;
  ShmTransport a, b;
};

SendItem item_for(const std::vector<uint8_t>& payload) {
  SendItem item;
  item.header.type = PacketType::kEager;
  item.header.payload_bytes = payload.size();
  item.payload = payload.data();
  return item;
}

TEST(ShmWakeupTest, ARankDoesNotSleepOnAPacketThatCameFirst) {
  Pair pair("first");
  std::vector<uint8_t> data(100, 7);
  SendItem item = item_for(data);
  pair.a.send(1, &item);  // b is awake: no byte in its pipe
  EXPECT_FALSE(readable(pair.b.wait_fd()));
  EXPECT_FALSE(pair.b.arm_wakeup()) << "the packet is there: sleeping now would never end";
  pair.b.progress();
  ASSERT_EQ(pair.at_b.payloads.size(), 1u);
  EXPECT_TRUE(pair.b.arm_wakeup());
  pair.b.disarm_wakeup(false);
}

TEST(ShmWakeupTest, APacketWakesASleepingReceiver) {
  Pair pair("packet");
  ASSERT_TRUE(pair.b.arm_wakeup());
  std::vector<uint8_t> data(10, 1);
  SendItem item = item_for(data);
  pair.a.send(1, &item);
  EXPECT_TRUE(readable(pair.b.wait_fd()));
  pair.b.disarm_wakeup(true);
  EXPECT_FALSE(readable(pair.b.wait_fd()));
  pair.b.progress();
  EXPECT_EQ(pair.at_b.payloads.size(), 1u);
}

TEST(ShmWakeupTest, FreedSpaceWakesASenderThatWaitsForIt) {
  Pair pair("space");
  std::vector<uint8_t> big(100000, 3);
  SendItem item = item_for(big);
  pair.a.send(1, &item);  // fills the 4 KiB ring and waits for space
  ASSERT_TRUE(pair.a.has_pending_sends());
  ASSERT_TRUE(pair.a.arm_wakeup()) << "no space yet: nothing to do but sleep";
  pair.b.progress();  // drains the ring
  EXPECT_TRUE(readable(pair.a.wait_fd())) << "the sender sleeps with space to write into";
  pair.a.disarm_wakeup(true);
  // And a sender that is not asleep gets no byte.
  pair.a.progress();
  pair.b.progress();
  EXPECT_FALSE(readable(pair.a.wait_fd()));
}

TEST(ShmWakeupTest, ASenderDoesNotSleepOnSpaceFreedFirst) {
  Pair pair("space-first");
  std::vector<uint8_t> big(100000, 3);
  SendItem item = item_for(big);
  pair.a.send(1, &item);
  pair.b.progress();  // frees the whole ring while a is awake
  EXPECT_FALSE(pair.a.arm_wakeup()) << "the ring has room: sleeping now would never end";
}

TEST(ShmWakeupTest, WakesAProcessSleepingOnItsDoorbell) {
  Pair pair("process");
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The receiver: announce the sleep, then sleep on the doorbell alone.
    if (!pair.b.arm_wakeup()) _exit(2);
    char go = 1;
    if (write(ready[1], &go, 1) != 1) _exit(3);
    bool woke = readable(pair.b.wait_fd(), 10000);
    pair.b.disarm_wakeup(true);
    pair.b.progress();
    _exit(woke && pair.at_b.payloads.size() == 1 ? 0 : 1);
  }
  char go;
  ASSERT_EQ(read(ready[0], &go, 1), 1);
  usleep(20000);  // let it reach the sleep
  std::vector<uint8_t> data(64, 9);
  SendItem item = item_for(data);
  pair.a.send(1, &item);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  close(ready[0]);
  close(ready[1]);
}

}  // namespace
}  // namespace ferry::transport::shm
