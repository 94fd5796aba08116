// The pieces of the verbs transport's protocol on their own: credits, the
// registration cache and its invalidation by unmapping, the contact card,
// FERRY_IB_DEVICE, and the model's own RC behaviour (RNR, remote access,
// error state) that the transport tests rely on.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "transport/verbs/credits.h"
#include "transport/verbs/memory_hooks.h"
#include "transport/verbs/model_device.h"
#include "transport/verbs/port_select.h"
#include "transport/verbs/reg_cache.h"

namespace ferry::transport::verbs {
namespace {

TEST(VerbsCredits, ASenderStopsAtItsGrantAndGetsCreditsBack) {
  Credits sender(4), receiver(4);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(sender.can_send());
    sender.spend();
    receiver.on_consumed(false);
  }
  EXPECT_FALSE(sender.can_send());
  // Half the grant owed and nothing to carry it: a credit-only frame.
  ASSERT_TRUE(receiver.can_send_update());
  uint16_t back = receiver.spend_update();
  EXPECT_EQ(back, 4);
  EXPECT_FALSE(receiver.can_send_update()) << "the reserve is spent until it comes back";
  sender.on_returned(back, false);
  EXPECT_EQ(sender.available(), 4);
  // The credit-only frame is owed back as the reserve, on an ordinary frame only.
  sender.on_consumed(true);
  EXPECT_FALSE(sender.can_send_update()) << "credit-only frames never answer each other";
  Credits::Returned r = sender.spend();
  EXPECT_TRUE(r.reserve);
  receiver.on_returned(r.credits, r.reserve);
  for (int i = 0; i < 2; ++i) receiver.on_consumed(false);
  EXPECT_TRUE(receiver.can_send_update());
}

TEST(VerbsCredits, OwedCreditsRideOnOrdinaryFrames) {
  Credits c(8);
  c.on_consumed(false);
  c.on_consumed(false);
  Credits::Returned r = c.spend();
  EXPECT_EQ(r.credits, 2);
  EXPECT_EQ(c.owed(), 0);
}

struct CacheFixture : ::testing::Test {
  ModelFabric fabric;
  std::unique_ptr<ModelDevice> device = fabric.add_device();
};

TEST_F(CacheFixture, TheSecondUseOfABufferDoesNotRegisterAgain) {
  RegistrationCache cache(device.get(), 1 << 30);
  std::vector<char> buffer(1 << 20);
  std::string error;
  auto* a = cache.acquire(buffer.data(), buffer.size(), &error);
  ASSERT_NE(a, nullptr) << error;
  cache.release(a);
  int registered = device->registrations();
  auto* b = cache.acquire(buffer.data() + 4096, 8192, &error);  // inside the same region
  EXPECT_EQ(b, a);
  EXPECT_EQ(device->registrations(), registered);
  EXPECT_EQ(cache.hits(), 1u);
  cache.release(b);
}

TEST_F(CacheFixture, UnusedRegionsBeyondTheBoundAreDeregisteredOldestFirst) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  RegistrationCache cache(device.get(), 2 * 16 * page);
  std::vector<char> memory(64 * page + page);
  char* base = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(memory.data()) + page - 1) & ~(page - 1));
  std::string error;
  for (int i = 0; i < 3; ++i) cache.release(cache.acquire(base + static_cast<size_t>(i) * 16 * page, 16 * page, &error));
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_LE(cache.cached_bytes(), 2 * 16 * page);
  EXPECT_EQ(device->live_regions(), 2);
  int registered = device->registrations();
  cache.release(cache.acquire(base + 2 * 16 * page, 16 * page, &error));  // the newest: kept
  EXPECT_EQ(device->registrations(), registered);
  cache.release(cache.acquire(base, 16 * page, &error));  // the oldest: gone, registered again
  EXPECT_EQ(device->registrations(), registered + 1);
}

TEST_F(CacheFixture, OffRegistersEveryUseAndKeepsNothing) {
  RegistrationCache cache(device.get(), 0);
  std::vector<char> buffer(8192);
  std::string error;
  cache.release(cache.acquire(buffer.data(), buffer.size(), &error));
  cache.release(cache.acquire(buffer.data(), buffer.size(), &error));
  EXPECT_EQ(device->registrations(), 2);
  EXPECT_EQ(device->live_regions(), 0);
}

