// MPIX_Query_hip_support and MPIX_Query_ze_support (MPICH 4.0.2): whether
// the library can take AMD HIP or Intel Level Zero device buffers. Ferry is
// built with neither, so both answer 0, before MPI_Init as after.
#include "api/api.h"


extern "C" int PMPIX_Query_hip_support(void) { return 0; }
FERRY_ENTRY_X(Query_hip_support)

extern "C" int PMPIX_Query_ze_support(void) { return 0; }
FERRY_ENTRY_X(Query_ze_support)
