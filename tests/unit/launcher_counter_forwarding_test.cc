// FERRY_PROFILE across hosts (launcher/profile/counter_forwarding.h): a node daemon's counter files
// go up a daemon link in pieces, never more than the window queued, and mpirun's side writes them
// whole under their names, refusing anything that is not a counter file of the job.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "launcher/profile/counter_forwarding.h"
#include "launcher/tree/daemon_link.h"
#include "launcher/tree/wire.h"

namespace {

using namespace ferry::launcher;
namespace fs = std::filesystem;

std::string temporary_dir() {
  char pattern[] = "/tmp/ferry-forward-test.XXXXXX";
  return ::mkdtemp(pattern);
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class CounterForwarding : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds_), 0);
    from_ = temporary_dir();
    to_ = temporary_dir();
  }
  void TearDown() override {
    fs::remove_all(from_);
    fs::remove_all(to_);
  }
  void write_file(const std::string& name, size_t bytes, char fill) {
    std::ofstream(from_ + "/" + name, std::ios::binary) << std::string(bytes, fill);
  }
  int fds_[2];
  std::string from_, to_;
};

TEST_F(CounterForwarding, FilesArriveWholeWithABoundedQueue) {
  // Three ranks' files of 1.5 MiB (more than the window each); rank 4 never made one.
  const size_t size = 3 * profile::kWindowBytes / 2;
  write_file("ferry.9.rank.3", size, 'a');
  write_file("ferry.9.rank.5", size, 'b');
  write_file("ferry.9.rank.6", size, 'c');
  write_file("ferry.8.rank.3", 10, 'x');  // another job's: not asked for
  DaemonLink up(fds_[0]), down(fds_[1]);
  profile::CounterFileSender sender(from_, "ferry.9", {3, 4, 5, 6}, 7);
  profile::CounterFileReceiver receiver(to_, "ferry.9", {7, 2});
  size_t most_queued = 0;
  bool sent = false;
  int done_position = -1;
  uint32_t files = 0;
  for (int round = 0; round < 10000 && done_position < 0; ++round) {
    if (!sent) sent = sender.pump(up);
    most_queued = std::max(most_queued, up.queued());
    ASSERT_TRUE(up.on_writable());
    ASSERT_TRUE(down.on_readable([&](wire::Type type, std::string_view body) {
      if (type == wire::Type::kProfileChunk) receiver.on_piece(body);
      if (type == wire::Type::kProfileDone) done_position = receiver.on_done(body, &files);
    }));
  }
  EXPECT_EQ(done_position, 7);
  EXPECT_EQ(files, 3u);
  EXPECT_EQ(receiver.waiting_for(), std::vector<int>{2});
  EXPECT_LT(most_queued, profile::kWindowBytes + profile::kPieceBytes + 64);
  EXPECT_EQ(contents(to_ + "/ferry.9.rank.3"), std::string(size, 'a'));
  EXPECT_EQ(contents(to_ + "/ferry.9.rank.5"), std::string(size, 'b'));
  EXPECT_EQ(contents(to_ + "/ferry.9.rank.6"), std::string(size, 'c'));
  EXPECT_FALSE(fs::exists(to_ + "/ferry.9.rank.4"));
  EXPECT_FALSE(fs::exists(to_ + "/ferry.8.rank.3"));
  receiver.forget(2);
  EXPECT_TRUE(receiver.waiting_for().empty());
}

TEST_F(CounterForwarding, OnlyTheJobsCounterFilesAreWritten) {
  profile::CounterFileReceiver receiver(to_, "ferry.9", {1});
  auto piece = [](const std::string& name, uint64_t offset, uint64_t size, const std::string& bytes) {
    std::string frame = wire::Encoder(wire::Type::kProfileChunk).str(name).u64(offset).u64(size).str(bytes).finish();
    return frame.substr(wire::kFrameHeader);
  };
  receiver.on_piece(piece("ferry.9.rank.1/../../escaped", 0, 2, "ab"));
  receiver.on_piece(piece("ferry.8.rank.1", 0, 2, "ab"));
  receiver.on_piece(piece("ferry.9.rank.2", 1, 2, "abc"));  // past its size
  EXPECT_TRUE(fs::is_empty(to_));
  receiver.on_piece(piece("ferry.9.rank.2", 0, 4, "ab"));
  EXPECT_FALSE(fs::exists(to_ + "/ferry.9.rank.2"));  // not whole yet
  receiver.on_piece(piece("ferry.9.rank.2", 2, 4, "cd"));
  EXPECT_EQ(contents(to_ + "/ferry.9.rank.2"), "abcd");
  uint32_t files = 0;
  std::string done = wire::Encoder(wire::Type::kProfileDone).u32(5).u32(1).finish().substr(wire::kFrameHeader);
  EXPECT_EQ(receiver.on_done(done, &files), -1);  // not a position it waits for
}

}  // namespace
