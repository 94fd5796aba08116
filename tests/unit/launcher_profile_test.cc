// FERRY_PROFILE's launcher side (launcher/profile/profile_data.h, profile_report.h): reading the ranks'
// counter files, whole, torn or missing, and the report's paths and call kinds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "launcher/profile/profile_data.h"
#include "launcher/profile/profile_report.h"

namespace {

using namespace ferry::launcher::profile;
namespace fs = std::filesystem;

// A rank's file as src/profile/counters.cc lays it out: two functions, "MPI_Send" (index 0) with
// `sends` calls of which `timed` (all by default) were timed, at 1 s each at a 2 GHz clock, and
// `to_peer1` bytes sent to rank 1.
std::vector<char> rank_file(int rank, int size, bool finalized, uint64_t sends, uint64_t to_peer1,
                            uint64_t timed = UINT64_MAX) {
  if (timed == UINT64_MAX) timed = sends;
  layout::Header h = layout::layout(2, size);
  h.rank = rank;
  h.state = finalized ? layout::kFinalized : layout::kRunning;
  h.start_ns = 1'000'000'000;
  h.end_ns = finalized ? 5'000'000'000 : 0;
  h.ticks_per_second = 2e9;
  std::strcpy(h.host, "node7");
  std::vector<char> bytes(h.total_bytes);
  std::memcpy(bytes.data(), &h, sizeof h);
  std::strcpy(bytes.data() + h.names_offset, "MPI_Send");
  std::strcpy(bytes.data() + h.names_offset + layout::kNameBytes, "MPI_Allreduce");
  layout::Call send{};
  // Sends move data: they are counted in their size bucket only, and the reader adds them up.
  if (sends > 0) send.sizes[layout::bucket(to_peer1 / sends)] = sends;
  send.timed = timed;
  send.ticks = timed * 2'000'000'000ull;
  send.bytes = to_peer1;
  std::memcpy(bytes.data() + h.calls_offset, &send, sizeof send);
  std::memcpy(bytes.data() + h.peers_offset + sizeof(layout::Peer), &to_peer1, 8);
  return bytes;
}

class ProfileFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/ferry-profile-test.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(int rank, const std::vector<char>& bytes, size_t keep = SIZE_MAX, const std::string& nspace = "ferry.1") {
    std::ofstream out(dir_ + "/" + nspace + ".rank." + std::to_string(rank), std::ios::binary);
    out.write(bytes.data(), std::streamsize(std::min(keep, bytes.size())));
  }
  std::string dir_;
};

