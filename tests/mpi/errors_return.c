/*
 * Errors under MPI_ERRORS_RETURN (MPI-3.1 §8.3, §8.4): an erroneous call
 * returns an error code of the right class instead of ending the job,
 * MPI_Error_string describes it, and the library keeps working afterwards.
 * Covered: invalid rank, negative count, invalid tag, MPI_COMM_NULL,
 * MPI_DATATYPE_NULL, truncation (return value, and status.MPI_ERROR where
 * the multiple-completion calls report MPI_ERR_IN_STATUS), invalid request.
 *
 * With FERRY_CHECK_ERROR_STRINGS defined (Ferry's build does it), the
 * message must also name the call that failed, e.g. "MPI_Send".
 */
#define TEST_NAME "errors_return"
#include "mpitest.h"

#include <limits.h>

static int rank, size, left, right;

static void expect_error(int rc, int want_class, const char *call, const char *what) {
  char msg[MPI_MAX_ERROR_STRING];
  int cls = -1, len = -1;
  CHECK(rc != MPI_SUCCESS, "%s: %s returned MPI_SUCCESS", what, call);
  CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS, "%s: MPI_Error_class(%d) failed", what, rc);
  msg[0] = '\0';
  CHECK(MPI_Error_string(rc, msg, &len) == MPI_SUCCESS, "%s: MPI_Error_string(%d) failed", what, rc);
  CHECK(cls == want_class, "%s: %s returned error class %d (\"%s\"), expected %d", what, call, cls,
        msg, want_class);
  CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (size_t)len == strlen(msg),
        "%s: MPI_Error_string gave length %d for \"%s\"", what, len, msg);
#ifdef FERRY_CHECK_ERROR_STRINGS
  CHECK(strstr(msg, call) != NULL, "%s: the message \"%s\" does not name %s", what, msg, call);
#endif
}

