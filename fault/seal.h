// Sealing what one rank's save hooks wrote (the end of a commit's phase 1,
// fault/store.h seal_rank): every file checksummed and durable, with the
// disk and the CPU working at once. The commit must read the data back for
// its CRC-32C anyway; the schedule makes that read cost no time of its own.
//
// Schedule, the files in order, each in chunks of kSealChunkBytes:
//   Phase 1, each chunk: queue its writeback (sync_file_range(2)
//     SYNC_FILE_RANGE_WRITE), then checksum it from the page cache while
//     the disk writes it. Chunk j+1 is queued as soon as chunk j is
//     checksummed (file k+1's first right after file k's last), so the disk
//     is never idle waiting for the CPU.
//   Phase 2, each file: fdatasync, which by now only waits for writeback
//     already under way. fdatasync, not fsync: a reader needs the data and
//     the size that finds it, not the timestamps.
//   Phase 3, each directory: fsync, so that the new entries are durable.
//
// Cost over a plain write + fsync of the same bytes: one read of them from
// the page cache (4-5 ms of CPU per 64 MiB with the hardware CRC-32C,
// hidden behind a disk that is slower than that) and one fsync per directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fault/manifest.h"
#include "fault/status.h"

namespace ferry::fault {

// Large enough that the sync_file_range calls cost nothing next to the
// checksum, small enough that the first chunk reaches the disk at once.
constexpr uint64_t kSealChunkBytes = 8u << 20;

// `files` name paths relative to `dir` (rank and path set); their size and
// crc are filled in. `directories` are synced after every file.
Status seal_files(const std::string& dir, std::vector<FileEntry>* files, const std::vector<std::string>& directories);

}  // namespace ferry::fault
