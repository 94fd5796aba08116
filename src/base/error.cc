#include "base/error.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "mpi.h"

namespace ferry {

int Err::mpi_class() const { return ok() ? MPI_SUCCESS : detail_->mpi_class; }

const std::string& Err::message() const {
  static const std::string kEmpty;
  return ok() ? kEmpty : detail_->message;
}

Err fail(int mpi_class, const char* fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return Err(mpi_class, text);
}

namespace {

struct ClassInfo {
  int mpi_class;
  const char* name;
  const char* text;
};

// MPICH's class numbers (they are part of the ABI).
constexpr ClassInfo kClasses[] = {
    {MPI_SUCCESS, "MPI_SUCCESS", "no error"},
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER", "invalid buffer pointer"},
    {MPI_ERR_COUNT, "MPI_ERR_COUNT", "invalid count argument"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE", "invalid datatype"},
    {MPI_ERR_TAG, "MPI_ERR_TAG", "invalid tag"},
    {MPI_ERR_COMM, "MPI_ERR_COMM", "invalid communicator"},
    {MPI_ERR_RANK, "MPI_ERR_RANK", "invalid rank"},
    {MPI_ERR_ROOT, "MPI_ERR_ROOT", "invalid root"},
    {MPI_ERR_GROUP, "MPI_ERR_GROUP", "invalid group"},
    {MPI_ERR_OP, "MPI_ERR_OP", "invalid reduction operation"},
    {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY", "invalid topology"},
    {MPI_ERR_DIMS, "MPI_ERR_DIMS", "invalid dimension argument"},
    {MPI_ERR_ARG, "MPI_ERR_ARG", "invalid argument"},
    {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN", "unknown error"},
    {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE", "message truncated"},
    {MPI_ERR_OTHER, "MPI_ERR_OTHER", "other error"},
    {MPI_ERR_INTERN, "MPI_ERR_INTERN", "internal error"},
    {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS", "error code is in the status"},
    {MPI_ERR_PENDING, "MPI_ERR_PENDING", "pending request"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST", "invalid request"},
    {MPI_ERR_ACCESS, "MPI_ERR_ACCESS", "permission denied"},
    {MPI_ERR_AMODE, "MPI_ERR_AMODE", "invalid file access mode"},
    {MPI_ERR_BAD_FILE, "MPI_ERR_BAD_FILE", "invalid file name"},
    {MPI_ERR_CONVERSION, "MPI_ERR_CONVERSION", "data conversion error"},
    {MPI_ERR_DUP_DATAREP, "MPI_ERR_DUP_DATAREP", "data representation already defined"},
    {MPI_ERR_FILE_EXISTS, "MPI_ERR_FILE_EXISTS", "file exists"},
    {MPI_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE", "file in use"},
    {MPI_ERR_FILE, "MPI_ERR_FILE", "invalid file handle"},
    {MPI_ERR_INFO, "MPI_ERR_INFO", "invalid info object"},
    {MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY", "invalid info key"},
    {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE", "invalid info value"},
    {MPI_ERR_INFO_NOKEY, "MPI_ERR_INFO_NOKEY", "info key not found"},
    {MPI_ERR_IO, "MPI_ERR_IO", "I/O error"},
    {MPI_ERR_NAME, "MPI_ERR_NAME", "invalid service name"},
    {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM", "out of memory"},
    {MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME", "arguments differ between processes"},
    {MPI_ERR_NO_SPACE, "MPI_ERR_NO_SPACE", "no space left"},
    {MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE", "no such file"},
    {MPI_ERR_PORT, "MPI_ERR_PORT", "invalid port"},
    {MPI_ERR_QUOTA, "MPI_ERR_QUOTA", "quota exceeded"},
    {MPI_ERR_READ_ONLY, "MPI_ERR_READ_ONLY", "read-only file"},
    {MPI_ERR_SERVICE, "MPI_ERR_SERVICE", "invalid service"},
    {MPI_ERR_SPAWN, "MPI_ERR_SPAWN", "spawn failed"},
    {MPI_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION", "unsupported operation"},
    {MPI_ERR_WIN, "MPI_ERR_WIN", "invalid window"},
    {MPI_ERR_BASE, "MPI_ERR_BASE", "invalid base address"},
    {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE", "invalid lock type"},
    {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL", "invalid attribute key"},
    {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT", "conflicting RMA accesses"},
    {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC", "wrong RMA synchronization"},
    {MPI_ERR_SIZE, "MPI_ERR_SIZE", "invalid size"},
    {MPI_ERR_DISP, "MPI_ERR_DISP", "invalid displacement"},
    {MPI_ERR_ASSERT, "MPI_ERR_ASSERT", "invalid assertion"},
    {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE", "RMA target out of the window"},
    {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
};

const ClassInfo* find_class(int mpi_class) {
  for (const ClassInfo& c : kClasses)
    if (c.mpi_class == mpi_class) return &c;
  return nullptr;
}

// Remembered messages. Codes are handed to users, who may keep them; a ring
// keeps the memory bounded, and an overwritten slot is detected by its stamp.
constexpr int kClassBits = 7;
constexpr int kSlots = 1024;
struct Slot {
  int code = 0;
  std::string message;
};
std::mutex slots_mutex;
Slot slots[kSlots];
int next_slot = 0;
int generation = 0;

}  // namespace

namespace error_code {

int make(int mpi_class, const std::string& message) {
  std::lock_guard lock(slots_mutex);
  int slot = next_slot;
  next_slot = (next_slot + 1) % kSlots;
  if (next_slot == 0) generation = (generation + 1) % 1024;
  // class | slot | generation, well below MPI_ERR_LASTCODE.
  int code = mpi_class | ((slot + 1) << kClassBits) | (generation << (kClassBits + 11));
  slots[slot] = Slot{code, message};
  return code;
}

int class_of(int code) { return code & ((1 << kClassBits) - 1); }

bool is_valid(int code) { return code >= 0 && find_class(class_of(code)) != nullptr; }

std::string text(int code) {
  int slot = ((code >> kClassBits) & 0x7ff) - 1;
  if (slot >= 0 && slot < kSlots) {
    std::lock_guard lock(slots_mutex);
    if (slots[slot].code == code) return slots[slot].message;
  }
  return error_class_text(class_of(code));
}

}  // namespace error_code

const char* error_class_text(int mpi_class) {
  const ClassInfo* c = find_class(mpi_class);
  return c ? c->text : "unknown error class";
}

const char* error_class_name(int mpi_class) {
  const ClassInfo* c = find_class(mpi_class);
  return c ? c->name : "MPI_ERR_UNKNOWN";
}

}  // namespace ferry
