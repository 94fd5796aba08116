// Collective operations (MPI-3.1 §5). The algorithms live in src/coll.
#include "api/api.h"
#include "coll/barrier/dissemination.h"

using namespace ferry;

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  api::Call call("MPI_Barrier");
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  return call.result(coll::barrier_dissemination(c));
}
FERRY_WEAK_ALIAS(Barrier)