TEST_F(CacheFixture, InvalidatingARegionInUseDeregistersItAtItsRelease) {
  RegistrationCache cache(device.get(), 1 << 30);
  std::vector<char> buffer(1 << 16);
  std::string error;
  auto* e = cache.acquire(buffer.data(), buffer.size(), &error);
  cache.invalidate(buffer.data() + 100, 1);
  EXPECT_EQ(cache.entries(), 0u) << "no later lookup finds it";
  EXPECT_EQ(device->live_regions(), 1) << "still in use: the NIC may be reading it";
  cache.release(e);
  EXPECT_EQ(device->live_regions(), 0);
}

// The mechanism that keeps the cache right: munmap (interposed, see
// memory_hooks.h) invalidates what was registered there, so memory mapped
// again at the same address is registered afresh and never read through a
// stale region.
TEST_F(CacheFixture, MunmapInvalidatesTheRegionsItUnmaps) {
  memory_hooks::prepare_allocator();  // what loading libmpi does on an RDMA host
  ASSERT_TRUE(memory_hooks::active()) << "munmap is not interposed in this process";
  RegistrationCache cache(device.get(), 1 << 30);
  memory_hooks::attach(&cache);
  size_t bytes = 1 << 20;
  void* a = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(a, MAP_FAILED);
  std::string error;
  cache.release(cache.acquire(a, bytes, &error));
  EXPECT_EQ(cache.entries(), 1u);
  ASSERT_EQ(munmap(a, bytes), 0);
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(device->live_regions(), 0);
  // Same with madvise(DONTNEED), which drops the pages behind the range.
  void* b = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  cache.release(cache.acquire(b, bytes, &error));
  ASSERT_EQ(madvise(static_cast<char*>(b) + 4096, 4096, MADV_DONTNEED), 0);
  EXPECT_EQ(cache.entries(), 0u);
  // An advice that keeps the pages keeps the region.
  cache.release(cache.acquire(b, bytes, &error));
  ASSERT_EQ(madvise(b, bytes, MADV_SEQUENTIAL), 0);
  EXPECT_EQ(cache.entries(), 1u);
  // mremap moves or shrinks the mapping: the old range is gone.
  void* c = mremap(b, bytes, bytes / 2, MREMAP_MAYMOVE);
  ASSERT_NE(c, MAP_FAILED);
  EXPECT_EQ(cache.entries(), 0u);
  memory_hooks::detach(&cache);
  munmap(c, bytes / 2);
}

// After preparation, glibc's malloc serves even large blocks from its heap
// and keeps freed ones mapped (mincore fails with ENOMEM on an unmapped
// range): the pages behind a cached region stay, though no hook saw a free.
TEST(VerbsMemoryHooks, APreparedMallocKeepsLargeBlocksMappedAfterFree) {
  memory_hooks::prepare_allocator();
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t bytes = 8 << 20;  // far above glibc's default mmap threshold
  char* block = static_cast<char*>(malloc(bytes));
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, bytes);
  char* first = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(block) + page - 1) & ~(page - 1));
  size_t span = 64 * page;
  free(block);
  std::vector<unsigned char> resident(span / page);
  EXPECT_EQ(mincore(first, span, resident.data()), 0) << "free unmapped the block: " << std::strerror(errno);
}

TEST(VerbsCard, RoundTripsAndRejectsGarbage) {
  Card c;
  c.link = LinkLayer::kEthernet;
  c.lid = 513;
  for (int i = 0; i < 16; ++i) c.gid.raw[i] = static_cast<uint8_t>(i * 17);
  c.datagram_qpn = 0xabcdef;
  c.mtu_bytes = 4096;
  Card d;
  ASSERT_TRUE(decode_card(encode_card(c), &d));
  EXPECT_EQ(d.link, c.link);
  EXPECT_EQ(d.lid, c.lid);
  EXPECT_EQ(std::memcmp(d.gid.raw, c.gid.raw, 16), 0);
  EXPECT_EQ(d.datagram_qpn, c.datagram_qpn);
  EXPECT_EQ(d.mtu_bytes, c.mtu_bytes);
  EXPECT_FALSE(decode_card("lid=1", &d));
  EXPECT_FALSE(decode_card("link=ib;lid=1;gid=00;qpn=1;mtu=1", &d));
}

