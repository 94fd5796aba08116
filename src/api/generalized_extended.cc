// MPICH's extended generalized requests (MPICH 4.0.2's MPIX_Grequest_start,
// MPIX_Grequest_class_create, MPIX_Grequest_class_allocate): generalized
// requests (MPI-4.0 §13.2) whose poll function the progress engine calls
// until they complete (p2p/generalized.h).
#include "api/api.h"
#include "p2p/generalized.h"


using namespace ferry;

extern "C" int PMPIX_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                    MPI_Grequest_cancel_function* cancel_fn, MPIX_Grequest_poll_function* poll_fn,
                                    MPIX_Grequest_wait_function* wait_fn, void* extra_state, MPI_Request* request) {
  (void)wait_fn;  // polling completes the request (p2p/generalized.h)
  api::Call call("MPIX_Grequest_start");
  if (!call.initialized() || !call.not_null(request, "request")) return call.raise();
  *request = generalized::start_polled(GeneralizedOps{query_fn, free_fn, cancel_fn, extra_state}, poll_fn)->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY_X(Grequest_start)

extern "C" int PMPIX_Grequest_class_create(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                           MPI_Grequest_cancel_function* cancel_fn,
                                           MPIX_Grequest_poll_function* poll_fn, MPIX_Grequest_wait_function* wait_fn,
                                           MPIX_Grequest_class* greq_class) {
  api::Call call("MPIX_Grequest_class_create");
  if (!call.initialized() || !call.not_null(greq_class, "greq_class")) return call.raise();
  generalized::Class c;
  c.ops = GeneralizedOps{query_fn, free_fn, cancel_fn, nullptr};
  c.poll = poll_fn;
  c.wait = wait_fn;
  *greq_class = generalized::create_class(c);
  return MPI_SUCCESS;
}
FERRY_ENTRY_X(Grequest_class_create)

extern "C" int PMPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void* extra_state,
                                             MPI_Request* request) {
  api::Call call("MPIX_Grequest_class_allocate");
  if (!call.initialized() || !call.not_null(request, "request")) return call.raise();
  generalized::Class c;
  if (!generalized::find_class(greq_class, &c)) {
    call.fail(MPI_ERR_ARG, "greq_class %d was not made by MPIX_Grequest_class_create", greq_class);
    return call.raise();
  }
  c.ops.extra_state = extra_state;
  *request = generalized::start_polled(c.ops, c.poll)->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY_X(Grequest_class_allocate)
