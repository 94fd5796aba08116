// The protocol between mpirun and its node daemons: frames (wire), the
// non-blocking link that carries them, the job plan, the shape of the
// daemon tree, the ready line, and the tree's handling of its children
// (hello, routing up and down, fences, lost links).
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "launcher/clock.h"
#include "launcher/job_plan.h"
#include "launcher/start/daemon_start.h"
#include "launcher/tree/daemon_link.h"
#include "launcher/tree/daemon_tree.h"
#include "launcher/tree/wire.h"

namespace ferry::launcher {
namespace {

using wire::Type;

struct Frame {
  Type type;
  std::string body;
};

// The body of a finished frame (what a FrameHandler sees).
std::string body_of(const std::string& frame) { return frame.substr(wire::kFrameHeader); }

// A frame header by hand: `length` counts the type byte and the body.
std::string raw_header(uint32_t length, Type type) {
  std::string h(4, '\0');
  for (int i = 0; i < 4; ++i) h[size_t(i)] = char((length >> (8 * i)) & 0xff);
  h.push_back(char(type));
  return h;
}

// ---- wire ------------------------------------------------------------------

TEST(Wire, FrameHeaderCountsTypeAndBody) {
  std::string frame = wire::Encoder(Type::kAbort).u32(7).i32(-3).finish();
  ASSERT_EQ(frame.size(), wire::kFrameHeader + 8);
  EXPECT_EQ(frame.substr(0, 5), raw_header(9, Type::kAbort));
}

TEST(Wire, EveryFieldRoundTrips) {
  const std::string with_nul("a\0b", 3);
  std::string frame = wire::Encoder(Type::kOutput)
                          .u8(0xfe)
                          .u32(0xdeadbeefu)
                          .i32(-42)
                          .u64(0x0123456789abcdefull)
                          .str(with_nul)
                          .str("")
                          .raw("tail")
                          .finish();
  EXPECT_EQ(Type(uint8_t(frame[4])), Type::kOutput);
  const std::string body = body_of(frame);  // the decoder reads it in place
  wire::Decoder d(body);
  EXPECT_EQ(d.u8(), 0xfe);
  EXPECT_EQ(d.u32(), 0xdeadbeefu);
  EXPECT_EQ(d.i32(), -42);
  EXPECT_EQ(d.u64(), 0x0123456789abcdefull);
  EXPECT_EQ(d.str(), with_nul);
  EXPECT_EQ(d.str(), "");
  EXPECT_TRUE(d.ok());
  // raw() bytes carry no length: they are what is left.
  EXPECT_EQ(d.u32(), uint32_t('t') | uint32_t('a') << 8 | uint32_t('i') << 16 | uint32_t('l') << 24);
  EXPECT_TRUE(d.ok());
  EXPECT_EQ(d.u8(), 0);
  EXPECT_FALSE(d.ok());
}

TEST(Wire, StringListsRoundTripAndACountPastTheBodyIsRefused) {
  const std::vector<std::string> argv{"./app", "", "--n=3"};
  const std::string body = body_of(wire::Encoder(Type::kOutput).strings(argv).strings({}).finish());
  wire::Decoder d(body);
  EXPECT_EQ(d.strings(), argv);
  EXPECT_TRUE(d.strings().empty());
  EXPECT_TRUE(d.ok());
  // A count of 2^30 strings in a body of 4 bytes: refused before any is made.
  const std::string corrupt = body_of(wire::Encoder(Type::kOutput).u32(1u << 30).finish());
  wire::Decoder c(corrupt);
  EXPECT_TRUE(c.strings().empty());
  EXPECT_FALSE(c.ok());
}

TEST(Wire, EveryTruncationOfABodyIsDetected) {
  std::string body = body_of(wire::Encoder(Type::kRankExited).u32(5).u64(99).str("hello").finish());
  for (size_t cut = 0; cut < body.size(); ++cut) {
    wire::Decoder d(std::string_view(body).substr(0, cut));
    d.u32();
    d.u64();
    d.str();
    EXPECT_FALSE(d.ok()) << "body cut to " << cut << " bytes";
  }
  wire::Decoder whole(body);
  EXPECT_EQ(whole.u32(), 5u);
  EXPECT_EQ(whole.u64(), 99u);
  EXPECT_EQ(whole.str(), "hello");
  EXPECT_TRUE(whole.ok());
}

TEST(Wire, ReadsAfterAFailureReturnNothing) {
  // A string that claims more bytes than there are.
  std::string body = body_of(wire::Encoder(Type::kError).u32(1000).raw("short").u32(7).finish());
  wire::Decoder d(body);
  EXPECT_EQ(d.str(), "");
  EXPECT_FALSE(d.ok());
  EXPECT_EQ(d.u32(), 0u);  // the 7 is there, but the decoder has given up
  EXPECT_EQ(d.u64(), 0u);
  EXPECT_FALSE(d.ok());
}

// ---- DaemonLink --------------------------------------------------------------

// Two ends of a stream socket: `link` reads and writes through a DaemonLink,
// the test drives the other end by hand (non-blocking both).
class Link : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    link_ = std::make_unique<DaemonLink>(fds[0]);
    peer_ = fds[1];
  }
  void TearDown() override {
    link_.reset();
    if (peer_ >= 0) close(peer_);
  }

