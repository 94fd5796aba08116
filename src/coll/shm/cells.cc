#include "coll/shm/cells.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace ferry::coll::shm {

bool fast_string_copies() {
#if defined(__x86_64__)
  static const bool erms = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    // Leaf 7, subleaf 0: EBX bit 9 is ERMS (enhanced rep movsb/stosb).
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 9)) != 0;
  }();
  return erms;
#else
  return false;
#endif
}

const void* unpacked_operand(const char* cell, size_t bytes, MPI_Count count, const Datatype* type) {
  // Kept from call to call: no allocation per operand once it is large
  // enough (a 1-element MPI_DOUBLE_INT MAXLOC allreduce on 2 ranks went
  // through it on every call).
  thread_local std::vector<char> scratch;
  // Sized by the data's span (true extent), its lowest byte at the
  // scratch's start: element 0's, or element count-1's for a negative
  // extent (coll/typed_buffer.h, temp_buffer, does the same).
  const size_t extent = static_cast<size_t>(type->extent < 0 ? -type->extent : type->extent);
  const size_t span = std::max(static_cast<size_t>(type->true_extent > 0 ? type->true_extent : 0), type->size);
  const size_t n = static_cast<size_t>(count);
  const size_t need = n == 0 ? 1 : (n - 1) * extent + span;
  if (scratch.size() < need) scratch.resize(need);
  const ptrdiff_t first = type->true_lb - (type->extent < 0 ? static_cast<ptrdiff_t>((n - 1) * extent) : 0);
  char* origin = scratch.data() - first;
  (void)copy_typed(cell, static_cast<MPI_Count>(bytes), *packed_bytes(), origin, count, *type);
  return origin;
}

}  // namespace ferry::coll::shm
