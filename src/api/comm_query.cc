// Questions about a communicator: rank, size, predefined attributes.
#include "api/api.h"
#include "core/limits.h"
#include "core/runtime.h"

using namespace ferry;

extern "C" int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  api::Call call("MPI_Comm_rank");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(rank, "rank")) return call.raise();
  *rank = c->rank;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Comm_rank)

extern "C" int PMPI_Comm_size(MPI_Comm comm, int* size) {
  api::Call call("MPI_Comm_size");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(size, "size")) return call.raise();
  *size = c->size;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Comm_size)

namespace {

// Predefined attributes (MPI-3.1 §8.1.2). The value returned is a pointer to
// an int that lives as long as the library, as the standard requires.
int get_predefined_attribute(api::Call& call, MPI_Comm comm, int keyval, void* value, int* flag) {
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(value, "attribute_val") || !call.not_null(flag, "flag")) return call.raise();
  static int tag_ub;
  static int universe_size;
  static int appnum;
  static int wtime_is_global;
  static int host;
  static int io;
  int* result = nullptr;
  switch (keyval) {
    case MPI_TAG_UB:
      tag_ub = kTagUpperBound;
      result = &tag_ub;
      break;
    case MPI_UNIVERSE_SIZE:
      universe_size = runtime::job().universe_size;
      result = &universe_size;
      break;
    case MPI_APPNUM:
      appnum = runtime::job().appnum;
      result = &appnum;
      break;
    case MPI_WTIME_IS_GLOBAL:
      wtime_is_global = 0;  // each host has its own clock
      result = &wtime_is_global;
      break;
    case MPI_HOST:
      host = MPI_PROC_NULL;
      result = &host;
      break;
    case MPI_IO:
      io = MPI_ANY_SOURCE;  // every rank can do I/O
      result = &io;
      break;
    default:
      // User keyvals arrive with the attributes issue; an unknown key is not an error.
      *flag = 0;
      return MPI_SUCCESS;
  }
  *static_cast<int**>(value) = result;
  *flag = 1;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag) {
  api::Call call("MPI_Comm_get_attr");
  return get_predefined_attribute(call, comm, keyval, value, flag);
}
FERRY_WEAK_ALIAS(Comm_get_attr)

extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void* value, int* flag) {
  api::Call call("MPI_Attr_get");
  return get_predefined_attribute(call, comm, keyval, value, flag);
}
FERRY_WEAK_ALIAS(Attr_get)