  // Writes all of `bytes` to the peer end (the link is not read meanwhile:
  // it must fit in the socket's buffer).
  void peer_writes(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(peer_, bytes.data() + done, bytes.size() - done);
      ASSERT_GT(n, 0) << "socket buffer full: " << strerror(errno);
      done += size_t(n);
    }
  }
  void peer_closes() {
    close(peer_);
    peer_ = -1;
  }
  bool read_link() {
    return link_->on_readable([&](Type t, std::string_view body) { frames_.push_back({t, std::string(body)}); });
  }

  std::unique_ptr<DaemonLink> link_;
  int peer_ = -1;
  std::vector<Frame> frames_;
};

TEST_F(Link, SeveralFramesInOneWriteAllArrive) {
  std::string a = wire::Encoder(Type::kOutput).u32(1).u8(1).str("one\n").finish();
  std::string b = wire::Encoder(Type::kAbort).u32(2).i32(9).finish();
  std::string c = wire::Encoder(Type::kShutdown).finish();  // a frame with no body
  peer_writes(a + b + c);
  EXPECT_TRUE(read_link());
  ASSERT_EQ(frames_.size(), 3u);
  EXPECT_EQ(frames_[0].type, Type::kOutput);
  EXPECT_EQ(frames_[0].body, body_of(a));
  EXPECT_EQ(frames_[1].type, Type::kAbort);
  EXPECT_EQ(frames_[1].body, body_of(b));
  EXPECT_EQ(frames_[2].type, Type::kShutdown);
  EXPECT_EQ(frames_[2].body, "");
}

TEST_F(Link, AFrameSplitAcrossReadsArrivesOnceWhole) {
  std::string frame = wire::Encoder(Type::kError).i32(3).str("a message of some length").finish();
  // Inside the header, then inside the body, then the rest.
  peer_writes(frame.substr(0, 3));
  EXPECT_TRUE(read_link());
  EXPECT_TRUE(frames_.empty());
  peer_writes(frame.substr(3, 10));
  EXPECT_TRUE(read_link());
  EXPECT_TRUE(frames_.empty());
  peer_writes(frame.substr(13));
  EXPECT_TRUE(read_link());
  ASSERT_EQ(frames_.size(), 1u);
  EXPECT_EQ(frames_[0].type, Type::kError);
  wire::Decoder d(frames_[0].body);
  EXPECT_EQ(d.i32(), 3);
  EXPECT_EQ(d.str(), "a message of some length");
  EXPECT_TRUE(d.ok());
}