TEST(VerbsDeviceSetting, NameAndOptionalPort) {
  std::string name, error;
  int port = -1;
  ASSERT_TRUE(parse_device_setting("mlx5_0:2", &name, &port, &error));
  EXPECT_EQ(name, "mlx5_0");
  EXPECT_EQ(port, 2);
  ASSERT_TRUE(parse_device_setting("rxe0", &name, &port, &error));
  EXPECT_EQ(name, "rxe0");
  EXPECT_EQ(port, 0);
  EXPECT_FALSE(parse_device_setting("mlx5_0:x", &name, &port, &error));
  EXPECT_NE(error.find("FERRY_IB_DEVICE=mlx5_0:x"), std::string::npos);
}

// The model itself, where the transport's tests lean on it.
struct ModelPair : ::testing::Test {
  ModelFabric fabric;
  std::unique_ptr<ModelDevice> a = fabric.add_device(), b = fabric.add_device();
  int qa = -1, qb = -1;
  std::vector<char> memory = std::vector<char>(1 << 16);
  Region ra, rb;
  void SetUp() override {
    std::string error;
    Resources r;
    ASSERT_TRUE(a->setup(1, r, &error) && b->setup(1, r, &error));
    uint32_t na = 0, nb = 0;
    qa = a->create_qp(&na, &error);
    qb = b->create_qp(&nb, &error);
    QpTarget ta, tb;
    ta.remote.lid = b->lid();
    ta.remote_qpn = nb;
    ta.rnr_retry = 2;
    tb.remote.lid = a->lid();
    tb.remote_qpn = na;
    ASSERT_TRUE(a->connect_qp(qa, ta, &error) && b->connect_qp(qb, tb, &error));
    ASSERT_TRUE(a->register_memory(memory.data(), 1 << 15, &ra, &error));
    ASSERT_TRUE(b->register_memory(memory.data() + (1 << 15), 1 << 15, &rb, &error));
  }
  std::vector<Completion> drain(ModelDevice& d) {
    Completion c[16];
    std::vector<Completion> out;
    for (int n; (n = d.poll(c, 16)) > 0;) out.insert(out.end(), c, c + n);
    return out;
  }
};

TEST_F(ModelPair, ASendWithoutAReceiveBufferFailsAfterTheRnrRetries) {
  SendRequest s;
  s.local = memory.data();
  s.bytes = 8;
  s.lkey = ra.lkey;
  s.signaled = true;
  std::string error;
  ASSERT_TRUE(a->post_send(qa, s, &error));
  for (int i = 0; i < 5; ++i) drain(*a);
  auto done = drain(*a);
  fabric.pump();
  done = drain(*a);
  EXPECT_TRUE(a->qp_in_error(qa));
  EXPECT_GE(a->rnr_naks(), 3);
}

TEST_F(ModelPair, AReadWithAWrongKeyIsARemoteAccessErrorAndLaterRequestsFlush) {
  SendRequest r;
  r.opcode = Opcode::kRead;
  r.local = memory.data();
  r.bytes = 64;
  r.lkey = ra.lkey;
  r.remote_address = reinterpret_cast<uintptr_t>(memory.data() + (1 << 15));
  r.rkey = rb.rkey + 1;
  r.signaled = true;
  std::string error;
  ASSERT_TRUE(a->post_send(qa, r, &error));
  r.signaled = false;
  ASSERT_TRUE(a->post_send(qa, r, &error));
  auto done = drain(*a);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].status, Status::kRemoteAccess);
  EXPECT_EQ(done[1].status, Status::kFlushed) << "flushed requests complete even unsignaled";
  EXPECT_TRUE(a->qp_in_error(qa));
}

}  // namespace
}  // namespace ferry::transport::verbs
