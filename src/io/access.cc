#include "io/access.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <new>
#include <type_traits>
#include <mutex>

#include "base/request.h"
#include "base/type_pack.h"
#include "io/collective.h"
#include "io/device_staging.h"
#include "io/data_sieving.h"
#include "io/errors.h"
#include "io/nonblocking_collective.h"

namespace ferry::io {
namespace {

// Linux moves at most 0x7ffff000 bytes per read/write call; asking for
// less keeps every count well inside ssize_t on any system.
constexpr uint64_t kMaxPerCall = 1u << 30;

// pwrite until all `bytes` are written: short writes continue where they
// stopped, EINTR is retried. 0 on success, else the errno.
int write_fully(int fd, const char* data, uint64_t bytes, uint64_t offset) {
  while (bytes > 0) {
    ssize_t n = ::pwrite(fd, data, std::min(bytes, kMaxPerCall), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ENOSPC;  // no progress and no error: the device took nothing
    data += n;
    bytes -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return 0;
}

// pread until `bytes` are read or the file ends; *got says how many were.
// 0 on success (also at the end of the file), else the errno.
int read_fully(int fd, char* data, uint64_t bytes, uint64_t offset, uint64_t* got) {
  *got = 0;
  while (bytes > 0) {
    ssize_t n = ::pread(fd, data, std::min(bytes, kMaxPerCall), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return 0;  // end of file
    data += n;
    bytes -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
    *got += static_cast<uint64_t>(n);
  }
  return 0;
}

// Moves one chunk of view data between `data` (its packed bytes, in view
// order) and the file runs the view maps it to. Stops at the first error
// or, reading, at the end of the file; `moved` counts the bytes done.
class ChunkMover final : public type::RunVisitor {
 public:
  ChunkMover(const File& f, Direction direction, char* data) : f_(f), direction_(direction), data_(data) {}

  void run(uint64_t offset, uint64_t bytes) override {
    if (stopped_) return;
    char* at = data_ + moved;
    if (direction_ == Direction::kWrite) {
      if (int err = write_fully(f_.fd, at, bytes, offset)) {
        error = describe(err, "cannot write", bytes, offset);
        stopped_ = true;
        return;
      }
      moved += bytes;
      return;
    }
    uint64_t got = 0;
    int err = read_fully(f_.fd, at, bytes, offset, &got);
    moved += got;
    if (err != 0) error = describe(err, "cannot read", bytes, offset);
    if (err != 0 || got < bytes) {
      stopped_ = true;
      end_of_file = err == 0;
    }
  }

  uint64_t moved = 0;
  bool end_of_file = false;
  Err error;

 private:
  Err describe(int err, const char* verb, uint64_t bytes, uint64_t offset) const {
    char what[128];
    std::snprintf(what, sizeof what, "%s %llu bytes at offset %llu of", verb, static_cast<unsigned long long>(bytes),
                  static_cast<unsigned long long>(offset));
    return system_error(err, what, f_.path);
  }

  const File& f_;
  Direction direction_;
  char* data_;
  bool stopped_ = false;
};

// Atomic mode (§13.6.1): the file range an access touches is locked for
// its duration (shared for reads, exclusive for writes), so that accesses
// that overlap see each other whole. A POSIX record lock, held by this
// process on [first, last] and released when the guard goes.
class RangeLock {
 public:
  RangeLock(const File& f, Direction direction, uint64_t first, uint64_t end) : fd_(f.fd), first_(first), end_(end) {
    struct flock lock = {};
    lock.l_type = direction == Direction::kWrite ? F_WRLCK : F_RDLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = static_cast<off_t>(first_);
    lock.l_len = static_cast<off_t>(end_ - first_);
    int rc;
    do rc = ::fcntl(fd_, F_SETLKW, &lock);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) error = system_error(errno, "cannot lock (atomic mode) a range of", f.path);
  }
  ~RangeLock() {
    if (!error.ok()) return;
    struct flock lock = {};
    lock.l_type = F_UNLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = static_cast<off_t>(first_);
    lock.l_len = static_cast<off_t>(end_ - first_);
    (void)::fcntl(fd_, F_SETLK, &lock);
  }
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;
  Err error;

 private:
  int fd_;
  uint64_t first_, end_;
};

Err check_allowed(const File& f, Direction direction, Where where, MPI_Offset offset, const Buffer& buffer,
                  uint64_t bytes) {
  if (direction == Direction::kRead && !f.readable())
    return fail(MPI_ERR_ACCESS, "'%s' was opened with MPI_MODE_WRONLY: it cannot be read", f.path.c_str());
  if (direction == Direction::kWrite && !f.writable())
    return fail(MPI_ERR_READ_ONLY, "'%s' was opened with MPI_MODE_RDONLY: it cannot be written", f.path.c_str());
  if (where == Where::kExplicitOffset) {
    if (f.sequential())
      return fail(MPI_ERR_UNSUPPORTED_OPERATION,
                  "'%s' was opened with MPI_MODE_SEQUENTIAL: explicit offsets are not allowed", f.path.c_str());
    if (offset < 0) return fail(MPI_ERR_ARG, "invalid offset %lld (must be >= 0)", static_cast<long long>(offset));
  }
  const datarep::Representation& rep = f.view.representation();
  if (Err e = datarep::check_type(rep, *buffer.type, "datatype")) return e;
  uint64_t in_file = buffer.type->size;
  if (Err e = datarep::file_size(rep, *buffer.type, &in_file)) return e;
  if (in_file != buffer.type->size && !rep.converts(direction == Direction::kWrite))
    return fail(MPI_ERR_UNSUPPORTED_DATAREP,
                "data representation \"%s\" stores %s in %llu bytes where memory has %zu, but has no %s "
                "conversion function to change them",
                rep.name.c_str(), datatype_label(*buffer.type).c_str(), static_cast<unsigned long long>(in_file),
                buffer.type->size, direction == Direction::kWrite ? "write" : "read");
  // In the file's sizes: MPI_LONGs fill half as many bytes of an external32
  // view as of a native one (§13.5).
  const Datatype& etype = f.view.etype();
  if (bytes % etype.size != 0)
    return fail(MPI_ERR_TYPE,
                "%llu elements of %s are %llu bytes in the file, not a whole number of etypes (%s, %zu bytes there)",
                static_cast<unsigned long long>(buffer.count), datatype_label(*buffer.type).c_str(),
                static_cast<unsigned long long>(bytes), datatype_label(f.view.given_etype()).c_str(), etype.size);
  if (bytes > 0 && f.view.filetype().size == 0)
    return fail(MPI_ERR_ARG, "the view's filetype %s holds no data, so no data can be accessed through it",
                datatype_label(f.view.given_filetype()).c_str());
  return {};
}

// move() for a view whose representation converts the data
// (io/datarep.h): a whole number of the buffer's elements per chunk, as
// conversion functions take whole elements, through the staging buffer
// (the user's buffer is never converted in place). The view's positions
// and the staging buffer are in file bytes, `in_file` per element, which
// need not be the element's size in memory.
Err move_converted(File& f, Direction direction, uint64_t position, const Buffer& buffer, uint64_t* done) {
  const datarep::Representation& rep = f.view.representation();
  const Datatype& t = *buffer.type;
  uint64_t in_file = t.size;
  if (Err e = datarep::file_size(rep, t, &in_file)) return e;
  if (in_file == 0) return {};
  const uint64_t per_chunk = std::max<uint64_t>(1, kStagingBytes / in_file);
  std::unique_ptr<char[]> staging(new char[std::min(per_chunk, buffer.count) * in_file]);
  for (uint64_t first = 0; first < buffer.count; first += per_chunk) {
    uint64_t n = std::min(per_chunk, buffer.count - first);
    if (direction == Direction::kWrite) {
      if (Err e = datarep::to_file(rep, t, buffer.data, first, n, staging.get())) return e;
    }
    ChunkMover mover(f, direction, staging.get());
    f.view.for_each_run(position + first * in_file, n * in_file, mover);
    // A read that ends inside an element converts the whole ones.
    if (direction == Direction::kRead && mover.moved >= in_file) {
      if (Err e = datarep::from_file(rep, t, buffer.data, first, mover.moved / in_file, staging.get())) return e;
    }
    *done += mover.moved;
    if (!mover.error.ok()) return std::move(mover.error);
    if (mover.end_of_file) break;
  }
  return {};
}

// The bytes of memory data that `in_file` bytes of the file hold: the same
// number, unless the representation resizes the buffer's elements; then
// the whole elements that were moved (MPI_Status counts memory elements:
// MPI_Get_count of 10 MPI_LONGs read through external32 is 10).
uint64_t memory_bytes(const File& f, const Buffer& buffer, uint64_t in_file) {
  const Datatype& t = *buffer.type;
  uint64_t element = f.view.file_bytes(t, 1);
  if (element == t.size || element == 0) return in_file;
  return in_file / element * t.size;
}

// Moves `bytes` of packed data starting at view byte `position`; *done
// says how many moved (fewer for a read that reaches the end of the file).
Err move(File& f, Direction direction, uint64_t position, const Buffer& buffer, uint64_t bytes, uint64_t* done) {
  *done = 0;
  const bool converts = f.view.representation().converts(direction == Direction::kWrite);
  // GPU memory: the same path on host pieces (io/device_staging.h).
  if (device_staging::on_gpu(buffer)) {
    bool cut_anywhere = !converts && type::dense_run(*buffer.type, buffer.data, buffer.count) != nullptr;
    return device_staging::move_in_pieces(
        direction, position, buffer, bytes, cut_anywhere, done,
        [&](uint64_t at, const Buffer& host, uint64_t n, uint64_t* moved) {
          return move(f, direction, at, host, n, moved);
        });
  }
  if (converts) return move_converted(f, direction, position, buffer, done);
  // A dense buffer is the packed form already: the file runs go straight
  // to and from it, in one pass. Otherwise a chunk at a time through the
  // staging buffer.
  char* dense = const_cast<char*>(type::dense_run(*buffer.type, buffer.data, buffer.count));
  uint64_t chunk = dense != nullptr ? bytes : std::min(bytes, kStagingBytes);
  std::unique_ptr<char[]> staging;
  if (dense == nullptr) staging.reset(new char[chunk]);

  // Small runs close together: a window per call (io/data_sieving.h).
  const bool sieve = use_data_sieving(f, direction);
  for (uint64_t at = 0; at < bytes; at += chunk) {
    uint64_t n = std::min(chunk, bytes - at);
    char* data = dense != nullptr ? dense + at : staging.get();
    if (direction == Direction::kWrite && dense == nullptr)
      type::pack(*buffer.type, buffer.data, buffer.count, at, n, data);
    auto walk = [&](auto& mover) -> Err {
      f.view.for_each_run(position + at, n, mover);
      if constexpr (std::is_same_v<std::decay_t<decltype(mover)>, SievingMover>) mover.finish();
      if (direction == Direction::kRead && dense == nullptr && mover.moved > 0)
        type::unpack(*buffer.type, buffer.data, buffer.count, at, mover.moved, data);
      *done += mover.moved;
      return std::move(mover.error);
    };
    Err e;
    if (sieve) {
      SievingMover mover(f, direction, data, f.view.file_offset(position + at + n - 1) + 1);
      e = walk(mover);
    } else {
      ChunkMover mover(f, direction, data);
      e = walk(mover);
    }
    if (e) return e;
    if (*done < at + n) break;  // the end of the file
  }
  return {};
}

// A collective access through a representation that converts: the rounds
// of two-phase collective buffering (io/two_phase.h) move file bytes and
// convert each round's pieces on their way (io/collective.h's Detour),
// so the request is never held converted as a whole. Writing, a value that
// cannot be converted must fail the call on every process before anything
// is written, so the request is first converted a chunk at a time into a
// scratch buffer only to find out (the conversion costs twice its CPU
// time, no memory). If the processes choose to access on their own, the
// caller's path converts a chunk at a time instead.
Err collective_converted(File& f, Direction direction, uint64_t position, const Buffer& buffer, uint64_t bytes,
                         Err checked, bool* direct, uint64_t* done) {
  const datarep::Representation& rep = f.view.representation();
  const uint64_t element = buffer.count > 0 ? bytes / buffer.count : 0;
  if (direction == Direction::kWrite && !checked && element > 0) {
    const uint64_t per_chunk = std::max<uint64_t>(1, kStagingBytes / element);
    std::unique_ptr<char[]> scratch(new char[std::min(per_chunk, buffer.count) * element]);
    for (uint64_t first = 0; first < buffer.count && !checked; first += per_chunk)
      checked = datarep::to_file(rep, *buffer.type, buffer.data, first, std::min(per_chunk, buffer.count - first),
                                 scratch.get());
  }
  Detour converted;
  converted.rep = &rep;
  converted.memory = buffer;
  converted.element = element > 0 ? element : 1;
  Buffer in_file{nullptr, bytes, find_datatype(MPI_BYTE)};
  return collective_access(f, direction, position, in_file, bytes, std::move(checked), direct, done, &converted);
}

}  // namespace

Err check_access(const File& f, Direction direction, Where where, MPI_Offset offset, const Buffer& buffer) {
  return check_allowed(f, direction, where, offset, buffer, f.view.file_bytes(*buffer.type, buffer.count));
}

Err access(File& f, Direction direction, Where where, MPI_Offset offset, const Buffer& buffer, MPI_Status* status,
           Coordination how, Err argument_error) {
  // A collective waits for the nonblocking ones this process started before
  // it: they share the file's communicator, in the order started.
  if (how == Coordination::kCollective) nonblocking_collective::wait_for_started(f);
  // In the file's sizes, as every position of the view is.
  uint64_t bytes = f.view.file_bytes(*buffer.type, buffer.count);
  Err checked = argument_error ? std::move(argument_error) : check_allowed(f, direction, where, offset, buffer, bytes);
  const uint64_t etype_size = f.view.etype().size;
  // Threads sharing the handle take turns with its individual pointer.
  std::unique_lock<std::mutex> pointer_hold;
  if (where == Where::kIndividualPointer) pointer_hold = std::unique_lock<std::mutex>(f.pointer_mutex);
  MPI_Offset start = where == Where::kIndividualPointer ? f.position : offset;
  uint64_t position = static_cast<uint64_t>(start) * etype_size;

  uint64_t done = 0;
  bool direct = how == Coordination::kIndependent;
  // A collective access on GPU memory (io/device_staging.h): a buffer that
  // is one dense run, through a view that converts nothing, is copied a
  // round's pieces at a time by two-phase; any other is staged whole. A
  // process whose copy fails still takes part.
  const bool converts = f.view.representation().converts(direction == Direction::kWrite);
  device_staging::WholeSpan whole;
  Buffer data = buffer;
  char* device_run = nullptr;
  if (!direct && checked.ok() && device_staging::on_gpu(buffer)) {
    if (!converts) device_run = const_cast<char*>(type::dense_run(*buffer.type, buffer.data, buffer.count));
    if (device_run == nullptr) checked = whole.stage(direction, buffer, converts, &data);
  }
  if (!direct) {
    // Two-phase collective buffering, or each process on its own below
    // (a GPU buffer then in pieces: move()).
    Err e;
    if (converts) {
      e = collective_converted(f, direction, position, data, bytes, std::move(checked), &direct, &done);
    } else if (device_run != nullptr) {
      Detour on_device;
      on_device.device_run = device_run;
      Buffer in_file{nullptr, bytes, find_datatype(MPI_BYTE)};
      e = collective_access(f, direction, position, in_file, bytes, std::move(checked), &direct, &done, &on_device);
    } else {
      e = collective_access(f, direction, position, data, bytes, std::move(checked), &direct, &done);
    }
    if (e) return e;
  } else if (checked) {
    return checked;
  }
  Err e;
  if (direct && bytes > 0) {
    std::unique_ptr<RangeLock> lock;
    // Data sieving's writes rewrite the bytes between their runs: every
    // writer then locks (io/data_sieving.h).
    if (f.atomic || (direction == Direction::kWrite && f.tuning.ds_write == Use::kEnable)) {
      uint64_t first = f.view.file_offset(position);
      uint64_t last = f.view.file_offset(position + bytes - 1);
      lock = std::make_unique<RangeLock>(f, direction, first, last + 1);
      if (!lock->error.ok()) return std::move(lock->error);
    }
    e = move(f, direction, position, data, bytes, &done);
  }
  if (Err copied = whole.finish(direction, done); !e) e = std::move(copied);
  // The pointer moves past what was accessed, also when an error stopped
  // the access part way (§13.4.3: by the amount of data accessed).
  if (where == Where::kIndividualPointer) f.position = start + static_cast<MPI_Offset>(done / etype_size);
  if (status != MPI_STATUS_IGNORE) {
    MPI_Status s{};
    set_status_bytes(s, memory_bytes(f, buffer, done));
    report_status(status, s);
  }
  return e;
}

}  // namespace ferry::io
