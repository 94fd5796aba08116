// Questions about a communicator: rank and size.
#include "api/api.h"

using namespace ferry;

extern "C" int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  api::Call call("MPI_Comm_rank");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(rank, "rank")) return call.raise();
  *rank = c->rank;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_rank)

extern "C" int PMPI_Comm_size(MPI_Comm comm, int* size) {
  api::Call call("MPI_Comm_size");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(size, "size")) return call.raise();
  *size = c->size;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_size)

// MPI_Comm_get_attr and MPI_Attr_get, predefined attributes included, are in
// attribute.cc.
