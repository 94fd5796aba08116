#include "io/shared_pointer.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "coll/collectives.h"
#include "io/agreement.h"
#include "io/errors.h"
#include "io/nonblocking_collective.h"

namespace ferry::io {
namespace shared_pointer {
namespace {

// The hidden file's content: one record at offset 0, the range every
// access locks.
struct Record {
  int64_t value;  // etypes of the view
  int64_t epoch;  // the setting collectives its writer had seen
};
constexpr off_t kRecordBytes = sizeof(Record);

bool is_root(const File& f) { return f.comm->rank == 0; }

// "<dir>/.<name>.shfp.<nonce>" for the data file "<dir>/<name>".
std::string hidden_path(const std::string& data_path, uint64_t nonce) {
  size_t slash = data_path.rfind('/');
  std::string dir = slash == std::string::npos ? std::string() : data_path.substr(0, slash + 1);
  std::string name = slash == std::string::npos ? data_path : data_path.substr(slash + 1);
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".shfp.%016" PRIx64, nonce);
  return dir + "." + name + suffix;
}

// A failed system call on the hidden file, in MPI's terms, naming both files.
Err hidden_error(const File& f, int err, const char* what) {
  return fail(error_class_of_errno(err), "cannot %s '%s' (the shared file pointer of '%s'): %s", what,
              f.shared_path.c_str(), f.path.c_str(), std::strerror(err));
}

// The lock on the record, or the reason there is none. A file system that
// has no working fcntl locks (NFS without a lock manager: ENOLCK; Lustre
// without flock: ENOSYS; some FUSE file systems: EOPNOTSUPP, EINVAL) cannot
// keep the pointer consistent: that is said plainly.
Err set_lock(const File& f, short type) {
  struct flock lock = {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = kRecordBytes;
  int rc;
  do rc = ::fcntl(f.shared_fd, type == F_UNLCK ? F_SETLK : F_SETLKW, &lock);
  while (rc != 0 && errno == EINTR);
  if (rc == 0) return {};
  int err = errno;
  if (err == ENOLCK || err == ENOSYS || err == EOPNOTSUPP || err == EINVAL)
    return fail(MPI_ERR_UNSUPPORTED_OPERATION,
                "cannot lock '%s' (the shared file pointer of '%s'): %s; shared file pointers need fcntl locks "
                "that work on this file system, across hosts (README, \"MPI-IO\")",
                f.shared_path.c_str(), f.path.c_str(), std::strerror(err));
  return hidden_error(f, err, "lock");
}

// Opens the hidden file if this process has not yet (f.shared_mutex held).
// Without `create`, a file nobody has made yet is *absent (the pointer
// has never been written: its epoch's start value stands).
Err open_hidden(File& f, bool create, bool* absent) {
  *absent = false;
  if (f.shared_fd >= 0) return {};
  int fd;
  do fd = ::open(f.shared_path.c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0666);
  while (fd < 0 && errno == EINTR);
  if (fd >= 0) {
    f.shared_fd = fd;
    return {};
  }
  if (!create && errno == ENOENT) {
    *absent = true;
    return {};
  }
  return hidden_error(f, errno, create ? "create" : "open");
}

// The pointer's value from the record, the lock held (f.shared_mutex too).
Err read_value(File& f, MPI_Offset* value) {
  Record r = {};
  ssize_t n;
  do n = ::pread(f.shared_fd, &r, sizeof r, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) return hidden_error(f, errno, "read");
  // Empty (nobody wrote it yet) or from an earlier epoch: stale.
  *value = n == kRecordBytes && r.epoch == f.shared_epoch ? r.value : f.shared_start;
  return {};
}

// Unlocks the record whatever happened between; the first error wins.
Err unlock_after(File& f, Err result) {
  Err unlocked = set_lock(f, F_UNLCK);
  return result.ok() ? std::move(unlocked) : std::move(result);
}

// The pointer's value, read under a read lock (f.shared_mutex held).
Err read_locked(File& f, MPI_Offset* value) {
  bool absent = false;
  if (Err e = open_hidden(f, false, &absent)) return e;
  if (absent) {
    *value = f.shared_start;
    return {};
  }
  if (Err e = set_lock(f, F_RDLCK)) return e;
  return unlock_after(f, read_value(f, value));
}

// Every process, once a setting collective has ended: from now on the
// pointer is `value` until the record says otherwise.
void next_epoch(File& f, MPI_Offset value) {
  std::lock_guard<std::mutex> hold(f.shared_mutex);
  ++f.shared_epoch;
  f.shared_start = value;
}

}  // namespace

Err start(File& f, MPI_Offset initial) {
  int64_t words[2] = {0, initial};  // {nonce, initial value}
  if (is_root(f)) {
    uint64_t nonce = 0;
    if (::getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != sizeof nonce)
      nonce = (static_cast<uint64_t>(::getpid()) << 32) ^ static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&f));
    words[0] = static_cast<int64_t>(nonce);
  }
  if (Err e = coll::bcast(words, 2, find_datatype(MPI_INT64_T), 0, f.comm)) return e;
  f.shared_path = hidden_path(f.path, static_cast<uint64_t>(words[0]));
  f.shared_start = words[1];
  f.shared_epoch = 0;
  return {};
}

