// Cross-memory attach (p2p/shm/cma.h) and the transport's single-copy
// reads: bytes come from the other process's memory, failures are reported
// rather than faked, and FERRY_SHM_CMA decides whether senders offer it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "p2p/shm/cma.h"
#include "p2p/shm/shm_transport.h"

namespace ferry::p2p::shm {
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
  explicit Transport(const char* what, CmaOptions cma)
      : a(0, 2, {0, 1}, &quiet, 4096, cma), b(1, 2, {0, 1}, &quiet, 4096, cma) {
    std::string error;
    EXPECT_TRUE(a.create(name(what) + "-0", &error)) << error;
    EXPECT_TRUE(b.create(name(what) + "-1", &error)) << error;
    EXPECT_TRUE(a.attach(1, name(what) + "-1", &error)) << error;
    EXPECT_TRUE(b.attach(0, name(what) + "-0", &error)) << error;
    a.unlink();
    b.unlink();
  }
  Quiet quiet;
  ShmTransport a, b;
};

TEST(ShmCmaTest, OnOffersDirectReadsFromTheThreshold) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  Transport t("on", cma(CmaOptions::kOn, 1000));
  EXPECT_EQ(t.a.direct_read_threshold(1), 1000u);
  std::vector<uint8_t> source = pattern(70001, 4), out(70001);
  EXPECT_TRUE(t.a.read_direct(1, reinterpret_cast<uintptr_t>(source.data()), out.data(), out.size()));
  EXPECT_TRUE(out == source);
}

TEST(ShmCmaTest, OffNeverOffersNorReads) {
  Transport t("off", cma(CmaOptions::kOff, 1000));
  EXPECT_EQ(t.a.direct_read_threshold(1), SIZE_MAX);
  std::vector<uint8_t> source = pattern(100, 5), out(100);
  EXPECT_FALSE(t.a.read_direct(1, reinterpret_cast<uintptr_t>(source.data()), out.data(), out.size()));
}

TEST(ShmCmaTest, AFailedReadFallsBackForGood) {
  if (!cma_allowed()) GTEST_SKIP() << "process_vm_readv is not allowed here";
  Transport t("fail", cma(CmaOptions::kOn, 1000));
  char out[64];
  EXPECT_FALSE(t.a.read_direct(1, 4096, out, sizeof out));  // unmapped: the engine asks for the data instead
  EXPECT_EQ(t.a.direct_read_threshold(1), SIZE_MAX) << "after a failure the peer keeps the ring";
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
}  // namespace ferry::p2p::shm
