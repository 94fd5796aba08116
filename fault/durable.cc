#include "fault/durable.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

namespace ferry::fault {

namespace {

Status sync_by_path(const std::string& path, int (*sync)(int), const char* what) {
  // O_RDONLY works for directories too; fsync on such a descriptor flushes
  // the directory's entries (Linux, and POSIX with _POSIX_SYNCHRONIZED_IO).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::from_errno("cannot open", path);
  int rc;
  do rc = sync(fd);
  while (rc != 0 && errno == EINTR);
  Status s = rc == 0 ? Status() : Status::from_errno(what, path);
  ::close(fd);
  return s;
}

}  // namespace

Status sync_path(const std::string& path) { return sync_by_path(path, ::fsync, "cannot fsync"); }

Status sync_data(const std::string& path) { return sync_by_path(path, ::fdatasync, "cannot fdatasync"); }

void start_writeback(int fd, uint64_t offset, uint64_t bytes) {
#if defined(__linux__)
  (void)::sync_file_range(fd, static_cast<off_t>(offset), static_cast<off_t>(bytes), SYNC_FILE_RANGE_WRITE);
#else
  (void)fd;
  (void)offset;
  (void)bytes;
#endif
}

Status write_atomically(const std::string& path, const std::string& text) {
  return write_atomically(path, text.data(), text.size());
}

Status write_atomically(const std::string& path, const char* data, size_t size) {
  const std::string temporary = path + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::from_errno("cannot create", temporary);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = Status::from_errno("cannot write", temporary);
      ::close(fd);
      ::unlink(temporary.c_str());
      return s;
    }
    done += static_cast<size_t>(n);
  }
  // Phase 1: the bytes are on disk before any name points at them
  // (fdatasync: with the size that finds them; the timestamps may wait).
  if (::fdatasync(fd) != 0) {
    Status s = Status::from_errno("cannot fdatasync", temporary);
    ::close(fd);
    ::unlink(temporary.c_str());
    return s;
  }
  ::close(fd);
  // Phase 2: publish with one atomic rename, then make the rename durable.
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    Status s = Status::from_errno("cannot rename to", path);
    ::unlink(temporary.c_str());
    return s;
  }
  return sync_path(std::filesystem::path(path).parent_path().string());
}

Status make_directories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::failure("cannot create directory " + path + ": " + ec.message());
  return {};
}

Status remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) return Status::failure("cannot remove " + path + ": " + ec.message());
  return {};
}

}  // namespace ferry::fault