TEST_F(Link, AFrameLargerThanTheSocketBufferIsQueuedAndFinishedWhenWritable) {
  int small = 4096;
  setsockopt(link_->fd(), SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  setsockopt(peer_, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  std::string payload(1 << 20, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = char(i * 7 + i / 251);
  std::string big = wire::Encoder(Type::kFenceRelease).u64(12).str(payload).finish();
  std::string after = wire::Encoder(Type::kSignal).i32(15).i32(-1).finish();
  link_->send(big);
  ASSERT_TRUE(link_->wants_write()) << "a 1 MiB frame went into a 4 KiB socket buffer at once";
  link_->send(after);  // queued behind the big one, never ahead of it

  // The peer drains while the link is told it may write, as an event loop
  // would on EPOLLOUT.
  DaemonLink reader(dup(peer_));
  std::vector<Frame> got;
  double deadline = monotonic_ms() + 10000;
  while ((got.size() < 2) && monotonic_ms() < deadline) {
    if (link_->wants_write()) {
      pollfd p = {link_->fd(), POLLOUT, 0};
      poll(&p, 1, 10);
      ASSERT_TRUE(link_->on_writable());
    }
    ASSERT_TRUE(reader.on_readable([&](Type t, std::string_view b) { got.push_back({t, std::string(b)}); }));
  }
  EXPECT_FALSE(link_->wants_write());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].type, Type::kFenceRelease);
  wire::Decoder d(got[0].body);
  EXPECT_EQ(d.u64(), 12u);
  EXPECT_TRUE(d.str() == payload) << "the big frame arrived altered";
  EXPECT_TRUE(d.ok());
  EXPECT_EQ(got[1].type, Type::kSignal);
  EXPECT_EQ(got[1].body, body_of(after));
}

TEST_F(Link, EofKillsTheLink) {
  EXPECT_TRUE(read_link());  // nothing there yet: alive
  peer_closes();
  EXPECT_FALSE(read_link());
  EXPECT_FALSE(read_link());  // and stays dead
}

TEST_F(Link, FramesThatCameBeforeEofAreStillHandedOver) {
  // Two frames of 64 KiB fill the link's reads exactly, so EOF is seen in
  // the same on_readable as the frames: they must not be lost with it.
  const size_t frame_size = 64 * 1024;
  std::string body(frame_size - wire::kFrameHeader, 'x');
  std::string frame = raw_header(uint32_t(frame_size - 4), Type::kOutput) + body;
  int big = 1 << 20;
  setsockopt(peer_, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  peer_writes(frame + frame);
  peer_closes();
  bool alive = true;
  for (int i = 0; i < 10 && alive; ++i) alive = read_link();
  EXPECT_FALSE(alive);
  ASSERT_EQ(frames_.size(), 2u);
  EXPECT_EQ(frames_[0].body, body);
  EXPECT_EQ(frames_[1].body, body);
}

TEST_F(Link, AFrameOfLengthZeroKillsTheLink) {
  std::string good = wire::Encoder(Type::kShutdown).finish();
  peer_writes(good + raw_header(0, Type::kOutput));
  EXPECT_FALSE(read_link());
  EXPECT_EQ(frames_.size(), 1u);  // what came before the bad header was fine
  EXPECT_FALSE(read_link());
}

TEST_F(Link, AFrameLargerThanTheLimitKillsTheLink) {
  peer_writes(raw_header(wire::kMaxFrame + 1, Type::kOutput) + "xyz");
  EXPECT_FALSE(read_link());
  EXPECT_TRUE(frames_.empty());
}

TEST_F(Link, AFrameAtTheLimitIsAcceptedAsAHeader) {
  // Only the header is there: the link waits for the body.
  peer_writes(raw_header(wire::kMaxFrame, Type::kOutput) + "xyz");
  EXPECT_TRUE(read_link());
  EXPECT_TRUE(frames_.empty());
}

TEST_F(Link, SendingToAClosedPeerEndsTheLink) {
  peer_closes();
  std::string frame = wire::Encoder(Type::kOutput).str(std::string(1 << 16, 'z')).finish();
  link_->send(frame);
  link_->send(frame);
  // The send failed (EPIPE, no signal): nothing waits, and the link is dead.
  EXPECT_FALSE(link_->wants_write());
  EXPECT_FALSE(read_link());
}

// ---- JobPlan -------------------------------------------------------------------

JobPlan sample_plan() {
  JobPlan plan;
  plan.nspace = "ferry.4242";
  plan.secret = "0123456789abcdef0123456789abcdef";
  plan.num_ranks = 7;
  plan.nodes = {{"alpha", {0, 1, 2}, 0, false}, {"beta.example", {3, 4}, 1, true}, {"gamma", {5, 6}, 2, false}};
  plan.fanout = 3;
  plan.num_daemons = 2;
  plan.program_path = "/opt/app/bin/solver";
  plan.program_args = {"solver", "--size", "", "with space"};
  plan.environment = {{"FERRY_DEBUG", "launch"}, {"EMPTY", ""}, {"X", "a=b"}};
  plan.working_dir = "/scratch/run 1";
  plan.working_dir_given = true;
  plan.tag_output = true;
  plan.map_by = MapBy::kNode;
  plan.bind_to = BindTo::kCore;
  plan.report_bindings = true;
  plan.training = {true, "10.1.2.3", 29511, 2, 3, "ferry.4242", 3};
  plan.hold_master_port = true;
  plan.remote_start = {"/opt/site/bin/agent --zone 'a b'", true, 45000};
  plan.direct_modex = true;
  return plan;
}

TEST(JobPlan, EveryFieldRoundTrips) {
  const JobPlan in = sample_plan();
  JobPlan out;
  ASSERT_TRUE(decode_plan(encode_plan(in), &out));
  EXPECT_EQ(out.nspace, in.nspace);
  EXPECT_EQ(out.secret, in.secret);
  EXPECT_EQ(out.num_ranks, in.num_ranks);
  ASSERT_EQ(out.nodes.size(), in.nodes.size());
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    EXPECT_EQ(out.nodes[i].host, in.nodes[i].host);
    EXPECT_EQ(out.nodes[i].ranks, in.nodes[i].ranks);
    EXPECT_EQ(out.nodes[i].position, in.nodes[i].position);
    EXPECT_EQ(out.nodes[i].oversubscribed, in.nodes[i].oversubscribed);
  }
  EXPECT_EQ(out.fanout, in.fanout);
  EXPECT_EQ(out.num_daemons, in.num_daemons);
  EXPECT_EQ(out.program_path, in.program_path);
  EXPECT_EQ(out.program_args, in.program_args);
  EXPECT_EQ(out.environment, in.environment);
  EXPECT_EQ(out.working_dir, in.working_dir);
  EXPECT_EQ(out.working_dir_given, in.working_dir_given);
  EXPECT_EQ(out.tag_output, in.tag_output);
  EXPECT_EQ(out.map_by, in.map_by);
  EXPECT_EQ(out.bind_to, in.bind_to);
  EXPECT_EQ(out.report_bindings, in.report_bindings);
  EXPECT_TRUE(out.training.enabled);
  EXPECT_EQ(out.training.master_addr, in.training.master_addr);
  EXPECT_EQ(out.training.master_port, in.training.master_port);
  EXPECT_EQ(out.training.restart_count, in.training.restart_count);
  EXPECT_EQ(out.training.max_restarts, in.training.max_restarts);
  EXPECT_EQ(out.training.run_id, in.training.run_id);
  EXPECT_EQ(out.training.num_hosts, in.training.num_hosts);
  EXPECT_TRUE(out.hold_master_port);
  // What a daemon needs to start its own children as mpirun started it.
  EXPECT_EQ(out.remote_start.launch_agent, in.remote_start.launch_agent);
  EXPECT_TRUE(out.remote_start.accept_new_host_keys);
  EXPECT_EQ(out.remote_start.timeout_ms, 45000);
  EXPECT_TRUE(out.direct_modex);
  EXPECT_EQ(out.node_at(2), 2);
  EXPECT_EQ(out.node_at(3), -1);
}

TEST(JobPlan, FlagsAtTheirDefaultsRoundTripToo) {
  JobPlan in = sample_plan();
  in.working_dir_given = in.tag_output = in.report_bindings = false;
  in.training.enabled = in.hold_master_port = false;
  in.nodes[1].oversubscribed = false;
  in.map_by = MapBy::kSlot;
  in.bind_to = BindTo::kDefault;
  JobPlan out = sample_plan();  // every flag set: decoding must clear them
  ASSERT_TRUE(decode_plan(encode_plan(in), &out));
  EXPECT_FALSE(out.working_dir_given);
  EXPECT_FALSE(out.tag_output);
  EXPECT_FALSE(out.report_bindings);
  EXPECT_FALSE(out.training.enabled);
  EXPECT_FALSE(out.hold_master_port);
  EXPECT_FALSE(out.nodes[1].oversubscribed);
  EXPECT_EQ(out.map_by, MapBy::kSlot);
  EXPECT_EQ(out.bind_to, BindTo::kDefault);
}

TEST(JobPlan, EveryTruncationIsRefused) {
  const std::string data = encode_plan(sample_plan());
  for (size_t cut = 0; cut < data.size(); ++cut) {
    JobPlan out;
    EXPECT_FALSE(decode_plan(data.substr(0, cut), &out)) << "plan cut to " << cut << " of " << data.size();
  }
}

TEST(JobPlan, GarbageIsRefused) {
  JobPlan out;
  EXPECT_FALSE(decode_plan("", &out));
  EXPECT_FALSE(decode_plan("this is not a plan at all, just text", &out));
  std::string data = encode_plan(sample_plan());
  std::string wrong_magic = data;
  wrong_magic[0] ^= 0x5a;
  EXPECT_FALSE(decode_plan(wrong_magic, &out));
  std::srand(7);
  for (int i = 0; i < 200; ++i) {
    std::string noise(size_t(std::rand() % 400), '\0');
    for (char& c : noise) c = char(std::rand());
    EXPECT_FALSE(decode_plan(noise, &out));
  }
}

TEST(JobPlan, AZeroFanoutIsRefused) {
  JobPlan in = sample_plan();
  in.fanout = 0;
  JobPlan out;
  EXPECT_FALSE(decode_plan(encode_plan(in), &out));
}

TEST(JobPlan, ARankOutsideTheJobIsRefused) {
  JobPlan in = sample_plan();
  in.nodes[2].ranks = {5, 7};  // the job has ranks 0..6
  JobPlan out;
  EXPECT_FALSE(decode_plan(encode_plan(in), &out));
}

// ---- The tree's shape ------------------------------------------------------------

int depth_of(int position, int fanout) {
  int depth = 0;
  while (position != 0) {
    position = tree_parent(position, fanout);
    ++depth;
  }
  return depth;
}

TEST(DaemonTreeShape, EveryDaemonHasOneParentThatListsIt) {
  for (int fanout : {1, 2, 32})
    for (int n : {1, 2, 5, 33, 100, 1000}) {
      if (fanout == 1 && n > 100) continue;  // a chain: fine, just long
      std::vector<int> listed(size_t(n) + 1, 0);
      for (int p = 0; p <= n; ++p) {
        std::vector<int> children = tree_children(p, fanout, n);
        EXPECT_LE(int(children.size()), fanout);
        for (int c : children) {
          ASSERT_GE(c, 1);
          ASSERT_LE(c, n);
          ++listed[size_t(c)];
          EXPECT_EQ(tree_parent(c, fanout), p) << "fanout " << fanout << ", " << n << " daemons";
        }
      }
      EXPECT_EQ(tree_parent(0, fanout), -1);
      for (int c = 1; c <= n; ++c) {
        EXPECT_EQ(listed[size_t(c)], 1) << "position " << c << ", fanout " << fanout << ", " << n << " daemons";
        int parent = tree_parent(c, fanout);
        EXPECT_GE(parent, 0);
        EXPECT_LT(parent, c);  // parents start before their children
      }
    }
}

TEST(DaemonTreeShape, FanoutDecidesTheDepth) {
  int deepest = 0;
  for (int p = 1; p <= 1000; ++p) deepest = std::max(deepest, depth_of(p, 32));
  EXPECT_EQ(deepest, 2);  // mpirun's 32 children, then theirs: 32 + 1024
  EXPECT_EQ(depth_of(32, 32), 1);
  EXPECT_EQ(depth_of(33, 32), 2);
  EXPECT_EQ(depth_of(5, 1), 5);  // a chain
  EXPECT_EQ(depth_of(7, 2), 3);
  EXPECT_EQ(tree_children(0, 2, 5), (std::vector<int>{1, 2}));
  EXPECT_EQ(tree_children(2, 2, 5), (std::vector<int>{5}));
  EXPECT_TRUE(tree_children(3, 2, 5).empty());
}

TEST(DaemonTreeShape, AHugeFanoutDoesNotOverflow) {
  // position * fanout is past INT_MAX: no children, not a wrapped range.
  EXPECT_TRUE(tree_children(3, 1 << 30, 1000).empty());
  EXPECT_EQ(tree_children(0, 1 << 30, 3), (std::vector<int>{1, 2, 3}));
}

// ---- Who started whom -------------------------------------------------------------

// 6 daemons, fan-out 2: mpirun starts n1 and n2, n1 starts n3 and n4, n2
// starts n5 and n6.
JobPlan tree_plan() {
  JobPlan plan;
  plan.fanout = 2;
  plan.num_daemons = 6;
  plan.nodes.push_back({"here", {0}, 0, false});
  for (int p = 1; p <= 6; ++p) plan.nodes.push_back({"n" + std::to_string(p), {p}, p, false});
  return plan;
}

TEST(TreeStart, APathNamesTheDaemonsAboveFromTheTop) {
  JobPlan plan = tree_plan();
  EXPECT_TRUE(tree_path(plan, 1).empty());  // mpirun's own child
  EXPECT_EQ(tree_path(plan, 5), (std::vector<std::string>{"n2"}));
  plan.fanout = 1;  // a chain: here -> n1 -> n2 -> ... -> n6
  EXPECT_EQ(tree_path(plan, 4), (std::vector<std::string>{"n1", "n2", "n3"}));
}

TEST(TreeStart, AFailureBelowMpirunIsNamedWithItsPath) {
  JobPlan plan = tree_plan();
  // mpirun's own child: the error as start_remote words it.
  EXPECT_EQ(start_failure_message(plan, {2, "mpirun: n2: unknown host name"}), "mpirun: n2: unknown host name");
  EXPECT_EQ(start_failure_message(plan, {6, "mpirun: n6: launch agent sh exited with status 255: refused"}),
            "mpirun: could not start ferryd on n6 (via n2): launch agent sh exited with status 255: refused");
  // An error of the connection keeps its address.
  plan.fanout = 1;
  EXPECT_EQ(start_failure_message(plan, {3, "mpirun: n3 (10.0.0.3:22): connection refused"}),
            "mpirun: could not start ferryd on n3 (via n1, n2): n3 (10.0.0.3:22): connection refused");
}

// ---- The ready line ----------------------------------------------------------------

TEST(ReadyLine, RoundTrips) {
  std::string line = ready_line(40123, {"10.0.0.2", "fd00::2"});
  EXPECT_EQ(line, "ferryd ready 40123 10.0.0.2,fd00::2");
  int port = 0;
  std::string addresses;
  ASSERT_TRUE(parse_ready_line(line, &port, &addresses));
  EXPECT_EQ(port, 40123);
  EXPECT_EQ(addresses, "10.0.0.2,fd00::2");
}

TEST(ReadyLine, AnythingElseIsRefused) {
  int port = 0;
  std::string addresses;
  EXPECT_FALSE(parse_ready_line("", &port, &addresses));
  EXPECT_FALSE(parse_ready_line("bash: ferryd: command not found", &port, &addresses));
  EXPECT_FALSE(parse_ready_line("ferryd ready", &port, &addresses));
  EXPECT_FALSE(parse_ready_line("ferryd ready 123", &port, &addresses));  // no addresses
  EXPECT_FALSE(parse_ready_line("ferryd ready 0 10.0.0.1", &port, &addresses));
  EXPECT_FALSE(parse_ready_line("ferryd ready -5 10.0.0.1", &port, &addresses));
  EXPECT_FALSE(parse_ready_line("ferryd ready port 10.0.0.1", &port, &addresses));
  EXPECT_FALSE(parse_ready_line("ferryd steady 5 10.0.0.1", &port, &addresses));
  EXPECT_FALSE(parse_ready_line(ready_line(5, {}), &port, &addresses));  // a host with no address
}

// ---- DaemonTree ---------------------------------------------------------------------

// What a test fence callback saw (PmixHost::complete_fence calls it as
// PMIx's pmix_modex_cbfunc_t).
struct FenceOutcome {
  int calls = 0;
  pmix_status_t status = PMIX_ERROR;
  std::string data;
};

void record_fence(pmix_status_t status, const char* data, size_t ndata, void* cbdata, pmix_release_cbfunc_t release,
                  void* release_data) {
  auto* outcome = static_cast<FenceOutcome*>(cbdata);
  ++outcome->calls;
  outcome->status = status;
  outcome->data.assign(data != nullptr ? data : "", ndata);
  if (release != nullptr) release(release_data);
}

std::string hello(int position, const std::string& secret) {
  return wire::Encoder(Type::kHello).u32(uint32_t(position)).str(secret).str("host" + std::to_string(position)).finish();
}

// A tree at `position` of a plan of 6 daemons with fanout 2 (0: 1 2,
// 1: 3 4, 2: 5 6), its epoll loop run by the test, and fake children that
// connect to it over loopback TCP.
class Tree : public ::testing::Test {
 protected:
  static constexpr uint8_t kListenKind = 1, kLinkKind = 2;

  void make_tree(int position, bool has_local_ranks) {
    plan_.secret = "right-secret";
    plan_.fanout = 2;
    plan_.num_daemons = 6;
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    ASSERT_GE(epoll_, 0);
    int listen_fd = listen_for_daemons(&port_);
    tree_ = std::make_unique<DaemonTree>(epoll_, kListenKind, kLinkKind, plan_, position, listen_fd,
                                         has_local_ranks,
                                         [this](Type t, std::string_view b) { delivered_.push_back({t, std::string(b)}); });
  }
  void TearDown() override {
    tree_.reset();
    children_.clear();
    if (epoll_ >= 0) close(epoll_);
  }

  // A child daemon's end of a link: connected, non-blocking. `rcvbuf` > 0
  // shrinks its receive buffer (set before connecting, so that it counts).
  DaemonLink* connect_child(int rcvbuf = 0) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_GE(fd, 0);
    if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << strerror(errno);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    children_.push_back(std::make_unique<DaemonLink>(fd));
    return children_.back().get();
  }

  // Runs the tree's event loop (and lets every fake child read and write)
  // until `done` or 5 seconds.
  template <typename Done>
  bool pump(Done done, int timeout_ms = 5000) {
    double deadline = monotonic_ms() + timeout_ms;
    while (!done()) {
      if (monotonic_ms() > deadline) return false;
      epoll_event events[16];
      int n = epoll_wait(epoll_, events, 16, 5);
      for (int i = 0; i < n; ++i) tree_->on_event(events[i].data.u64, events[i].events);
      for (size_t c = 0; c < children_.size(); ++c) {
        if (!children_[c]) continue;
        children_[c]->on_writable();
        if (!children_[c]->on_readable(
                [&](Type t, std::string_view b) { to_child_[c].push_back({t, std::string(b)}); }))
          closed_.push_back(int(c));
      }
    }
    return true;
  }
  // Pumps for a while with nothing expected to happen.
  void settle(int ms = 100) {
    pump([] { return false; }, ms);
  }
  size_t index_of(const DaemonLink* child) const {
    for (size_t c = 0; c < children_.size(); ++c)
      if (children_[c].get() == child) return c;
    return SIZE_MAX;
  }
  bool child_closed(const DaemonLink* child) const {
    return std::count(closed_.begin(), closed_.end(), int(index_of(child))) > 0;
  }

  JobPlan plan_;
  int epoll_ = -1;
  int port_ = 0;
  std::unique_ptr<DaemonTree> tree_;
  std::vector<Frame> delivered_;
  std::vector<std::unique_ptr<DaemonLink>> children_;
  std::map<size_t, std::vector<Frame>> to_child_;
  std::vector<int> closed_;
};

