// Errors as values (base/error.h): Err, and the MPI error codes that carry
// an error class and remember their message for MPI_Error_string.
#include "base/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "mpi.h"

namespace ferry {
namespace {

TEST(Err, DefaultIsSuccessWithNoMessage) {
  Err e;
  EXPECT_TRUE(e.ok());
  EXPECT_FALSE(static_cast<bool>(e));
  EXPECT_EQ(e.mpi_class(), MPI_SUCCESS);
  EXPECT_EQ(e.message(), "");
}

TEST(Err, FailureCarriesItsClassAndMessage) {
  Err e(MPI_ERR_COMM, "invalid communicator");
  EXPECT_FALSE(e.ok());
  EXPECT_TRUE(static_cast<bool>(e));
  EXPECT_EQ(e.mpi_class(), MPI_ERR_COMM);
  EXPECT_EQ(e.message(), "invalid communicator");
}

TEST(Err, MovingKeepsTheError) {
  Err e(MPI_ERR_TAG, "invalid tag -5");
  Err moved = std::move(e);
  EXPECT_EQ(moved.mpi_class(), MPI_ERR_TAG);
  EXPECT_EQ(moved.message(), "invalid tag -5");
}

TEST(Fail, FormatsLikePrintf) {
  Err e = fail(MPI_ERR_RANK, "invalid rank %d (communicator size %d)", 9, 4);
  EXPECT_TRUE(static_cast<bool>(e));
  EXPECT_EQ(e.mpi_class(), MPI_ERR_RANK);
  EXPECT_EQ(e.message(), "invalid rank 9 (communicator size 4)");

  Err s = fail(MPI_ERR_ARG, "%s=%zu, %.2f", "bytes", size_t{1} << 40, 0.5);
  EXPECT_EQ(s.message(), "bytes=1099511627776, 0.50");
}

TEST(Fail, VeryLongMessageIsCutNotOverflowed) {
  std::string long_text(2000, 'x');
  Err e = fail(MPI_ERR_OTHER, "%s", long_text.c_str());
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OTHER);
  EXPECT_GT(e.message().size(), 100u);
  EXPECT_LT(e.message().size(), long_text.size());
  EXPECT_EQ(e.message(), std::string(e.message().size(), 'x'));
}

TEST(ErrorCode, SuccessIsZeroAndValid) {
  EXPECT_EQ(MPI_SUCCESS, 0);
  EXPECT_EQ(error_code::class_of(MPI_SUCCESS), MPI_SUCCESS);
  EXPECT_TRUE(error_code::is_valid(MPI_SUCCESS));
  EXPECT_EQ(error_code::text(MPI_SUCCESS), "no error");
}

TEST(ErrorCode, MadeCodeKeepsItsClassAndMessage) {
  int code = error_code::make(MPI_ERR_RANK, "MPI_Send: invalid rank 9 (communicator size 4)");
  EXPECT_NE(code, MPI_ERR_RANK);  // it remembers a message, so it is not the bare class
  EXPECT_NE(code, MPI_SUCCESS);
  EXPECT_EQ(error_code::class_of(code), MPI_ERR_RANK);
  EXPECT_TRUE(error_code::is_valid(code));
  EXPECT_EQ(error_code::text(code), "MPI_Send: invalid rank 9 (communicator size 4)");
}

TEST(ErrorCode, MadeCodesAreDistinctAndEachKeepsItsOwnMessage) {
  int a = error_code::make(MPI_ERR_TAG, "first");
  int b = error_code::make(MPI_ERR_TAG, "second");
  int c = error_code::make(MPI_ERR_TRUNCATE, "third");
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_EQ(error_code::text(a), "first");
  EXPECT_EQ(error_code::text(b), "second");
  EXPECT_EQ(error_code::text(c), "third");
  EXPECT_EQ(error_code::class_of(c), MPI_ERR_TRUNCATE);
}

TEST(ErrorCode, MadeCodesStayBelowLastcode) {
  for (int i = 0; i < 3000; ++i) {
    int code = error_code::make(MPI_ERR_RMA_FLAVOR, "x");
    ASSERT_GT(code, 0);
    ASSERT_LE(code, MPI_ERR_LASTCODE);
  }
}

TEST(ErrorCode, BareClassIsItsOwnCodeWithTheClassText) {
  EXPECT_EQ(error_code::class_of(MPI_ERR_TRUNCATE), MPI_ERR_TRUNCATE);
  EXPECT_EQ(error_code::text(MPI_ERR_TRUNCATE), "message truncated");
  EXPECT_EQ(error_code::text(MPI_ERR_RANK), "invalid rank");
  EXPECT_TRUE(error_code::is_valid(MPI_ERR_TRUNCATE));
}

TEST(ErrorCode, RingEventuallyForgetsOldMessagesButKeepsTheirClass) {
  int old_code = error_code::make(MPI_ERR_COUNT, "the oldest message");
  ASSERT_EQ(error_code::text(old_code), "the oldest message");
  // The ring is bounded; enough later codes overwrite the oldest slot.
  int last = 0;
  for (int i = 0; i < 5000; ++i) last = error_code::make(MPI_ERR_BUFFER, "newer " + std::to_string(i));
  EXPECT_EQ(error_code::text(last), "newer 4999");
  // The forgotten code must not show another code's message...
  EXPECT_NE(error_code::text(old_code).rfind("newer", 0), 0u);
  // ...it falls back to its class's text, and its class is still known.
  EXPECT_EQ(error_code::text(old_code), "invalid count argument");
  EXPECT_EQ(error_code::class_of(old_code), MPI_ERR_COUNT);
  EXPECT_TRUE(error_code::is_valid(old_code));
}

TEST(ErrorCode, RecentMessagesSurviveAFullTurnOfOtherCodes) {
  // Codes made within the last few hundred are still remembered.
  std::vector<int> codes;
  for (int i = 0; i < 500; ++i) codes.push_back(error_code::make(MPI_ERR_ARG, "arg " + std::to_string(i)));
  for (int i = 0; i < 500; ++i) EXPECT_EQ(error_code::text(codes[i]), "arg " + std::to_string(i));
}

TEST(ErrorCode, InvalidCodesAreRejected) {
  EXPECT_FALSE(error_code::is_valid(-1));
  EXPECT_FALSE(error_code::is_valid(-MPI_ERR_RANK));
  EXPECT_FALSE(error_code::is_valid(54));   // a gap in MPICH's class numbers
  EXPECT_FALSE(error_code::is_valid(100));  // beyond the last class
  EXPECT_FALSE(error_code::is_valid(127));
}

TEST(ErrorCode, TextOfAnUnknownClassSaysSo) {
  EXPECT_EQ(error_code::text(127), "unknown error class");
  EXPECT_EQ(error_code::text(MPI_ERR_LASTCODE), "unknown error class");
}

TEST(ErrorCode, ConcurrentMakersEachGetTheirOwnMessage) {
  constexpr int kThreads = 4;
  constexpr int kEach = 200;  // 800 in all: fewer than the ring holds
  std::vector<std::vector<int>> codes(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &codes] {
      for (int i = 0; i < kEach; ++i)
        codes[t].push_back(error_code::make(MPI_ERR_OTHER, std::to_string(t) + ":" + std::to_string(i)));
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kEach; ++i)
      EXPECT_EQ(error_code::text(codes[t][i]), std::to_string(t) + ":" + std::to_string(i));
}

// Every class mpi.h defines has its MPICH name and a text of its own.
#define FERRY_CLASS(c) {c, #c}
struct NamedClass {
  int mpi_class;
  const char* name;
};
const NamedClass kAllClasses[] = {
    FERRY_CLASS(MPI_SUCCESS),        FERRY_CLASS(MPI_ERR_BUFFER),
    FERRY_CLASS(MPI_ERR_COUNT),      FERRY_CLASS(MPI_ERR_TYPE),
    FERRY_CLASS(MPI_ERR_TAG),        FERRY_CLASS(MPI_ERR_COMM),
    FERRY_CLASS(MPI_ERR_RANK),       FERRY_CLASS(MPI_ERR_ROOT),
    FERRY_CLASS(MPI_ERR_GROUP),      FERRY_CLASS(MPI_ERR_OP),
    FERRY_CLASS(MPI_ERR_TOPOLOGY),   FERRY_CLASS(MPI_ERR_DIMS),
    FERRY_CLASS(MPI_ERR_ARG),        FERRY_CLASS(MPI_ERR_UNKNOWN),
    FERRY_CLASS(MPI_ERR_TRUNCATE),   FERRY_CLASS(MPI_ERR_OTHER),
    FERRY_CLASS(MPI_ERR_INTERN),     FERRY_CLASS(MPI_ERR_IN_STATUS),
    FERRY_CLASS(MPI_ERR_PENDING),    FERRY_CLASS(MPI_ERR_REQUEST),
    FERRY_CLASS(MPI_ERR_ACCESS),     FERRY_CLASS(MPI_ERR_AMODE),
    FERRY_CLASS(MPI_ERR_BAD_FILE),   FERRY_CLASS(MPI_ERR_CONVERSION),
    FERRY_CLASS(MPI_ERR_DUP_DATAREP), FERRY_CLASS(MPI_ERR_FILE_EXISTS),
    FERRY_CLASS(MPI_ERR_FILE_IN_USE), FERRY_CLASS(MPI_ERR_FILE),
    FERRY_CLASS(MPI_ERR_INFO),       FERRY_CLASS(MPI_ERR_INFO_KEY),
    FERRY_CLASS(MPI_ERR_INFO_VALUE), FERRY_CLASS(MPI_ERR_INFO_NOKEY),
    FERRY_CLASS(MPI_ERR_IO),         FERRY_CLASS(MPI_ERR_NAME),
    FERRY_CLASS(MPI_ERR_NO_MEM),     FERRY_CLASS(MPI_ERR_NOT_SAME),
    FERRY_CLASS(MPI_ERR_NO_SPACE),   FERRY_CLASS(MPI_ERR_NO_SUCH_FILE),
    FERRY_CLASS(MPI_ERR_PORT),       FERRY_CLASS(MPI_ERR_QUOTA),
    FERRY_CLASS(MPI_ERR_READ_ONLY),  FERRY_CLASS(MPI_ERR_SERVICE),
    FERRY_CLASS(MPI_ERR_SPAWN),      FERRY_CLASS(MPI_ERR_UNSUPPORTED_DATAREP),
    FERRY_CLASS(MPI_ERR_UNSUPPORTED_OPERATION), FERRY_CLASS(MPI_ERR_WIN),
    FERRY_CLASS(MPI_ERR_BASE),       FERRY_CLASS(MPI_ERR_LOCKTYPE),
    FERRY_CLASS(MPI_ERR_KEYVAL),     FERRY_CLASS(MPI_ERR_RMA_CONFLICT),
    FERRY_CLASS(MPI_ERR_RMA_SYNC),   FERRY_CLASS(MPI_ERR_SIZE),
    FERRY_CLASS(MPI_ERR_DISP),       FERRY_CLASS(MPI_ERR_ASSERT),
    FERRY_CLASS(MPI_ERR_RMA_RANGE),  FERRY_CLASS(MPI_ERR_RMA_ATTACH),
    FERRY_CLASS(MPI_ERR_RMA_SHARED), FERRY_CLASS(MPI_ERR_RMA_FLAVOR),
};
#undef FERRY_CLASS

TEST(ErrorClassName, EveryClassInMpiHIsNamedAsInMpich) {
  for (const NamedClass& c : kAllClasses) {
    EXPECT_STREQ(error_class_name(c.mpi_class), c.name);
    EXPECT_TRUE(error_code::is_valid(c.mpi_class)) << c.name;
    EXPECT_STRNE(error_class_text(c.mpi_class), "unknown error class") << c.name;
  }
}

TEST(ErrorClassName, UnknownClassIsNamedErrUnknown) {
  EXPECT_STREQ(error_class_name(54), "MPI_ERR_UNKNOWN");
  EXPECT_STREQ(error_class_name(-3), "MPI_ERR_UNKNOWN");
  EXPECT_STREQ(error_class_text(1000), "unknown error class");
}

TEST(ErrorClassName, MadeCodeNamesItsClass) {
  int code = error_code::make(MPI_ERR_TRUNCATE, "truncated");
  EXPECT_STREQ(error_class_name(error_code::class_of(code)), "MPI_ERR_TRUNCATE");
}

// --- User-defined classes and codes (MPI-3.1 §8.5) ------------------------------

TEST(UserErrorCodes, ANewClassIsItsOwnClassAboveLastcodeWithAnEmptyText) {
  int cls = 0;
  ASSERT_TRUE(error_code::add_class(&cls).ok());
  EXPECT_GT(cls, MPI_ERR_LASTCODE);
  EXPECT_TRUE(error_code::is_valid(cls));
  EXPECT_TRUE(error_code::is_class(cls));
  EXPECT_EQ(error_code::class_of(cls), cls);
  EXPECT_EQ(error_code::text(cls), "");
  EXPECT_EQ(*error_code::last_used(), cls);
  EXPECT_STREQ(error_class_name(cls), "a user-defined error class");
}

TEST(UserErrorCodes, CodesReportTheirClassAndKeepTheirOwnText) {
  int cls = 0, a = 0, b = 0;
  ASSERT_TRUE(error_code::add_class(&cls).ok());
  ASSERT_TRUE(error_code::add_code(cls, &a).ok());
  ASSERT_TRUE(error_code::add_code(cls, &b).ok());
  EXPECT_NE(a, b);
  EXPECT_FALSE(error_code::is_class(a));
  EXPECT_EQ(error_code::class_of(a), cls);
  EXPECT_EQ(error_code::class_of(b), cls);
  EXPECT_EQ(*error_code::last_used(), b);
  ASSERT_TRUE(error_code::set_string(a, "first").ok());
  ASSERT_TRUE(error_code::set_string(cls, "the class").ok());
  EXPECT_EQ(error_code::text(a), "first");
  EXPECT_EQ(error_code::text(b), "");
  EXPECT_EQ(error_code::text(cls), "the class");
  ASSERT_TRUE(error_code::set_string(a, "replaced").ok());
  EXPECT_EQ(error_code::text(a), "replaced");
}

TEST(UserErrorCodes, ACodeOfAPredefinedClassReportsThatClass) {
  int code = 0;
  ASSERT_TRUE(error_code::add_code(MPI_ERR_ARG, &code).ok());
  EXPECT_GT(code, MPI_ERR_LASTCODE);
  EXPECT_EQ(error_code::class_of(code), MPI_ERR_ARG);
  EXPECT_TRUE(error_code::is_valid(code));
  EXPECT_FALSE(error_code::is_class(code));
}

TEST(UserErrorCodes, OnlyClassesTakeCodesAndOnlyUserValuesTakeStrings) {
  int cls = 0, code = 0, out = -1;
  ASSERT_TRUE(error_code::add_class(&cls).ok());
  ASSERT_TRUE(error_code::add_code(cls, &code).ok());
  EXPECT_EQ(error_code::add_code(code, &out).mpi_class(), MPI_ERR_ARG);           // a code, not a class
  EXPECT_EQ(error_code::add_code(MPI_SUCCESS, &out).mpi_class(), MPI_ERR_ARG);    // no error class
  EXPECT_EQ(error_code::add_code(54, &out).mpi_class(), MPI_ERR_ARG);             // a gap in the numbering
  EXPECT_EQ(error_code::add_code(cls + (1000 << 11), &out).mpi_class(), MPI_ERR_ARG);  // not handed out yet
  EXPECT_EQ(out, -1);
  EXPECT_EQ(error_code::set_string(MPI_ERR_ARG, "x").mpi_class(), MPI_ERR_ARG);
  EXPECT_EQ(error_code::set_string(error_code::make(MPI_ERR_TAG, "made"), "x").mpi_class(), MPI_ERR_ARG);
  EXPECT_FALSE(error_code::is_valid(cls + (1000 << 11)));
  EXPECT_FALSE(error_code::is_class(MPI_ERR_LASTCODE));
}

// A runtime error of a user-defined class (an attribute callback returning
// such a code, say) remembers its message and keeps the class.
TEST(UserErrorCodes, RaisedErrorsOfAUserClassKeepClassAndMessage) {
  int cls = 0;
  ASSERT_TRUE(error_code::add_class(&cls).ok());
  ASSERT_TRUE(error_code::set_string(cls, "widgets").ok());
  int raised = error_code::make(cls, "MPI_Comm_free: the delete callback failed");
  EXPECT_NE(raised, cls);
  EXPECT_EQ(error_code::class_of(raised), cls);
  EXPECT_TRUE(error_code::is_valid(raised));
  EXPECT_EQ(error_code::text(raised), "MPI_Comm_free: the delete callback failed");
  // Once the ring forgets the message, the class's text is left.
  for (int i = 0; i < 3000; ++i) error_code::make(cls, "later");
  EXPECT_EQ(error_code::class_of(raised), cls);
  std::string t = error_code::text(raised);
  EXPECT_TRUE(t == "widgets" || t == "later") << t;
}

TEST(UserErrorCodes, ConcurrentAddersGetDistinctValues) {
  constexpr int kThreads = 4;
  constexpr int kEach = 100;
  std::vector<std::vector<int>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &made] {
      for (int i = 0; i < kEach; ++i) {
        int cls = 0, code = 0;
        ASSERT_TRUE(error_code::add_class(&cls).ok());
        ASSERT_TRUE(error_code::add_code(cls, &code).ok());
        ASSERT_TRUE(error_code::set_string(code, std::to_string(t) + "/" + std::to_string(i)).ok());
        EXPECT_EQ(error_code::class_of(code), cls);
        error_code::make(MPI_ERR_OTHER, "noise");
        made[t].push_back(cls);
        made[t].push_back(code);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<int> all;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kEach; ++i) EXPECT_EQ(error_code::text(made[t][2 * i + 1]), std::to_string(t) + "/" + std::to_string(i));
    all.insert(all.end(), made[t].begin(), made[t].end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  EXPECT_EQ(*error_code::last_used(), all.back());
}

}  // namespace
}  // namespace ferry
