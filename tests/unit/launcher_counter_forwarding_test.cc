// FERRY_PROFILE across hosts (launcher/profile/counter_forwarding.h): a node daemon's counter files
// go up a daemon link in pieces, never more than the window queued, and mpirun's side writes them
// whole under their names, refusing anything that is not a counter file of the job; a spawned job's
// files (and its kProfileDone) go to that job's receiver, never its parent's.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

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
  EXPECT_FALSE(receiver.on_piece(piece("ferry.9.rank.1/../../escaped", 0, 2, "ab")));
  EXPECT_FALSE(receiver.on_piece(piece("ferry.8.rank.1", 0, 2, "ab")));
  EXPECT_FALSE(receiver.on_piece(piece("ferry.9.1.rank.1", 0, 2, "ab")));  // its spawned job's
  EXPECT_TRUE(receiver.on_piece(piece("ferry.9.rank.2", 1, 2, "abc")));  // its own, past its size: dropped
  EXPECT_TRUE(fs::is_empty(to_));
  receiver.on_piece(piece("ferry.9.rank.2", 0, 4, "ab"));
  EXPECT_FALSE(fs::exists(to_ + "/ferry.9.rank.2"));  // not whole yet
  receiver.on_piece(piece("ferry.9.rank.2", 2, 4, "cd"));
  EXPECT_EQ(contents(to_ + "/ferry.9.rank.2"), "abcd");
  uint32_t files = 0;
  auto done = [](uint32_t position, const std::string& nspace) {
    return wire::Encoder(wire::Type::kProfileDone).u32(position).u32(1).str(nspace).finish().substr(wire::kFrameHeader);
  };
  EXPECT_EQ(receiver.on_done(done(5, "ferry.9"), &files), -1);    // not a position it waits for
  EXPECT_EQ(receiver.on_done(done(1, "ferry.9.1"), &files), -1);  // another job's
  EXPECT_EQ(receiver.waiting_for(), std::vector<int>{1});
  EXPECT_EQ(receiver.on_done(done(1, "ferry.9"), &files), 1);
  EXPECT_TRUE(receiver.waiting_for().empty());
}

TEST_F(CounterForwarding, ASpawnedJobsFilesGoToItsOwnReceiver) {
  // One daemon (position 2) ran ranks of the first job and of its spawned job 1: two senders on
  // one link, two receivers at mpirun, each frame taken by the first receiver that owns it.
  write_file("ferry.9.rank.0", 100, 'p');
  write_file("ferry.9.1.rank.0", 200, 'c');
  write_file("ferry.9.1.rank.1", 300, 'd');
  DaemonLink up(fds_[0]), down(fds_[1]);
  profile::CounterFileSender parent(from_, "ferry.9", {0}, 2);
  profile::CounterFileSender child(from_, "ferry.9.1", {0, 1}, 2);
  std::vector<profile::CounterFileReceiver> receivers;
  receivers.emplace_back(to_, "ferry.9", std::vector<int>{2});
  receivers.emplace_back(to_, "ferry.9.1", std::vector<int>{2, 3});
  std::vector<std::pair<std::string, uint32_t>> done;  // the receiver that took each kProfileDone
  bool sent = false;
  for (int round = 0; round < 100 && !sent; ++round) {
    sent = parent.pump(up) & child.pump(up);
    ASSERT_TRUE(up.on_writable());
    ASSERT_TRUE(down.on_readable([&](wire::Type type, std::string_view body) {
      for (profile::CounterFileReceiver& r : receivers) {
        uint32_t files = 0;
        if (type == wire::Type::kProfileChunk && r.on_piece(body)) break;
        if (type == wire::Type::kProfileDone && r.on_done(body, &files) >= 0) {
          done.emplace_back(r.nspace(), files);
          break;
        }
      }
    }));
  }
  EXPECT_EQ(done, (std::vector<std::pair<std::string, uint32_t>>{{"ferry.9", 1}, {"ferry.9.1", 2}}));
  EXPECT_TRUE(receivers[0].waiting_for().empty());
  EXPECT_EQ(receivers[1].waiting_for(), std::vector<int>{3});  // another host's part still to come
  EXPECT_EQ(contents(to_ + "/ferry.9.rank.0"), std::string(100, 'p'));
  EXPECT_EQ(contents(to_ + "/ferry.9.1.rank.0"), std::string(200, 'c'));
  EXPECT_EQ(contents(to_ + "/ferry.9.1.rank.1"), std::string(300, 'd'));
}

}  // namespace
