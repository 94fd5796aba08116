#include "p2p/shm/segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ferry::p2p::shm {
namespace {

std::string size_text(size_t bytes) {
  char text[32];
  if (bytes >= (1u << 20)) std::snprintf(text, sizeof text, "%.1f MiB", bytes / 1048576.0);
  else std::snprintf(text, sizeof text, "%zu KiB", bytes >> 10);
  return text;
}

}  // namespace

Segment::~Segment() {
  unlink();
  if (base_ != nullptr) munmap(base_, bytes_);
}

Segment& Segment::operator=(Segment&& other) noexcept {
  std::swap(base_, other.base_);
  std::swap(bytes_, other.bytes_);
  std::swap(name_, other.name_);
  return *this;
}

bool Segment::create(const std::string& name, size_t bytes, std::string* error) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = "shm_open " + name + ": " + std::strerror(errno);
    return false;
  }
  name_ = name;
  // posix_fallocate backs every page now: on a full /dev/shm it reports
  // ENOSPC here, where ftruncate alone would succeed and a later store fault.
  int rc = ftruncate(fd, static_cast<off_t>(bytes)) == 0 ? posix_fallocate(fd, 0, static_cast<off_t>(bytes)) : errno;
  if (rc != 0) {
    close(fd);
    unlink();
    *error = "cannot allocate " + size_text(bytes) + " in /dev/shm for " + name + " (" + std::strerror(rc) +
             "); make /dev/shm larger or set FERRY_TRANSPORTS=tcp";
    return false;
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int mmap_errno = errno;
  close(fd);
  if (base == MAP_FAILED) {
    unlink();
    *error = "cannot map " + size_text(bytes) + " of " + name + ": " + std::strerror(mmap_errno);
    return false;
  }
  base_ = base;
  bytes_ = bytes;
  return true;
}

bool Segment::attach(const std::string& name, size_t bytes, std::string* error) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    *error = "shm_open " + name + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < bytes) {
    close(fd);
    *error = name + " is smaller than the " + size_text(bytes) + " expected";
    return false;
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int mmap_errno = errno;
  close(fd);
  if (base == MAP_FAILED) {
    *error = "cannot map " + name + ": " + std::strerror(mmap_errno);
    return false;
  }
  base_ = base;
  bytes_ = bytes;
  return true;
}

void Segment::unlink() {
  if (name_.empty()) return;
  shm_unlink(name_.c_str());
  name_.clear();
}

}  // namespace ferry::p2p::shm
