// Forwarding a rank's output: whole lines per write, a prefix per line, the
// unfinished last line at the end.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "launcher/ranks/output_forwarding.h"

namespace ferry::launcher {
namespace {

// A rank's pipe (written by the test) and mpirun's stdout (a pipe the test
// reads), with a forwarder between them.
class Forwarding : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(pipe2(rank_, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(out_, O_CLOEXEC), 0);
    fcntl(rank_[0], F_SETFL, O_NONBLOCK);
    fcntl(out_[0], F_SETFL, O_NONBLOCK);
    sink_.fd = out_[1];
  }
  void TearDown() override {
    if (rank_[1] >= 0) close(rank_[1]);
    close(out_[0]);
    close(out_[1]);
  }
  void rank_writes(const std::string& s) { ASSERT_EQ(write(rank_[1], s.data(), s.size()), ssize_t(s.size())); }
  void rank_closes() {
    close(rank_[1]);
    rank_[1] = -1;
  }
  std::string output() {
    std::string s;
    char buf[4096];
    ssize_t n;
    while ((n = read(out_[0], buf, sizeof buf)) > 0) s.append(buf, size_t(n));
    return s;
  }

  int rank_[2];
  int out_[2];
  OutputSink sink_{-1};
};

TEST_F(Forwarding, HoldsAnUnfinishedLineUntilItEnds) {
  LineForwarder f(rank_[0], &sink_, "");
  rank_writes("one\ntw");
  EXPECT_TRUE(f.on_readable());
  EXPECT_EQ(output(), "one\n");
  rank_writes("o\nthr");
  EXPECT_TRUE(f.on_readable());
  EXPECT_EQ(output(), "two\n");
  rank_closes();
  EXPECT_FALSE(f.on_readable());  // EOF
  f.finish(false);
  EXPECT_EQ(output(), "thr");  // byte for byte
}

TEST_F(Forwarding, PrefixesEveryLine) {
  LineForwarder f(rank_[0], &sink_, "[3] ");
  rank_writes("a\nb\nc");
  f.on_readable();
  EXPECT_EQ(output(), "[3] a\n[3] b\n");
  f.finish(true);  // the rank exited: its last line ends here
  EXPECT_EQ(output(), "[3] c\n");
}

TEST_F(Forwarding, FinishTakesWhatIsLeftInThePipe) {
  LineForwarder f(rank_[0], &sink_, "");
  rank_writes("x\ny\n");
  // The rank's end is still open (a child of the rank may hold it): finish
  // must not wait for EOF.
  f.finish(true);
  EXPECT_EQ(output(), "x\ny\n");
}

TEST_F(Forwarding, BrokenSinkDropsOutput) {
  LineForwarder f(rank_[0], &sink_, "");
  close(out_[0]);
  out_[0] = open("/dev/null", O_RDONLY);
  close(out_[1]);
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  close(p[0]);  // nobody reads: EPIPE (SIGPIPE is ignored below)
  out_[1] = p[1];
  sink_.fd = p[1];
  signal(SIGPIPE, SIG_IGN);
  rank_writes("lost\n");
  f.on_readable();
  EXPECT_TRUE(sink_.broken);
}

}  // namespace
}  // namespace ferry::launcher
