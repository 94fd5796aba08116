// Moving a typed buffer into and out of a shared-memory cell (coll/shm):
// the cell holds the data packed (contiguous types: the bytes themselves,
// one copy; others through the datatype engine, base/type_pack.h).
#pragma once

#include <cstdint>
#include <cstring>

#include "base/datatype.h"
#include "base/type_pack.h"
#include "coll/packed_bytes.h"
#include "coll/shm/segment.h"

namespace ferry::coll::shm {

// Whether this CPU copies with `rep movsb` in whole cache lines (ERMS,
// cpuid leaf 7), asked once.
bool fast_string_copies();

// `bytes` into shared memory that the readers of earlier operations left
// in their caches. Above kStringCopyAbove, a string copy (`rep movsb`, its
// destination aligned to a line first): with ERMS it writes whole lines
// without reading them first, where glibc's memcpy below its 2,112-byte
// `rep movsb` threshold stores vectors, and each line then crosses back
// from the reader's core before it can be written (issue 29: a 2 KiB
// gather on 2 ranks took 0.55-0.60 us against 0.33-0.35 with the string
// copy, a 1.5 KiB one 0.46-0.51 against 0.28-0.31). A slot's data of more
// than a line starts on a line of its own (segment.h), so 1 KiB takes it
// too: a 1 KiB bcast on 2 ranks 0.47-0.57 us -> 0.20-0.30 (MPICH 0.31); at
// 512 bytes and below it was slower (0.29 against 0.19-0.20), as before the
// alignment. The readers' copies out keep memcpy: the string copy there
// gained little.
constexpr size_t kStringCopyAbove = 512;
inline void copy_to_shared(char* to, const void* from, size_t bytes) {
#if defined(__x86_64__)
  if (bytes > kStringCopyAbove && fast_string_copies()) {
    const size_t head = static_cast<size_t>(-reinterpret_cast<uintptr_t>(to) & 63);
    std::memcpy(to, from, head);
    const char* src = static_cast<const char*>(from) + head;
    size_t rest = bytes - head;
    to += head;
    asm volatile("rep movsb" : "+D"(to), "+S"(src), "+c"(rest) : : "memory");
    return;
  }
#endif
  if (bytes != 0) std::memcpy(to, from, bytes);
}

inline Err to_cell(const void* buf, MPI_Count count, const Datatype* type, char* cell) {
  const size_t bytes = type->bytes(count);
  if (type->contiguous) {
    copy_to_shared(cell, buf, bytes);
    return {};
  }
  return copy_typed(buf, count, *type, cell, static_cast<MPI_Count>(bytes), *packed_bytes());
}

// Bytes [from, from + bytes) of the packed form of `count` elements of
// `type` into a cell, and back: a chunk of a stream (bcast.cc, gather.cc).
inline void to_cell_range(const void* buf, MPI_Count count, const Datatype* type, uint64_t from, size_t bytes,
                          char* cell) {
  if (type->contiguous)
    copy_to_shared(cell, static_cast<const char*>(buf) + from, bytes);
  else
    type::pack(*type, buf, static_cast<uint64_t>(count), from, bytes, cell);
}
inline void from_cell_range(const char* cell, uint64_t from, size_t bytes, void* buf, MPI_Count count,
                            const Datatype* type) {
  if (type->contiguous)
    std::memcpy(static_cast<char*>(buf) + from, cell, bytes);
  else
    type::unpack(*type, buf, static_cast<uint64_t>(count), from, bytes, cell);
}

// `bytes` packed bytes into `count` elements of `type`; more bytes than
// the buffer holds is MPI_ERR_TRUNCATE (as a message would be).
inline Err from_cell(const char* cell, size_t bytes, void* buf, MPI_Count count, const Datatype* type) {
  if (type->contiguous && bytes <= type->bytes(count)) {
    if (bytes != 0) std::memcpy(buf, cell, bytes);
    return {};
  }
  return copy_typed(cell, static_cast<MPI_Count>(bytes), *packed_bytes(), buf, count, *type);
}

// `count` elements of `type` from one buffer of this rank to another (a
// reduction's own operand into its result).
inline Err copy_elements(const void* from, void* to, MPI_Count count, const Datatype* type) {
  if (type->contiguous) [[likely]] {
    const size_t bytes = type->bytes(count);
    if (bytes != 0) std::memcpy(to, from, bytes);
    return {};
  }
  return copy_typed(from, count, *type, to, count, *type);
}

// A reduction's operand from a cell, laid out as `count` elements of
// `type` lie in a user's buffer, for apply(): the cell itself where `type`
// is contiguous (packed data is its layout), else unpacked into this
// thread's scratch, valid until its next call. The cells hold packed data
// always: datatypes with gaps reduce too (the predefined pairs
// MPI_DOUBLE_INT, MPI_LONG_INT, ... with MINLOC and MAXLOC; any datatype with
// a user's operation), and ranks may pass such a type where others pass a
// contiguous one of the same signature (MPI-4.0 §6.1).
const void* unpacked_operand(const char* cell, size_t bytes, MPI_Count count, const Datatype* type);
inline const void* operand_from_cell(const char* cell, size_t bytes, MPI_Count count, const Datatype* type) {
  if (type->contiguous) [[likely]] return cell;
  return unpacked_operand(cell, bytes, count, type);
}

}  // namespace ferry::coll::shm