TEST_F(Tree, AGreetedChildsOutputReachesMpirun) {
  make_tree(0, false);
  DaemonLink* child = connect_child();
  child->send(hello(1, "right-secret"));
  ASSERT_TRUE(pump([&] { return tree_->connected_children() == 1; }));
  std::string output = wire::Encoder(Type::kOutput).u32(4).u8(2).str("rank 4 says hi\n").finish();
  child->send(output);
  ASSERT_TRUE(pump([&] { return !delivered_.empty(); }));
  ASSERT_EQ(delivered_.size(), 1u);
  EXPECT_EQ(delivered_[0].type, Type::kOutput);
  EXPECT_EQ(delivered_[0].body, body_of(output));
}

TEST_F(Tree, AWrongSecretIsDropped) {
  make_tree(0, false);
  DaemonLink* child = connect_child();
  child->send(hello(1, "wrong-secret"));
  ASSERT_TRUE(pump([&] { return child_closed(child); })) << "the tree kept a link that failed its hello";
  EXPECT_EQ(tree_->connected_children(), 0);
  EXPECT_TRUE(delivered_.empty());  // an ungreeted link is not a lost node
}

TEST_F(Tree, FramesAfterABadHelloInTheSameReadAreIgnored) {
  make_tree(0, false);
  DaemonLink* child = connect_child();
  // One write: the tree reads all three frames in the same on_readable.
  child->send(hello(1, "wrong-secret") + wire::Encoder(Type::kOutput).u32(0).u8(1).str("sneaky\n").finish() +
              hello(2, "right-secret"));
  ASSERT_TRUE(pump([&] { return child_closed(child); }));
  EXPECT_EQ(tree_->connected_children(), 0);
  EXPECT_TRUE(delivered_.empty());
}

