// What travels through the daemon tree for dynamic processes across hosts:
// forwarded PMIx requests and their answers (forwarded_requests.h), the PMIx
// arrays packed inside them, spawn requests, and the jobs mpirun sends to a
// daemon (daemon_spawned_jobs.h); and the table of requests waiting for
// their answer. PMIx's packing needs the library running: one server for
// the whole program, as mpirun starts it.
#include <gtest/gtest.h>
#include <pmix.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "launcher/pmix/forwarded_requests.h"
#include "launcher/pmix/pmix_host.h"
#include "launcher/spawned/daemon_spawned_jobs.h"
#include "launcher/tree/wire.h"

namespace ferry::launcher {
namespace {

std::string body_of(const std::string& frame) { return frame.substr(wire::kFrameHeader); }

class Forwarded : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new PmixHost("unit-test-host"); }
  // Left running: PMIx_server_finalize at exit is no part of what is tested.
  static PmixHost* server_;
};
PmixHost* Forwarded::server_ = nullptr;

TEST_F(Forwarded, RequestAndReplyRoundTrip) {
  Request r;
  r.origin = 3;
  r.id = 1ull << 40 | 7;
  r.target = 2;
  r.kind = RequestKind::kDirectModex;
  PMIX_LOAD_PROCID(&r.proc, "ferry.12.1", 5);
  r.payload = std::string("bytes\0with a zero", 17);
  std::string frame = encode_request(r);
  ASSERT_EQ(wire::Type(uint8_t(frame[4])), wire::Type::kRequest);
  Request back;
  ASSERT_TRUE(decode_request(body_of(frame), &back));
  EXPECT_EQ(back.origin, 3u);
  EXPECT_EQ(back.id, r.id);
  EXPECT_EQ(back.target, 2u);
  EXPECT_EQ(back.kind, RequestKind::kDirectModex);
  EXPECT_STREQ(back.proc.nspace, "ferry.12.1");
  EXPECT_EQ(back.proc.rank, 5u);
  EXPECT_EQ(back.payload, r.payload);

  Reply reply{4, 99, PMIX_ERR_NOT_FOUND, "answer"};
  frame = encode_reply(reply);
  ASSERT_EQ(wire::Type(uint8_t(frame[4])), wire::Type::kReply);
  Reply got;
  ASSERT_TRUE(decode_reply(body_of(frame), &got));
  EXPECT_EQ(got.origin, 4u);
  EXPECT_EQ(got.id, 99u);
  EXPECT_EQ(got.status, PMIX_ERR_NOT_FOUND);
  EXPECT_EQ(got.payload, "answer");
  // Every truncation is noticed.
  std::string body = body_of(encode_request(r));
  for (size_t n = 0; n < body.size(); ++n) EXPECT_FALSE(decode_request(body.substr(0, n), &back)) << n;
}

TEST_F(Forwarded, KeysAndInfosOfALookupRoundTrip) {
  pmix_info_t info[2];
  bool yes = true;
  int seconds = 4;
  PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &yes, PMIX_BOOL);
  PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &seconds, PMIX_INT);
  char* keys[] = {const_cast<char*>("first"), const_cast<char*>("second"), nullptr};
  Unpacked out;
  unpack(pack_keys(keys) + pack_infos(info, 2), kKeys | kInfos, &out);
  ASSERT_TRUE(out.ok);
  EXPECT_EQ(out.keys, (std::vector<std::string>{"first", "second"}));
  ASSERT_EQ(out.key_ptrs.size(), 3u);
  EXPECT_EQ(out.key_ptrs[2], nullptr);
  ASSERT_EQ(out.ninfo, 2u);
  EXPECT_STREQ(out.info[0].key, PMIX_WAIT);
  EXPECT_TRUE(out.info[0].value.data.flag);
  EXPECT_STREQ(out.info[1].key, PMIX_TIMEOUT);
  EXPECT_EQ(out.info[1].value.data.integer, 4);
  PMIX_INFO_DESTRUCT(&info[0]);
  PMIX_INFO_DESTRUCT(&info[1]);

  // No keys, no infos: empty arrays, still well formed.
  Unpacked none;
  unpack(pack_keys(nullptr) + pack_infos(nullptr, 0), kKeys | kInfos, &none);
  ASSERT_TRUE(none.ok);
  EXPECT_TRUE(none.keys.empty());
  EXPECT_EQ(none.ninfo, 0u);
  // Garbage is refused, not believed.
  Unpacked bad;
  unpack("not a packed buffer", kKeys | kInfos, &bad);
  EXPECT_FALSE(bad.ok);
}

