#include "p2p/generalized.h"

#include "base/communicator.h"
#include "p2p/pt2pt.h"

namespace ferry::generalized {
namespace {

int run_free(GeneralizedOps& ops) {
  if (ops.freed) return MPI_SUCCESS;
  ops.freed = true;
  return ops.free != nullptr ? ops.free(ops.extra_state) : MPI_SUCCESS;
}

}  // namespace

Request* start(const GeneralizedOps& ops) {
  progress::Lock lock;
  Request* r = requests::acquire();
  r->kind = Request::Kind::kGeneralized;
  // Errors of the completion calls go to MPI_COMM_WORLD's handler, as for
  // any call without a communicator; every live request names one.
  r->comm = &communicators::world();
  r->active = true;
  r->status = pt2pt::empty_status();
  r->generalized = new GeneralizedOps(ops);
  return r;
}

void complete(Request* r) {
  progress::Lock lock;
  ferry::complete(r);
}

int query(Request* r, MPI_Status* status) {
  // MPI passes query_fn a status even where the caller ignores it.
  MPI_Status s = pt2pt::empty_status();
  int code = r->generalized->query != nullptr ? r->generalized->query(r->generalized->extra_state, &s) : MPI_SUCCESS;
  report_status(status, s);
  return code;
}

int finish(Request* r, MPI_Status* status) {
  int code = query(r, status);
  int freed = run_free(*r->generalized);
  return code != MPI_SUCCESS ? code : freed;
}

int cancel(Request* r) {
  GeneralizedOps& ops = *r->generalized;
  return ops.cancel != nullptr ? ops.cancel(ops.extra_state, r->complete ? 1 : 0) : MPI_SUCCESS;
}

int free(Request* r) { return run_free(*r->generalized); }

}  // namespace ferry::generalized
