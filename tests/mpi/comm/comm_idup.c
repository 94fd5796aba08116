/*
 * MPI_Comm_idup (MPI-3.1 §6.4.2) is nonblocking: a rank may start it, then
 * do point-to-point that another rank needs before that rank even calls
 * MPI_Comm_idup, without deadlock. Several idups (and a blocking dup) may be
 * in flight at once, beside other collectives on their parents; each gives
 * a working communicator congruent to its parent, with the parent's
 * attributes copied.
 */
#define TEST_NAME "comm_idup"
#include "mpitest.h"

static int rank, size;

static int copies;
static int count_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag) {
  copies++;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void check_dup(MPI_Comm parent, MPI_Comm c, const char *what) {
  int result;
  MPI_Comm_compare(parent, c, &result);
  CHECK(result == MPI_CONGRUENT, "%s: compare with the parent gives %d", what, result);
  int r, n, sum = 0;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &n);
  MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c);
  CHECK(sum == n * (n - 1) / 2, "%s: allreduce gave %d", what, sum);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Rank 0 starts the idup, then sends to rank 1, which receives before it
   * starts its own idup: a blocking implementation deadlocks here. */
  MPI_Comm c;
  MPI_Request r;
  int token = 5;
  if (rank == 0) {
    MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
    if (size > 1) MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    if (rank == 1) MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
  }
  mt_wait_test(&r, MPI_STATUS_IGNORE, "the first idup");
  CHECK(r == MPI_REQUEST_NULL, "a completed idup request must become MPI_REQUEST_NULL");
  check_dup(MPI_COMM_WORLD, c, "idup after crossing point-to-point");
  MPI_Comm_free(&c);

  /* Three parents, one idup on each in flight at once, plus a blocking dup
   * of a fourth meanwhile; attributes copied at the call. */
  MPI_Comm parents[3], dups[3], blocking;
  MPI_Request reqs[3];
  int k;
  MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &k, NULL);
  MPI_Comm_dup(MPI_COMM_WORLD, &parents[0]);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parents[1]);
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &parents[2]);
  for (int i = 0; i < 3; i++) MPI_Comm_set_attr(parents[i], k, &parents[i]);
  copies = 0;
  for (int round = 0; round < 10; round++) {
    for (int i = 0; i < 3; i++) MPI_Comm_idup(parents[i], &dups[i], &reqs[i]);
    /* Collectives on the parents while their idups are in flight (and
     * contend for context ids, so some retry): they must not get mixed up. */
    for (int i = 0; i < 3; i++) {
      int n, one = 1, sum = 0;
      MPI_Comm_size(parents[i], &n);
      MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, parents[i]);
      CHECK(sum == n, "round %d: allreduce on parent %d beside its idup gave %d, expected %d", round, i, sum, n);
      MPI_Barrier(parents[i]);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &blocking);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 3; i++) {
      check_dup(parents[i], dups[i], "concurrent idup");
      void *v = NULL;
      int flag = 0;
      MPI_Comm_get_attr(dups[i], k, &v, &flag);
      CHECK(flag && v == &parents[i], "idup %d: attribute not copied", i);
    }
    check_dup(MPI_COMM_WORLD, blocking, "blocking dup beside idups");
    for (int i = 0; i < 3; i++) MPI_Comm_free(&dups[i]);
    MPI_Comm_free(&blocking);
  }
  CHECK(copies == 30, "copy callbacks ran %d times for 30 idups", copies);
  for (int i = 0; i < 3; i++) MPI_Comm_free(&parents[i]);
  MPI_Comm_free_keyval(&k);

  mt_pass();
  MPI_Finalize();
  return 0;
}