void stop(File& f) {
  if (f.shared_fd >= 0) ::close(f.shared_fd);
  f.shared_fd = -1;
  // Best effort: a file left behind is only clutter (and never read again,
  // its name being drawn afresh at each open).
  if (!f.shared_path.empty() && is_root(f)) (void)::unlink(f.shared_path.c_str());
}

namespace {
std::vector<std::string> left_open;  // hidden files to remove after MPI_Finalize
}  // namespace

void finalize(File& f) {
  if (!f.shared_path.empty() && is_root(f)) left_open.push_back(f.shared_path);
}

void after_finalize() {
  for (const std::string& path : left_open) (void)::unlink(path.c_str());
  left_open.clear();
}

Err fetch_and_add(File& f, MPI_Offset add, MPI_Offset* before) {
  // One access per process and file at a time: POSIX record locks belong to
  // the process, so they do not keep its own threads apart.
  std::lock_guard<std::mutex> hold(f.shared_mutex);
  if (add == 0) return read_locked(f, before);
  bool absent = false;
  if (Err e = open_hidden(f, true, &absent)) return e;
  if (Err e = set_lock(f, F_WRLCK)) return e;
  MPI_Offset value = 0;
  Err done = read_value(f, &value);
  if (done.ok()) {
    Record r = {value + add, f.shared_epoch};
    ssize_t n;
    do n = ::pwrite(f.shared_fd, &r, sizeof r, 0);
    while (n < 0 && errno == EINTR);
    if (n != kRecordBytes) done = hidden_error(f, n < 0 ? errno : EIO, "update");
  }
  done = unlock_after(f, std::move(done));
  if (done.ok()) *before = value;
  return done;
}

void view_changed(File& f) { next_epoch(f, 0); }

namespace {

// Process 0 reads the pointer and tells every process it and how that went
// (its error class): one broadcast, or a word in an allgather the caller
// makes anyway. The others' error names process 0.
Err root_failed(const File& f, int mpi_class) {
  return fail(mpi_class, "process 0 could not read the shared file pointer of '%s' (its error says why)",
              f.path.c_str());
}

Err root_value(File& f, MPI_Offset* value) {
  std::lock_guard<std::mutex> hold(f.shared_mutex);
  return read_locked(f, value);
}

}  // namespace

