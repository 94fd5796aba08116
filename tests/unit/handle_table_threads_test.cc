// Handle tables (base/handles.h) under MPI_THREAD_MULTIPLE: every MPI call
// translates handles from any thread while other threads create and free
// objects of the same kind. A lookup must never read memory that an add on
// another thread moves or frees (the table once kept its slots in a vector
// that add() could reallocate under a reader), and every live object must
// resolve to itself throughout. Run under ThreadSanitizer in the "threads"
// job, which reports any unsynchronized access.
#include "base/handles.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace ferry {
namespace {

struct Object {
  int owner;
  int serial;
};

TEST(HandleTableThreads, LookupsStayCorrectWhileOtherThreadsAddAndRemove) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 40;
  constexpr int kPerRound = 1500;  // several chunks' worth, so the table grows while others read
  auto table = std::make_unique<handle::Table<Object>>();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::unique_ptr<Object>> objects;
      std::vector<uint32_t> indices;
      for (int round = 0; round < kRounds; ++round) {
        for (int i = 0; i < kPerRound; ++i) {
          objects.push_back(std::make_unique<Object>(Object{t, round * kPerRound + i}));
          indices.push_back(table->add(objects.back().get()));
          // Look up an earlier one of ours while the others grow the table.
          size_t k = static_cast<size_t>(i * 7919) % indices.size();
          if (table->get(indices[k]) != objects[k].get()) ++wrong;
        }
        for (size_t k = 0; k < indices.size(); ++k) {
          Object* o = table->get(indices[k]);
          if (o == nullptr || o->owner != t || o != objects[k].get()) ++wrong;
          if (table->remove(indices[k]) != objects[k].get()) ++wrong;
        }
        objects.clear();
        indices.clear();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(table->live(), 0u);
}

TEST(HandleTableThreads, IndicesAreUniqueAcrossThreads) {
  constexpr int kThreads = 4;
  constexpr int kEach = 5000;
  auto table = std::make_unique<handle::Table<Object>>();
  std::vector<std::vector<uint32_t>> taken(kThreads);
  std::vector<Object> objects(kThreads * kEach);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) taken[static_cast<size_t>(t)].push_back(table->add(&objects[static_cast<size_t>(t * kEach + i)]));
    });
  for (auto& t : threads) t.join();
  std::vector<bool> seen(kThreads * kEach, false);
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kEach; ++i) {
      uint32_t index = taken[static_cast<size_t>(t)][static_cast<size_t>(i)];
      ASSERT_LT(index, seen.size());
      EXPECT_FALSE(seen[index]) << "index " << index << " handed out twice";
      seen[index] = true;
      EXPECT_EQ(table->get(index), &objects[static_cast<size_t>(t * kEach + i)]);
    }
  EXPECT_EQ(table->live(), static_cast<size_t>(kThreads * kEach));
}

}  // namespace
}  // namespace ferry
