#include "runtime/checkpoint_agreement.h"

#include <cstdio>

#include "base/datatype.h"
#include "base/op.h"
#include "coll/collectives.h"
#include "mpi.h"

namespace ferry::runtime::checkpoint {

Err agree(Communicator* c, Err local, int64_t* value) {
  if (c->size == 1) return local;
  // One maximum over [-(lowest failing rank, or size), value].
  int64_t words[2] = {-static_cast<int64_t>(local ? c->rank : c->size), value ? *value : 0};
  if (Err e = coll::allreduce(MPI_IN_PLACE, words, 2, find_datatype(MPI_INT64_T), find_op(MPI_MAX), c)) return e;
  int first_failed = static_cast<int>(-words[0]);
  if (first_failed == c->size) {
    if (value) *value = words[1];
    return {};
  }
  struct Report {
    int mpi_class;
    char message[480];
  } report{};
  if (c->rank == first_failed) {
    report.mpi_class = local.mpi_class();
    std::snprintf(report.message, sizeof report.message, "%s", local.message().c_str());
  }
  if (Err e = coll::bcast(&report, sizeof report, find_datatype(MPI_BYTE), first_failed, c)) return e;
  if (c->rank == first_failed) return local;
  return fail(report.mpi_class, "rank %d: %s", first_failed, report.message);
}

}  // namespace ferry::runtime::checkpoint
