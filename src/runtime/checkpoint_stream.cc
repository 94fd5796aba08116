#include "runtime/checkpoint_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "base/datatype.h"
#include "fault/crc32c.h"
#include "fault/durable.h"
#include "p2p/message_batch.h"

namespace ferry::runtime::checkpoint::copies {

// ---- FileSource -----------------------------------------------------------

FileSource::FileSource(std::string dir, const std::vector<fault::FileEntry>& files)
    : dir_(std::move(dir)), files_(files), header_(fault::Manifest::format_files(files)) {
  total_ = header_.size();
  for (const fault::FileEntry& f : files_) total_ += f.size;
}

FileSource::~FileSource() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSource::fail(fault::Status s) {
  if (status_.ok()) status_ = std::move(s);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void FileSource::next(char* into, uint64_t n) {
  if (at_ < header_.size()) {
    const uint64_t part = std::min<uint64_t>(n, header_.size() - at_);
    std::memcpy(into, header_.data() + at_, part);
    at_ += part;
    into += part;
    n -= part;
  }
  read_file_bytes(into, n);
}

// Reads `n` bytes on from the current file, moving to the next at each
// file's end (where the file must end and match its CRC-32C), and passes
// the files of no bytes that follow.
void FileSource::read_file_bytes(char* into, uint64_t n) {
  for (;;) {
    if (!status_.ok()) {
      std::memset(into, 0, n);
      at_ += n;
      return;
    }
    if (file_ >= files_.size()) return;  // n is 0: the caller asks no more than the stream's length
    const fault::FileEntry& f = files_[file_];
    const std::string path = dir_ + "/" + f.path;
    if (fd_ < 0) {
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) {
        fail(fault::Status::from_errno("cannot open", path));
        continue;
      }
    }
    if (file_at_ == f.size) {
      // The last read asks for one byte more than expected: it must find the end.
      char probe = 0;
      ssize_t got;
      do got = ::read(fd_, &probe, 1);
      while (got < 0 && errno == EINTR);
      if (got != 0) {
        fail(got < 0 ? fault::Status::from_errno("cannot read", path)
                     : fault::Status::failure(path + ": its size changed since it was checked"));
        continue;
      }
      if (file_crc_ != f.crc) {
        fail(fault::Status::failure(path + ": CRC-32C changed since it was checked"));
        continue;
      }
      ::close(fd_);
      fd_ = -1;
      ++file_;
      file_at_ = 0;
      file_crc_ = 0;
      continue;
    }
    if (n == 0) return;
    const uint64_t want = std::min<uint64_t>(n, f.size - file_at_);
    ssize_t got = ::read(fd_, into, want);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      fail(got < 0 ? fault::Status::from_errno("cannot read", path)
                   : fault::Status::failure(path + ": its size changed since it was checked"));
      continue;
    }
    file_crc_ = fault::crc32c(file_crc_, into, static_cast<size_t>(got));
    file_at_ += static_cast<uint64_t>(got);
    at_ += static_cast<uint64_t>(got);
    into += got;
    n -= static_cast<uint64_t>(got);
  }
}

// ---- FileSink -------------------------------------------------------------

FileSink::FileSink(std::string dir, uint64_t header_bytes, uint64_t total_bytes)
    : dir_(std::move(dir)), header_bytes_(header_bytes), total_(total_bytes) {}

FileSink::~FileSink() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink((dir_ + "/" + files_[file_].path + ".tmp").c_str());
  }
}

void FileSink::fail(fault::Status s) {
  if (status_.ok()) status_ = std::move(s);
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink((dir_ + "/" + files_[file_].path + ".tmp").c_str());
  }
  fd_ = -1;
}

// The header is whole: the file list, checked, and an empty directory.
void FileSink::start_files() {
  if (fault::Status s = fault::Manifest::parse_files(header_, &files_))
    return fail(fault::Status::failure("a partner copy's file list: " + s.message()));
  uint64_t bytes = header_bytes_;
  for (const fault::FileEntry& f : files_) {
    const std::filesystem::path relative(f.path);
    if (relative.is_absolute() || std::find(relative.begin(), relative.end(), "..") != relative.end())
      return fail(fault::Status::failure("a partner copy names a file outside its directory: " + f.path));
    bytes += f.size;
  }
  if (bytes != total_) return fail(fault::Status::failure("a partner copy message is torn"));
  if (fault::Status s = fault::remove_tree(dir_)) return fail(std::move(s));
  if (fault::Status s = fault::make_directories(dir_)) return fail(std::move(s));
  // New subdirectories are durable once their parents are synced, up to the
  // epoch directory (whose own entry the manifest's publish syncs).
  std::set<std::string> directories{dir_};
  const std::filesystem::path above = std::filesystem::path(dir_).parent_path();
  directories.insert(above.string());
  directories.insert(above.parent_path().string());
  for (const fault::FileEntry& f : files_)
    for (std::filesystem::path d = std::filesystem::path(dir_ + "/" + f.path).parent_path();
         d.string().size() > dir_.size(); d = d.parent_path())
      directories.insert(d.string());
  directories_.assign(directories.begin(), directories.end());
}

