// FERRY_CUDA_PROFILE's table (device/profiled_ops.h), over the host-memory
// model of a GPU: each call is forwarded with its arguments and result, the
// calls are counted per name, and the report names only the calls that ran.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "device/device.h"
#include "device/profiled_ops.h"
#include "device/staging.h"
#include "device_model.h"

namespace ferry::device {
namespace {

TEST(ProfiledOps, ForwardsEachCallAndCountsItByName) {
  model::reset_counters();
  const Ops* timed = profiled(model::ops());
  EXPECT_STREQ(timed->name, model::ops()->name);
  ASSERT_NE(timed->copy_async, model::ops()->copy_async) << "the copy call is wrapped";
  install(timed);
  auto* d = static_cast<char*>(model::alloc(64));
  const char text[] = "through the timed table";
  ASSERT_FALSE(staging::copy(d, text, sizeof text).has_value());
  char back[sizeof text] = {};
  ASSERT_FALSE(staging::copy(back, d, sizeof text).has_value());
  EXPECT_STREQ(back, text) << "the wrapped copies moved the bytes";
  uint64_t id = 0;
  EXPECT_EQ(timed->buffer_id(d, &id), 0);
  EXPECT_NE(id, 0u) << "results come back through the wrapper";

  ::testing::internal::CaptureStderr();
  print_profile();
  std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(report.find("copy_async"), std::string::npos) << report;
  EXPECT_NE(report.find("stream_synchronize"), std::string::npos) << report;
  EXPECT_EQ(report.find("ipc_open_handle"), std::string::npos) << "a call that never ran is not reported";
  EXPECT_NE(report.find(" 2 calls"), std::string::npos) << "two copies, two waits: " << report;

  ::testing::internal::CaptureStderr();
  print_profile();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "printing starts the counts again";
  model::free(d);
  install(nullptr);
}

}  // namespace
}  // namespace ferry::device