TEST_F(Tree, AnUnexpectedPositionIsDropped) {
  make_tree(0, false);
  DaemonLink* child = connect_child();
  child->send(hello(3, "right-secret"));  // a child of position 1, not of mpirun
  ASSERT_TRUE(pump([&] { return child_closed(child); }));
  EXPECT_EQ(tree_->connected_children(), 0);
}

TEST_F(Tree, ASecondDaemonAtATakenPositionIsDropped) {
  make_tree(0, false);
  DaemonLink* first = connect_child();
  first->send(hello(2, "right-secret"));
  ASSERT_TRUE(pump([&] { return tree_->connected_children() == 1; }));
  DaemonLink* second = connect_child();
  second->send(hello(2, "right-secret"));
  ASSERT_TRUE(pump([&] { return child_closed(second); }));
  EXPECT_EQ(tree_->connected_children(), 1);
  EXPECT_FALSE(child_closed(first));
}

TEST_F(Tree, AGreetedChildsLinkClosingIsANodeLost) {
  make_tree(0, false);
  DaemonLink* child = connect_child();
  child->send(hello(2, "right-secret"));
  ASSERT_TRUE(pump([&] { return tree_->connected_children() == 1; }));
  children_[index_of(child)].reset();  // closes the socket
  ASSERT_TRUE(pump([&] { return !delivered_.empty(); }));
  ASSERT_EQ(delivered_.size(), 1u);
  EXPECT_EQ(delivered_[0].type, Type::kNodeLost);
  wire::Decoder d(delivered_[0].body);
  EXPECT_EQ(d.u32(), 2u);
  EXPECT_FALSE(d.str().empty());  // a reason
  EXPECT_TRUE(d.ok());
  EXPECT_EQ(tree_->connected_children(), 0);
}

