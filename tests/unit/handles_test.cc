// Handles (base/handles.h) keep MPICH's encoding, so predefined values are
// MPICH's ABI and run-time handles never collide with them; the request pool
// (base/request.h) hands out handles that translate back to their request
// while it lives, and reuses its slots.
#include "base/handles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "base/communicator.h"
#include "base/request.h"
#include "mpi.h"

namespace ferry {
namespace {

using handle::Object;

// MPICH's predefined handles that a program compiled against mpich's mpi.h
// passes in: they must decode as MPICH decodes them.
const int kPredefined[] = {
    MPI_COMM_WORLD, MPI_COMM_SELF,   MPI_GROUP_EMPTY, MPI_INFO_ENV,       MPI_INT,
    MPI_DOUBLE,     MPI_CHAR,        MPI_2INT,        MPI_FLOAT_INT,      MPI_LONG_DOUBLE_INT,
    MPI_SUM,        MPI_MAX,         MPI_NO_OP,       MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN,
    MPI_MESSAGE_NO_PROC,
};
const int kNullHandles[] = {
    MPI_COMM_NULL,       MPI_GROUP_NULL, MPI_DATATYPE_NULL, MPI_ERRHANDLER_NULL, MPI_OP_NULL,
    MPI_INFO_NULL,       MPI_WIN_NULL,   MPI_REQUEST_NULL,  MPI_MESSAGE_NULL,
};

TEST(HandleEncoding, CommWorldIsTheFirstBuiltinCommunicator) {
  EXPECT_EQ(MPI_COMM_WORLD, 0x44000000);
  EXPECT_EQ(handle::kind_of(MPI_COMM_WORLD), handle::kKindBuiltin);
  EXPECT_EQ(handle::object_of(MPI_COMM_WORLD), Object::kCommunicator);
  EXPECT_EQ(handle::index_of(MPI_COMM_WORLD), 0u);
  EXPECT_EQ(handle::index_of(MPI_COMM_SELF), 1u);
  EXPECT_EQ(handle::object_of(MPI_COMM_SELF), Object::kCommunicator);
}

TEST(HandleEncoding, PredefinedObjectsDecodeToTheirObjectType) {
  EXPECT_EQ(handle::object_of(MPI_GROUP_EMPTY), Object::kGroup);
  EXPECT_EQ(handle::object_of(MPI_INT), Object::kDatatype);
  EXPECT_EQ(handle::object_of(MPI_FLOAT_INT), Object::kDatatype);
  EXPECT_EQ(handle::kind_of(MPI_FLOAT_INT), handle::kKindDirect);
  EXPECT_EQ(handle::object_of(MPI_SUM), Object::kOp);
  EXPECT_EQ(handle::object_of(MPI_ERRORS_RETURN), Object::kErrhandler);
  EXPECT_EQ(handle::object_of(MPI_INFO_ENV), Object::kInfo);
  EXPECT_EQ(handle::object_of(MPI_REQUEST_NULL), Object::kRequest);
  EXPECT_EQ(handle::object_of(MPI_WIN_NULL), Object::kWindow);
}

TEST(HandleEncoding, NullHandlesHaveKindZero) {
  for (int h : kNullHandles) EXPECT_EQ(handle::kind_of(h), 0u) << std::hex << h;
}

TEST(HandleEncoding, MakeDynamicRoundTripsObjectAndIndex) {
  const uint32_t indices[] = {0u, 1u, 255u, 256u, 12345u, handle::kIndexMask};
  const Object objects[] = {Object::kCommunicator, Object::kGroup, Object::kDatatype, Object::kOp,
                            Object::kRequest, Object::kMessage, Object::kWindow, Object::kKeyval};
  for (Object o : objects) {
    for (uint32_t i : indices) {
      int h = handle::make_dynamic(o, i);
      EXPECT_EQ(handle::kind_of(h), handle::kKindDynamic);
      EXPECT_EQ(handle::object_of(h), o);
      EXPECT_EQ(handle::index_of(h), i);
      EXPECT_TRUE(handle::is_dynamic(h, o));
    }
  }
}

TEST(HandleEncoding, DynamicHandlesNeverEqualPredefinedOrNullHandles) {
  std::set<int> reserved(std::begin(kPredefined), std::end(kPredefined));
  reserved.insert(std::begin(kNullHandles), std::end(kNullHandles));
  const Object objects[] = {Object::kCommunicator, Object::kGroup, Object::kDatatype, Object::kErrhandler,
                            Object::kOp, Object::kInfo, Object::kRequest, Object::kMessage};
  for (Object o : objects) {
    for (uint32_t i : {0u, 1u, 2u, 3u, 4u, 5u, 0x405u, 0x80bu, handle::kIndexMask}) {
      int h = handle::make_dynamic(o, i);
      EXPECT_EQ(reserved.count(h), 0u) << std::hex << h;
    }
  }
  // And no predefined handle looks dynamic.
  for (int h : reserved) EXPECT_NE(handle::kind_of(h), handle::kKindDynamic) << std::hex << h;
}

TEST(HandleEncoding, IsDynamicChecksTheObjectType) {
  int comm = handle::make_dynamic(Object::kCommunicator, 3);
  EXPECT_TRUE(handle::is_dynamic(comm, Object::kCommunicator));
  EXPECT_FALSE(handle::is_dynamic(comm, Object::kRequest));
  EXPECT_FALSE(handle::is_dynamic(MPI_COMM_WORLD, Object::kCommunicator));
  EXPECT_FALSE(handle::is_dynamic(MPI_REQUEST_NULL, Object::kRequest));
}

TEST(HandleTable, AddReturnsDistinctIndicesThatGetTheirObject) {
  handle::Table<int> table;
  int a = 1, b = 2, c = 3;
  uint32_t ia = table.add(&a);
  uint32_t ib = table.add(&b);
  uint32_t ic = table.add(&c);
  EXPECT_NE(ia, ib);
  EXPECT_NE(ib, ic);
  EXPECT_NE(ia, ic);
  EXPECT_EQ(table.get(ia), &a);
  EXPECT_EQ(table.get(ib), &b);
  EXPECT_EQ(table.get(ic), &c);
  EXPECT_EQ(table.live(), 3u);
  EXPECT_EQ(table.get(1000), nullptr);
}

TEST(HandleTable, RemoveReturnsTheObjectAndEmptiesTheSlot) {
  handle::Table<int> table;
  int a = 1;
  uint32_t i = table.add(&a);
  EXPECT_EQ(table.remove(i), &a);
  EXPECT_EQ(table.get(i), nullptr);
  EXPECT_EQ(table.live(), 0u);
  // A second remove finds nothing and must not free the slot twice.
  EXPECT_EQ(table.remove(i), nullptr);
  EXPECT_EQ(table.live(), 0u);
  EXPECT_EQ(table.remove(77), nullptr);
  EXPECT_EQ(table.live(), 0u);
}

TEST(HandleTable, FreedSlotIsReused) {
  handle::Table<int> table;
  int a = 1, b = 2, c = 3;
  table.add(&a);
  uint32_t ib = table.add(&b);
  table.remove(ib);
  EXPECT_EQ(table.add(&c), ib);
  EXPECT_EQ(table.get(ib), &c);
  EXPECT_EQ(table.live(), 2u);
}

TEST(HandleTable, ChurnDoesNotGrowIndicesBeyondThePeak) {
  handle::Table<int> table;
  std::vector<int> objects(16);
  std::vector<uint32_t> held;
  for (int& o : objects) held.push_back(table.add(&o));
  uint32_t peak = *std::max_element(held.begin(), held.end());
  for (int round = 0; round < 1000; ++round) {
    for (uint32_t i : held) table.remove(i);
    held.clear();
    for (int& o : objects) held.push_back(table.add(&o));
    for (uint32_t i : held) ASSERT_LE(i, peak);
  }
  EXPECT_EQ(table.live(), objects.size());
}

// --- the request pool ---

class RequestPool : public ::testing::Test {
 protected:
  void SetUp() override { baseline_ = requests::live(); }
  void TearDown() override { EXPECT_EQ(requests::live(), baseline_) << "a test leaked requests"; }

