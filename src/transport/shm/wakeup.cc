#include "transport/shm/wakeup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "transport/shm/fence.h"

namespace ferry::transport::shm {

Doorbell::~Doorbell() {
  unlink();
  if (fd_ >= 0) close(fd_);
}

bool Doorbell::create(const std::string& path, WakeWord* word, std::string* error) {
  int made = mkfifo(path.c_str(), 0600);
  // The path is made from the job's name and the rank (shm_names), like the
  // segment's: one that exists was left by a killed run of the same job (a
  // Slurm job requeued keeps its PMIx namespace). Ours to replace.
  if (made != 0 && errno == EEXIST && ::unlink(path.c_str()) == 0) made = mkfifo(path.c_str(), 0600);
  if (made != 0) {
    *error = "mkfifo " + path + ": " + std::strerror(errno);
    return false;
  }
  path_ = path;
  // Read-write: opening does not wait for a writer, and the pipe never
  // reports a hang-up when peers close their ends.
  fd_ = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    *error = "open " + path + ": " + std::strerror(errno);
    unlink();
    return false;
  }
  word_ = word;
  word_->asymmetric = fence::enable_asymmetric() ? 1 : 0;
  return true;
}

void Doorbell::unlink() {
  if (path_.empty()) return;
  ::unlink(path_.c_str());
  path_.clear();
}

void Doorbell::arm() {
  word_->sleepers.fetch_add(1, std::memory_order_seq_cst);
  fence::heavy();
}

void Doorbell::woke(bool slept) {
  if (slept) {
    // Bytes written for this sleep, or left from an earlier one whose
    // writer was late: either way they have done their job.
    char sink[64];
    while (read(fd_, sink, sizeof sink) > 0) {
    }
    word_->rung.store(0, std::memory_order_seq_cst);
  }
  word_->sleepers.fetch_sub(1, std::memory_order_seq_cst);
}

Bell::~Bell() {
  if (fd_ >= 0) close(fd_);
}

Bell& Bell::operator=(Bell&& other) noexcept {
  std::swap(word_, other.word_);
  std::swap(fd_, other.fd_);
  std::swap(path_, other.path_);
  std::swap(asymmetric_, other.asymmetric_);
  return *this;
}

namespace {

// Read-write too: the pipe always has a reader, so a late byte to a rank
// that has exited neither blocks nor raises SIGPIPE.
int open_pipe(const std::string& path) { return ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC); }

}  // namespace

bool Bell::open(const std::string& path, WakeWord* word, bool keep_open, std::string* error) {
  if (keep_open) {
    fd_ = open_pipe(path);
    if (fd_ < 0) {
      *error = "open " + path + ": " + std::strerror(errno);
      return false;
    }
  }
  path_ = path;
  word_ = word;
  asymmetric_ = word->asymmetric != 0 && fence::enable_asymmetric();
  return true;
}

void Bell::ring() {
  if (word_->rung.exchange(1, std::memory_order_seq_cst) != 0) return;
  char one = 1;
  int fd = fd_ >= 0 ? fd_ : open_pipe(path_);
  // EAGAIN: the pipe is full of bytes nobody drained yet; the owner wakes anyway.
  ssize_t ignored = write(fd, &one, 1);
  (void)ignored;
  if (fd != fd_ && fd >= 0) close(fd);
}

}  // namespace ferry::transport::shm