TEST_F(Tree, PassDownReachesGreetedChildrenOnly) {
  make_tree(0, false);
  DaemonLink* greeted = connect_child();
  greeted->send(hello(1, "right-secret"));
  DaemonLink* silent = connect_child();  // connected, no hello yet
  ASSERT_TRUE(pump([&] { return tree_->connected_children() == 1; }));
  settle();
  std::string frame = wire::Encoder(Type::kSignal).i32(15).i32(-1).finish();
  tree_->pass_down(frame);
  ASSERT_TRUE(pump([&] { return !to_child_[index_of(greeted)].empty(); }));
  settle();
  ASSERT_EQ(to_child_[index_of(greeted)].size(), 1u);
  EXPECT_EQ(to_child_[index_of(greeted)][0].body, body_of(frame));
  EXPECT_TRUE(to_child_[index_of(silent)].empty());
}

TEST_F(Tree, ABigFrameDownIsFinishedThroughEpollout) {
  make_tree(0, false);
  DaemonLink* child = connect_child();
  child->send(hello(1, "right-secret"));
  ASSERT_TRUE(pump([&] { return tree_->connected_children() == 1; }));
  // Far more than a new connection's socket buffers take at once: the rest
  // goes out only if the tree watches the link for EPOLLOUT.
  std::string payload(16 << 20, 'f');
  tree_->pass_down(wire::Encoder(Type::kFenceRelease).u64(0).str(payload).finish());
  std::string small = wire::Encoder(Type::kShutdown).finish();
  tree_->pass_down(small);
  ASSERT_TRUE(pump([&] { return to_child_[index_of(child)].size() == 2; }, 20000));
  const std::vector<Frame>& got = to_child_[index_of(child)];
  EXPECT_EQ(got[0].type, Type::kFenceRelease);
  wire::Decoder d(got[0].body);
  EXPECT_EQ(d.u64(), 0u);
  EXPECT_EQ(d.str().size(), payload.size());
  EXPECT_EQ(got[1].type, Type::kShutdown);
}