TEST_F(Forwarded, LookupAnswersRoundTrip) {
  pmix_pdata_t* data;
  PMIX_PDATA_CREATE(data, 1);
  PMIX_LOAD_PROCID(&data[0].proc, "ferry.9", 1);
  PMIX_LOAD_KEY(data[0].key, "service");
  PMIX_VALUE_LOAD(&data[0].value, "port-name", PMIX_STRING);
  Unpacked out;
  unpack(pack_pdata(data, 1), kPdata, &out);
  PMIX_PDATA_FREE(data, 1);
  ASSERT_TRUE(out.ok);
  ASSERT_EQ(out.ndata, 1u);
  EXPECT_STREQ(out.pdata[0].proc.nspace, "ferry.9");
  EXPECT_EQ(out.pdata[0].proc.rank, 1u);
  EXPECT_STREQ(out.pdata[0].key, "service");
  ASSERT_EQ(out.pdata[0].value.type, PMIX_STRING);
  EXPECT_STREQ(out.pdata[0].value.data.string, "port-name");
}

TEST_F(Forwarded, SpawnRequestsRoundTrip) {
  SpawnParse parsed;
  parsed.request.parent_nspace = "ferry.5";
  parsed.request.parent_rank = 3;
  SpawnApp a;
  a.cmd = "worker";
  a.argv = {"worker", "--flag", ""};
  a.env = {"A=1"};
  a.wdir = "/tmp";
  a.search_path = "/opt/bin";
  a.hosts = {"h2"};
  a.hostfile = "hosts.txt";
  a.maxprocs = 4;
  parsed.request.apps = {a, a};
  parsed.problem = "a problem";
  parsed.status = PMIX_ERR_BAD_PARAM;
  SpawnParse back;
  ASSERT_TRUE(decode_spawn(encode_spawn(parsed), &back));
  EXPECT_EQ(back.problem, "a problem");
  EXPECT_EQ(back.status, PMIX_ERR_BAD_PARAM);
  EXPECT_EQ(back.request.parent_nspace, "ferry.5");
  EXPECT_EQ(back.request.parent_rank, 3);
  ASSERT_EQ(back.request.apps.size(), 2u);
  const SpawnApp& b = back.request.apps[1];
  EXPECT_EQ(b.cmd, "worker");
  EXPECT_EQ(b.argv, a.argv);
  EXPECT_EQ(b.env, a.env);
  EXPECT_EQ(b.wdir, "/tmp");
  EXPECT_EQ(b.search_path, "/opt/bin");
  EXPECT_EQ(b.hosts, a.hosts);
  EXPECT_EQ(b.hostfile, "hosts.txt");
  EXPECT_EQ(b.maxprocs, 4);
  EXPECT_EQ(back.request.callback, nullptr);  // callbacks never travel
}

