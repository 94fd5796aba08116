#include "fault/seal.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "fault/crc32c.h"
#include "fault/durable.h"

namespace ferry::fault {

namespace {

// Phase 1 for one file: chunk by chunk, writeback queued, then checksummed.
Status checksum_behind_writeback(const std::string& path, std::vector<unsigned char>* block, FileEntry* f) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::from_errno("cannot open", path);
  uint32_t crc = 0;
  uint64_t at = 0;
  for (bool end = false; !end;) {
    start_writeback(fd, at, kSealChunkBytes);
    const uint64_t chunk_end = at + kSealChunkBytes;
    while (at < chunk_end) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(block->size(), chunk_end - at));
      ssize_t got = ::read(fd, block->data(), want);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        Status s = Status::from_errno("cannot read", path);
        ::close(fd);
        return s;
      }
      if (got == 0) {
        end = true;
        break;
      }
      crc = crc32c(crc, block->data(), static_cast<size_t>(got));
      at += static_cast<uint64_t>(got);
    }
  }
  ::close(fd);
  f->crc = crc;
  f->size = at;
  return {};
}

}  // namespace

Status seal_files(const std::string& dir, std::vector<FileEntry>* files, const std::vector<std::string>& directories) {
  // 1 MiB reads: the calls cost nothing next to the checksum, and the block
  // stays in the cache the checksum reads from.
  std::vector<unsigned char> block(1 << 20);
  // Phase 1: checksums behind the writeback.
  for (FileEntry& f : *files)
    if (Status s = checksum_behind_writeback(dir + "/" + f.path, &block, &f)) return s;
  // Phase 2: wait for the data (and the size that finds it).
  for (const FileEntry& f : *files)
    if (Status s = sync_data(dir + "/" + f.path)) return s;
  // Phase 3: the files' entries.
  for (const std::string& d : directories)
    if (Status s = sync_path(d)) return s;
  return {};
}

}  // namespace ferry::fault