static void invalid_arguments(void) {
  int buf[4] = {0, 0, 0, 0}, tag_ub = 0, flag = 0, *attr = NULL;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st;

  expect_error(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send",
               "dest = size");
  expect_error(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send",
               "dest = -5");
  expect_error(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK,
               "MPI_Send", "dest = MPI_ANY_SOURCE");
  expect_error(MPI_Recv(buf, 1, MPI_INT, size + 2, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK,
               "MPI_Recv", "source = size + 2");
  expect_error(MPI_Isend(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK,
               "MPI_Isend", "dest = size");
  expect_error(MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_SELF), MPI_ERR_RANK, "MPI_Send",
               "dest 1 on MPI_COMM_SELF");

  expect_error(MPI_Send(buf, -1, MPI_INT, right, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send",
               "count = -1");
  expect_error(MPI_Irecv(buf, -3, MPI_INT, left, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT,
               "MPI_Irecv", "count = -3");

  expect_error(MPI_Send(buf, 1, MPI_INT, right, -7, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send",
               "tag = -7");
  expect_error(MPI_Send(buf, 1, MPI_INT, right, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG,
               "MPI_Send", "tag = MPI_ANY_TAG on a send");
  expect_error(MPI_Recv(buf, 1, MPI_INT, left, -7, MPI_COMM_WORLD, &st), MPI_ERR_TAG, "MPI_Recv",
               "tag = -7");
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag);
  CHECK(flag, "MPI_TAG_UB attribute missing");
  tag_ub = *attr;
  if (tag_ub < INT_MAX)
    expect_error(MPI_Send(buf, 1, MPI_INT, right, tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG,
                 "MPI_Send", "tag = MPI_TAG_UB + 1");

  expect_error(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send",
               "MPI_COMM_NULL");
  expect_error(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM, "MPI_Recv",
               "MPI_COMM_NULL");
  int r = -1;
  expect_error(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM, "MPI_Comm_rank", "MPI_COMM_NULL");

  expect_error(MPI_Send(buf, 1, MPI_DATATYPE_NULL, right, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
               "MPI_Send", "MPI_DATATYPE_NULL");
  expect_error(MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, left, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE,
               "MPI_Irecv", "MPI_DATATYPE_NULL");
  /* ...but an empty message may name it, as MPICH allows (MPICH's part/nonblocking_pready sends one). */
  MPI_Request empty;
  int rc = MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, left, 991, MPI_COMM_WORLD, &empty);
  CHECK(rc == MPI_SUCCESS, "MPI_Irecv of 0 MPI_DATATYPE_NULL returned %d", rc);
  rc = MPI_Send(NULL, 0, MPI_DATATYPE_NULL, right, 991, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "MPI_Send of 0 MPI_DATATYPE_NULL returned %d", rc);
  MPI_Wait(&empty, &st);
  int got = -1;
  MPI_Get_count(&st, MPI_BYTE, &got);
  CHECK(got == 0 && st.MPI_SOURCE == left, "empty message: count %d from %d", got, st.MPI_SOURCE);

  /* Invalid requests. */
  req = MPI_REQUEST_NULL;
  expect_error(MPI_Start(&req), MPI_ERR_REQUEST, "MPI_Start", "MPI_Start(MPI_REQUEST_NULL)");
  req = MPI_REQUEST_NULL;
  expect_error(MPI_Request_free(&req), MPI_ERR_REQUEST, "MPI_Request_free",
               "MPI_Request_free(MPI_REQUEST_NULL)");
}

/* A message longer than the receive buffer: MPI_ERR_TRUNCATE, and the
 * message is consumed (the next one on the same envelope is received). */
static void truncation(void) {
  enum { SMALL = 4, LARGE_INTS = 50 * 1024 };
  int *big = mt_malloc(sizeof(int) * LARGE_INTS), *small = mt_malloc(sizeof(int) * LARGE_INTS);
  MPI_Request sreqs[4], rreqs[2];
  MPI_Status st, sts[2];
  for (int i = 0; i < LARGE_INTS; i++) big[i] = rank * 1000000 + i;

  /* Blocking receive: small then large message truncated, then a fitting one. */
  MPI_Isend(big, 10, MPI_INT, right, 20, MPI_COMM_WORLD, &sreqs[0]);
  MPI_Isend(big, LARGE_INTS, MPI_INT, right, 20, MPI_COMM_WORLD, &sreqs[1]);
  MPI_Isend(big, SMALL, MPI_INT, right, 20, MPI_COMM_WORLD, &sreqs[2]);
  expect_error(MPI_Recv(small, SMALL, MPI_INT, left, 20, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE,
               "MPI_Recv", "10 ints into a 4-int buffer");
  expect_error(MPI_Recv(small, LARGE_INTS / 2, MPI_INT, left, 20, MPI_COMM_WORLD, &st),
               MPI_ERR_TRUNCATE, "MPI_Recv", "200 KiB into a 100 KiB buffer");
  memset(small, 0, sizeof(int) * SMALL);
  CHECK_MPI(MPI_Recv(small, SMALL, MPI_INT, left, 20, MPI_COMM_WORLD, &st));
  CHECK_STATUS(st, left, 20, MPI_INT, SMALL, "the message after two truncated ones");
  for (int i = 0; i < SMALL; i++)
    CHECK(small[i] == left * 1000000 + i, "message after truncation: element %d is %d", i,
          small[i]);
  MPI_Waitall(3, sreqs, MPI_STATUSES_IGNORE);

  /* Nonblocking: MPI_Wait returns the error. */
  MPI_Irecv(small, SMALL, MPI_INT, left, 21, MPI_COMM_WORLD, &rreqs[0]);
  MPI_Isend(big, 9, MPI_INT, right, 21, MPI_COMM_WORLD, &sreqs[0]);
  expect_error(MPI_Wait(&rreqs[0], &st), MPI_ERR_TRUNCATE, "MPI_Wait", "MPI_Irecv truncated");
  MPI_Wait(&sreqs[0], MPI_STATUS_IGNORE);

  /* Multiple completion: MPI_ERR_IN_STATUS, the error is in each status. */
  MPI_Irecv(small, SMALL, MPI_INT, left, 22, MPI_COMM_WORLD, &rreqs[0]);
  MPI_Irecv(small + SMALL, SMALL, MPI_INT, left, 23, MPI_COMM_WORLD, &rreqs[1]);
  MPI_Isend(big, LARGE_INTS, MPI_INT, right, 22, MPI_COMM_WORLD, &sreqs[0]);
  MPI_Isend(big, SMALL, MPI_INT, right, 23, MPI_COMM_WORLD, &sreqs[1]);
  sts[0].MPI_ERROR = sts[1].MPI_ERROR = -12345;
  expect_error(MPI_Waitall(2, rreqs, sts), MPI_ERR_IN_STATUS, "MPI_Waitall",
               "one of two receives truncated");
  int cls = -1;
  MPI_Error_class(sts[0].MPI_ERROR, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "MPI_Waitall: status of the truncated receive has error %d (class %d)",
        sts[0].MPI_ERROR, cls);
  /* §3.7.5: MPI_SUCCESS if it completed, MPI_ERR_PENDING if not yet (then
   * the request is still active). */
  CHECK(sts[1].MPI_ERROR == MPI_SUCCESS || sts[1].MPI_ERROR == MPI_ERR_PENDING,
        "MPI_Waitall: status of the good receive has error %d", sts[1].MPI_ERROR);
  if (sts[1].MPI_ERROR == MPI_ERR_PENDING) {
    CHECK(rreqs[1] != MPI_REQUEST_NULL, "MPI_Waitall: MPI_ERR_PENDING for a freed request");
    CHECK_MPI(MPI_Wait(&rreqs[1], &sts[1]));
  }
  CHECK(rreqs[0] == MPI_REQUEST_NULL && rreqs[1] == MPI_REQUEST_NULL,
        "MPI_Waitall: a completed request was left active");
  CHECK(small[SMALL] == left * 1000000, "MPI_Waitall: the good receive holds %d", small[SMALL]);
  MPI_Waitall(2, sreqs, MPI_STATUSES_IGNORE);

  /* Same through MPI_Waitsome. */
  MPI_Irecv(small, SMALL, MPI_INT, left, 24, MPI_COMM_WORLD, &rreqs[0]);
  MPI_Isend(big, SMALL + 1, MPI_INT, right, 24, MPI_COMM_WORLD, &sreqs[0]);
  int outcount = 0, index = -1, rc;
  sts[0].MPI_ERROR = -12345;
  do {
    rc = MPI_Waitsome(1, rreqs, &outcount, &index, sts);
  } while (rc == MPI_SUCCESS && outcount == 0);
  expect_error(rc, MPI_ERR_IN_STATUS, "MPI_Waitsome", "a truncated receive");
  MPI_Error_class(sts[0].MPI_ERROR, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "MPI_Waitsome: status has error %d (class %d)", sts[0].MPI_ERROR,
        cls);
  MPI_Wait(&sreqs[0], MPI_STATUS_IGNORE);
  free(big);
  free(small);
}

static void still_works(void) {
  int out = rank, in = -1;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, right, 30, &in, 1, MPI_INT, left, 30, MPI_COMM_WORLD,
                         &st));
  CHECK(in == left, "exchange after the errors: got %d, expected %d", in, left);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;

  /* Errors with no valid communicator go to MPI_COMM_WORLD's handler in
   * MPI-3.1 and to MPI_COMM_SELF's in MPI-4.0: set both. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "MPI_Comm_get_errhandler does not return MPI_ERRORS_RETURN");
  MPI_Errhandler_free(&eh);

  /* Every error class has a message; a class is its own class. */
  const int classes[] = {MPI_SUCCESS, MPI_ERR_RANK, MPI_ERR_COUNT, MPI_ERR_TAG, MPI_ERR_COMM,
                         MPI_ERR_TYPE, MPI_ERR_TRUNCATE, MPI_ERR_REQUEST, MPI_ERR_IN_STATUS,
                         MPI_ERR_OTHER};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    char msg[MPI_MAX_ERROR_STRING];
    int cls = -1, len = -1;
    MPI_Error_class(classes[i], &cls);
    MPI_Error_string(classes[i], msg, &len);
    CHECK(cls == classes[i], "MPI_Error_class(%d) gave %d", classes[i], cls);
    CHECK(len > 0 && (size_t)len == strlen(msg), "MPI_Error_string(class %d): length %d, \"%s\"",
          classes[i], len, msg);
  }

  invalid_arguments();
  truncation();
  still_works();

  mt_pass();
  MPI_Finalize();
  return 0;
}