TEST_F(Tree, MpirunReleasesAFenceOnceEveryNodeContributed) {
  make_tree(0, true);
  DaemonLink* one = connect_child();
  DaemonLink* two = connect_child();
  one->send(hello(1, "right-secret"));
  two->send(hello(2, "right-secret"));
  ASSERT_TRUE(pump([&] { return tree_->connected_children() == 2; }));

  FenceOutcome local;
  tree_->local_fence("A", {record_fence, &local});
  one->send(wire::Encoder(Type::kFenceData).u64(0).str("B").finish());
  settle();
  EXPECT_EQ(local.calls, 0) << "released before position 2 contributed";
  EXPECT_TRUE(to_child_[index_of(one)].empty());
  two->send(wire::Encoder(Type::kFenceData).u64(0).str("CC").finish());
  ASSERT_TRUE(pump([&] { return local.calls == 1; }));
  EXPECT_EQ(local.status, PMIX_SUCCESS);
  EXPECT_EQ(local.data, "ABCC");  // mpirun's, then in the order they came
  for (DaemonLink* child : {one, two}) {
    ASSERT_TRUE(pump([&] { return !to_child_[index_of(child)].empty(); }));
    const Frame& release = to_child_[index_of(child)][0];
    EXPECT_EQ(release.type, Type::kFenceRelease);
    wire::Decoder d(release.body);
    EXPECT_EQ(d.u64(), 0u);
    EXPECT_EQ(d.str(), "ABCC");
    EXPECT_TRUE(d.ok());
  }

  // The next fence has the next number, whoever enters it first.
  two->send(wire::Encoder(Type::kFenceData).u64(1).str("2").finish());
  one->send(wire::Encoder(Type::kFenceData).u64(1).str("1").finish());
  settle();
  FenceOutcome second;
  tree_->local_fence("0", {record_fence, &second});
  ASSERT_EQ(second.calls, 1);
  EXPECT_EQ(second.data.size(), 3u);
  EXPECT_EQ(std::string(second.data).substr(2), "0");
  EXPECT_EQ(local.calls, 1);
}

// Direct modex: a host's data stays with its server; the fence still waits
// for every host, and releases with nothing.
TEST_F(Tree, UnderDirectModexAFenceCarriesNoData) {
  plan_.direct_modex = true;
  make_tree(1, true);  // position 1: children 3 and 4
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
  DaemonLink parent(fds[0]);
  DaemonLink above(fds[1]);
  tree_->set_parent(&parent);
  std::vector<Frame> up;
  DaemonLink* three = connect_child();
  DaemonLink* four = connect_child();
  three->send(hello(3, "right-secret"));
  four->send(hello(4, "right-secret"));
  ASSERT_TRUE(pump([&] { return tree_->connected_children() == 2; }));
  FenceOutcome local;
  tree_->local_fence("this host's cards", {record_fence, &local});
  three->send(wire::Encoder(Type::kFenceData).u64(0).str("").finish());
  four->send(wire::Encoder(Type::kFenceData).u64(0).str("").finish());
  ASSERT_TRUE(pump([&] {
    parent.on_writable();
    above.on_readable([&](Type t, std::string_view b) { up.push_back({t, std::string(b)}); });
    return !up.empty();
  }));
  EXPECT_EQ(up[0].type, Type::kFenceData);
  wire::Decoder d(up[0].body);
  EXPECT_EQ(d.u64(), 0u);
  EXPECT_EQ(d.str(), "");
  tree_->release_fence(0, "");
  EXPECT_EQ(local.calls, 1);
  EXPECT_EQ(local.status, PMIX_SUCCESS);
}

