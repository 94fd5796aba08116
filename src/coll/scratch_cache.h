// Host scratch memory for collective schedules, kept between calls.
//
// A schedule's scratch (Schedule::scratch) of a large collective lived for
// one call: new[] of megabytes is an mmap (or heap memory that free() gives
// back to the kernel), so every call page-faulted its scratch in again and
// the kernel cleared it: a 2-rank MPI_Scan of 2 MiB took 2.7 ms against 0.15
// for 1 MiB, mostly in page faults and clear_page. Blocks of kSmallest bytes
// and more are given back here instead and handed to the next schedule
// that asks for at most as much: at most kKeptBlocks blocks and kKeptBytes
// in all stay (the largest ones), so the memory kept does not grow with
// the calls, only with the largest collective's scratch, up to that bound.
#pragma once

#include <cstddef>

namespace ferry::coll::scratch_cache {

// glibc's malloc maps blocks from 128 KiB on (M_MMAP_THRESHOLD's default;
// its dynamic threshold stays at a block's own size, so a block of just
// that size is mapped and unmapped at every call: a 2-rank MPI_Scan of 128
// KiB took twice as long as one of 256 KiB).
inline constexpr size_t kSmallest = 128 * 1024;
inline constexpr size_t kKeptBlocks = 4;
inline constexpr size_t kKeptBytes = size_t{64} << 20;

struct Block {
  char* memory = nullptr;
  size_t bytes = 0;  // its capacity, at least what was asked
};

// A block of at least `bytes` (not zeroed): a kept one that fits, else new.
Block take(size_t bytes);
// Gives `b` back: kept if it is large enough and within the bounds, else freed.
void give(Block b);

}  // namespace ferry::coll::scratch_cache