Err current_byte_offset(File& f, MPI_Offset* bytes) {
  int64_t words[2] = {0, MPI_SUCCESS};  // {file offset, process 0's error class}
  Err mine;
  if (is_root(f)) {
    MPI_Offset value = 0;
    mine = root_value(f, &value);
    uint64_t position = static_cast<uint64_t>(value) * f.view.etype().size;
    words[0] = f.view.filetype().size == 0 ? f.view.disp() : static_cast<int64_t>(f.view.file_offset(position));
    if (!mine.ok()) words[1] = mine.mpi_class();
  }
  if (Err e = coll::bcast(words, 2, find_datatype(MPI_INT64_T), 0, f.comm)) return e;
  if (words[1] != MPI_SUCCESS) return is_root(f) ? std::move(mine) : root_failed(f, static_cast<int>(words[1]));
  *bytes = words[0];
  return {};
}

Err seek(File& f, MPI_Offset offset, int whence, Err local) {
  if (local.ok() && whence == MPI_SEEK_SET && offset < 0)
    local = fail(MPI_ERR_ARG, "invalid offset %lld with MPI_SEEK_SET (must be >= 0)", static_cast<long long>(offset));
  nonblocking_collective::wait_for_started(f);  // the file's collectives in the order started
  if (Err e = agree(f.comm, std::move(local), {{"offset", offset}, {"whence", whence}})) return e;
  if (whence == MPI_SEEK_SET) {
    next_epoch(f, offset);
    return {};
  }
  // Every earlier access has ended (its process joined the agreement
  // after): process 0 reads the value to move from, and a second agreement
  // tells the others whether that worked, a broadcast where it leads.
  int64_t to = 0;
  if (is_root(f)) {
    MPI_Offset from = 0;
    local = root_value(f, &from);
    if (local.ok() && whence == MPI_SEEK_END) {
      MPI_Offset size = 0;
      local = get_size(f, &size);
      uint64_t bytes = f.view.position_of_offset(static_cast<uint64_t>(size));
      uint64_t etype_size = f.view.etype().size;
      from = static_cast<MPI_Offset>((bytes + etype_size - 1) / etype_size);
    }
    to = from + offset;
    if (local.ok() && to < 0)
      local = fail(MPI_ERR_ARG, "offset %lld would put the shared file pointer before the start of the view (at %lld)",
                   static_cast<long long>(offset), static_cast<long long>(to));
  }
  if (Err e = agree(f.comm, std::move(local))) return e;
  if (Err e = coll::bcast(&to, 1, find_datatype(MPI_INT64_T), 0, f.comm)) return e;
  next_epoch(f, to);
  return {};
}

Err ordered_slot(File& f, MPI_Offset mine, MPI_Offset* start, Err local) {
  // Everybody's outcome first, so that a failing process makes nobody move
  // the pointer; after it, every earlier access has ended, and until the
  // allgather below ends nobody accesses the pointer.
  nonblocking_collective::wait_for_started(f);  // the file's collectives in the order started
  if (Err e = agree(f.comm, std::move(local))) return e;
  // Each process's share, and process 0's reading of the pointer with its
  // error class, everywhere: the etypes before this process, the total and
  // the base follow.
  Err read;
  int64_t my_words[3] = {mine, 0, MPI_SUCCESS};
  if (is_root(f)) {
    MPI_Offset value = 0;
    read = root_value(f, &value);
    my_words[1] = value;
    if (!read.ok()) my_words[2] = read.mpi_class();
  }
  const Datatype* int64 = find_datatype(MPI_INT64_T);
  std::vector<int64_t> words(3 * static_cast<size_t>(f.comm->size));
  if (Err e = coll::allgather(my_words, 3, int64, words.data(), 3, int64, f.comm)) return e;
  if (words[2] != MPI_SUCCESS) return is_root(f) ? std::move(read) : root_failed(f, static_cast<int>(words[2]));
  int64_t base = words[1], before = 0, total = 0;
  for (int i = 0; i < f.comm->size; ++i) {
    if (i < f.comm->rank) before += words[3 * static_cast<size_t>(i)];
    total += words[3 * static_cast<size_t>(i)];
  }
  *start = base + before;
  next_epoch(f, base + total);
  return {};
}

}  // namespace shared_pointer
}  // namespace ferry::io