TEST_F(Tree, FailedFencesAnswerTheirRanks) {
  make_tree(0, true);
  FenceOutcome outcome;
  tree_->local_fence("A", {record_fence, &outcome});  // children never contribute
  EXPECT_EQ(outcome.calls, 0);
  tree_->fail_fences();
  EXPECT_EQ(outcome.calls, 1);
  EXPECT_NE(outcome.status, PMIX_SUCCESS);
  tree_->fail_fences();
  EXPECT_EQ(outcome.calls, 1);  // once only
}

TEST_F(Tree, ADaemonSendsItsSubtreesFenceDataAndOutputUp) {
  make_tree(1, true);  // position 1: children 3 and 4
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
  DaemonLink parent(fds[0]);
  DaemonLink above(fds[1]);  // mpirun's end
  tree_->set_parent(&parent);
  std::vector<Frame> up;
  auto read_up = [&] {
    parent.on_writable();
    above.on_readable([&](Type t, std::string_view b) { up.push_back({t, std::string(b)}); });
  };

  DaemonLink* three = connect_child();
  DaemonLink* four = connect_child();
  three->send(hello(3, "right-secret"));
  four->send(hello(4, "right-secret"));
  ASSERT_TRUE(pump([&] { return tree_->connected_children() == 2; }));

  std::string output = wire::Encoder(Type::kRankExited).u32(9).i32(1234).i32(0).finish();
  three->send(output);
  ASSERT_TRUE(pump([&] {
    read_up();
    return !up.empty();
  }));
  EXPECT_EQ(up[0].type, Type::kRankExited);
  EXPECT_EQ(up[0].body, body_of(output));  // passed on unchanged

  FenceOutcome local;
  tree_->local_fence("L", {record_fence, &local});
  three->send(wire::Encoder(Type::kFenceData).u64(0).str("3").finish());
  four->send(wire::Encoder(Type::kFenceData).u64(0).str("4").finish());
  ASSERT_TRUE(pump([&] {
    read_up();
    return up.size() == 2;
  }));
  EXPECT_EQ(up[1].type, Type::kFenceData);
  wire::Decoder d(up[1].body);
  EXPECT_EQ(d.u64(), 0u);
  std::string subtree = d.str();
  EXPECT_TRUE(d.ok());
  std::sort(subtree.begin(), subtree.end());
  EXPECT_EQ(subtree, "34L");
  EXPECT_EQ(local.calls, 0);  // only mpirun's release ends it

  tree_->release_fence(0, "everyone");
  EXPECT_EQ(local.calls, 1);
  EXPECT_EQ(local.data, "everyone");
}

// Each daemon says its subtree is up once every child did; mpirun hears
// once, with the number of daemons and the depth.
TEST_F(Tree, ADaemonSaysItsSubtreeIsUpOnceEveryChildDid) {
  make_tree(1, true);  // position 1: children 3 and 4
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
  DaemonLink parent(fds[0]);
  DaemonLink above(fds[1]);
  tree_->set_parent(&parent);
  std::vector<Frame> up;
  auto read_up = [&] {
    parent.on_writable();
    above.on_readable([&](Type t, std::string_view b) { up.push_back({t, std::string(b)}); });
  };
  tree_->report_subtree_if_up();  // up itself, its children not yet
  DaemonLink* three = connect_child();
  DaemonLink* four = connect_child();
  three->send(hello(3, "right-secret"));
  four->send(hello(4, "right-secret"));
  three->send(wire::Encoder(Type::kSubtreeUp).u32(1).u32(1).finish());
  ASSERT_TRUE(pump([&] { return tree_->connected_children() == 2; }));
  settle();
  read_up();
  EXPECT_TRUE(up.empty()) << "reported before child 4 was up";
  four->send(wire::Encoder(Type::kSubtreeUp).u32(3).u32(2).finish());  // 4 and two below it
  ASSERT_TRUE(pump([&] {
    read_up();
    return !up.empty();
  }));
  ASSERT_EQ(up.size(), 1u);
  EXPECT_EQ(up[0].type, Type::kSubtreeUp);
  wire::Decoder d(up[0].body);
  EXPECT_EQ(d.u32(), 5u);  // itself, 3, 4 and the two below 4
  EXPECT_EQ(d.u32(), 3u);  // 1 -> 4 -> below
  tree_->report_subtree_if_up();
  settle();
  read_up();
  EXPECT_EQ(up.size(), 1u) << "said twice";
}

TEST_F(Tree, MpirunHearsOnceTheWholeTreeIsUp) {
  make_tree(0, false);  // children 1 and 2
  DaemonLink* one = connect_child();
  DaemonLink* two = connect_child();
  one->send(hello(1, "right-secret"));
  two->send(hello(2, "right-secret"));
  one->send(wire::Encoder(Type::kSubtreeUp).u32(3).u32(2).finish());
  ASSERT_TRUE(pump([&] { return tree_->connected_children() == 2; }));
  settle();
  EXPECT_TRUE(delivered_.empty());
  two->send(wire::Encoder(Type::kSubtreeUp).u32(3).u32(2).finish());
  ASSERT_TRUE(pump([&] { return !delivered_.empty(); }));
  EXPECT_EQ(delivered_[0].type, Type::kSubtreeUp);
  wire::Decoder d(delivered_[0].body);
  EXPECT_EQ(d.u32(), 6u);
  EXPECT_EQ(d.u32(), 2u);
}

}  // namespace
}  // namespace ferry::launcher
