// Ferry's checkpoint/restart extension (mpix.h; runtime/checkpoint.h has the
// protocol). The MPIX_ names are weak aliases of PMPIX_, so that a profiling
// library can wrap them too (they are not in src/api/mpi_api.txt, MPICH has
// none, so no generated entry point and no QMPI slot).
#include "api/api.h"
#include "mpix.h"
#include "runtime/checkpoint.h"

using namespace ferry;

#define FERRY_WEAK_ALIAS_X(name) FERRY_PRAGMA(weak MPIX_##name = PMPIX_##name)

extern "C" int PMPIX_Checkpoint_hook(MPIX_Checkpoint_fn* save, MPIX_Checkpoint_fn* restore, void* state) {
  api::Call call("MPIX_Checkpoint_hook");
  if (!call.initialized()) return call.raise();
  if (save == nullptr && restore == nullptr) {
    call.fail(MPI_ERR_ARG, "save and restore are both NULL: a hook needs at least one of them");
    return call.raise();
  }
  return call.result(runtime::checkpoint::add_hook(save, restore, state));
}
FERRY_WEAK_ALIAS_X(Checkpoint_hook)

extern "C" int PMPIX_Checkpoint(MPI_Comm comm, int* epoch) {
  api::Call call("MPIX_Checkpoint");
  Communicator* c = call.intracomm(comm);
  call.not_null(epoch, "epoch");
  if (!call.ok()) return call.raise();
  return call.result(runtime::checkpoint::take(c, comm, epoch));
}
FERRY_WEAK_ALIAS_X(Checkpoint)

extern "C" int PMPIX_Checkpoint_due(MPI_Comm comm, int* flag) {
  api::Call call("MPIX_Checkpoint_due");
  Communicator* c = call.intracomm(comm);
  call.not_null(flag, "flag");
  if (!call.ok()) return call.raise();
  return call.result(runtime::checkpoint::due(c, flag));
}
FERRY_WEAK_ALIAS_X(Checkpoint_due)

extern "C" int PMPIX_Restore(MPI_Comm comm, int* epoch) {
  api::Call call("MPIX_Restore");
  Communicator* c = call.intracomm(comm);
  call.not_null(epoch, "epoch");
  if (!call.ok()) return call.raise();
  return call.result(runtime::checkpoint::restore(c, comm, epoch));
}
FERRY_WEAK_ALIAS_X(Restore)

extern "C" int PMPIX_Restart_count(int* count) {
  api::Call call("MPIX_Restart_count");
  // Readable before MPI_Init too: a program may decide how to start from it.
  if (!call.not_null(count, "count")) return call.raise();
  *count = runtime::checkpoint::restart_count();
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS_X(Restart_count)
