#include "base/error.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <deque>
#include <mutex>
#include <vector>

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
    // MPI-4.0 §9.4
    {MPI_ERR_SESSION, "MPI_ERR_SESSION", "invalid session"},
    {MPI_ERR_PROC_ABORTED, "MPI_ERR_PROC_ABORTED", "the peer process was aborted"},
    {MPI_ERR_VALUE_TOO_LARGE, "MPI_ERR_VALUE_TOO_LARGE", "value too large to store"},
    // User-Level Failure Mitigation (MPICH's MPIX classes; README "MPIX extensions").
    {MPIX_ERR_PROC_FAILED, "MPIX_ERR_PROC_FAILED", "process failure"},
    {MPIX_ERR_PROC_FAILED_PENDING, "MPIX_ERR_PROC_FAILED_PENDING", "process failure pending"},
    {MPIX_ERR_REVOKED, "MPIX_ERR_REVOKED", "communicator revoked"},
    {MPIX_ERR_EAGAIN, "MPIX_ERR_EAGAIN", "operation could not be issued"},
    {MPIX_ERR_NOREQ, "MPIX_ERR_NOREQ", "cannot allocate request"},
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

// Takes the next slot of the ring for `message`; `code_of(slot)` makes the
// code that names it.
template <typename CodeOf>
int remember(const std::string& message, CodeOf code_of) {
  std::lock_guard lock(slots_mutex);
  int slot = next_slot;
  next_slot = (next_slot + 1) % kSlots;
  if (next_slot == 0) generation = (generation + 1) % 1024;
  int code = code_of(slot);
  slots[slot] = Slot{code, message};
  return code;
}

// The remembered message of `code` in `slot`, if the slot still holds it.
bool recall(int code, int slot, std::string* message) {
  if (slot < 0 || slot >= kSlots) return false;
  std::lock_guard lock(slots_mutex);
  if (slots[slot].code != code) return false;
  *message = slots[slot].message;
  return true;
}

// User-defined classes and codes (MPI-3.1 §8.5) live above MPI_ERR_LASTCODE
// (0x3fffffff, MPICH's), as the standard asks of MPI_LASTUSEDCODE:
//
//   0x40000000 | entry << 11 | slot + 1
//
// `entry` numbers every class and code MPI_Add_error_class/_code made, in
// order; the low 11 bits are 0 for the class or code itself, and a ring slot
// when the runtime raises an error of a user-defined class with a message of
// its own (a user's attribute callback returning such a class, say). Codes
// of predefined classes keep the layout above: class | slot | generation,
// below 2^28.
constexpr int kDynamicBit = 1 << 30;
constexpr int kEntryShift = 11;
constexpr int kMaxEntries = 1 << (30 - kEntryShift);
struct Entry {
  int mpi_class;     // its own value for a class
  std::string text;  // MPI_Add_error_string's; "" until then (MPI-3.1 §8.5)
  // MPIX_Delete_error_class/_code: the value is no longer valid. Deleted
  // entries are reused only once every value has been handed out, so a stale
  // copy of a deleted value stays invalid for as long as possible.
  bool deleted = false;
  int live_codes = 0;  // a class's codes not deleted (MPIX_Delete_error_class refuses while > 0)
};
std::mutex entries_mutex;
std::deque<Entry> entries{Entry{MPI_ERR_UNKNOWN, ""}};  // entry 0 is never handed out
std::vector<int> deleted_entries;  // reused, most recent first, when the values run out
int last_used_code = MPI_ERR_LASTCODE;

bool is_dynamic(int code) { return code >= kDynamicBit; }
int entry_of(int code) { return (code & (kDynamicBit - 1)) >> kEntryShift; }
int slot_part(int code) { return code & ((1 << kEntryShift) - 1); }
int dynamic_value(int entry) { return kDynamicBit | (entry << kEntryShift); }

// The entry a dynamic code names, with entries_mutex held; nullptr if none.
const Entry* entry_locked(int code) {
  int e = entry_of(code);
  if (e <= 0 || e >= static_cast<int>(entries.size()) || slot_part(code) > kSlots) return nullptr;
  const Entry* entry = &entries[static_cast<size_t>(e)];
  return entry->deleted ? nullptr : entry;
}

bool is_user_class_locked(int value) {
  const Entry* e = entry_locked(value);
  return e != nullptr && slot_part(value) == 0 && e->mpi_class == value;
}

Err add_entry(int mpi_class, int* value) {
  std::lock_guard lock(entries_mutex);
  int entry;
  if (entries.size() < static_cast<size_t>(kMaxEntries)) {
    entry = static_cast<int>(entries.size());
    entries.emplace_back();
  } else if (!deleted_entries.empty()) {
    // MPICH's errhan/adderr adds and deletes 1.9 million classes and codes.
    entry = deleted_entries.back();
    deleted_entries.pop_back();
  } else {
    return fail(MPI_ERR_OTHER, "no more user-defined error classes and codes can be added (%d exist)",
                kMaxEntries - 1);
  }
  int v = dynamic_value(entry);
  entries[static_cast<size_t>(entry)] = Entry{mpi_class < 0 ? v : mpi_class, ""};
  if (mpi_class >= 0 && is_dynamic(mpi_class)) ++entries[static_cast<size_t>(entry_of(mpi_class))].live_codes;
  last_used_code = std::max(last_used_code, v);
  *value = v;
  return {};
}

}  // namespace

