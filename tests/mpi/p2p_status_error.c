/*
 * The MPI_ERROR field of a status (MPI-3.1 §3.2.5): calls that complete one
 * operation (MPI_Recv, MPI_Wait, MPI_Test, the probes, MPI_Mrecv,
 * MPI_Sendrecv, MPI_Request_get_status, MPI_Waitany...) leave it alone; the
 * calls that complete several (MPI_Waitall, MPI_Testall, MPI_Waitsome,
 * MPI_Testsome) set it in every status they return when they return
 * MPI_ERR_IN_STATUS: MPI_SUCCESS for the operations that succeeded, the
 * error for those that failed. Where they succeed, the standard does not
 * say: MPICH sets MPI_SUCCESS, Ferry leaves the field alone; both pass.
 * MPICH 4.0.2 (ch4:ucx) also writes MPI_ERROR in MPI_Probe and MPI_Iprobe,
 * so those two are held to §3.2.5 on Ferry only.
 *
 * Ranks pair up (0-1, 2-3, ...); the lower rank sends, the higher receives.
 */
#define TEST_NAME "p2p_status_error"
#include "mpitest.h"

#define MARKER 0x5157
#define TAG 7

static int rank, partner;

static void check_untouched(const MPI_Status *st, const char *call) {
  CHECK(st->MPI_ERROR == MARKER, "%s changed status.MPI_ERROR to %d (MPI-3.1 §3.2.5: it must not)", call,
        st->MPI_ERROR);
}

static MPI_Status marked(void) {
  MPI_Status st;
  memset(&st, 0, sizeof st);
  st.MPI_ERROR = MARKER;
  return st;
}

static void sender(void) {
  int v = 42;
  /* One message per receive the partner makes below, in that order. */
  for (int i = 0; i < 9; i++) MPI_Send(&v, 1, MPI_INT, partner, TAG, MPI_COMM_WORLD);
  /* For the multiple-completion calls: one fits, one is too long. */
  int two[2] = {1, 2};
  for (int round = 0; round < 3; round++) {
    MPI_Send(&v, 1, MPI_INT, partner, TAG + 1, MPI_COMM_WORLD);
    MPI_Send(two, 2, MPI_INT, partner, TAG + 2, MPI_COMM_WORLD);
  }
}

