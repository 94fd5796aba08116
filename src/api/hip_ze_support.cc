// MPIX_Query_hip_support and MPIX_Query_ze_support (MPICH 4.0.2): whether
// the library can take AMD HIP or Intel Level Zero device buffers. Ferry is
// built with neither, so both answer 0, before MPI_Init as after.
#include "api/api.h"

#define FERRY_WEAK_ALIAS_X(name) FERRY_PRAGMA(weak MPIX_##name = PMPIX_##name)

extern "C" int PMPIX_Query_hip_support(void) { return 0; }
FERRY_WEAK_ALIAS_X(Query_hip_support)

extern "C" int PMPIX_Query_ze_support(void) { return 0; }
FERRY_WEAK_ALIAS_X(Query_ze_support)
