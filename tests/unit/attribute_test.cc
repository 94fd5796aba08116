// Caching (base/attribute.h): keyvals and attributes as MPI-3.1 §6.7 has
// them: copy callbacks on dup (MPI_*_DUP_FN and users'), delete callbacks on
// replace, delete and free (newest first), keyvals that outlive their
// handle, and the predefined communicator attributes.
#include "base/attribute.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/limits.h"
#include "mpi.h"

namespace ferry {
namespace {

using attributes::Kind;

// What the callbacks saw, in order.
struct Log {
  std::vector<std::string> events;
  int copy_result = MPI_SUCCESS;
  int delete_result = MPI_SUCCESS;
  int copy_flag = 1;
};

int copy_callback(int handle, int keyval, void* extra, void* in, void* out, int* flag) {
  auto* log = static_cast<Log*>(extra);
  log->events.push_back("copy " + std::to_string(handle) + " " + std::to_string(reinterpret_cast<intptr_t>(in)));
  // The copy's value: the original's plus 1000, so tests see it was copied.
  *static_cast<void**>(out) = reinterpret_cast<void*>(reinterpret_cast<intptr_t>(in) + 1000);
  *flag = log->copy_flag;
  return log->copy_result;
}

int delete_callback(int handle, int keyval, void* value, void* extra) {
  auto* log = static_cast<Log*>(extra);
  log->events.push_back("delete " + std::to_string(handle) + " " +
                        std::to_string(reinterpret_cast<intptr_t>(value)));
  return log->delete_result;
}

void* value(intptr_t v) { return reinterpret_cast<void*>(v); }

// Distinct objects: attributes are kept by address.
int object_a;
int object_b;

class Attributes : public ::testing::Test {
 protected:
  void TearDown() override {
    log_.delete_result = MPI_SUCCESS;
    (void)attributes::delete_all(Kind::kComm, &object_a, 1);
    (void)attributes::delete_all(Kind::kComm, &object_b, 2);
    (void)attributes::delete_all(Kind::kType, &object_a, 1);
  }
  Log log_;
};

TEST_F(Attributes, SetGetReplaceAndDelete) {
  int k = attributes::create_keyval(Kind::kComm, copy_callback, delete_callback, &log_);
  void* got = nullptr;
  bool found = true;
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_a, k, &got, &found).ok());
  EXPECT_FALSE(found);

  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, k, value(5)).ok());
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_a, k, &got, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(got, value(5));
  EXPECT_TRUE(log_.events.empty());

  // Replacing deletes the old value first.
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, k, value(6)).ok());
  EXPECT_EQ(log_.events, (std::vector<std::string>{"delete 1 5"}));
  ASSERT_TRUE(attributes::remove(Kind::kComm, &object_a, 1, k).ok());
  EXPECT_EQ(log_.events.back(), "delete 1 6");
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_a, k, &got, &found).ok());
  EXPECT_FALSE(found);
  EXPECT_TRUE(attributes::free_keyval(Kind::kComm, k).ok());
}

TEST_F(Attributes, ObjectsHaveTheirOwnValues) {
  int k = attributes::create_keyval(Kind::kComm, nullptr, nullptr, nullptr);
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, k, value(1)).ok());
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_b, 2, k, value(2)).ok());
  void* got = nullptr;
  bool found = false;
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_b, k, &got, &found).ok());
  EXPECT_EQ(got, value(2));
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_a, k, &got, &found).ok());
  EXPECT_EQ(got, value(1));
  EXPECT_TRUE(attributes::free_keyval(Kind::kComm, k).ok());
}