void FileSink::open_file() {
  const std::string path = dir_ + "/" + files_[file_].path;
  if (fault::Status s = fault::make_directories(std::filesystem::path(path).parent_path().string()))
    return fail(std::move(s));
  fd_ = ::open((path + ".tmp").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(fault::Status::from_errno("cannot create", path + ".tmp"));
}

// The file's last byte is written: checked, then made durable and named
// (fault/durable.h write_atomically's order, the directory synced at the end).
void FileSink::close_file() {
  const fault::FileEntry& f = files_[file_];
  const std::string path = dir_ + "/" + f.path;
  if (file_crc_ != f.crc)
    return fail(fault::Status::failure(f.path + ": CRC-32C of the partner copy differs (damaged in transit)"));
  if (::fdatasync(fd_) != 0) return fail(fault::Status::from_errno("cannot fdatasync", path + ".tmp"));
  ::close(fd_);
  fd_ = -1;
  if (::rename((path + ".tmp").c_str(), path.c_str()) != 0) {
    fault::Status s = fault::Status::from_errno("cannot rename to", path);
    ::unlink((path + ".tmp").c_str());
    return fail(std::move(s));
  }
  ++file_;
  file_at_ = 0;
  file_crc_ = 0;
}

void FileSink::take(const char* data, uint64_t n) {
  if (n > total_ - at_) {
    fail(fault::Status::failure("a partner copy message is torn"));
    n = total_ - at_;
  }
  at_ += n;
  if (!status_.ok()) return;
  if (header_.size() < header_bytes_) {
    const uint64_t part = std::min<uint64_t>(n, header_bytes_ - header_.size());
    header_.append(data, part);
    data += part;
    n -= part;
    if (header_.size() < header_bytes_) return;
    start_files();
  }
  while (status_.ok() && file_ < files_.size()) {
    const fault::FileEntry& f = files_[file_];
    if (fd_ < 0) open_file();
    if (!status_.ok()) return;
    if (file_at_ == f.size) {
      close_file();
      continue;
    }
    if (n == 0) return;
    const uint64_t part = std::min<uint64_t>(n, f.size - file_at_);
    ssize_t wrote = ::write(fd_, data, part);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) return fail(fault::Status::from_errno("cannot write", dir_ + "/" + f.path + ".tmp"));
    // Writeback of what was just written starts now, so that the file's
    // fdatasync mostly finds it done (as the seal does, fault/seal.h).
    fault::start_writeback(fd_, file_at_, static_cast<uint64_t>(wrote));
    file_crc_ = fault::crc32c(file_crc_, data, static_cast<size_t>(wrote));
    file_at_ += static_cast<uint64_t>(wrote);
    data += wrote;
    n -= static_cast<uint64_t>(wrote);
  }
}

fault::Status FileSink::finish() {
  if (status_.ok() && header_bytes_ == 0 && header_.empty()) {
    start_files();
    take(nullptr, 0);  // files of no bytes
  }
  if (status_.ok() && (at_ != total_ || file_ != files_.size()))
    fail(fault::Status::failure("a partner copy message is torn"));
  if (!status_.ok()) return status_;
  for (const std::string& d : directories_)
    if (fault::Status s = fault::sync_path(d)) return s;
  return {};
}

// ---- The schedule -----------------------------------------------------------

Err move_streams(Communicator* c, int tag, const std::vector<Outgoing>& out, const std::vector<Incoming>& in,
                 uint64_t* most_buffered) {
  const Datatype* bytes = find_datatype(MPI_BYTE);
  std::vector<std::vector<char>> out_piece(out.size()), in_piece(in.size());
  std::vector<uint64_t> sent(out.size(), 0), got(in.size(), 0);
  uint64_t buffered = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    out_piece[i].resize(static_cast<size_t>(std::min(kStreamPieceBytes, out[i].source->total_bytes())));
    buffered += out_piece[i].size();
  }
  for (size_t i = 0; i < in.size(); ++i) {
    in_piece[i].resize(static_cast<size_t>(std::min(kStreamPieceBytes, in[i].sink->total_bytes())));
    buffered += in_piece[i].size();
  }
  *most_buffered = buffered;
  p2p::MessageBatch batch(c, tag);
  for (;;) {
    bool more = false;
    // One round: a piece of every stream not yet whole. A pair's pieces
    // go in order on the one tag (MPI-3.1 §3.5, non-overtaking).
    std::vector<uint64_t> taking(in.size(), 0);
    for (size_t i = 0; i < in.size(); ++i) {
      taking[i] = std::min(kStreamPieceBytes, in[i].sink->total_bytes() - got[i]);
      if (taking[i] == 0) continue;
      batch.recv(in_piece[i].data(), static_cast<MPI_Count>(taking[i]), bytes, in[i].source);
      more = true;
    }
    for (size_t i = 0; i < out.size(); ++i) {
      const uint64_t n = std::min(kStreamPieceBytes, out[i].source->total_bytes() - sent[i]);
      if (n == 0) continue;
      out[i].source->next(out_piece[i].data(), n);
      batch.send(out_piece[i].data(), static_cast<MPI_Count>(n), bytes, out[i].dest);
      sent[i] += n;
      more = true;
    }
    if (!more) return {};
    if (Err e = batch.wait()) return e;
    for (size_t i = 0; i < in.size(); ++i) {
      if (taking[i] == 0) continue;
      in[i].sink->take(in_piece[i].data(), taking[i]);
      got[i] += taking[i];
    }
  }
}

}  // namespace ferry::runtime::checkpoint::copies
