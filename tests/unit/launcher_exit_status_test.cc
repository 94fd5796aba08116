// How mpirun words a rank's end and which status it exits with.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "launcher/ranks/exit_status.h"

namespace ferry::launcher {
namespace {

// Wait statuses as the kernel encodes them (see <bits/waitstatus.h>).
int exited(int code) { return (code & 0xff) << 8; }
int signaled(int sig) { return sig & 0x7f; }

TEST(LauncherExitStatus, CleanExitIsNoFailure) {
  EXPECT_FALSE(rank_failed(exited(0)));
  EXPECT_TRUE(rank_failed(exited(4)));
  EXPECT_TRUE(rank_failed(signaled(SIGKILL)));
}

TEST(LauncherExitStatus, NonZeroExit) {
  Failure f = rank_exit_failure(0, 1234, exited(4));
  EXPECT_EQ(f.message, "mpirun: rank 0 (pid 1234) exited with status 4");
  EXPECT_EQ(f.exit_status, 4);
}

TEST(LauncherExitStatus, KilledBySignalIs128PlusSignal) {
  Failure f = rank_exit_failure(2, 1234, signaled(SIGKILL));
  EXPECT_EQ(f.message, "mpirun: rank 2 (pid 1234) was killed by signal 9 (Killed)");
  EXPECT_EQ(f.exit_status, 137);
  EXPECT_EQ(shell_status(signaled(SIGSEGV)), 128 + SIGSEGV);
}

TEST(LauncherExitStatus, AbortCarriesTheErrorCode) {
  Failure f = rank_abort_failure(1, 3);
  EXPECT_EQ(f.message, "mpirun: rank 1 called MPI_Abort with error code 3");
  EXPECT_EQ(f.exit_status, 3);
  // An exit status has 8 bits; an abort never reads as success.
  EXPECT_EQ(rank_abort_failure(1, 258).exit_status, 2);
  EXPECT_EQ(rank_abort_failure(1, 0).exit_status, 1);
  EXPECT_EQ(rank_abort_failure(1, 256).exit_status, 1);
}

TEST(LauncherExitStatus, Interrupted) {
  Failure f = interrupted_failure(SIGINT);
  EXPECT_EQ(f.exit_status, 130);
  EXPECT_NE(f.message.find("signal 2"), std::string::npos) << f.message;
}

}  // namespace
}  // namespace ferry::launcher
