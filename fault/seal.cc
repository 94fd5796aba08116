#include "fault/seal.h"

#include <fcntl.h>
#include <unistd.h>

#include "fault/crc32c.h"
#include "fault/durable.h"

namespace ferry::fault {

namespace {

void queue_writeback(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // the checksum's open says why
  start_writeback(fd, 0, 0);  // 0 bytes: to the file's end
  ::close(fd);
}

}  // namespace

Status seal_files(const std::string& dir, std::vector<FileEntry>* files, const std::vector<std::string>& directories) {
  // Phase 1: every file's writeback queued, in the order of the checksums.
  for (const FileEntry& f : *files) queue_writeback(dir + "/" + f.path);
  // Phase 2: the checksums, from the page cache while the disk writes.
  for (FileEntry& f : *files)
    if (Status s = crc32c_file(dir + "/" + f.path, &f.crc, &f.size)) return s;
  // Phase 3: wait for the data (and the size that finds it).
  for (const FileEntry& f : *files)
    if (Status s = sync_data(dir + "/" + f.path)) return s;
  // Phase 4: the files' entries.
  for (const std::string& d : directories)
    if (Status s = sync_path(d)) return s;
  return {};
}

}  // namespace ferry::fault
