/*
 * MPICH's extended generalized requests: the poll function of an
 * MPIX_Grequest_start request is called by MPI_Wait (and MPI_Test) until it
 * completes the request itself with MPI_Grequest_complete; then query_fn
 * fills the status and free_fn runs once. A class made by
 * MPIX_Grequest_class_create serves several requests, each with its own
 * state (MPIX_Grequest_class_allocate), and MPI_Waitall completes them all.
 * A class handle not made by MPIX_Grequest_class_create is refused. The
 * poll functions call MPI_Iprobe, which polls from inside the engine's pass.
 */
#define TEST_NAME "mpix_grequest"
#include "mpitest.h"

struct op {
  MPI_Request request;
  int polls;      /* how often poll_fn ran */
  int done_after; /* poll_fn completes the request on this poll */
  int queried, freed;
  int tag;
};

static int query_fn(void *state, MPI_Status *status) {
  struct op *o = state;
  ++o->queried;
  MPI_Status_set_elements(status, MPI_INT, 3);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = o->tag;
  return MPI_SUCCESS;
}
static int free_fn(void *state) {
  ++((struct op *)state)->freed;
  return MPI_SUCCESS;
}
static int cancel_fn(void *state, int complete) {
  (void)state, (void)complete;
  return MPI_SUCCESS;
}
static int poll_fn(void *state, MPI_Status *status) {
  (void)status;
  struct op *o = state;
  /* MPI calls that poll, from inside the progress engine's pass. */
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
  if (++o->polls == o->done_after) MPI_Grequest_complete(o->request);
  return MPI_SUCCESS;
}
static int wait_fn(int count, void **states, double timeout, MPI_Status *status) {
  (void)count, (void)states, (void)timeout, (void)status;
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* One request, completed by its own poll function inside MPI_Wait. */
  struct op a = {MPI_REQUEST_NULL, 0, 5, 0, 0, 11};
  CHECK(MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, &a, &a.request) == MPI_SUCCESS,
        "MPIX_Grequest_start");
  int flag = 1;
  MPI_Request keep = a.request;
  CHECK(MPI_Test(&keep, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag && a.polls >= 1,
        "MPI_Test: flag %d after %d polls", flag, a.polls);
  MPI_Status status;
  CHECK(MPI_Wait(&a.request, &status) == MPI_SUCCESS, "MPI_Wait");
  CHECK(a.polls == 5, "poll_fn ran %d times (completes on the 5th)", a.polls);
  CHECK(a.request == MPI_REQUEST_NULL && a.queried == 1 && a.freed == 1, "queried %d, freed %d", a.queried, a.freed);
  int count = 0;
  MPI_Get_count(&status, MPI_INT, &count);
  CHECK(status.MPI_TAG == 11 && count == 3, "status: tag %d count %d", status.MPI_TAG, count);

  /* A class, three requests. */
  MPIX_Grequest_class cls;
  CHECK(MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, &cls) == MPI_SUCCESS,
        "class_create");
  struct op ops[3] = {{MPI_REQUEST_NULL, 0, 1, 0, 0, 1}, {MPI_REQUEST_NULL, 0, 3, 0, 0, 2},
                      {MPI_REQUEST_NULL, 0, 7, 0, 0, 3}};
  MPI_Request reqs[3];
  for (int i = 0; i < 3; ++i) {
    CHECK(MPIX_Grequest_class_allocate(cls, &ops[i], &ops[i].request) == MPI_SUCCESS, "class_allocate %d", i);
    reqs[i] = ops[i].request;
  }
  MPI_Status statuses[3];
  CHECK(MPI_Waitall(3, reqs, statuses) == MPI_SUCCESS, "MPI_Waitall");
  for (int i = 0; i < 3; ++i) {
    CHECK(ops[i].polls == ops[i].done_after, "request %d polled %d times", i, ops[i].polls);
    CHECK(ops[i].queried == 1 && ops[i].freed == 1 && statuses[i].MPI_TAG == i + 1, "request %d: tag %d", i,
          statuses[i].MPI_TAG);
  }

  /* Errors. */
  MPI_Request r;
  int err = MPIX_Grequest_class_allocate(12345, NULL, &r);
  int cls_of = 0;
  MPI_Error_class(err, &cls_of);
  CHECK(cls_of == MPI_ERR_ARG, "an unknown class: error class %d", cls_of);
  char text[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(err, text, &len);
  CHECK(strstr(text, "MPIX_Grequest_class_allocate") != NULL && strstr(text, "greq_class") != NULL,
        "message '%s'", text);
  mt_pass();
  MPI_Finalize();
  return 0;
}
