// Shared-memory segments: memory is allocated only for the ranges backed,
// and a /dev/shm too small for a range says so, with the size, instead of
// killing the process with SIGBUS at a later store.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "transport/shm/segment.h"

namespace ferry::transport::shm {
namespace {

std::string segment_name(const char* what) { return "/ferry-test-segment-" + std::string(what) + "-" + std::to_string(getpid()); }

// Bytes of /dev/shm the segment `name` holds (shm_open's names live there).
long long allocated_bytes(const std::string& name) {
  struct stat st {};
  EXPECT_EQ(stat(("/dev/shm" + name).c_str(), &st), 0);
  return static_cast<long long>(st.st_blocks) * 512;
}

TEST(ShmSegmentTest, OnlyTheRangesBackedTakeMemory) {
  Segment s;
  std::string error, name = segment_name("backed");
  ASSERT_TRUE(s.create(name, 64 * 4096, &error)) << error;
  EXPECT_EQ(allocated_bytes(name), 0) << "memory was allocated before anything was backed";
  ASSERT_TRUE(s.back(8 * 4096, 2 * 4096, &error)) << error;
  EXPECT_EQ(allocated_bytes(name), 2 * 4096);
  ASSERT_TRUE(s.back(8 * 4096, 4096, &error)) << error;
  EXPECT_EQ(allocated_bytes(name), 2 * 4096) << "backing a range again allocates nothing more";
  s.unlink();
  s.done_backing();
  std::string late;
  EXPECT_FALSE(s.back(0, 4096, &late)) << "backing after done_backing() has no file to back";
}

TEST(ShmSegmentTest, TooSmallDevShmIsAnErrorNamingTheSize) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs on /dev/shm in a private namespace";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Exit codes say what failed; the parent turns them into messages.
    if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) _exit(10);
    if (mount("tmpfs", "/dev/shm", "tmpfs", 0, "size=256k") != 0) _exit(11);
    Segment s;
    std::string error;
    if (!s.create(segment_name("full"), 4 << 20, &error)) _exit(12);  // not backed: fits
    if (!s.back(0, 128 << 10, &error)) _exit(13);                     // fits
    if (s.back(0, 4 << 20, &error)) _exit(14);                        // does not
    if (error.find("cannot allocate 4.0 MiB in /dev/shm") == std::string::npos) _exit(15);
    if (error.find("make /dev/shm larger") == std::string::npos) _exit(16);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  int code = WEXITSTATUS(status);
  if (code == 10 || code == 11) GTEST_SKIP() << "cannot mount a private tmpfs here (exit " << code << ")";
  EXPECT_EQ(code, 0) << "12: create failed, 13: a range that fits was refused, 14: a range too large was "
                        "backed, 15/16: the message lacks the size or the advice";
}

}  // namespace
}  // namespace ferry::transport::shm
