// The shared-memory transport at start-up (issue 32): no work per pair of
// ranks. Segment names are computed, not looked up; a peer's segment is
// mapped on first contact only; a segment backs no page per peer; a name a
// killed job left is replaced; the launcher removes a dead rank's files.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "common/shm_names.h"
#include "transport/shm/shm_transport.h"

namespace ferry::transport::shm {
namespace {

std::string job_name(const char* what) { return "shm-first-contact-" + std::string(what) + "-" + std::to_string(getpid()); }

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

struct Received : PacketHandler {
  std::vector<std::vector<uint8_t>> payloads;
  Destination on_header(int, const PacketHeader& h) override {
    payloads.emplace_back(h.payload_bytes);
    return Destination{payloads.back().data(), payloads.back().size(), nullptr};
  }
  void on_payload(int, const PacketHeader&, const Destination&) override {}
};

struct NoExchange : Exchange {
  bool publish(const std::string&, const std::string&, std::string*) override { return true; }
  bool lookup(int, const std::string&, std::string*, std::string* error) override {
    *error = "no card should be looked up";
    return false;
  }
  std::optional<std::string> job_value(const std::string&) override { return std::nullopt; }
};

// Rank `rank` of a job of `size` ranks, all on this host, joined as the
// runtime does (open, publish, fence, connect).
std::unique_ptr<ShmTransport> join(const std::string& nspace, int rank, int size, PacketHandler* handler) {
  JobLayout job;
  job.rank = rank;
  job.size = size;
  job.nspace = nspace;
  for (int r = 0; r < size; ++r) job.local_peers.push_back(r);
  job.fatal = [](const std::string& message) { FAIL() << message; };
  std::string error;
  std::unique_ptr<Transport> t = ShmTransport::open(job, handler, &error);
  EXPECT_TRUE(t != nullptr) << error;
  NoExchange exchange;
  EXPECT_TRUE(t->publish(exchange, &error)) << error;
  return std::unique_ptr<ShmTransport>(static_cast<ShmTransport*>(t.release()));
}

TEST(ShmFirstContactTest, NamesAreComputedTheSameByEveryoneAndDifferPerJobAndRank) {
  EXPECT_EQ(shm_names::segment("ferry.1", 3), shm_names::segment("ferry.1", 3));
  EXPECT_NE(shm_names::segment("ferry.1", 3), shm_names::segment("ferry.1", 4));
  EXPECT_NE(shm_names::segment("ferry.1", 3), shm_names::segment("ferry.2", 3));
  std::string mine = "/ferry-" + std::to_string(getuid()) + "-";
  EXPECT_EQ(shm_names::segment("ferry.1", 3).rfind(mine, 0), 0u) << "the uid keeps users apart in /dev/shm";
}

TEST(ShmFirstContactTest, APeerIsMappedOnFirstSendOnlyAndNoCardIsLookedUp) {
  std::string nspace = job_name("send");
  Received at_a, at_b, at_c;
  auto a = join(nspace, 0, 3, &at_a);
  auto b = join(nspace, 1, 3, &at_b);
  auto c = join(nspace, 2, 3, &at_c);
  NoExchange exchange;
  std::string error;
  for (ShmTransport* t : {a.get(), b.get(), c.get()}) EXPECT_TRUE(t->connect(exchange, &error)) << error;
  EXPECT_EQ(a->peers_mapped(), 0u) << "connect mapped peers eagerly";

  std::vector<uint8_t> data(100, 5);
  SendItem item;
  item.header.type = PacketType::kEager;
  item.header.payload_bytes = data.size();
  item.payload = data.data();
  ASSERT_EQ(a->send(1, &item), nullptr);
  EXPECT_EQ(a->peers_mapped(), 1u) << "only the peer a sent to";
  for (int i = 0; i < 100 && at_b.payloads.empty(); ++i) b->progress();
  ASSERT_EQ(at_b.payloads.size(), 1u);
  EXPECT_EQ(at_b.payloads[0], data);
  EXPECT_EQ(b->peers_mapped(), 0u) << "receiving maps nothing";
  EXPECT_EQ(c->peers_mapped(), 0u);
}

TEST(ShmFirstContactTest, ASegmentBacksNoPagePerPeer) {
  std::string nspace = job_name("pages");
  Received sink;
  auto t = join(nspace, 0, 64, &sink);
  struct stat st {};
  ASSERT_EQ(stat(("/dev/shm" + shm_names::segment(nspace, 0)).c_str(), &st), 0);
  // The header and one live word per peer: a page. A line backed in each
  // ring took a page each (63 here).
  EXPECT_LE(st.st_blocks * 512, 2 * 4096) << "backed " << st.st_blocks * 512 << " bytes for 63 peers";
}

long long allocated(const std::string& nspace, int rank) {
  struct stat st {};
  EXPECT_EQ(stat(("/dev/shm" + shm_names::segment(nspace, rank)).c_str(), &st), 0);
  return static_cast<long long>(st.st_blocks) * 512;
}

// A ring takes /dev/shm memory as far as its sender has written, 16 KiB at
// a time: an alltoall of small messages among 1,024 ranks would otherwise
// back 1,023 x 256 KiB per rank (256 GiB on the host).
TEST(ShmFirstContactTest, ARingIsBackedAsFarAsItsSenderWrote) {
  std::string nspace = job_name("ring");
  Received at_a, at_b;
  auto a = join(nspace, 0, 2, &at_a);
  auto b = join(nspace, 1, 2, &at_b);
  long long empty = allocated(nspace, 1);
  std::vector<uint8_t> small(100, 1);
  SendItem item;
  item.header.type = PacketType::kEager;
  item.header.payload_bytes = small.size();
  item.payload = small.data();
  ASSERT_EQ(a->send(1, &item), nullptr);
  EXPECT_LE(allocated(nspace, 1) - empty, 5 * 4096) << "a 100-byte message backed the whole 256 KiB ring";
  std::vector<uint8_t> large(200 * 1024, 2);
  SendItem big;
  big.header.type = PacketType::kEager;
  big.header.payload_bytes = large.size();
  big.payload = large.data();
  ASSERT_EQ(a->send(1, &big), nullptr);
  for (int i = 0; i < 100000 && at_b.payloads.size() < 2; ++i) {
    a->progress();
    b->progress();
  }
  ASSERT_EQ(at_b.payloads.size(), 2u);
  EXPECT_EQ(at_b.payloads[1], large) << "a message crossing the backed steps arrives whole";
  EXPECT_GE(allocated(nspace, 1) - empty, 200 * 1024);
}

TEST(ShmFirstContactTest, ANameAKilledJobLeftIsReplaced) {
  std::string nspace = job_name("stale");
  std::string name = shm_names::segment(nspace, 0);
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  close(fd);
  // ... and its doorbell: a Slurm job requeued keeps its PMIx namespace, and
  // nobody removed the killed run's files (slurm.requeue_restores).
  ASSERT_EQ(mkfifo(shm_names::doorbell_path(name).c_str(), 0600), 0);
  Received sink;
  auto t = join(nspace, 0, 2, &sink);  // publish() creates both: must not fail with "File exists"
  EXPECT_GT(t->segment_bytes(), 0u);
}

TEST(ShmFirstContactTest, TheLauncherRemovesADeadRanksFiles) {
  std::string nspace = job_name("dead");
  Received sink;
  auto t = join(nspace, 1, 2, &sink);
  std::string name = shm_names::segment(nspace, 1);
  ASSERT_TRUE(exists("/dev/shm" + name));
  ASSERT_TRUE(exists(shm_names::doorbell_path(name)));
  EXPECT_EQ(shm_names::remove_rank_files(nspace, 1), 2);
  EXPECT_FALSE(exists("/dev/shm" + name));
  EXPECT_FALSE(exists(shm_names::doorbell_path(name)));
  EXPECT_EQ(shm_names::remove_rank_files(nspace, 1), 0);
}

}  // namespace
}  // namespace ferry::transport::shm
