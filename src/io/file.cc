#include "io/file.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

#include "base/errhandler.h"
#include "base/handles.h"
#include "io/agreement.h"
#include "io/errors.h"
#include "io/nonblocking_collective.h"
#include "io/shared_pointer.h"
#include "io/two_phase.h"
#include "io/worker.h"
#include "runtime/comm_create.h"

namespace ferry::io {
namespace {

handle::Table<File> open_files;
MPI_Errhandler file_null_errhandler = MPI_ERRORS_RETURN;

MPI_File to_handle(int bits) { return reinterpret_cast<MPI_File>(static_cast<uintptr_t>(static_cast<uint32_t>(bits))); }
int bits_of(MPI_File h) { return static_cast<int>(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(h))); }

// ROMIO lets a file name say which file system driver to use ("ufs:/tmp/x");
// programs written for it pass such names. Every file system is POSIX here.
std::string without_driver_prefix(const char* filename) {
  static const char* const kPrefixes[] = {"ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "panfs:", "xfs:", "testfs:"};
  std::string name(filename);
  for (const char* p : kPrefixes) {
    size_t n = std::char_traits<char>::length(p);
    if (name.compare(0, n, p) == 0) return name.substr(n);
  }
  return name;
}

// open(2) with EINTR retried; the descriptor, or -1 with *err set.
int open_retrying(const std::string& path, int flags, int* err) {
  int fd;
  do fd = ::open(path.c_str(), flags | O_CLOEXEC, 0666);
  while (fd < 0 && errno == EINTR);
  *err = fd < 0 ? errno : 0;
  return fd;
}

int posix_access_flags(int amode) {
  if (amode & MPI_MODE_RDONLY) return O_RDONLY;
  if (amode & MPI_MODE_WRONLY) return O_WRONLY;
  return O_RDWR;
}

}  // namespace

namespace files {

File* find(MPI_File h) {
  int bits = bits_of(h);
  if (!handle::is_dynamic(bits, handle::Object::kFile)) return nullptr;
  return open_files.get(handle::index_of(bits));
}

File* of_communicator(const Communicator* c) {
  for (File* f : open_files.all())
    if (f->comm == c) return f;
  return nullptr;
}

void finalize_open_files() {
  for (File* f : open_files.all()) {
    // Accesses the program never waited for end (every process's thread
    // runs them, each rank being here or on its way) before the runtime goes.
    nonblocking_collective::stop(*f);
    worker::drain(*f);
    shared_pointer::finalize(*f);
  }
}

void after_finalize() { shared_pointer::after_finalize(); }

MPI_Fint to_fortran(MPI_File h) { return static_cast<MPI_Fint>(bits_of(h)); }

MPI_File from_fortran(MPI_Fint h) {
  MPI_File f = to_handle(static_cast<int>(h));
  return find(f) != nullptr ? f : MPI_FILE_NULL;
}

MPI_Errhandler& null_file_errhandler() { return file_null_errhandler; }

int invoke_errhandler(File* f, int code, const std::string& message) {
  if (f == nullptr) return errhandlers::invoke_file(file_null_errhandler, MPI_FILE_NULL, code, message);
  return errhandlers::invoke_file(f->errhandler, f->handle, code, message);
}

}  // namespace files

Err check_amode(int amode) {
  constexpr int kKnown = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                         MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND |
                         MPI_MODE_SEQUENTIAL;
  if (amode & ~kKnown) return fail(MPI_ERR_AMODE, "amode 0x%x has unknown bits 0x%x", amode, amode & ~kKnown);
  int access = (amode & MPI_MODE_RDONLY ? 1 : 0) + (amode & MPI_MODE_WRONLY ? 1 : 0) + (amode & MPI_MODE_RDWR ? 1 : 0);
  if (access != 1)
    return fail(MPI_ERR_AMODE, "amode 0x%x must have exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR and "
                               "MPI_MODE_WRONLY (it has %d)", amode, access);
  if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return fail(MPI_ERR_AMODE, "amode 0x%x: MPI_MODE_RDONLY cannot go with MPI_MODE_%s", amode,
                amode & MPI_MODE_CREATE ? "CREATE" : "EXCL");
  if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
    return fail(MPI_ERR_AMODE, "amode 0x%x: MPI_MODE_SEQUENTIAL cannot go with MPI_MODE_RDWR", amode);
  return {};
}

Err open(Communicator* parent, const char* filename, int amode, const Info* hints, Err argument_error,
         File** out) {
  *out = nullptr;
  Communicator* comm = nullptr;
  if (Err e = communicators::dup(parent, nullptr, &comm)) return e;
  auto f = std::make_unique<File>();
  f->comm = comm;
  f->path = filename != nullptr ? without_driver_prefix(filename) : std::string();
  f->amode = amode;
  apply_hints(f->hints, hints, f->tuning, f->path);
  auto give_up = [&](Err e) {
    shared_pointer::stop(*f);
    if (f->fd >= 0) ::close(f->fd);
    (void)communicators::free_communicator(comm);
    return e;
  };

  // Phase 1: valid arguments, and the same access mode, everywhere.
  Err checked = argument_error.ok() ? check_amode(amode) : std::move(argument_error);
  if (Err e = agree(comm, std::move(checked), {{"amode", amode}})) return give_up(std::move(e));

  // Phase 2: with MPI_MODE_CREATE, process 0 creates the file (exclusively
  // with MPI_MODE_EXCL: exactly one process may find it new), the others
  // open what it made.
  int flags = posix_access_flags(amode);
  int err = 0;
  if (amode & MPI_MODE_CREATE) {
    Err created;
    if (comm->rank == 0) {
      f->fd = open_retrying(f->path, flags | O_CREAT | (amode & MPI_MODE_EXCL ? O_EXCL : 0), &err);
      if (f->fd < 0) created = system_error(err, amode & MPI_MODE_EXCL ? "cannot create (exclusively)" : "cannot create",
                                            f->path);
    }
    if (Err e = agree(comm, std::move(created))) return give_up(std::move(e));
  }

  // Phase 3: everyone else opens; all or none succeed.
  Err opened;
  if (f->fd < 0) {
    f->fd = open_retrying(f->path, flags, &err);
    if (f->fd < 0) opened = system_error(err, "cannot open", f->path);
  }
  struct stat st;
  if (opened.ok() && ::fstat(f->fd, &st) != 0) opened = system_error(errno, "cannot examine", f->path);
  if (opened.ok() && S_ISDIR(st.st_mode))
    opened = fail(MPI_ERR_BAD_FILE, "cannot open '%s': it is a directory", f->path.c_str());
  if (opened.ok() && (amode & MPI_MODE_APPEND))
    f->position = static_cast<MPI_Offset>(st.st_size);  // the default view: etypes are bytes
  if (opened.ok()) f->local_fs = on_local_file_system(f->fd);
  if (Err e = agree(comm, std::move(opened))) return give_up(std::move(e));
  // MPI_MODE_APPEND puts the shared file pointer at the end too (§13.2.1).
  if (Err e = shared_pointer::start(*f, f->position)) return give_up(std::move(e));

  f->errhandler = errhandlers::get(file_null_errhandler);  // new files start with MPI_FILE_NULL's (§13.7)
  uint32_t index = open_files.add(f.get());
  if (index == handle::Table<File>::kFull) {
    errhandlers::release(f->errhandler);
    return give_up(fail(MPI_ERR_OTHER, "too many open files"));
  }
  f->handle = to_handle(handle::make_dynamic(handle::Object::kFile, index));
  *out = f.release();
  return {};
}

Err close(File* f) {
  // Requests still outstanding make the close erroneous (§13.2.2); they
  // end first rather than leave a thread a closed file.
  nonblocking_collective::stop(*f);
  worker::drain(*f);  // MPI requires it (§13.2.2); never leave the worker a closed file
  Err closed;
  if (::close(f->fd) != 0 && errno != EINTR) closed = system_error(errno, "cannot close", f->path);
  f->fd = -1;
  Communicator* comm = f->comm;
  Err result = agree(comm, std::move(closed));
  // After every process closed it (the agreement above), process 0 removes
  // a file opened with MPI_MODE_DELETE_ON_CLOSE.
  if (result.ok() && (f->amode & MPI_MODE_DELETE_ON_CLOSE)) {
    Err removed;
    if (comm->rank == 0 && ::unlink(f->path.c_str()) != 0) removed = system_error(errno, "cannot delete", f->path);
    result = agree(comm, std::move(removed));
  }
  // Every process is past its last shared-pointer call (the agreement
  // above): its hidden file can go.
  shared_pointer::stop(*f);
  errhandlers::release(f->errhandler);
  (void)communicators::free_communicator(comm);
  delete open_files.remove(handle::index_of(bits_of(f->handle)));
  return result;
}

Err delete_file(const char* filename) {
  std::string path = without_driver_prefix(filename);
  if (::unlink(path.c_str()) != 0) return system_error(errno, "cannot delete", path);
  return {};
}

Err get_size(const File& f, MPI_Offset* size) {
  struct stat st;
  if (::fstat(f.fd, &st) != 0) return system_error(errno, "cannot get the size of", f.path);
  *size = static_cast<MPI_Offset>(st.st_size);
  return {};
}

namespace {

// The collective size changes: the same size everywhere, changed once by
// process 0, the outcome agreed (which also orders the change before any
// process's return).
template <typename Change>
Err change_size(File& f, MPI_Offset size, Change change) {
  Err checked;
  if (size < 0) checked = fail(MPI_ERR_ARG, "invalid size %lld (must be >= 0)", static_cast<long long>(size));
  else if (!f.writable())
    checked = fail(MPI_ERR_READ_ONLY, "'%s' was opened with MPI_MODE_RDONLY", f.path.c_str());
  nonblocking_collective::wait_for_started(f);  // the file's collectives in the order started
  if (Err e = agree(f.comm, std::move(checked), {{"size", size}})) return e;
  Err changed;
  if (f.comm->rank == 0) changed = change();
  return agree(f.comm, std::move(changed));
}

}  // namespace

Err set_size(File& f, MPI_Offset size) {
  return change_size(f, size, [&]() -> Err {
    int rc;
    do rc = ::ftruncate(f.fd, static_cast<off_t>(size));
    while (rc != 0 && errno == EINTR);
    if (rc != 0) return system_error(errno, "cannot resize", f.path);
    return {};
  });
}

Err preallocate(File& f, MPI_Offset size) {
  return change_size(f, size, [&]() -> Err {
    if (size == 0) return {};
    // Allocates [0, size) and grows the file to `size` if it is smaller; a
    // larger file keeps its size (§13.2.5).
    int rc = ::posix_fallocate(f.fd, 0, static_cast<off_t>(size));
    if (rc != 0) return system_error(rc, "cannot preallocate", f.path);
    return {};
  });
}

Err sync(File& f) {
  nonblocking_collective::wait_for_started(f);  // the file's collectives in the order started
  Err synced;
  if (f.writable() && ::fsync(f.fd) != 0) synced = system_error(errno, "cannot flush", f.path);
  return agree(f.comm, std::move(synced));
}

Err set_atomicity(File& f, bool atomic) {
  // The accesses started before run in the mode they were started in.
  nonblocking_collective::wait_for_started(f);
  if (Err e = agree(f.comm, {}, {{"flag", atomic ? 1 : 0}})) return e;
  f.atomic = atomic;
  return {};
}

}  // namespace ferry::io
