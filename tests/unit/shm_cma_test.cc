// Cross-memory attach (transport/shm/cma.h) and the transport's single-copy
// reads: bytes come from the other process's memory, failures are reported
// rather than faked, and FERRY_SHM_CMA decides whether senders offer it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "transport/shm/cma.h"
#include "transport/shm/shm_transport.h"

namespace ferry::transport::shm {

// Calibration's verdict "the ring wins", whatever this machine would measure.
struct ShmCmaTestAccess {
  static void ring_wins(ShmTransport& t) { t.record_cma_verdict(false); }
};

namespace {

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 13 + (i >> 12));
  return v;
}

// The kernel may forbid CMA here (Yama ptrace_scope, seccomp): skip then.
bool cma_allowed() {
  uint64_t word = 1, copy = 0;
  return cma::read(getpid(), reinterpret_cast<uintptr_t>(&word), &copy, sizeof copy) == 0 && copy == 1;
}

TEST(ShmCmaTest, ReadsTheOtherProcessesBytes) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  constexpr size_t kBytes = (3 << 20) + 5;  // odd size, many pages
  std::vector<uint8_t> buffer = pattern(kBytes, 1);
  int ready[2], done[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(done), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Same address, different bytes: only a real read of the child sees them.
    std::vector<uint8_t> mine = pattern(kBytes, 2);
    std::memcpy(buffer.data(), mine.data(), kBytes);
    char c = 1;
    if (write(ready[1], &c, 1) != 1) _exit(1);
    if (read(done[0], &c, 1) != 1) _exit(1);
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  std::vector<uint8_t> out(kBytes);
  EXPECT_EQ(cma::read(child, reinterpret_cast<uintptr_t>(buffer.data()), out.data(), kBytes), 0);
  EXPECT_TRUE(out == pattern(kBytes, 2));
  ASSERT_EQ(write(done[1], &c, 1), 1);
  waitpid(child, nullptr, 0);
  for (int fd : {ready[0], ready[1], done[0], done[1]}) close(fd);
}

TEST(ShmCmaTest, ReportsABadAddress) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  char out[64];
  EXPECT_EQ(cma::read(getpid(), 4096, out, sizeof out), EFAULT);  // page 1 is never mapped
}

TEST(ShmCmaTest, CalibrationMeasuresBothCopies) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  std::vector<uint8_t> source = pattern(128 * 1024, 3);
  cma::Rates r = cma::calibrate(getpid(), reinterpret_cast<uintptr_t>(source.data()), source.data(), source.size());
  EXPECT_GT(r.cma, 0);
  EXPECT_GT(r.memcpy, 0);
}

TEST(ShmCmaTest, AReadBeatsTheRingWithinFiveCopies) {
  EXPECT_TRUE(cma::read_beats_ring(0.5e-6, 0.1e-6));
  EXPECT_FALSE(cma::read_beats_ring(0.65e-6, 0.1e-6)) << "32 KiB on the EPYC VM, where the ring was faster";
}

// The size single copy starts from is one the search tried (a power-of-two
// multiple of where it started) or the limit, and the limit when the read
// fails.
TEST(ShmCmaTest, SingleCopyStartsAtATriedSizeOrTheLimit) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  std::vector<uint8_t> source = pattern(64 * 1024, 6);
  const uint64_t remote = reinterpret_cast<uintptr_t>(source.data());
  size_t from = cma::single_copy_from(getpid(), remote, source.data(), 4096, source.size());
  EXPECT_TRUE(from == 4096 || from == 8192 || from == 16384 || from == 32768 || from == source.size()) << from;
  EXPECT_EQ(cma::single_copy_from(getpid(), remote, source.data(), 8192, 8192), 8192u) << "nothing below the limit";
  EXPECT_EQ(cma::single_copy_from(getpid(), 4096, source.data(), 4096, source.size()), source.size())
      << "a read that fails never wins";
}

struct Quiet : PacketHandler {
  Destination on_header(int, const PacketHeader&) override { return {}; }
  void on_payload(int, const PacketHeader&, const Destination&) override {}
};

CmaOptions cma(CmaOptions::Mode mode, size_t threshold = 64 * 1024) {
  CmaOptions o;
  o.mode = mode;
  o.threshold = threshold;
  return o;
}

std::string name(const char* what) { return "/ferry-test-cma-" + std::string(what) + "-" + std::to_string(getpid()); }