  Request* acquire() {
    Request* r = requests::acquire();
    r->comm = &comm_;  // every live request belongs to a communicator
    return r;
  }

  Communicator comm_;
  size_t baseline_ = 0;
};

TEST_F(RequestPool, ACommunicatorIsInUseWhileAPooledOrTrackedRequestHasIt) {
  EXPECT_FALSE(requests::any_of(&comm_));
  Request* pooled = acquire();
  EXPECT_TRUE(requests::any_of(&comm_));
  requests::release(pooled);
  EXPECT_FALSE(requests::any_of(&comm_));
  // A blocking call's request, on its stack, outside the pool.
  Request on_stack, nested;
  on_stack.comm = nested.comm = &comm_;
  requests::track(&on_stack);
  requests::track(&nested);
  EXPECT_TRUE(requests::any_of(&comm_));
  requests::untrack(&nested);
  EXPECT_TRUE(requests::any_of(&comm_)) << "the outer call's request is still pending";
  requests::untrack(&on_stack);
  EXPECT_FALSE(requests::any_of(&comm_));
}

TEST_F(RequestPool, AcquiredRequestHasAFreshDynamicRequestHandle) {
  Request* r = acquire();
  EXPECT_TRUE(handle::is_dynamic(r->handle, Object::kRequest));
  EXPECT_NE(r->handle, MPI_REQUEST_NULL);
  EXPECT_FALSE(r->active);
  EXPECT_FALSE(r->complete);
  EXPECT_EQ(r->error, MPI_SUCCESS);
  requests::release(r);
}

TEST_F(RequestPool, HandleOfALiveRequestResolvesToIt) {
  Request* a = acquire();
  Request* b = acquire();
  EXPECT_NE(a->handle, b->handle);
  EXPECT_EQ(requests::find(a->handle), a);
  EXPECT_EQ(requests::find(b->handle), b);
  requests::release(a);
  requests::release(b);
}

TEST_F(RequestPool, HandleOfAReleasedRequestDoesNotResolve) {
  Request* r = acquire();
  MPI_Request h = r->handle;
  requests::release(r);
  EXPECT_EQ(requests::find(h), nullptr);
}

TEST_F(RequestPool, InvalidHandlesDoNotResolve) {
  EXPECT_EQ(requests::find(MPI_REQUEST_NULL), nullptr);
  EXPECT_EQ(requests::find(MPI_COMM_WORLD), nullptr);
  EXPECT_EQ(requests::find(0), nullptr);
  EXPECT_EQ(requests::find(-1), nullptr);
  // A request handle with an index far beyond the pool.
  EXPECT_EQ(requests::find(handle::make_dynamic(Object::kRequest, handle::kIndexMask)), nullptr);
  // A live request's index under another object type.
  Request* r = acquire();
  EXPECT_EQ(requests::find(handle::make_dynamic(Object::kCommunicator, handle::index_of(r->handle))), nullptr);
  requests::release(r);
}

TEST_F(RequestPool, LiveCountsAcquiredRequests) {
  std::vector<Request*> held;
  for (int i = 0; i < 300; ++i) {  // more than one chunk
    held.push_back(acquire());
    EXPECT_EQ(requests::live(), baseline_ + held.size());
  }
  while (!held.empty()) {
    requests::release(held.back());
    held.pop_back();
    EXPECT_EQ(requests::live(), baseline_ + held.size());
  }
}

TEST_F(RequestPool, ReleaseResetsTheRequestButKeepsItsHandle) {
  Request* r = acquire();
  MPI_Request h = r->handle;
  r->active = true;
  r->tag = 99;
  r->error = MPI_ERR_TRUNCATE;
  requests::release(r);
  Request* again = acquire();
  // The pool is LIFO: the slot just released comes back first, reset.
  EXPECT_EQ(again, r);
  EXPECT_EQ(again->handle, h);
  EXPECT_EQ(again->tag, 0);
  EXPECT_EQ(again->error, MPI_SUCCESS);
  EXPECT_FALSE(again->active);
  requests::release(again);
}

TEST_F(RequestPool, ManyAcquireReleaseCyclesStayWithinThePeakSlots) {
  constexpr int kPeak = 600;  // a few chunks
  std::vector<Request*> held;
  std::set<MPI_Request> peak_handles;
  for (int i = 0; i < kPeak; ++i) {
    held.push_back(acquire());
    peak_handles.insert(held.back()->handle);
  }
  uint32_t max_index = 0;
  for (MPI_Request h : peak_handles) max_index = std::max(max_index, handle::index_of(h));
  for (Request* r : held) requests::release(r);
  held.clear();

  for (int cycle = 0; cycle < 2000; ++cycle) {
    int n = 1 + cycle % kPeak;
    for (int i = 0; i < n; ++i) held.push_back(acquire());
    for (Request* r : held) {
      ASSERT_LE(handle::index_of(r->handle), max_index);
      ASSERT_EQ(requests::find(r->handle), r);
    }
    for (Request* r : held) requests::release(r);
    held.clear();
  }
}

TEST_F(RequestPool, CompleteReleasesARequestTheUserAlreadyFreed) {
  Request* r = acquire();
  MPI_Request h = r->handle;
  r->user_freed = true;
  complete(r);
  EXPECT_EQ(requests::find(h), nullptr);
  EXPECT_EQ(requests::live(), baseline_);

  Request* kept = acquire();
  complete(kept);
  EXPECT_TRUE(kept->complete);
  EXPECT_EQ(requests::find(kept->handle), kept);
  requests::release(kept);
}

// --- status helpers (MPICH's count_lo / count_hi_and_cancelled layout) ---

TEST(StatusBytes, RoundTripAboveFourGiBAndKeepTheCancelledBit) {
  const size_t sizes[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, (size_t{1} << 33) + 5,
                          (size_t{1} << 40) + 0x80000001};
  for (bool cancelled : {false, true}) {
    for (size_t bytes : sizes) {
      MPI_Status s{};
      set_status_cancelled(s, cancelled);
      set_status_bytes(s, bytes);
      EXPECT_EQ(status_bytes(s), bytes);
      EXPECT_EQ(status_cancelled(s), cancelled);
      // MPICH's own macro: hi = (count >> 31) & ~1, the cancelled bit below.
      EXPECT_EQ(s.count_hi_and_cancelled & ~1, static_cast<int>((bytes >> 31) & ~size_t{1}));
      EXPECT_EQ(s.count_lo, static_cast<int>(bytes & 0xffffffffu));
    }
  }
}

TEST(StatusBytes, SettingCancelledKeepsTheCount) {
  MPI_Status s{};
  set_status_bytes(s, (size_t{1} << 34) + 17);
  set_status_cancelled(s, true);
  EXPECT_EQ(status_bytes(s), (size_t{1} << 34) + 17);
  set_status_cancelled(s, false);
  EXPECT_EQ(status_bytes(s), (size_t{1} << 34) + 17);
  EXPECT_FALSE(status_cancelled(s));
}

TEST(ProcNullStatus, HasProcNullSourceAnyTagAndZeroCount) {
  MPI_Status s = proc_null_status();
  EXPECT_EQ(s.MPI_SOURCE, MPI_PROC_NULL);
  EXPECT_EQ(s.MPI_TAG, MPI_ANY_TAG);
  EXPECT_EQ(status_bytes(s), 0u);
  EXPECT_FALSE(status_cancelled(s));
}

}  // namespace
}  // namespace ferry
