// Shared by the C entry points in src/api: the macro that hands PMPI_X to the
// generated MPI_X entry point, and the Call helper that validates arguments.
//
// An entry point validates its arguments, translates handles and calls one
// core function; MPI semantics live in the core (shared/STYLE.md).
//
//   extern "C" int PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
//     api::Call call("MPI_Send");
//     Communicator* c = call.comm(comm);
//     ...
//     if (!call.ok()) return call.raise();
//     return call.result(core::send(...));
//   }
//   FERRY_ENTRY(Send)
#pragma once

#include <cstdint>
#include <string>

#include "base/comm_lookup.h"
#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/info.h"
#include "base/limits.h"
#include "mpi.h"
#include "runtime/runtime.h"

#define FERRY_PRAGMA(text) _Pragma(#text)
// After the definition of PMPI_X: gives it the hidden twin ferry_impl_MPI_X,
// which the generated MPI_X entry point jumps to (bindings/gen_qmpi.py).
// MPI_X is a weak function there, so a profiling library's MPI_X wins and
// can call PMPI_X (MPI-4.0 §15.2); QMPI tools are called from it too. The
// twin is hidden, so the jump is direct, not through the PLT.
#define FERRY_ENTRY(name)                                                       \
  extern "C" __attribute__((alias("PMPI_" #name), visibility("hidden"))) \
  decltype(PMPI_##name) ferry_impl_MPI_##name;
// The same for MPICH's extensions, PMPIX_X (MPIX_X).
#define FERRY_ENTRY_X(name)                                                      \
  extern "C" __attribute__((alias("PMPIX_" #name), visibility("hidden"))) \
  decltype(PMPIX_##name) ferry_impl_MPIX_##name;

// An entry point's own checks and the function that makes them for all its
// forms (MPI_X, MPI_IX, MPI_X_c, ...): inlined into each entry point, whose
// usual case is then one function with its arguments in registers. Out of
// line, each paid a frame and the moves of its arguments: about a third
// of an allreduce of 0 elements (issue 29).
#define FERRY_INLINE inline __attribute__((always_inline))

namespace ferry::io {
struct File;
}
namespace ferry::rma {
struct Window;
}

namespace ferry::api {

// What a rank argument may be besides a rank of the communicator.
enum class RankUse { kDestination /* or MPI_PROC_NULL */, kSource /* or MPI_ANY_SOURCE, MPI_PROC_NULL */ };

// One MPI call: collects the first argument error, then raises it on the
// right error handler (the communicator's, else MPI_COMM_WORLD's; for the
// file calls the file's, else MPI_FILE_NULL's: MPI-3.1 §13.7).
class Call {
 public:
  explicit Call(const char* name) : name_(name) {}

  const char* name() const { return name_; }
  bool ok() const { return error_.ok(); }

  // Each check returns false (and records the error) when the argument is
  // bad, or when an earlier check already failed.
  // The checks every call makes are inline for the case that passes (a
  // trivial call such as MPI_Comm_rank is little more than they), and out
  // of line (call.cc) for the one that fails. Always inline (FERRY_INLINE):
  // in the larger entry points the inliner otherwise left some out of line,
  // each then a call with its frame.
  FERRY_INLINE bool initialized() { return (ok() && runtime::active()) || initialized_or_failed(); }
  FERRY_INLINE Communicator* comm(MPI_Comm handle) {  // also checks initialization
    if (ok() && runtime::active()) [[likely]]
      if (Communicator* c = communicators::find_inline(handle)) return comm_ = c;
    return comm_or_failed(handle);
  }
  // The same, for calls that do not take intercommunicators yet
  // (collectives, most constructors): MPI_ERR_COMM on one.
  Communicator* intracomm(MPI_Comm handle);
  FERRY_INLINE const Datatype* datatype(MPI_Datatype handle, const char* argument = "datatype") {
    if (ok()) [[likely]]
      if (const Datatype* t = find_datatype(handle)) return t;
    return datatype_or_failed(handle, argument);
  }
  // A message's datatype: as datatype(), but an empty message may name
  // MPI_DATATYPE_NULL (MPICH accepts it, and programs written against it send
  // `0, MPI_DATATYPE_NULL`); it moves as zero MPI_BYTEs.
  // Inline for a valid handle, the usual case (issue 29).
  FERRY_INLINE const Datatype* message_datatype(MPI_Datatype handle, MPI_Count count) {
    if (ok()) [[likely]]
      if (const Datatype* t = find_datatype(handle)) return t;
    return message_datatype_or_failed(handle, count);
  }
  // A datatype that can be communicated (after datatype() succeeded):
  // committed (MPI-3.1 §4.1.9) and supported.
  FERRY_INLINE bool movable(const Datatype* t, const char* argument = "datatype") {
    return (ok() && t->committed && t->supported) || movable_or_failed(t, argument);
  }
  // Counts are MPI_Count: the int entry points widen theirs, the large-count
  // (_c) ones of MPI-4.0 pass theirs through, so both share one check.
  FERRY_INLINE bool count(MPI_Count count, const char* argument = "count") {
    return (ok() && count >= 0) || count_or_failed(count, argument);
  }
  // A buffer of `count` elements of `t`. Erroneous (MPI_ERR_BUFFER) only
  // when it holds data and that data would start at address 0: NULL is also
  // MPI_BOTTOM (MPI-3.1 §4.1.5), valid with a datatype whose data lies at
  // absolute addresses (true lower bound not 0). Also MPI_ERR_COUNT when
  // count times the type's size is no byte count.
  // Inline: the data starts above address 0 and its bytes are far from
  // 2^63 (the usual case, passed at once; issue 29).
  FERRY_INLINE bool buffer(const void* buf, MPI_Count count, const Datatype* t, const char* argument = "buffer") {
    if (ok() && buffer_fits(buf, count, t)) [[likely]] return true;
    return buffer_or_failed(buf, count, t, argument);
  }
  // That usual case, which buffer() passes at once.
  static bool buffer_fits(const void* buf, MPI_Count count, const Datatype* t) {
    return reinterpret_cast<uintptr_t>(buf) + static_cast<uintptr_t>(t->true_lb) != 0 && count <= INT32_MAX &&
           t->size <= INT32_MAX;
  }
  // Block `index` of a v or w form's buffer `<what>buf`: `count` elements
  // of `t` at `displacement` bytes from `buf` (displs[i] extents in the v
  // forms; in the w forms the byte displacement itself, which may be an
  // absolute address from MPI_BOTTOM). The same rule as buffer().
  bool block(const void* buf, MPI_Aint displacement, MPI_Count count, const Datatype* t, const char* what,
             int index);
  // Bytes that no datatype describes (MPI_Pack's outbuf, MPI_Unpack's
  // inbuf, MPI_Buffer_attach's buffer): not NULL when there are any.
  // Anything described by a datatype goes through buffer() instead.
  bool bytes(const void* buf, MPI_Count bytes, const char* argument = "buffer");
  FERRY_INLINE bool rank(int rank, const Communicator& c, RankUse use, const char* argument) {
    return (ok() && ((rank >= 0 && rank < c.peer_count()) || rank == MPI_PROC_NULL)) ||
           rank_or_failed(rank, c, use, argument);
  }
  FERRY_INLINE bool tag(int tag, bool allow_any) {
    return (ok() && tag >= 0 && tag <= kTagUpperBound) || tag_or_failed(tag, allow_any);
  }
  FERRY_INLINE bool not_null(const void* pointer, const char* argument) {
    return (pointer != nullptr && ok()) || null_or_failed(argument);
  }
  bool fail(int mpi_class, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  bool fail(Err e);
  // Hands over the recorded error (success if none) and forgets it: for
  // collective calls whose processes must all learn of one's bad argument.
  Err take_error() { return std::move(error_); }

  // Raises the recorded error: calls the error handler and returns the code.
  int raise();
  // MPI_SUCCESS, or raises `e`. Inline for success, the usual answer.
  FERRY_INLINE int result(Err e) {
    if (e.ok()) [[likely]] return MPI_SUCCESS;
    return result_failed(std::move(e));
  }
  // Raises an existing error code (from a request) on this call's handler.
  // Inline for MPI_SUCCESS, the usual answer.
  FERRY_INLINE int raise_code(int code) {
    if (code == MPI_SUCCESS) [[likely]]
      return MPI_SUCCESS;
    return raise_code_failed(code);
  }

  // The communicator whose handler applies (for calls that check a
  // communicator some other way).
  void use_errhandler_of(Communicator* c) { comm_ = c; }
  // The communicator comm() found (or use_errhandler_of named), or nullptr.
  Communicator* communicator() const { return comm_; }

  // File calls. file() checks initialization and the handle (MPI_ERR_FILE)
  // and makes the file's handler the one that applies; until then, and for
  // calls that have no file (MPI_File_open, MPI_File_delete: call
  // use_file_errhandlers() first), MPI_FILE_NULL's does.
  io::File* file(MPI_File handle);
  void use_file_errhandlers() { file_call_ = true; }
  // After the file is gone (MPI_File_close): MPI_FILE_NULL's handler.
  void forget_file() { file_ = nullptr; }

  // Window calls. win() checks initialization and the handle (MPI_ERR_WIN)
  // and makes the window's handler the one that applies (MPI-4.0 §12.6);
  // without a valid window, MPI_COMM_WORLD's does.
  rma::Window* win(MPI_Win handle);
  // After MPI_Win_free: MPI_COMM_WORLD's handler.
  void forget_win() { win_ = nullptr; }

 private:
  bool initialized_or_failed();
  int result_failed(Err e);
  int raise_code_failed(int code);
  const Datatype* datatype_or_failed(MPI_Datatype handle, const char* argument);
  const Datatype* message_datatype_or_failed(MPI_Datatype handle, MPI_Count count);
  Communicator* comm_or_failed(MPI_Comm handle);
  bool null_or_failed(const char* argument);
  // The full checks, out of line (call.cc), where the inline test above
  // did not pass at once.
  bool movable_or_failed(const Datatype* t, const char* argument);
  bool count_or_failed(MPI_Count count, const char* argument);
  bool buffer_or_failed(const void* buf, MPI_Count count, const Datatype* t, const char* argument);
  bool rank_or_failed(int rank, const Communicator& c, RankUse use, const char* argument);
  bool tag_or_failed(int tag, bool allow_any);

  const char* name_;
  Communicator* comm_ = nullptr;  // nullptr: MPI_COMM_WORLD's handler
  bool file_call_ = false;        // errors go to file_'s handler (nullptr: MPI_FILE_NULL's)
  io::File* file_ = nullptr;
  rma::Window* win_ = nullptr;    // errors go to its handler
  Err error_;
};

// Hints from an info argument (MPI_INFO_NULL stands for none), or nullptr
// after recording MPI_ERR_INFO for an invalid handle.
const Info* checked_hints(Call& call, MPI_Info handle);

// The stub for functions that Ferry does not implement yet.
// With a `reason`, the message gives it instead ("MPI_Intercomm_create:
// intercommunicators are not supported yet").
int not_implemented(const char* call, const char* reason = nullptr);

}  // namespace ferry::api