namespace error_code {

int make(int mpi_class, const std::string& message) {
  if (is_dynamic(mpi_class))
    return remember(message, [mpi_class](int slot) { return mpi_class | (slot + 1); });
  // class | slot | generation, well below MPI_ERR_LASTCODE.
  return remember(message, [mpi_class](int slot) {
    return mpi_class | ((slot + 1) << kClassBits) | (generation << (kClassBits + 11));
  });
}

int class_of(int code) {
  if (!is_dynamic(code)) return code & ((1 << kClassBits) - 1);
  std::lock_guard lock(entries_mutex);
  const Entry* e = entry_locked(code);
  return e != nullptr ? e->mpi_class : MPI_ERR_UNKNOWN;
}

bool is_valid(int code) {
  if (code < 0) return false;
  if (!is_dynamic(code)) return find_class(class_of(code)) != nullptr;
  std::lock_guard lock(entries_mutex);
  return entry_locked(code) != nullptr;
}

std::string text(int code) {
  std::string message;
  if (!is_dynamic(code)) {
    if (recall(code, ((code >> kClassBits) & 0x7ff) - 1, &message)) return message;
    return error_class_text(class_of(code));
  }
  if (slot_part(code) != 0 && recall(code, slot_part(code) - 1, &message)) return message;
  std::lock_guard lock(entries_mutex);
  const Entry* e = entry_locked(code);
  if (e == nullptr) return error_class_text(MPI_ERR_UNKNOWN);
  // A raised error whose message is forgotten says what its class says: the
  // entry of a raised code is its class's.
  return e->text;
}

bool is_class(int value) {
  if (!is_dynamic(value)) return value >= 0 && value < (1 << kClassBits) && find_class(value) != nullptr;
  std::lock_guard lock(entries_mutex);
  return is_user_class_locked(value);
}

Err add_class(int* mpi_class) { return add_entry(-1, mpi_class); }

Err add_code(int mpi_class, int* code) {
  if (mpi_class == MPI_SUCCESS) return fail(MPI_ERR_ARG, "errorclass is MPI_SUCCESS, which is no error class");
  if (!is_class(mpi_class))
    return fail(MPI_ERR_ARG, "errorclass %d (0x%x) is no error class (neither predefined nor made by "
                "MPI_Add_error_class)", mpi_class, static_cast<unsigned>(mpi_class));
  return add_entry(mpi_class, code);
}

Err set_string(int code, const std::string& text) {
  std::lock_guard lock(entries_mutex);
  if (!is_dynamic(code) || slot_part(code) != 0 || entry_locked(code) == nullptr)
    return fail(MPI_ERR_ARG, "errorcode %d (0x%x) was not made by MPI_Add_error_class or MPI_Add_error_code%s",
                code, static_cast<unsigned>(code),
                code >= 0 && code <= MPI_ERR_LASTCODE ? " (a predefined code's string cannot be changed)" : "");
  entries[static_cast<size_t>(entry_of(code))].text = text;
  return {};
}

Err delete_class(int mpi_class) {
  std::lock_guard lock(entries_mutex);
  if (!is_user_class_locked(mpi_class))
    return fail(MPI_ERR_ARG, "errorclass %d (0x%x) is no class made by MPI_Add_error_class%s", mpi_class,
                static_cast<unsigned>(mpi_class), is_dynamic(mpi_class) ? " (or it was deleted)" : "");
  Entry& e = entries[static_cast<size_t>(entry_of(mpi_class))];
  if (e.live_codes > 0)
    return fail(MPI_ERR_ARG, "errorclass 0x%x still has %d error codes (MPIX_Delete_error_code them first)",
                static_cast<unsigned>(mpi_class), e.live_codes);
  e.deleted = true;
  deleted_entries.push_back(entry_of(mpi_class));
  return {};
}

Err delete_code(int code) {
  std::lock_guard lock(entries_mutex);
  const Entry* e = is_dynamic(code) && slot_part(code) == 0 ? entry_locked(code) : nullptr;
  if (e == nullptr || e->mpi_class == code)
    return fail(MPI_ERR_ARG, "errorcode %d (0x%x) is no code made by MPI_Add_error_code%s", code,
                static_cast<unsigned>(code), e != nullptr ? " (it is a class: MPIX_Delete_error_class)" : "");
  if (is_dynamic(e->mpi_class)) --entries[static_cast<size_t>(entry_of(e->mpi_class))].live_codes;
  entries[static_cast<size_t>(entry_of(code))].deleted = true;
  deleted_entries.push_back(entry_of(code));
  return {};
}

Err delete_string(int code) {
  std::lock_guard lock(entries_mutex);
  if (!is_dynamic(code) || slot_part(code) != 0 || entry_locked(code) == nullptr)
    return fail(MPI_ERR_ARG, "errorcode %d (0x%x) was not made by MPI_Add_error_class or MPI_Add_error_code", code,
                static_cast<unsigned>(code));
  entries[static_cast<size_t>(entry_of(code))].text.clear();
  return {};
}

const int* last_used() { return &last_used_code; }

}  // namespace error_code

const char* error_class_text(int mpi_class) {
  const ClassInfo* c = find_class(mpi_class);
  return c ? c->text : "unknown error class";
}

const char* error_class_name(int mpi_class) {
  if (is_dynamic(mpi_class)) return "a user-defined error class";
  const ClassInfo* c = find_class(mpi_class);
  return c ? c->name : "MPI_ERR_UNKNOWN";
}

}  // namespace ferry
