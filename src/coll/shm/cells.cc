#include "coll/shm/cells.h"

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

}  // namespace ferry::coll::shm
