// The cache of peers' GPU allocations opened with CUDA IPC
// (device/ipc_cache.h), against the host-memory model: a mapping is opened
// once per (peer, allocation) and reused; a new buffer id at a known
// address closes the stale mapping and opens the new allocation; a peer's
// mappings are closed when it is gone, all of them at the end; at most
// kMaxMappings stay open, the least recently used closed first; and a handle
// the driver refuses is an error naming cuIpcOpenMemHandle.
#include <gtest/gtest.h>

#include <vector>

#include "device/device.h"
#include "device/ipc_cache.h"
#include "device_model.h"

namespace ferry::device {
namespace {

IpcExport export_of(void* base) {
  IpcExport e;
  EXPECT_EQ(model::ops()->ipc_get_handle(base, &e.handle), 0);
  PointerInfo info;
  model::ops()->pointer_info(base, &info);
  e.base = info.base;
  e.buffer_id = info.buffer_id;
  return e;
}

class IpcCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model::reset_counters();
    install(model::ops());
  }
  void TearDown() override { install(nullptr); }
};

TEST_F(IpcCacheTest, AnAllocationIsOpenedOncePerPeer) {
  void* a = model::alloc(1 << 20);
  IpcCache cache(model::ops());
  std::string error;
  void* first = cache.open(1, export_of(a), 0, &error);
  ASSERT_NE(first, nullptr) << error;
  EXPECT_EQ(cache.open(1, export_of(a), 0, &error), first);
  EXPECT_EQ(model::counters().ipc_opens, 1u);
  ASSERT_NE(cache.open(2, export_of(a), 0, &error), nullptr) << "another peer's is its own mapping";
  EXPECT_EQ(model::counters().ipc_opens, 2u);
  EXPECT_EQ(cache.open_mappings(), 2u);
  cache.close_peer(1);
  EXPECT_EQ(model::counters().ipc_closes, 1u);
  EXPECT_EQ(cache.open_mappings(), 1u);
  cache.close_all();
  EXPECT_EQ(model::counters().ipc_closes, 2u);
  EXPECT_EQ(cache.open_mappings(), 0u);
  model::free(a);
}

TEST_F(IpcCacheTest, ANewBufferIdAtAKnownAddressReplacesTheMapping) {
  void* a = model::alloc(4096);
  void* b = model::alloc(4096);
  IpcCache cache(model::ops());
  std::string error;
  IpcExport old_one = export_of(a);
  ASSERT_NE(cache.open(3, old_one, 0, &error), nullptr) << error;
  // The peer freed `a` and got `b` at the same address: same base, new id.
  IpcExport replaced = export_of(b);
  replaced.base = old_one.base;
  EXPECT_EQ(cache.open(3, replaced, 0, &error), b);
  EXPECT_EQ(model::counters().ipc_closes, 1u) << "the stale mapping is closed";
  EXPECT_EQ(model::counters().ipc_opens, 2u);
  EXPECT_EQ(cache.open_mappings(), 1u);
  model::free(a);
  model::free(b);
}

TEST_F(IpcCacheTest, AtMostKMaxMappingsStayOpenTheLeastRecentlyUsedClosedFirst) {
  // A mapping keeps the peer's freed memory alive: the cache is bounded.
  IpcCache cache(model::ops());
  std::string error;
  void* kept = model::alloc(4096);
  ASSERT_NE(cache.open(1, export_of(kept), 0, &error), nullptr) << error;
  std::vector<void*> others;
  for (size_t i = 0; i < IpcCache::kMaxMappings + 10; ++i) {
    others.push_back(model::alloc(4096));
    ASSERT_NE(cache.open(1, export_of(others.back()), 0, &error), nullptr) << error;
    cache.open(1, export_of(kept), 0, &error);  // used all along: never the one closed
  }
  EXPECT_EQ(cache.open_mappings(), IpcCache::kMaxMappings);
  EXPECT_EQ(model::counters().ipc_closes, 11u);
  uint64_t opens = model::counters().ipc_opens;
  cache.open(1, export_of(kept), 0, &error);
  EXPECT_EQ(model::counters().ipc_opens, opens) << "the busy mapping is still open";
  cache.open(1, export_of(others.front()), 0, &error);
  EXPECT_EQ(model::counters().ipc_opens, opens + 1) << "the oldest one was closed and is opened again";
  cache.close_all();
  for (void* p : others) model::free(p);
  model::free(kept);
}

TEST_F(IpcCacheTest, ARefusedHandleIsAnErrorNamingTheCall) {
  void* a = model::alloc(4096);
  IpcExport e = export_of(a);
  model::free(a);
  IpcCache cache(model::ops());
  std::string error;
  EXPECT_EQ(cache.open(0, e, 0, &error), nullptr);
  EXPECT_NE(error.find("cuIpcOpenMemHandle"), std::string::npos) << error;
  EXPECT_NE(error.find("invalid resource handle"), std::string::npos) << error;
  EXPECT_EQ(cache.open_mappings(), 0u);
}

}  // namespace
}  // namespace ferry::device