// Rank 0 of a 2-rank host whose peer (rank 1) is this process too.
struct Transport {
  explicit Transport(const char* what, CmaOptions cma, size_t ring_bytes = 4096)
      : a(0, 2, {0, 1}, &quiet, ring_bytes, cma), b(1, 2, {0, 1}, &quiet, ring_bytes, cma) {
    std::string error;
    EXPECT_TRUE(a.create(name(what) + "-0", &error)) << error;
    EXPECT_TRUE(b.create(name(what) + "-1", &error)) << error;
    EXPECT_TRUE(a.attach(1, name(what) + "-1", &error)) << error;
    EXPECT_TRUE(b.attach(0, name(what) + "-0", &error)) << error;
    // The names stay until the transports end, as in a job: a sender backs
    // more of its ring through the name as it reaches further.
  }
  Quiet quiet;
  ShmTransport a, b;
};

// A one-sided copy of `out.size()` bytes between `out` and `remote` (as the
// peer's expose() described it).
transport::OneSided copy_of(std::vector<uint8_t>& out, const RemoteBuffer& remote) {
  transport::OneSided op;
  op.peer = 1;
  op.remote = remote;
  op.local = MemoryRef{out.data(), MemoryKind::kHost};
  op.bytes = out.size();
  return op;
}

TEST(ShmCmaTest, OnExposesAndReadsFromTheThreshold) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  Transport t("on", cma(CmaOptions::kOn, 1000));
  ASSERT_TRUE(t.a.reach(1).has_value());
  EXPECT_EQ(t.a.reach(1)->one_sided_threshold, 1000u);
  std::vector<uint8_t> source = pattern(70001, 4), out(70001);
  RemoteBuffer remote;
  EXPECT_FALSE(t.b.expose(0, MemoryRef{source.data(), MemoryKind::kHost}, 999, &remote)) << "below the threshold";
  ASSERT_TRUE(t.b.expose(0, MemoryRef{source.data(), MemoryKind::kHost}, source.size(), &remote));
  EXPECT_EQ(remote.key_bytes, 0) << "cross-memory attach needs no key";
  transport::OneSided op = copy_of(out, remote);
  EXPECT_EQ(t.a.start_read(&op), Started::kDone);
  EXPECT_TRUE(out == source);
}

TEST(ShmCmaTest, WritesIntoTheExposedBuffer) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  Transport t("write", cma(CmaOptions::kOn, 1000));
  std::vector<uint8_t> target(5000, 0), data = pattern(5000, 7);
  RemoteBuffer remote;
  ASSERT_TRUE(t.b.expose(0, MemoryRef{target.data(), MemoryKind::kHost}, target.size(), &remote));
  transport::OneSided op = copy_of(data, remote);
  EXPECT_EQ(t.a.start_write(&op), Started::kDone);
  EXPECT_TRUE(target == data);
}

TEST(ShmCmaTest, DeviceMemoryIsNeverHandedToTheKernel) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  Transport t("device", cma(CmaOptions::kOn, 1000));
  std::vector<uint8_t> source = pattern(4000, 8), out(4000);
  RemoteBuffer remote;
  EXPECT_FALSE(t.b.expose(0, MemoryRef{source.data(), MemoryKind::kDevice, 0}, source.size(), &remote));
  ASSERT_TRUE(t.b.expose(0, MemoryRef{source.data(), MemoryKind::kHost}, source.size(), &remote));
  transport::OneSided op = copy_of(out, remote);
  op.local.kind = MemoryKind::kDevice;
  EXPECT_EQ(t.a.start_read(&op), Started::kUnsupported);
  op.local.kind = MemoryKind::kHost;
  op.remote.kind = MemoryKind::kDevice;
  EXPECT_EQ(t.a.start_read(&op), Started::kUnsupported);
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint8_t b) { return b == 0; })) << "nothing was copied";
}

TEST(ShmCmaTest, OffNeverExposesNorReads) {
  Transport t("off", cma(CmaOptions::kOff, 1000));
  EXPECT_EQ(t.a.reach(1)->one_sided_threshold, SIZE_MAX);
  std::vector<uint8_t> source = pattern(100000, 5), out(100000);
  RemoteBuffer remote;
  EXPECT_FALSE(t.b.expose(0, MemoryRef{source.data(), MemoryKind::kHost}, source.size(), &remote));
  remote.address = reinterpret_cast<uintptr_t>(source.data());
  transport::OneSided op = copy_of(out, remote);
  EXPECT_EQ(t.a.start_read(&op), Started::kUnsupported);
}

