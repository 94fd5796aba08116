// MPICH's User-Level Failure Mitigation calls (MPIX_Comm_revoke,
// MPIX_Comm_shrink, MPIX_Comm_agree, MPIX_Comm_failure_ack,
// MPIX_Comm_failure_get_acked), for a runtime in which no process outlives
// a peer's failure (runtime/fault_tolerance.h, p2p/revoke.h; README
// "Fault tolerance (ULFM)" says what differs from a fault-surviving ULFM).
#include "api/api.h"
#include "p2p/revoke.h"
#include "runtime/fault_tolerance.h"


using namespace ferry;

extern "C" int PMPIX_Comm_revoke(MPI_Comm comm) {
  api::Call call("MPIX_Comm_revoke");
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  return call.result(p2p::revoke::revoke(c));
}
FERRY_ENTRY_X(Comm_revoke)

extern "C" int PMPIX_Comm_agree(MPI_Comm comm, int* flag) {
  api::Call call("MPIX_Comm_agree");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(flag, "flag")) return call.raise();
  return call.result(runtime::ulfm::agree(c, flag));
}
FERRY_ENTRY_X(Comm_agree)

extern "C" int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm) {
  api::Call call("MPIX_Comm_shrink");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(newcomm, "newcomm")) return call.raise();
  Communicator* created = nullptr;
  if (Err e = runtime::ulfm::shrink(c, &created)) return call.result(std::move(e));
  *newcomm = created != nullptr ? created->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY_X(Comm_shrink)

// No process has failed while this one runs: nothing to acknowledge.
extern "C" int PMPIX_Comm_failure_ack(MPI_Comm comm) {
  api::Call call("MPIX_Comm_failure_ack");
  if (call.comm(comm) == nullptr) return call.raise();
  return MPI_SUCCESS;
}
FERRY_ENTRY_X(Comm_failure_ack)

extern "C" int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group* failedgrp) {
  api::Call call("MPIX_Comm_failure_get_acked");
  if (call.comm(comm) == nullptr || !call.not_null(failedgrp, "failedgrp")) return call.raise();
  *failedgrp = MPI_GROUP_EMPTY;
  return MPI_SUCCESS;
}
FERRY_ENTRY_X(Comm_failure_get_acked)
