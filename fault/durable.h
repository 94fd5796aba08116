// The steps that make a file survive a crash, in the order SQLite and SCR
// use: write beside the old, fsync the data, rename over the name (atomic
// within a file system, POSIX rename(2)), fsync the directory so that the
// rename itself is on disk. A reader that sees the new name sees all of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "fault/status.h"

namespace ferry::fault {

// fsync(2) of a file or a directory by path.
Status sync_path(const std::string& path);

// fdatasync(2) of a file by path: its data and the metadata needed to read
// it back (the size, where its blocks are), not its timestamps.
Status sync_data(const std::string& path);

// Asks the kernel to start writing `bytes` of an open file's dirty pages
// from `offset` (0 bytes: to the end) back now, without waiting for them (Linux
// sync_file_range(2) SYNC_FILE_RANGE_WRITE); a later sync_data() or
// sync_path() still decides durability. A hint: failures are ignored, and
// elsewhere than Linux it does nothing.
void start_writeback(int fd, uint64_t offset, uint64_t bytes);

// Writes `text` to `<path>.tmp`, fdatasyncs it, renames it to `path` and fsyncs
// the parent directory. On failure `path` is as it was (absent or old).
Status write_atomically(const std::string& path, const std::string& text);
Status write_atomically(const std::string& path, const char* data, size_t size);

// mkdir(2) that accepts an existing directory, with its parents.
Status make_directories(const std::string& path);

// Removes a directory tree; a missing one is not an error.
Status remove_tree(const std::string& path);

}  // namespace ferry::fault
