#include "coll/scratch_cache.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace ferry::coll::scratch_cache {
namespace {

// Schedules of several threads (MPI_THREAD_MULTIPLE) take and give at once;
// only blocks of kSmallest bytes or more come here, so the lock is taken
// once per large collective, next to microseconds of copying.
std::mutex mutex;
std::vector<Block> kept;  // smallest first
size_t kept_bytes = 0;

}  // namespace

Block take(size_t bytes) {
  if (bytes >= kSmallest) {
    std::lock_guard lock(mutex);
    auto fits = std::find_if(kept.begin(), kept.end(), [bytes](const Block& b) { return b.bytes >= bytes; });
    if (fits != kept.end()) {
      Block b = *fits;
      kept.erase(fits);
      kept_bytes -= b.bytes;
      return b;
    }
  }
  size_t n = bytes > 0 ? bytes : 1;
  return Block{new char[n], n};
}

void give(Block b) {
  if (b.memory == nullptr) return;
  if (b.bytes >= kSmallest && b.bytes <= kKeptBytes) {
    std::lock_guard lock(mutex);
    // Room for it: the smallest kept blocks go first.
    while (!kept.empty() && (kept.size() >= kKeptBlocks || kept_bytes + b.bytes > kKeptBytes) &&
           kept.front().bytes < b.bytes) {
      kept_bytes -= kept.front().bytes;
      delete[] kept.front().memory;
      kept.erase(kept.begin());
    }
    if (kept.size() < kKeptBlocks && kept_bytes + b.bytes <= kKeptBytes) {
      kept.insert(std::upper_bound(kept.begin(), kept.end(), b,
                                   [](const Block& x, const Block& y) { return x.bytes < y.bytes; }),
                  b);
      kept_bytes += b.bytes;
      return;
    }
  }
  delete[] b.memory;
}

}  // namespace ferry::coll::scratch_cache
