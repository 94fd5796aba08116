// Sealing what one rank's save hooks wrote (the end of a commit's phase 1,
// fault/store.h seal_rank): every file checksummed and durable, with the
// disk and the CPU working at once. The commit must read the data back for
// its CRC-32C anyway; the schedule makes that read cost no time of its own.
//
// Schedule:
//   Phase 1, each file in turn: its writeback queued, whole (sync_file_range(2)
//     SYNC_FILE_RANGE_WRITE: it only submits the pages, and blocks only while
//     the device queue is full, when the disk is busy anyway).
//   Phase 2, each file in the same order: its CRC-32C read from the page
//     cache while the disk writes it and the files after it.
//   Phase 3, each file: fdatasync, which by now mostly waits for writeback
//     already under way. fdatasync, not fsync: a reader needs the data and
//     the size that finds it, not the timestamps.
//   Phase 4, each directory: fsync, so that the new entries are durable.
// Queuing everything before the first checksum keeps the disk busy while
// this rank is off the CPU (4 ranks on 2 cores here). Queuing chunk by chunk
// just before each chunk's checksum was tried (8 MiB chunks): no different
// in 40 alternating runs at 4 x 64 MiB (docs/performance.md), and in theory
// worse when the CPU is short, since the disk then waits for the checksums.
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

// `files` name paths relative to `dir` (rank and path set); their size and
// crc are filled in. `directories` are synced after every file.
Status seal_files(const std::string& dir, std::vector<FileEntry>* files, const std::vector<std::string>& directories);

}  // namespace ferry::fault