static void receiver(void) {
  int v = 0;
  MPI_Status st;
  MPI_Request r;
  MPI_Message m;
  int flag;

  st = marked();
  MPI_Recv(&v, 1, MPI_INT, partner, TAG, MPI_COMM_WORLD, &st);
  check_untouched(&st, "MPI_Recv");

  st = marked();
  MPI_Irecv(&v, 1, MPI_INT, partner, TAG, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, &st);
  check_untouched(&st, "MPI_Wait");

  st = marked();
  MPI_Irecv(&v, 1, MPI_INT, partner, TAG, MPI_COMM_WORLD, &r);
  flag = 0;
  while (!flag) MPI_Test(&r, &flag, &st);
  check_untouched(&st, "MPI_Test");

  st = marked();
  MPI_Probe(partner, TAG, MPI_COMM_WORLD, &st);
  if (mt_is_ferry()) check_untouched(&st, "MPI_Probe");
  st = marked();
  flag = 0;
  while (!flag) MPI_Iprobe(partner, TAG, MPI_COMM_WORLD, &flag, &st);
  if (mt_is_ferry()) check_untouched(&st, "MPI_Iprobe");
  st = marked();
  MPI_Recv(&v, 1, MPI_INT, partner, TAG, MPI_COMM_WORLD, &st);
  check_untouched(&st, "MPI_Recv after a probe");

  st = marked();
  MPI_Mprobe(partner, TAG, MPI_COMM_WORLD, &m, &st);
  check_untouched(&st, "MPI_Mprobe");
  st = marked();
  MPI_Mrecv(&v, 1, MPI_INT, &m, &st);
  check_untouched(&st, "MPI_Mrecv");

  st = marked();
  flag = 0;
  while (!flag) MPI_Improbe(partner, TAG, MPI_COMM_WORLD, &flag, &m, &st);
  check_untouched(&st, "MPI_Improbe");
  st = marked();
  MPI_Imrecv(&v, 1, MPI_INT, &m, &r);
  MPI_Wait(&r, &st);
  check_untouched(&st, "MPI_Wait of MPI_Imrecv");

  MPI_Request pair[2];
  int index = -1;
  MPI_Irecv(&v, 1, MPI_INT, partner, TAG, MPI_COMM_WORLD, &pair[0]);
  pair[1] = MPI_REQUEST_NULL;
  st = marked();
  MPI_Waitany(2, pair, &index, &st);
  check_untouched(&st, "MPI_Waitany");

  MPI_Irecv(&v, 1, MPI_INT, partner, TAG, MPI_COMM_WORLD, &r);
  st = marked();
  flag = 0;
  while (!flag) MPI_Request_get_status(r, &flag, &st);
  check_untouched(&st, "MPI_Request_get_status");
  st = marked();
  MPI_Wait(&r, &st);
  check_untouched(&st, "MPI_Wait after MPI_Request_get_status");

  st = marked();
  r = MPI_REQUEST_NULL;
  MPI_Wait(&r, &st);
  check_untouched(&st, "MPI_Wait on MPI_REQUEST_NULL");

  st = marked();
  MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, TAG, MPI_COMM_WORLD, &st);
  check_untouched(&st, "MPI_Recv from MPI_PROC_NULL");

  /* Eight messages taken so far; the ninth through MPI_Sendrecv (its send
   * goes to MPI_PROC_NULL). */
  st = marked();
  MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, &v, 1, MPI_INT, partner, TAG, MPI_COMM_WORLD, &st);
  check_untouched(&st, "MPI_Sendrecv");

  /* Multiple completion: without errors MPI_ERROR stays; with one,
   * MPI_ERR_IN_STATUS and every status says how its operation ended. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int ok_buf = 0, short_buf = 0;
  MPI_Status sts[3];
  for (int round = 0; round < 3; round++) {
    MPI_Request reqs[3];
    MPI_Irecv(&ok_buf, 1, MPI_INT, partner, TAG + 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(&short_buf, 1, MPI_INT, partner, TAG + 2, MPI_COMM_WORLD, &reqs[1]);
    reqs[2] = MPI_REQUEST_NULL;
    for (int i = 0; i < 3; i++) sts[i] = marked();
    const char *call = round == 0 ? "MPI_Waitall" : round == 1 ? "MPI_Testall" : "MPI_Waitsome";
    int rc = MPI_SUCCESS;
    if (round == 0) {
      rc = MPI_Waitall(3, reqs, sts);
    } else if (round == 1) {
      flag = 0;
      while (!flag && rc == MPI_SUCCESS) rc = MPI_Testall(3, reqs, &flag, sts);
    } else {
      /* The two may complete in one call or in two; the call that reports
       * the truncated one returns MPI_ERR_IN_STATUS, and sets the other's
       * MPI_ERROR too only if it reports it as well. */
      MPI_Status got[3];
      int reported = 0, together = 0;
      while (reported < 2) {
        int outcount = 0, indices[3];
        for (int i = 0; i < 3; i++) sts[i] = marked();
        int one = MPI_Waitsome(3, reqs, &outcount, indices, sts);
        CHECK(outcount >= 1, "MPI_Waitsome reported %d requests", outcount);
        for (int k = 0; k < outcount; k++) got[indices[k]] = sts[k];
        if (one != MPI_SUCCESS) {
          rc = one;
          together = outcount == 2;
        }
        reported += outcount;
      }
      sts[0] = got[0];
      sts[1] = got[1];
      if (!together) {
        CHECK(sts[0].MPI_ERROR == MARKER || sts[0].MPI_ERROR == MPI_SUCCESS,
              "MPI_Waitsome reporting only a receive that fit set its MPI_ERROR to %d", sts[0].MPI_ERROR);
        sts[0].MPI_ERROR = MPI_SUCCESS;  /* for the common check below */
      }
    }
    int rc_class = -1;
    MPI_Error_class(rc, &rc_class);
    CHECK(rc_class == MPI_ERR_IN_STATUS, "%s with a truncated receive returned class %d, expected MPI_ERR_IN_STATUS",
          call, rc_class);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS, "%s: the receive that fit has MPI_ERROR %d, expected MPI_SUCCESS", call,
          sts[0].MPI_ERROR);
    int cls = -1;
    MPI_Error_class(sts[1].MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "%s: the truncated receive has error class %d, expected MPI_ERR_TRUNCATE", call,
          cls);
    if (round == 0)
      CHECK(sts[2].MPI_ERROR == MPI_SUCCESS, "MPI_Waitall: the null request's status has MPI_ERROR %d",
            sts[2].MPI_ERROR);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  partner = rank ^ 1;
  if (partner < size) {
    if (rank < partner) sender();
    else receiver();
  }
  /* Waitall without errors: MPI_ERROR untouched or MPI_SUCCESS (every
   * rank, alone). */
  MPI_Request reqs[2];
  MPI_Status sts[2];
  int a = rank, b = -1;
  MPI_Irecv(&b, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &reqs[0]);
  MPI_Isend(&a, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &reqs[1]);
  sts[0] = marked();
  sts[1] = marked();
  CHECK(MPI_Waitall(2, reqs, sts) == MPI_SUCCESS && b == rank, "MPI_Waitall to self failed");
  for (int i = 0; i < 2; i++)
    CHECK(sts[i].MPI_ERROR == MARKER || sts[i].MPI_ERROR == MPI_SUCCESS,
          "MPI_Waitall without errors set status %d's MPI_ERROR to %d", i, sts[i].MPI_ERROR);
  mt_pass();
  MPI_Finalize();
  return 0;
}
