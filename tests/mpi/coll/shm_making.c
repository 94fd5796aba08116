/*
 * When a communicator makes its shared-memory collective segment (coll/shm,
 * segment.h): at its blocking collective after the first
 * FERRY_COLL_SHM_AFTER ones (4 unless the environment says otherwise),
 * which run by messages, so that a communicator made for a call or two
 * never pays for a segment. Calls with no data count like the others: every
 * rank must make it at the same call. A floating-point reduction makes it
 * at once: its bits depend on the order the algorithm combines in, which must
 * not depend on how many calls came before (README "Reproducibility"). Each call's data is checked, and the
 * segments are counted in /proc/self/maps (names /dev/shm/ferry-coll-*), so
 * the test is Ferry's only and Linux only.
 */
#define TEST_NAME "shm_making"
#include "../mpitest.h"

#include "mapped_segments.h"

/* Call k of a mix: data and no data, rooted and not. */
static void call(MPI_Comm c, int k, int rank, int size) {
  int v = -1, sum = -1;
  switch (k % 4) {
    case 0:
      CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
      CHECK(sum == size * (size - 1) / 2, "call %d: allreduce gave %d", k, sum);
      break;
    case 1:
      v = rank == 0 ? 1000 + k : -1;
      CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, c));
      CHECK(v == 1000 + k, "call %d: bcast gave %d", k, v);
      break;
    case 2:
      CHECK_MPI(MPI_Bcast(&v, 0, MPI_INT, 0, c)); /* no data: counts too */
      break;
    default:
      CHECK_MPI(MPI_Barrier(c));
      break;
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!mt_is_ferry() || size < 2) {
    mt_pass();
    MPI_Finalize();
    return 0;
  }
  const char *setting = getenv("FERRY_COLL_SHM_AFTER");
  const int after = setting != NULL ? atoi(setting) : 4;
  /* MPI_COMM_WORLD's segment first, so that the count below is the new
   * communicators' alone (communicator creation runs collectives on it). */
  for (int k = 0; k <= after; k++) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const int base = mapped_segments();
  CHECK(base == 1, "%d segments mapped after %d barriers on MPI_COMM_WORLD, expected its one", base, after + 1);
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  for (int k = 1; k <= after + 3; k++) {
    call(c, k, rank, size);
    const int held = mapped_segments() - base;
    const int want = k > after ? 1 : 0;
    CHECK(held == want, "after %d collectives on a new communicator (FERRY_COLL_SHM_AFTER=%d): %d segments of its own "
          "mapped, expected %d", k, after, held, want);
  }
  MPI_Comm_free(&c);
  CHECK(mapped_segments() == base, "freed: its segment is still mapped");

  /* Floating point, even MPI_MIN (-0.0 against +0.0): at once. */
  const MPI_Op ops[] = {MPI_SUM, MPI_MIN};
  MPI_Comm fresh[2];
  for (int k = 0; k < 2; k++) {
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh[k]);
    double x = rank + 0.5, got = 0;
    CHECK_MPI(MPI_Allreduce(&x, &got, 1, MPI_DOUBLE, ops[k], fresh[k]));
    CHECK(got == (k == 0 ? size * (size - 1) / 2.0 + size * 0.5 : 0.5), "double allreduce %d gave %g", k, got);
    CHECK(mapped_segments() - base == k + 1, "a double %s as a communicator's first collective left it without a "
          "segment (%d of their own mapped, expected %d)", k == 0 ? "MPI_SUM" : "MPI_MIN", mapped_segments() - base,
          k + 1);
  }
  for (int k = 0; k < 2; k++) MPI_Comm_free(&fresh[k]);
  mt_pass();
  MPI_Finalize();
  return 0;
}
