// Fences of spawned jobs on several hosts (spawned_fences.h): mpirun
// releases a fence once every host of the job has contributed, with
// everyone's data, to each of those hosts; a daemon sends its share up and
// completes its ranks' fence when the release comes; fences of one job, and
// of different jobs, never mix; a job that ends fails the fences waiting.
#include <gtest/gtest.h>
#include <pmix_server.h>

#include <string>
#include <utility>
#include <vector>

#include "launcher/spawned/spawned_fences.h"
#include "launcher/tree/wire.h"

namespace ferry::launcher {
namespace {

// What PMIx would get back from its host for one local fence.
struct Answer {
  bool called = false;
  pmix_status_t status = PMIX_ERROR;
  std::string data;
};

void modex_done(pmix_status_t status, const char* data, size_t size, void* cbdata, pmix_release_cbfunc_t release,
                void* release_data) {
  auto* a = static_cast<Answer*>(cbdata);
  a->called = true;
  a->status = status;
  a->data.assign(data != nullptr ? data : "", data != nullptr ? size : 0);
  if (release != nullptr) release(release_data);
}

FenceReply reply_to(Answer* a) { return {modex_done, a}; }

struct Sent {
  int position;
  std::string frame;
};

wire::Type type_of(const std::string& frame) { return wire::Type(uint8_t(frame[4])); }
std::string body_of(const std::string& frame) { return frame.substr(wire::kFrameHeader); }

TEST(SpawnedFences, MpirunReleasesOnceEveryHostOfTheJobContributed) {
  std::vector<Sent> sent;
  SpawnedFences fences(0, [&](int p, const std::string& f) { sent.push_back({p, f}); });
  fences.expect("job.1", {0, 2, 5});
  Answer mine;
  fences.local("job.1", "A", reply_to(&mine));
  auto share = [](const char* nspace, uint64_t sequence, const char* data) {
    return body_of(wire::Encoder(wire::Type::kJobFence).str(nspace).u64(sequence).str(data).finish());
  };
  fences.contribute(share("job.1", 0, "B"));
  EXPECT_FALSE(mine.called);
  EXPECT_TRUE(sent.empty());
  fences.contribute(share("job.9", 0, "X"));  // a job mpirun does not know of: ignored
  fences.contribute(share("job.1", 1, "later"));  // the next fence: kept apart
  EXPECT_FALSE(mine.called);
  fences.contribute(share("job.1", 0, "C"));
  ASSERT_TRUE(mine.called);
  EXPECT_EQ(mine.status, PMIX_SUCCESS);
  EXPECT_EQ(mine.data, "ABC");
  // The release goes to each other host of the job, its target first.
  ASSERT_EQ(sent.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(type_of(sent[i].frame), wire::Type::kJobFenceRelease);
    std::string body = body_of(sent[i].frame);  // the decoder reads it in place
    wire::Decoder d(body);
    EXPECT_EQ(int(d.u32()), sent[i].position);
    EXPECT_EQ(d.str(), "job.1");
    EXPECT_EQ(d.u64(), 0u);
    EXPECT_EQ(d.u8(), 1);
    EXPECT_EQ(d.str(), "ABC");
    EXPECT_TRUE(d.ok());
  }
  EXPECT_EQ(sent[0].position, 2);
  EXPECT_EQ(sent[1].position, 5);
  // Fence 1 waits for mpirun's own ranks and host 5.
  Answer second;
  fences.local("job.1", "D", reply_to(&second));
  EXPECT_FALSE(second.called);
  // The job ends: a fence still waiting fails, once.
  fences.fail_all();
  ASSERT_TRUE(second.called);
  EXPECT_EQ(second.status, PMIX_ERR_COMM_FAILURE);
}

TEST(SpawnedFences, ADaemonSendsItsShareUpAndCompletesOnTheRelease) {
  std::vector<Sent> sent;
  SpawnedFences fences(3, [&](int p, const std::string& f) { sent.push_back({p, f}); });
  Answer first, other_job;
  fences.local("job.2", "mine", reply_to(&first));
  fences.local("job.3", "other", reply_to(&other_job));
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(type_of(sent[0].frame), wire::Type::kJobFence);
  std::string up0 = body_of(sent[0].frame), up1 = body_of(sent[1].frame);
  wire::Decoder d(up0);
  EXPECT_EQ(d.str(), "job.2");
  EXPECT_EQ(d.u64(), 0u);  // each job counts its own fences
  EXPECT_EQ(d.str(), "mine");
  wire::Decoder e(up1);
  EXPECT_EQ(e.str(), "job.3");
  EXPECT_EQ(e.u64(), 0u);
  // The release, as node_daemon hands it over (after the target).
  std::string release =
      body_of(wire::Encoder(wire::Type::kJobFenceRelease).str("job.2").u64(0).u8(1).str("all of it").finish());
  fences.release(release);
  ASSERT_TRUE(first.called);
  EXPECT_EQ(first.status, PMIX_SUCCESS);
  EXPECT_EQ(first.data, "all of it");
  EXPECT_FALSE(other_job.called);
  fences.release(release);  // again: nothing waits for it any more
  fences.fail_all();
  EXPECT_TRUE(other_job.called);
  EXPECT_EQ(other_job.status, PMIX_ERR_COMM_FAILURE);
}

}  // namespace
}  // namespace ferry::launcher