TEST_F(ProfileFiles, WholeFilesMakeACompleteReport) {
  write(0, rank_file(0, 2, true, 3, 300));
  write(1, rank_file(1, 2, true, 0, 0));
  Job job = read_job(dir_, "ferry.1", 2, 0, 5'000'000'000);
  EXPECT_FALSE(job.partial);
  ASSERT_EQ(job.call_names.size(), 2u);
  EXPECT_EQ(job.call_names[0], "MPI_Send");
  EXPECT_EQ(job.ranks[0].calls[0].count, 3u);
  EXPECT_EQ(job.ranks[0].calls[0].ticks, 3'000'000'000u);  // ticks at 2 GHz, read as nanoseconds
  EXPECT_EQ(job.ranks[0].peer_bytes[1], 300u);
  EXPECT_EQ(job.ranks[0].host, "node7");
  EXPECT_DOUBLE_EQ(job.ranks[0].wall_s, 4.0);
  Kind all_p2p = Kind::kPointToPoint;
  EXPECT_DOUBLE_EQ(seconds_in(job, job.ranks[0], &all_p2p), 3.0);
  std::string text = json(job);
  EXPECT_NE(text.find("\"partial\": false"), std::string::npos);
  EXPECT_NE(text.find("\"p2p_bytes\": [\n  [0,300],\n  [0,0]]"), std::string::npos) << text;
  EXPECT_NE(html(job).find("<svg"), std::string::npos);
}

// A short function is timed on a sample of its calls (src/profile/counters.h Sampling): its time is
// the timed calls' scaled to all, and the JSON says how many were timed.
TEST_F(ProfileFiles, SampledTimesAreScaledToEveryCall) {
  write(0, rank_file(0, 2, true, 64, 640, 4));
  write(1, rank_file(1, 2, true, 0, 0));
  Job job = read_job(dir_, "ferry.1", 2, 0, 5'000'000'000);
  EXPECT_EQ(job.ranks[0].calls[0].count, 64u);
  EXPECT_EQ(job.ranks[0].calls[0].ticks, 64'000'000'000u);  // 4 timed calls of 1 s stand for 64
  std::string text = json(job);
  EXPECT_NE(text.find("\"count\": 64, \"timed\": 4, \"time_s\": 64"), std::string::npos) << text;
  EXPECT_NE(html(job).find("~64"), std::string::npos);
  // An estimate above the rank's wall time (4 s) is held to it.
  EXPECT_DOUBLE_EQ(seconds_in(job, job.ranks[0], nullptr), 4.0);
}

// The calls timed because they had to be (the warm-up, the slow phase: counters.h Sampling) count
// as they were; only the sampled ones stand for the calls not timed (issue 31). Their waits too.
TEST_F(ProfileFiles, ForcedCallsCountOnceAndOnlyTheSampleIsScaled) {
  auto file = [](uint64_t count, uint64_t timed, uint64_t forced) {
    std::vector<char> bytes = rank_file(0, 2, true, count, 8 * count, timed);  // timed calls of 1 s each
    layout::Header h;
    std::memcpy(&h, bytes.data(), sizeof h);
    layout::Call send;
    std::memcpy(&send, bytes.data() + h.calls_offset, sizeof send);
    send.forced = forced;
    send.forced_ticks = forced * 2'000'000'000ull;
    send.ticks += forced * 8 * 2'000'000'000ull;  // the forced ones took 9 s each
    send.forced_ticks += forced * 8 * 2'000'000'000ull;
    send.waits = timed, send.wait_ticks = send.ticks;  // all of it waiting
    send.forced_waits = forced, send.forced_wait_ticks = send.forced_ticks;
    std::memcpy(bytes.data() + h.calls_offset, &send, sizeof send);
    return bytes;
  };
  auto seconds = [&](uint64_t count, uint64_t timed, uint64_t forced, uint64_t* wait) {
    write(0, file(count, timed, forced));
    write(1, rank_file(1, 2, true, 0, 0));
    Job job = read_job(dir_, "ferry.1", 2, 0, 5'000'000'000);
    *wait = job.ranks[0].calls[0].wait_ticks / 1'000'000'000;
    return job.ranks[0].calls[0].ticks / 1'000'000'000;
  };
  uint64_t wait = 0;
  // 32 forced calls of 9 s, 4 sampled of 1 s standing for the other 200: 288 + 200 s (scaling all
  // 36 timed calls alike would say 1881 s).
  EXPECT_EQ(seconds(232, 36, 32, &wait), 488u);
  EXPECT_EQ(wait, 488u);
  // Every call timed, some not forced: exact.
  EXPECT_EQ(seconds(40, 40, 32, &wait), 296u);
  // Every call forced: exact.
  EXPECT_EQ(seconds(32, 32, 32, &wait), 288u);
  // Nothing sampled yet: the forced calls only, a lower bound.
  EXPECT_EQ(seconds(100, 32, 32, &wait), 288u);
  EXPECT_EQ(wait, 288u);
}

// A nonblocking collective's Wait that is long enough to be timed on every call (all forced) has
// its wait measured on the companions' sample only: the first 32 as they were, then a few
// weighted kSampleOneIn (src/profile/companions.h), whose weights add up to the calls they stand
// for only on average. The report scales that sample to the calls not counted as they were.
TEST_F(ProfileFiles, WeightedWaitsInForcedCallsAreASample) {
  constexpr uint64_t kCalls = 4000, kTicksPerCall = 1'000'000;  // each call 0.5 ms, all of it waiting
  std::vector<char> bytes = rank_file(0, 2, true, kCalls, 8 * kCalls);
  layout::Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  layout::Call wait;
  std::memcpy(&wait, bytes.data() + h.calls_offset, sizeof wait);
  wait.ticks = wait.forced_ticks = kCalls * kTicksPerCall;
  wait.forced = kCalls;
  wait.forced_waits = 32, wait.forced_wait_ticks = 32 * kTicksPerCall;  // the companions' warm-up
  wait.waits = 32 + 9 * 512;                                             // 9 samples, 4,640 "calls"
  wait.wait_ticks = wait.waits * kTicksPerCall;
  std::memcpy(bytes.data() + h.calls_offset, &wait, sizeof wait);
  write(0, bytes);
  write(1, rank_file(1, 2, true, 0, 0));
  Job job = read_job(dir_, "ferry.1", 2, 0, 5'000'000'000);
  EXPECT_EQ(job.ranks[0].calls[0].ticks, 2'000'000'000u);
  EXPECT_EQ(job.ranks[0].calls[0].wait_ticks, 2'000'000'000u);  // not 4,640 x 0.5 ms
}

// The late-partner wait (src/profile/late_partners.h) of a sampled function is scaled as its time is.
TEST_F(ProfileFiles, WaitsAreScaledToEveryCall) {
  std::vector<char> bytes = rank_file(0, 2, true, 8, 0);
  layout::Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  layout::Call send;
  std::memcpy(&send, bytes.data() + h.calls_offset, sizeof send);
  send.waits = 2;
  send.wait_ticks = 1'000'000'000;  // 0.5 s over 2 calls measured, at 2 GHz
  std::memcpy(bytes.data() + h.calls_offset, &send, sizeof send);
  write(0, bytes);
  write(1, rank_file(1, 2, true, 0, 0));
  Job job = read_job(dir_, "ferry.1", 2, 0, 5'000'000'000);
  EXPECT_EQ(job.ranks[0].calls[0].wait_ticks, 2'000'000'000u);  // 2 measured calls stand for 8
  EXPECT_DOUBLE_EQ(waiting_in(job, job.ranks[0]), 2.0);
  EXPECT_DOUBLE_EQ(waiting_in(job, job.ranks[1]), 0.0);
  std::string text = json(job);
  EXPECT_NE(text.find("\"wait_s\": 2,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"late_wait_s\": 2}"), std::string::npos) << text;
}

// Under MPI_THREAD_MULTIPLE the threads other than the counting one count into a second set
// (src/profile/counters.h Threads): the reader adds it to the calls' counts, bytes and sizes and
// to the peers', and the sampled time stands for every thread's calls.
TEST_F(ProfileFiles, OtherThreadsCountsAreAddedIn) {
  std::vector<char> bytes = rank_file(0, 2, true, 3, 300);  // 3 sends of 100 bytes, each timed 1 s
  layout::Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  layout::OtherThreadsCall send{}, allreduce{};
  send.sizes[layout::bucket(8)] = 5;  // 5 sends of 8 bytes
  send.bytes = 40;
  allreduce.count = 7;  // calls that move no data count in `count`
  std::memcpy(bytes.data() + h.other_calls_offset, &send, sizeof send);
  std::memcpy(bytes.data() + h.other_calls_offset + sizeof send, &allreduce, sizeof allreduce);
  layout::Peer to_peer1{40, 5};
  std::memcpy(bytes.data() + h.other_peers_offset + sizeof(layout::Peer), &to_peer1, sizeof to_peer1);
  write(0, bytes);
  write(1, rank_file(1, 2, true, 0, 0));
  Job job = read_job(dir_, "ferry.1", 2, 0, 5'000'000'000);
  const layout::Call& c = job.ranks[0].calls[0];
  EXPECT_EQ(c.count, 8u);
  EXPECT_EQ(c.bytes, 340u);
  EXPECT_EQ(c.sizes[layout::bucket(100)], 3u);
  EXPECT_EQ(c.sizes[layout::bucket(8)], 5u);
  EXPECT_EQ(c.ticks, 8'000'000'000u);  // 3 timed calls of 1 s stand for all 8
  EXPECT_EQ(job.ranks[0].calls[1].count, 7u);
  EXPECT_EQ(job.ranks[0].peer_bytes[1], 340u);
  EXPECT_EQ(job.ranks[0].peer_messages[1], 5u);
  EXPECT_EQ(job.ranks[1].peer_bytes[0], 0u);
}

TEST_F(ProfileFiles, AnUnfinishedRankMakesItPartialAndKeepsItsCounts) {
  write(0, rank_file(0, 2, true, 1, 10));
  write(1, rank_file(1, 2, false, 4, 0));
  Job job = read_job(dir_, "ferry.1", 2, 0, 5'000'000'000);
  EXPECT_TRUE(job.partial);
  EXPECT_FALSE(job.ranks[1].finalized);
  EXPECT_EQ(job.ranks[1].calls[0].count, 4u);
  EXPECT_DOUBLE_EQ(job.ranks[1].wall_s, 4.0);  // to the job's end
  EXPECT_NE(html(job).find("Partial report"), std::string::npos);
}

TEST_F(ProfileFiles, ATornOrMissingFileIsNotRead) {
  write(0, rank_file(0, 3, true, 1, 10), sizeof(layout::Header) + 10);  // torn
  write(1, rank_file(1, 3, true, 1, 10));
  Job job = read_job(dir_, "ferry.1", 3, 0, 5'000'000'000);  // rank 2: no file
  EXPECT_TRUE(job.partial);
  EXPECT_FALSE(job.ranks[0].found);
  EXPECT_TRUE(job.ranks[1].found);
  EXPECT_FALSE(job.ranks[2].found);
  EXPECT_EQ(job.ranks[0].calls.size(), 2u);  // zeros, so every table has a column per rank
  EXPECT_EQ(job.ranks[0].calls[0].count, 0u);
}

TEST_F(ProfileFiles, AFailedJobIsPartial) {
  write(0, rank_file(0, 1, true, 1, 0));
  EXPECT_TRUE(read_job(dir_, "ferry.1", 1, 3, 5'000'000'000).partial);
}

TEST_F(ProfileFiles, TheLastAttemptIsReportedNotASpawnedJob) {
  write(0, rank_file(0, 1, false, 1, 0), SIZE_MAX, "ferry.1");      // the first attempt, which failed
  write(0, rank_file(0, 1, true, 2, 0), SIZE_MAX, "ferry.1.r2");    // the second restart
  write(0, rank_file(0, 1, true, 7, 0), SIZE_MAX, "ferry.1.r1");
  write(0, rank_file(0, 1, true, 9, 0), SIZE_MAX, "ferry.1.3");     // a job it spawned
  Job job = read_job(dir_, "ferry.1", 1, 0, 5'000'000'000);
  EXPECT_EQ(job.attempt, 2);
  EXPECT_FALSE(job.partial);
  EXPECT_EQ(job.ranks[0].calls[0].count, 2u);
  // Each attempt can be read too (report.attempt<k>.html).
  EXPECT_EQ(attempts(dir_, "ferry.1"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(read_job(dir_, "ferry.1", 1, 1, 5'000'000'000, 1).ranks[0].calls[0].count, 7u);
  EXPECT_TRUE(read_job(dir_, "ferry.1", 1, 1, 5'000'000'000, 0).partial);
  EXPECT_EQ(attempt_path("/a/report.html", 1), "/a/report.attempt1.html");
}

// A job whose rank 0 left no file (the program never called MPI_Init): mpirun still writes a
// report, partial, with every rank missing (it used to crash on the empty list of attempts).
TEST_F(ProfileFiles, NoFileAtAllStillMakesAPartialReport) {
  std::string report = dir_ + "/report.html";
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(write_report(report, dir_, "ferry.1", 2, 0));
  ::testing::internal::GetCapturedStderr();
  std::ifstream in(dir_ + "/report.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"partial\": true"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(report));
}

TEST(ProfileReport, JsonGoesBesideTheHtml) {
  EXPECT_EQ(json_path("/a/report.html"), "/a/report.json");
  EXPECT_EQ(json_path("/a/job7"), "/a/job7.json");
  EXPECT_EQ(spawn_path("/a/report.html", 3), "/a/report.spawn3.html");
  EXPECT_EQ(spawn_path("/a/job7", 3), "/a/job7.spawn3");
}

TEST(ProfileReport, CallsAreSortedIntoKinds) {
  EXPECT_EQ(kind_of("MPI_Allreduce"), Kind::kCollective);
  EXPECT_EQ(kind_of("MPI_Iallreduce"), Kind::kCollective);
  EXPECT_EQ(kind_of("MPI_Ibarrier"), Kind::kCollective);
  EXPECT_EQ(kind_of("MPI_Reduce_scatter_block"), Kind::kCollective);
  EXPECT_EQ(kind_of("MPI_Neighbor_alltoall"), Kind::kCollective);
  EXPECT_EQ(kind_of("MPI_Recv"), Kind::kBlockingReceive);
  EXPECT_EQ(kind_of("MPI_Waitall"), Kind::kBlockingReceive);
  EXPECT_EQ(kind_of("MPI_Isend"), Kind::kPointToPoint);
  EXPECT_EQ(kind_of("MPI_File_write_at_all"), Kind::kIo);
  EXPECT_EQ(kind_of("MPI_Info_create"), Kind::kOther);
  EXPECT_EQ(kind_of("MPI_Init"), Kind::kOther);
}

}  // namespace