// Where the ring wins one way, an exchange's send (MPI_Sendrecv) still
// offers its buffer up to kExchangeCmaMax, and the receiver reads it: each
// core copies its own incoming half, one copy instead of the ring's two.
// Beyond the limit, and for a one-way send, the ring.
TEST(ShmCmaTest, AnExchangeReadsInPlaceWhereTheRingWinsOneWay) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  Transport t("exchange", cma(CmaOptions::kAuto, 1000));
  ShmCmaTestAccess::ring_wins(t.a);
  ShmCmaTestAccess::ring_wins(t.b);
  std::vector<uint8_t> source = pattern(kExchangeCmaMax + 1, 9), out(70001);
  const MemoryRef local{source.data(), MemoryKind::kHost};
  RemoteBuffer remote;
  EXPECT_FALSE(t.b.expose(0, local, out.size(), &remote)) << "one way, the ring wins";
  EXPECT_EQ(t.b.reach(0)->exchange_one_sided_threshold, 1000u)
      << "an exchange is offered from the threshold on, below the eager limit too";
  ASSERT_TRUE(t.b.expose_exchanged(0, local, out.size(), &remote)) << "an exchange reads in place";
  transport::OneSided op = copy_of(out, remote);
  EXPECT_EQ(t.a.start_read(&op), Started::kDone);
  EXPECT_TRUE(std::equal(out.begin(), out.end(), source.begin()));
  EXPECT_FALSE(t.b.expose_exchanged(0, local, kExchangeCmaMax + 1, &remote)) << "beyond the exchange's limit";
  std::vector<uint8_t> large(kExchangeCmaMax + 1);
  transport::OneSided beyond = copy_of(large, remote);
  EXPECT_EQ(t.a.start_read(&beyond), Started::kUnsupported) << "the receiver keeps the ring beyond the limit too";
}

// FERRY_SHM_CMA=auto measures at the first offer from the threshold on,
// which may then rise to where a read pays back its fixed cost (at most the
// eager limit); a threshold that was given stays as it is.
TEST(ShmCmaTest, AutoRaisesTheThresholdUnlessItWasGiven) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  std::vector<uint8_t> source = pattern(kEagerLimit, 10);
  const MemoryRef local{source.data(), MemoryKind::kHost};
  RemoteBuffer remote;
  for (bool given : {false, true}) {
    CmaOptions o = cma(CmaOptions::kAuto, 4096);
    o.threshold_given = given;
    Transport t(given ? "given" : "calibrated", o, kEagerLimit);  // rings that hold every size tried
    t.b.expose(0, local, 4096, &remote);  // the first offer from the threshold on: calibrates
    size_t threshold = t.b.reach(0)->exchange_one_sided_threshold;
    if (given) {
      EXPECT_EQ(threshold, 4096u) << "a given threshold is the user's";
      continue;
    }
    EXPECT_TRUE(threshold == 4096 || threshold == 8192 || threshold == 16384 || threshold == 32768 ||
                threshold == kEagerLimit)
        << threshold;
    if (threshold > 4096) {
      EXPECT_FALSE(t.b.expose_exchanged(0, local, threshold - 1, &remote)) << "below the calibrated threshold: the ring";
    }
    EXPECT_TRUE(t.b.expose_exchanged(0, local, threshold, &remote)) << "from it, read in place";
  }
}

TEST(ShmCmaTest, AFailedReadFallsBackForGood) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  Transport t("fail", cma(CmaOptions::kOn, 1000));
  std::vector<uint8_t> out(64);
  RemoteBuffer unmapped;
  unmapped.address = 4096;
  transport::OneSided op = copy_of(out, unmapped);
  EXPECT_EQ(t.a.start_read(&op), Started::kUnsupported) << "unmapped: the engine asks for the data instead";
  EXPECT_EQ(t.a.reach(1)->one_sided_threshold, SIZE_MAX) << "after a failure the peer keeps the ring";
  EXPECT_EQ(t.a.reach(1)->exchange_one_sided_threshold, SIZE_MAX) << "an exchange too";
}

TEST(ShmCmaTest, TheSettingIsReadAndAMalformedOneReported) {
  setenv("FERRY_SHM_CMA", "off", 1);
  setenv("FERRY_SHM_CMA_THRESHOLD", "256k", 1);
  CmaOptions o = ShmTransport::cma_options_from_settings();
  EXPECT_EQ(o.mode, CmaOptions::kOff);
  EXPECT_EQ(o.threshold, 256u * 1024);
  EXPECT_TRUE(o.error.empty());

  setenv("FERRY_SHM_CMA", "maybe", 1);
  ShmTransport t(0, 2, {0, 1}, nullptr, 4096, ShmTransport::cma_options_from_settings());
  std::string error;
  EXPECT_FALSE(t.create(name("bad"), &error));
  EXPECT_NE(error.find("FERRY_SHM_CMA=maybe: expected auto, on or off"), std::string::npos) << error;
  unsetenv("FERRY_SHM_CMA");
  unsetenv("FERRY_SHM_CMA_THRESHOLD");
}

}  // namespace
}  // namespace ferry::transport::shm
