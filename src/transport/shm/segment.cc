#include "transport/shm/segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ferry::transport::shm {
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
  done_backing();
  if (base_ != nullptr) munmap(base_, bytes_);
}

Segment& Segment::operator=(Segment&& other) noexcept {
  std::swap(base_, other.base_);
  std::swap(bytes_, other.bytes_);
  std::swap(fd_, other.fd_);
  std::swap(label_, other.label_);
  std::swap(name_, other.name_);
  return *this;
}

bool Segment::map(int fd, size_t bytes, std::string* error) {
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    *error = "cannot map " + size_text(bytes) + " of " + label_ + ": " + std::strerror(errno);
    close(fd);
    return false;
  }
  base_ = base;
  bytes_ = bytes;
  fd_ = fd;
  return true;
}

bool Segment::create(const std::string& name, size_t bytes, std::string* error) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  // Names are made from the job's name and the rank (shm_names), unique
  // among the jobs that run: one that exists was left by a job that was
  // killed before it could remove it. Ours to replace.
  if (fd < 0 && errno == EEXIST && shm_unlink(name.c_str()) == 0)
    fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = "shm_open " + name + ": " + std::strerror(errno);
    return false;
  }
  name_ = label_ = name;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    *error = "cannot size " + name + " to " + size_text(bytes) + ": " + std::strerror(errno);
    close(fd);
    unlink();
    return false;
  }
  if (!map(fd, bytes, error)) {
    unlink();
    return false;
  }
  return true;
}

bool Segment::attach(const std::string& name, size_t bytes, std::string* error) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    *error = "shm_open " + name + ": " + std::strerror(errno);
    return false;
  }
  label_ = name;
  struct stat st {};
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < bytes) {
    close(fd);
    *error = name + " is smaller than the " + size_text(bytes) + " expected";
    return false;
  }
  return map(fd, bytes, error);
}

bool Segment::back(size_t offset, size_t bytes, std::string* error) {
  // After done_backing() the name is opened again for the call: a mapped
  // segment keeps no descriptor, so a rank's descriptors do not grow with
  // the peers it maps.
  int fd = fd_;
  if (fd < 0 && !label_.empty()) fd = shm_open(label_.c_str(), O_RDWR | O_CLOEXEC, 0);
  // posix_fallocate allocates the pages now: on a full /dev/shm it reports
  // ENOSPC here, where a store into the mapping would raise SIGBUS.
  int rc = fd < 0 ? errno : posix_fallocate(fd, static_cast<off_t>(offset), static_cast<off_t>(bytes));
  if (fd >= 0 && fd != fd_) close(fd);
  if (rc == 0) return true;
  *error = "cannot allocate " + size_text(bytes) + " in /dev/shm for " + label_ + " (" + std::strerror(rc) +
           "); make /dev/shm larger or set FERRY_TRANSPORTS=tcp";
  return false;
}

void Segment::done_backing() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void Segment::unlink() {
  if (name_.empty()) return;
  shm_unlink(name_.c_str());
  name_.clear();
}

}  // namespace ferry::transport::shm