TEST_F(Attributes, CopyAllRunsCallbacksAndHonoursTheFlag) {
  int copied = attributes::create_keyval(Kind::kComm, copy_callback, delete_callback, &log_);
  int dup_fn = attributes::create_keyval(Kind::kComm, MPIR_Dup_fn, nullptr, nullptr);
  int not_copied = attributes::create_keyval(Kind::kComm, nullptr, delete_callback, &log_);
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, copied, value(7)).ok());
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, dup_fn, value(8)).ok());
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, not_copied, value(9)).ok());

  ASSERT_TRUE(attributes::copy_all(Kind::kComm, &object_a, 1, &object_b, 2).ok());
  EXPECT_EQ(log_.events, (std::vector<std::string>{"copy 1 7"}));
  void* got = nullptr;
  bool found = false;
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_b, copied, &got, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(got, value(1007));
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_b, dup_fn, &got, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(got, value(8));
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_b, not_copied, &got, &found).ok());
  EXPECT_FALSE(found);
  EXPECT_EQ(attributes::count(Kind::kComm, &object_b), 2u);

  // flag = 0: the callback runs but nothing is attached.
  log_.copy_flag = 0;
  ASSERT_TRUE(attributes::delete_all(Kind::kComm, &object_b, 2).ok());
  ASSERT_TRUE(attributes::copy_all(Kind::kComm, &object_a, 1, &object_b, 2).ok());
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_b, copied, &got, &found).ok());
  EXPECT_FALSE(found);
  for (int k : {copied, dup_fn, not_copied}) EXPECT_TRUE(attributes::free_keyval(Kind::kComm, k).ok());
}

TEST_F(Attributes, FailingCopyCallbackFailsTheCopy) {
  int k = attributes::create_keyval(Kind::kComm, copy_callback, nullptr, &log_);
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, k, value(3)).ok());
  log_.copy_result = MPI_ERR_OTHER;
  Err e = attributes::copy_all(Kind::kComm, &object_a, 1, &object_b, 2);
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OTHER);
  EXPECT_NE(e.message().find("copy callback"), std::string::npos) << e.message();
  EXPECT_TRUE(attributes::free_keyval(Kind::kComm, k).ok());
}

TEST_F(Attributes, DeleteAllGoesNewestFirstAndStopsAtAnError) {
  int k1 = attributes::create_keyval(Kind::kComm, nullptr, delete_callback, &log_);
  int k2 = attributes::create_keyval(Kind::kComm, nullptr, delete_callback, &log_);
  int k3 = attributes::create_keyval(Kind::kComm, nullptr, delete_callback, &log_);
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, k1, value(1)).ok());
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, k2, value(2)).ok());
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, k3, value(3)).ok());

  log_.delete_result = MPI_ERR_ARG;
  Err e = attributes::delete_all(Kind::kComm, &object_a, 1);
  EXPECT_EQ(e.mpi_class(), MPI_ERR_ARG);
  EXPECT_EQ(attributes::count(Kind::kComm, &object_a), 3u);  // the failed one stays

  log_.delete_result = MPI_SUCCESS;
  log_.events.clear();
  ASSERT_TRUE(attributes::delete_all(Kind::kComm, &object_a, 1).ok());
  EXPECT_EQ(log_.events, (std::vector<std::string>{"delete 1 3", "delete 1 2", "delete 1 1"}));
  EXPECT_EQ(attributes::count(Kind::kComm, &object_a), 0u);
  for (int k : {k1, k2, k3}) EXPECT_TRUE(attributes::free_keyval(Kind::kComm, k).ok());
}

TEST_F(Attributes, FreedKeyvalLivesWhileAttributesUseIt) {
  size_t before = attributes::live_keyvals();
  int k = attributes::create_keyval(Kind::kComm, nullptr, delete_callback, &log_);
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, k, value(4)).ok());
  ASSERT_TRUE(attributes::free_keyval(Kind::kComm, k).ok());
  EXPECT_EQ(attributes::live_keyvals(), before + 1);
  // Freeing it again while it lives changes nothing (as in MPICH, whose
  // attr/keyval_double_free tests do it from a delete callback).
  EXPECT_TRUE(attributes::free_keyval(Kind::kComm, k).ok());
  EXPECT_EQ(attributes::live_keyvals(), before + 1);
  EXPECT_EQ(attributes::set(Kind::kComm, &object_b, 2, k, value(5)).mpi_class(), MPI_ERR_KEYVAL);
  // The delete callback still runs when the object goes.
  ASSERT_TRUE(attributes::delete_all(Kind::kComm, &object_a, 1).ok());
  EXPECT_EQ(log_.events, (std::vector<std::string>{"delete 1 4"}));
  EXPECT_EQ(attributes::live_keyvals(), before);
  // Gone now: the handle is invalid.
  EXPECT_EQ(attributes::free_keyval(Kind::kComm, k).mpi_class(), MPI_ERR_KEYVAL);
}

