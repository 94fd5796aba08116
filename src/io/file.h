// An open file (MPI-3.1 §13.2): the object behind an MPI_File, its life
// cycle (open, close, delete) and the calls on the file as a whole (size,
// preallocation, sync, atomicity, hints).
//
// Every process opens the file itself (POSIX open; the file lives on a file
// system all processes see) and keeps a private duplicate of the
// communicator, so the collective file calls never match the program's own
// messages. The collective calls agree on their outcome (io/agreement.h):
// all processes return the same error class.
//
// MPI_File is a pointer in MPICH's ABI; Ferry's are not addresses but the
// usual 32-bit handle (kind dynamic, object kFile, an index into a table),
// so that an invalid or freed handle is recognised instead of being read,
// and MPI_File_c2f/f2c are the identity on the handle's bits.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "base/communicator.h"
#include "base/error.h"
#include "base/info.h"
#include "io/hints.h"
#include "io/view.h"
#include "mpi.h"

namespace ferry::io {

// A split collective in progress (MPI-3.1 §13.4.5): at most one per file.
struct SplitCollective {
  const char* begun_by = nullptr;  // "MPI_File_read_all_begin"; nullptr: none
  MPI_Status status{};             // what the matching _end reports
};

class CollectiveQueue;

struct File {
  MPI_File handle = MPI_FILE_NULL;
  int fd = -1;
  std::string path;       // as opened (without a "ufs:"-style prefix)
  int amode = 0;
  Communicator* comm = nullptr;  // the private duplicate
  Info hints;                    // MPI_File_open's and MPI_File_set_info's, with the values in effect
  Hints tuning;                  // the same, parsed (io/hints.h)
  MPI_Errhandler errhandler = MPI_ERRORS_RETURN;
  bool atomic = false;           // MPI_File_set_atomicity
  bool local_fs = false;         // on a local file system (io/collective.cc: large pieces go direct)
  View view;
  // The individual file pointer, in etypes of the view (§13.4.3), and
  // what keeps two threads' calls on one handle from reading the same
  // value (MPI_THREAD_MULTIPLE): held across each access that uses it.
  MPI_Offset position = 0;
  std::mutex pointer_mutex;
  // The shared file pointer (io/shared_pointer.h): its hidden file (opened
  // at this process's first access), the collectives that set it so far
  // (the epoch) and the value the epoch started from; the mutex keeps this
  // process's threads to one access at a time.
  std::string shared_path;
  int shared_fd = -1;
  int64_t shared_epoch = 0;
  MPI_Offset shared_start = 0;
  std::mutex shared_mutex;
  // Nonblocking accesses queued or running on the I/O worker (io/worker.h).
  std::atomic<int> background{0};
  // Nonblocking collective accesses started and not yet complete, and the
  // file's thread that runs them (io/nonblocking_collective.h; nullptr
  // until the first, owned).
  std::atomic<int> collectives_started{0};
  CollectiveQueue* collective_queue = nullptr;
  SplitCollective split;
  // Two-phase collective accesses in which this process was an aggregator, and the bytes it moved
  // to or from the file in them (FERRY_PROFILE's MPI-IO table; io/collective.cc).
  std::atomic<uint64_t> aggregations{0};
  std::atomic<uint64_t> aggregated_bytes{0};

  bool readable() const { return (amode & MPI_MODE_WRONLY) == 0; }
  bool writable() const { return (amode & MPI_MODE_RDONLY) == 0; }
  bool sequential() const { return (amode & MPI_MODE_SEQUENTIAL) != 0; }
};

namespace files {

// The open file behind a handle, or nullptr (MPI_FILE_NULL, a closed or an
// invalid handle).
File* find(MPI_File handle);
// The open file whose private communicator is `c`, or nullptr: a request
// of a nonblocking file access names it, and its errors go to the file's
// error handler (MPI-3.1 §13.7). Walks the open files: for error paths.
File* of_communicator(const Communicator* c);
MPI_Fint to_fortran(MPI_File handle);
MPI_File from_fortran(MPI_Fint handle);

// MPI_Finalize, before the runtime goes: files the program left open get
// their background accesses finished. They stay open.
void finalize_open_files();
// MPI_Finalize, after the runtime's end (every process is past its last
// access): the hidden files of those files' shared pointers are removed.
void after_finalize();

// MPI_FILE_NULL's error handler: the one that failing MPI_File_open and
// calls without a valid file use, and the one new files start with (§13.7).
MPI_Errhandler& null_file_errhandler();
// Applies `f`'s handler (MPI_FILE_NULL's when f is nullptr) to error `code`.
int invoke_errhandler(File* f, int code, const std::string& message);

}  // namespace files

// The access mode rules of §13.2.1, checked locally: exactly one of
// MPI_MODE_RDONLY, MPI_MODE_RDWR and MPI_MODE_WRONLY; no MPI_MODE_CREATE or
// MPI_MODE_EXCL with MPI_MODE_RDONLY; no MPI_MODE_SEQUENTIAL with
// MPI_MODE_RDWR; no unknown bits. MPI_ERR_AMODE.
Err check_amode(int amode);

// MPI_File_open, collective over `comm` (an intracommunicator). With
// MPI_MODE_CREATE the file is created by process 0 alone (exclusively with
// MPI_MODE_EXCL) before the others open it; MPI_MODE_APPEND puts the file
// pointer at the end. `hints` may be nullptr. `argument_error`: what the API
// found wrong with this process's other arguments (filename, info); such a
// process still takes part, so that every process returns its error
// instead of waiting for it.
Err open(Communicator* comm, const char* filename, int amode, const Info* hints, Err argument_error, File** out);
// MPI_File_close, collective: the file is gone afterwards (and deleted, after
// every process closed it, with MPI_MODE_DELETE_ON_CLOSE).
Err close(File* f);
// MPI_File_delete (not collective).
Err delete_file(const char* filename);

// Collective calls on an open file; all processes pass the same values.
Err set_size(File& f, MPI_Offset size);
Err preallocate(File& f, MPI_Offset size);
Err sync(File& f);
Err set_atomicity(File& f, bool atomic);
// Local.
Err get_size(const File& f, MPI_Offset* size);

// ---- The view and the individual file pointer (io/file_view.cc) ----------
// MPI_File_set_view, collective: checks the arguments (io/view.h's
// check_view; the etype's size and the data representation must be the
// same on every process), then replaces the view and puts the individual
// file pointer at 0 (§13.3). `hints` joins the file's hints. With an
// `argument_error` from the API (a bad type or info handle: etype, filetype
// and datarep may then be nullptr) the process takes part and every process
// returns that error.
Err set_view(File& f, MPI_Offset disp, const Datatype* etype, const Datatype* filetype, const char* datarep,
             const Info* hints, Err argument_error);
// MPI_File_seek (§13.4.3): `offset` etypes from the start of the view, the
// current position or the end of the file (MPI_SEEK_SET, _CUR, _END).
Err seek(File& f, MPI_Offset offset, int whence);
// MPI_File_get_byte_offset: the file offset of view position `offset`
// (in etypes).
Err byte_offset(const File& f, MPI_Offset offset, MPI_Offset* disp);

}  // namespace ferry::io