TEST_F(Forwarded, JobsSentToADaemonRoundTrip) {
  RemoteSpawn s;
  s.position = 2;
  s.setup.job_id = 3;
  s.setup.tag_output = true;
  JobDescription& d = s.setup.description;
  d.nspace = "ferry.7.3";
  d.num_ranks = 3;
  d.secret = "0123456789abcdef0123456789abcdef";
  d.universe_size = 8;
  d.parent_nspace = "ferry.7";
  d.parent_rank = 1;
  d.nodes = {{"h1", {0}}, {"h2", {1, 2}}};
  d.this_node = 1;
  s.setup.environment = {{"X", "1"}};
  SpawnApp one;
  one.cmd = "a";
  one.argv = {"a"};
  one.maxprocs = 1;
  SpawnApp two = one;
  two.cmd = "b";
  two.maxprocs = 2;
  s.setup.apps = {one, two};
  std::string frame = encode_remote_spawn(s);
  ASSERT_EQ(wire::Type(uint8_t(frame[4])), wire::Type::kSpawnJob);
  RemoteSpawn back;
  ASSERT_TRUE(decode_remote_spawn(body_of(frame), &back));
  EXPECT_EQ(back.position, 2u);
  EXPECT_EQ(back.setup.job_id, 3);
  EXPECT_TRUE(back.setup.tag_output);
  const JobDescription& e = back.setup.description;
  EXPECT_EQ(e.nspace, "ferry.7.3");
  EXPECT_EQ(e.num_ranks, 3);
  EXPECT_EQ(e.secret, d.secret);
  EXPECT_EQ(e.universe_size, 8);
  EXPECT_EQ(e.parent_nspace, "ferry.7");
  EXPECT_EQ(e.parent_rank, 1);
  ASSERT_EQ(e.nodes.size(), 2u);
  EXPECT_EQ(e.this_node, 1);
  EXPECT_EQ(e.nodes[0].hostname, "h1");
  EXPECT_EQ(e.nodes[0].ranks, (std::vector<int>{0}));
  EXPECT_EQ(e.nodes[1].hostname, "h2");
  EXPECT_EQ(e.nodes[1].ranks, (std::vector<int>{1, 2}));
  // A rank outside the job, or a node that is not there, is refused.
  RemoteSpawn wrong = s;
  wrong.setup.description.this_node = 2;
  RemoteSpawn scratch;
  EXPECT_FALSE(decode_remote_spawn(body_of(encode_remote_spawn(wrong)), &scratch));
  EXPECT_EQ(e.app_sizes, (std::vector<int>{1, 2}));
  EXPECT_EQ(back.setup.environment, s.setup.environment);
  ASSERT_EQ(back.setup.apps.size(), 2u);
  EXPECT_EQ(back.setup.apps[1].cmd, "b");
}

// What the PMIx callbacks below were called with.
struct Calls {
  std::vector<pmix_status_t> statuses;
};
void op_done(pmix_status_t status, void* cbdata) { static_cast<Calls*>(cbdata)->statuses.push_back(status); }

TEST_F(Forwarded, AnswersReachTheirRequestOnceAndTheRestFailAtTheEnd) {
  ForwardedRequests table;
  table.set_position(5);
  Calls first, second;
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, "ferry.1", 0);
  pmix_info_t info;
  PMIX_INFO_LOAD(&info, "name", "value", PMIX_STRING);
  Request a, b;
  ASSERT_TRUE(decode_request(body_of(table.publish(proc, &info, 1, op_done, &first)), &a));
  ASSERT_TRUE(decode_request(body_of(table.unpublish(proc, nullptr, nullptr, 0, op_done, &second)), &b));
  PMIX_INFO_DESTRUCT(&info);
  EXPECT_EQ(a.origin, 5u);
  EXPECT_EQ(a.target, 0u);  // mpirun
  EXPECT_EQ(a.kind, RequestKind::kPublish);
  EXPECT_NE(a.id, b.id);

  table.complete(Reply{5, a.id, PMIX_ERR_DUPLICATE_KEY, ""});
  table.complete(Reply{5, a.id, PMIX_SUCCESS, ""});        // answered already: ignored
  table.complete(Reply{5, a.id + b.id + 1, PMIX_SUCCESS, ""});  // nobody's
  EXPECT_EQ(first.statuses, std::vector<pmix_status_t>{PMIX_ERR_DUPLICATE_KEY});
  EXPECT_TRUE(second.statuses.empty());
  // The job ends: whoever still waits is told, once.
  table.fail_all();
  table.fail_all();
  EXPECT_EQ(second.statuses, std::vector<pmix_status_t>{PMIX_ERR_JOB_TERMINATED});
  EXPECT_EQ(first.statuses.size(), 1u);
}

}  // namespace
}  // namespace ferry::launcher
