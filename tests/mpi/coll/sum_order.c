/*
 * The order in which a reduction by a commutative operation combines the
 * ranks' values on one host: from rank 0 up, ((x0 + x1) + x2) + ..., through
 * the shared-memory segment (coll/shm, fold_order in algorithms.h), blocking
 * and nonblocking alike, and on up to three ranks by messages too (binomial
 * reduce, recursive doubling), so that a small communicator's sums keep
 * their bits whichever way they run. ScaLAPACK's eigensolver test xssep
 * lost orthogonality in half its runs when 3-rank sums came the other way.
 *
 * The values tell the orders apart: rank 0 passes 1.0 and every other rank
 * 2^-53, half of 1.0's last place. From rank 0 up, each addition rounds back
 * to 1.0 (ties to even); from the last rank down, the small ones add up
 * first and the sum is larger than 1.0. A commutative user-defined sum goes
 * the same way.
 *
 * Run with FERRY_COLL_SHM=on FERRY_COLL_SHM_AFTER=0 (every call through the
 * segment: reduce to every root, in-place scan too); with FERRY_COLL_SHM=off,
 * at 3 ranks, it checks the blocking MPI_Allreduce and MPI_Reduce to rank 0
 * only (a reduce to another root rotates the binomial tree, and the other
 * message-based algorithms combine in their own orders).
 */
#define TEST_NAME "sum_order"
#include "../mpitest.h"

#include <math.h>

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; i++) ((double *)inout)[i] = ((double *)in)[i] + ((double *)inout)[i];
}

/* ((x0 + x1) + x2) + ... for the values of ranks 0..last. */
static double from_rank_0_up(int last, double first, double small) {
  volatile double acc = first;
  for (int r = 1; r <= last; r++) acc = acc + small;
  return acc;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char *shm = getenv("FERRY_COLL_SHM");
  const int messages = shm != NULL && strcmp(shm, "off") == 0;
  const double small = ldexp(1.0, -53);
  const double x = rank == 0 ? 1.0 : small;
  const double want = from_rank_0_up(size - 1, 1.0, small);
  CHECK(size < 3 || want == 1.0, "the test's own sum is %.17g, expected 1", want);

  MPI_Op user;
  CHECK_MPI(MPI_Op_create(user_sum, 1, &user));
  const MPI_Op ops[] = {MPI_SUM, user};
  const char *names[] = {"MPI_SUM", "a commutative user-defined sum"};
  for (int k = 0; k < 2; k++) {
    double got = 0;
    CHECK_MPI(MPI_Allreduce(&x, &got, 1, MPI_DOUBLE, ops[k], MPI_COMM_WORLD));
    CHECK(got == want, "MPI_Allreduce by %s gave 1 + %.3g, expected 1 + %.3g", names[k], got - 1, want - 1);
    for (int root = 0; root < (messages ? 1 : size); root++) {
      got = 0;
      CHECK_MPI(MPI_Reduce(&x, &got, 1, MPI_DOUBLE, ops[k], root, MPI_COMM_WORLD));
      CHECK(rank != root || got == want, "MPI_Reduce to %d by %s gave 1 + %.3g, expected 1 + %.3g", root, names[k],
            got - 1, want - 1);
      got = x;
      CHECK_MPI(MPI_Reduce(rank == root ? MPI_IN_PLACE : &x, &got, 1, MPI_DOUBLE, ops[k], root, MPI_COMM_WORLD));
      CHECK(rank != root || got == want, "MPI_Reduce in place to %d by %s gave 1 + %.3g", root, names[k], got - 1);
    }
    if (messages) continue;
    /* Scan: rank r's prefix from rank 0 up, in place or not. */
    const double prefix = from_rank_0_up(rank, 1.0, small);
    got = 0;
    CHECK_MPI(MPI_Scan(&x, &got, 1, MPI_DOUBLE, ops[k], MPI_COMM_WORLD));
    CHECK(got == prefix, "MPI_Scan by %s gave 1 + %.3g on rank %d", names[k], got - 1, rank);
    got = x;
    CHECK_MPI(MPI_Scan(MPI_IN_PLACE, &got, 1, MPI_DOUBLE, ops[k], MPI_COMM_WORLD));
    CHECK(got == prefix, "MPI_Scan in place by %s gave 1 + %.3g on rank %d", names[k], got - 1, rank);
    got = x;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &got, 1, MPI_DOUBLE, ops[k], MPI_COMM_WORLD));
    CHECK(got == want, "MPI_Allreduce in place by %s gave 1 + %.3g", names[k], got - 1);
    MPI_Request req;
    got = 0;
    CHECK_MPI(MPI_Iallreduce(&x, &got, 1, MPI_DOUBLE, ops[k], MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(got == want, "MPI_Iallreduce by %s gave 1 + %.3g", names[k], got - 1);
    got = 0;
    CHECK_MPI(MPI_Ireduce(&x, &got, 1, MPI_DOUBLE, ops[k], 0, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(rank != 0 || got == want, "MPI_Ireduce by %s gave 1 + %.3g", names[k], got - 1);
    /* Every rank's block: the same values, so every rank's result is want. */
    double *blocks = mt_malloc(sizeof(double) * (size_t)size);
    for (int r = 0; r < size; r++) blocks[r] = x;
    got = 0;
    CHECK_MPI(MPI_Reduce_scatter_block(blocks, &got, 1, MPI_DOUBLE, ops[k], MPI_COMM_WORLD));
    CHECK(got == want, "MPI_Reduce_scatter_block by %s gave 1 + %.3g", names[k], got - 1);
    free(blocks);
  }
  MPI_Op_free(&user);
  mt_pass();
  MPI_Finalize();
  return 0;
}
