#include "launcher/profile/counter_forwarding.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/debug.h"
#include "launcher/tree/wire.h"

namespace ferry::launcher::profile {
namespace {

// A counter file is a few hundred KiB plus 40 bytes per rank of the job: anything near this is not one.
constexpr uint64_t kMaxFileBytes = uint64_t(1) << 32;

}  // namespace

CounterFileSender::CounterFileSender(std::string dir, std::string nspace, std::vector<int> ranks, int position)
    : dir_(std::move(dir)), nspace_(std::move(nspace)), ranks_(std::move(ranks)), position_(position) {}

CounterFileSender::~CounterFileSender() {
  if (fd_ >= 0) ::close(fd_);
}

bool CounterFileSender::open_next() {
  while (next_ < ranks_.size()) {
    name_ = nspace_ + ".rank." + std::to_string(ranks_[next_++]);
    std::string path = dir_ + "/" + name_;
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) continue;  // the rank never reached MPI_Init: the report says it is missing
    struct stat st;
    if (::fstat(fd_, &st) != 0 || st.st_size <= 0 || uint64_t(st.st_size) > kMaxFileBytes) {
      ::close(fd_);
      fd_ = -1;
      continue;
    }
    size_ = uint64_t(st.st_size);
    offset_ = 0;
    return true;
  }
  return false;
}

bool CounterFileSender::pump(DaemonLink& up) {
  std::string piece;
  while (!done_ && up.queued() < kWindowBytes) {
    if (fd_ < 0 && !open_next()) {
      up.send(wire::Encoder(wire::Type::kProfileDone).u32(uint32_t(position_)).u32(sent_files_).str(nspace_).finish());
      FERRY_DEBUG(kLaunch, "FERRY_PROFILE: %u counter files of %s sent up", sent_files_, nspace_.c_str());
      done_ = true;
      break;
    }
    piece.resize(size_t(std::min<uint64_t>(kPieceBytes, size_ - offset_)));
    ssize_t n = ::pread(fd_, piece.data(), piece.size(), off_t(offset_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // cut short under us: what was sent stays a .part file at mpirun, never read
      ::close(fd_);
      fd_ = -1;
      continue;
    }
    piece.resize(size_t(n));
    up.send(wire::Encoder(wire::Type::kProfileChunk).str(name_).u64(offset_).u64(size_).str(piece).finish());
    offset_ += uint64_t(n);
    if (offset_ == size_) {
      ::close(fd_);
      fd_ = -1;
      ++sent_files_;
    }
  }
  return done_;
}

CounterFileReceiver::CounterFileReceiver(std::string dir, std::string nspace, std::vector<int> positions)
    : dir_(std::move(dir)), nspace_(std::move(nspace)), waiting_(std::move(positions)) {}

bool CounterFileReceiver::on_piece(std::string_view body) {
  wire::Decoder d(body);
  std::string name = d.str();
  uint64_t offset = d.u64();
  uint64_t size = d.u64();
  std::string bytes = d.str();
  // Only a rank's file of this job, by its exact name (no path can hide in it), within its size. A
  // spawned job's names differ from its parent's before ".rank." (<nspace>.<k>.rank.<r>).
  const std::string prefix = nspace_ + ".rank.";
  if (!d.ok() || name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.find_first_not_of("0123456789", prefix.size()) != std::string::npos)
    return false;
  if (size > kMaxFileBytes || offset > size || bytes.size() > size - offset) return true;  // dropped
  std::string part = dir_ + "/" + name + ".part";
  // Opened for each piece: the pieces of many hosts interleave here, and one descriptor per host
  // could exceed mpirun's file limit.
  int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (offset == 0 ? O_TRUNC : 0), 0600);
  bool ok = fd >= 0 && ::pwrite(fd, bytes.data(), bytes.size(), off_t(offset)) == ssize_t(bytes.size());
  int error = errno;
  if (fd >= 0) ::close(fd);
  if (ok && offset + bytes.size() == size) ok = ::rename(part.c_str(), (dir_ + "/" + name).c_str()) == 0;
  if (!ok && !said_write_error_) {
    said_write_error_ = true;
    std::fprintf(stderr, "mpirun: FERRY_PROFILE: cannot write %s: %s; the report will lack that rank\n",
                 part.c_str(), std::strerror(error));
  }
  return true;
}

int CounterFileReceiver::on_done(std::string_view body, uint32_t* files) {
  wire::Decoder d(body);
  int position = int(d.u32());
  *files = d.u32();
  std::string nspace = d.str();
  if (!d.ok() || nspace != nspace_) return -1;
  auto it = std::find(waiting_.begin(), waiting_.end(), position);
  if (it == waiting_.end()) return -1;
  waiting_.erase(it);
  return position;
}

void CounterFileReceiver::forget(int position) {
  waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), position), waiting_.end());
}

}  // namespace ferry::launcher::profile
