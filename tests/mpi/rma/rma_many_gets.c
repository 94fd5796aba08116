/* Many operations in one epoch without a flush (MPI-4.0 §12.5: they may
 * all be pending until the epoch ends): rank 1 gets 128 KiB from rank 0
 * 10000 times between two fences, 1.25 GiB in all, as MPICH's manyget does
 * with 100000. Where the target executes them (active messages: across
 * hosts, or FERRY_TRANSPORTS=tcp) the origin must not let the answers pile
 * up: neither process may grow by more than a fraction of the data moved.
 * Then the same with accumulates, whose requests carry the data. */
#define TEST_NAME "rma_many_gets"
#include "../mpitest.h"

#include <sys/resource.h>

enum { BYTES = 128 * 1024, GETS = 10000, ACCS = 2000 };
/* Growth allowed: far below the 1.25 GiB moved, far above what a bounded
 * number of operations in flight needs. */
static const long kLimitKiB = 400 * 1024;

static long max_rss_kib(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  int *buf = mt_malloc(BYTES);
  for (int i = 0; i < BYTES / (int)sizeof(int); ++i) buf[i] = rank == 0 ? i : -1;
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(buf, rank == 0 ? BYTES : 0, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  long before = max_rss_kib();

  MPI_Win_fence(0, win);
  if (rank == 1)
    for (int i = 0; i < GETS; ++i)
      CHECK_MPI(MPI_Get(buf, BYTES / sizeof(int), MPI_INT, 0, 0, BYTES / sizeof(int), MPI_INT, win));
  MPI_Win_fence(0, win);
  if (rank == 1)
    for (int i = 0; i < BYTES / (int)sizeof(int); ++i) CHECK(buf[i] == i, "word %d = %d after the gets", i, buf[i]);
  long grown = max_rss_kib() - before;
  CHECK(grown < kLimitKiB, "grew by %ld KiB while %d gets of %d bytes were pending", grown, GETS, BYTES);

  /* Accumulates: the requests carry the data, 250 MiB in all. */
  MPI_Win_fence(0, win);
  if (rank == 1)
    for (int i = 0; i < ACCS; ++i)
      CHECK_MPI(MPI_Accumulate(buf, BYTES / sizeof(int), MPI_INT, 0, 0, BYTES / sizeof(int), MPI_INT, MPI_BXOR, win));
  MPI_Win_fence(0, win);
  if (rank == 0)  /* an even number of XORs with the same values */
    for (int i = 0; i < BYTES / (int)sizeof(int); ++i) CHECK(buf[i] == i, "word %d = %d after the XORs", i, buf[i]);
  grown = max_rss_kib() - before;
  CHECK(grown < kLimitKiB, "grew by %ld KiB after %d accumulates of %d bytes", grown, ACCS, BYTES);

  MPI_Win_free(&win);
  free(buf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