TEST_F(Attributes, KeyvalsBelongToOneKind) {
  int k = attributes::create_keyval(Kind::kType, nullptr, nullptr, nullptr);
  Err e = attributes::set(Kind::kComm, &object_a, 1, k, value(1));
  EXPECT_EQ(e.mpi_class(), MPI_ERR_KEYVAL);
  EXPECT_NE(e.message().find("datatype"), std::string::npos) << e.message();
  EXPECT_TRUE(attributes::set(Kind::kType, &object_a, 1, k, value(1)).ok());
  EXPECT_EQ(attributes::free_keyval(Kind::kComm, k).mpi_class(), MPI_ERR_KEYVAL);
  EXPECT_TRUE(attributes::free_keyval(Kind::kType, k).ok());
}

TEST_F(Attributes, InvalidKeyvalsAreRejected) {
  void* got = nullptr;
  bool found = false;
  EXPECT_EQ(attributes::get(Kind::kComm, &object_a, MPI_KEYVAL_INVALID, &got, &found).mpi_class(), MPI_ERR_KEYVAL);
  EXPECT_EQ(attributes::get(Kind::kComm, &object_a, 12345, &got, &found).mpi_class(), MPI_ERR_KEYVAL);
  EXPECT_EQ(attributes::remove(Kind::kComm, &object_a, 1, MPI_COMM_WORLD).mpi_class(), MPI_ERR_KEYVAL);
}

TEST_F(Attributes, PredefinedAttributesAreReadOnly) {
  void* got = nullptr;
  bool found = false;
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_a, MPI_TAG_UB, &got, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(*static_cast<int*>(got), kTagUpperBound);
  for (int key : {MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_APPNUM}) {
    found = false;
    ASSERT_TRUE(attributes::get(Kind::kComm, &object_a, key, &got, &found).ok()) << std::hex << key;
    EXPECT_TRUE(found) << std::hex << key;
  }
  ASSERT_TRUE(attributes::get(Kind::kComm, &object_a, MPI_IO, &got, &found).ok());
  EXPECT_EQ(*static_cast<int*>(got), MPI_ANY_SOURCE);
  EXPECT_EQ(attributes::set(Kind::kComm, &object_a, 1, MPI_TAG_UB, value(1)).mpi_class(), MPI_ERR_KEYVAL);
  EXPECT_EQ(attributes::remove(Kind::kComm, &object_a, 1, MPI_TAG_UB).mpi_class(), MPI_ERR_KEYVAL);
  EXPECT_EQ(attributes::free_keyval(Kind::kComm, MPI_TAG_UB).mpi_class(), MPI_ERR_KEYVAL);
  EXPECT_EQ(attributes::get(Kind::kType, &object_a, MPI_TAG_UB, &got, &found).mpi_class(), MPI_ERR_KEYVAL);
}

// A delete callback may use the attribute functions on the same object.
int reentrant_delete(int handle, int keyval, void* value, void* extra) {
  int other = *static_cast<int*>(extra);
  void* got = nullptr;
  bool found = false;
  if (!attributes::get(Kind::kComm, &object_a, other, &got, &found).ok() || !found) return MPI_ERR_OTHER;
  return attributes::remove(Kind::kComm, &object_a, handle, other).ok() ? MPI_SUCCESS : MPI_ERR_OTHER;
}

TEST_F(Attributes, CallbacksMayCallBackIn) {
  int other = attributes::create_keyval(Kind::kComm, nullptr, delete_callback, &log_);
  int k = attributes::create_keyval(Kind::kComm, nullptr, reentrant_delete, &other);
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, other, value(1)).ok());
  ASSERT_TRUE(attributes::set(Kind::kComm, &object_a, 1, k, value(2)).ok());
  ASSERT_TRUE(attributes::delete_all(Kind::kComm, &object_a, 1).ok());
  EXPECT_EQ(log_.events, (std::vector<std::string>{"delete 1 1"}));
  EXPECT_EQ(attributes::count(Kind::kComm, &object_a), 0u);
  EXPECT_TRUE(attributes::free_keyval(Kind::kComm, k).ok());
  EXPECT_TRUE(attributes::free_keyval(Kind::kComm, other).ok());
}

}  // namespace
}  // namespace ferry
