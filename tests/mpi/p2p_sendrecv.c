/*
 * MPI_Sendrecv and MPI_Sendrecv_replace (MPI-3.1 §3.10): a ring shift of
 * every size up to 4 MiB that cannot deadlock even when all ranks send at
 * once, wildcard receive sides, and the replace form's single buffer ending
 * up with exactly the received message and nothing written past it.
 */
#define TEST_NAME "p2p_sendrecv"
#include "mpitest.h"

static const size_t sizes[] = {0, 1, 31, 4096, 65537, 1 << 20, 4 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static int rank, size, left, right;

static void shift(size_t n, int wildcard) {
  unsigned char *sbuf = mt_malloc(n), *rbuf = mt_malloc(n + 16);
  const uint32_t sseed = mt_seed((uint32_t)rank, (uint32_t)n, 1);
  mt_fill(sbuf, n, sseed);
  MPI_Status st;
  MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, right, 7, rbuf, (int)n + 16, MPI_BYTE,
               wildcard ? MPI_ANY_SOURCE : left, wildcard ? MPI_ANY_TAG : 7, MPI_COMM_WORLD, &st);
  char what[80];
  snprintf(what, sizeof what, "MPI_Sendrecv of %zu B%s", n, wildcard ? " (wildcard receive)" : "");
  CHECK_STATUS(st, left, 7, MPI_BYTE, (int)n, what);
  CHECK_PATTERN(rbuf, n, mt_seed((uint32_t)left, (uint32_t)n, 1), "%s", what);
  CHECK_PATTERN(sbuf, n, sseed, "%s: send buffer afterwards", what);
  free(sbuf);
  free(rbuf);
}

/* The one buffer ends with the left neighbour's data; bytes past the
 * count stay as they were. */
static void shift_replace(size_t n) {
  const size_t guard = 16;
  unsigned char *buf = mt_malloc(n + guard);
  mt_fill(buf, n, mt_seed((uint32_t)rank, (uint32_t)n, 2));
  memset(buf + n, 0xA5, guard);
  MPI_Status st;
  MPI_Sendrecv_replace(buf, (int)n, MPI_BYTE, right, 8, left, 8, MPI_COMM_WORLD, &st);
  char what[64];
  snprintf(what, sizeof what, "MPI_Sendrecv_replace of %zu B", n);
  CHECK_STATUS(st, left, 8, MPI_BYTE, (int)n, what);
  CHECK_PATTERN(buf, n, mt_seed((uint32_t)left, (uint32_t)n, 2), "%s", what);
  for (size_t i = n; i < n + guard; i++)
    CHECK(buf[i] == 0xA5, "%s: byte %zu past the count was changed", what, i);

  /* With MPI_INT and wildcards on the receive side. */
  const int count = (int)(n / sizeof(int));
  mt_fill(buf, (size_t)count * sizeof(int), mt_seed((uint32_t)rank, (uint32_t)n, 3));
  MPI_Sendrecv_replace(buf, count, MPI_INT, right, 9, MPI_ANY_SOURCE, MPI_ANY_TAG,
                       MPI_COMM_WORLD, &st);
  CHECK_STATUS(st, left, 9, MPI_INT, count, "MPI_Sendrecv_replace of ints, wildcard receive");
  CHECK_PATTERN(buf, (size_t)count * sizeof(int), mt_seed((uint32_t)left, (uint32_t)n, 3),
                "MPI_Sendrecv_replace of %d ints", count);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;

  for (size_t k = 0; k < NSIZES; k++) {
    shift(sizes[k], 0);
    shift(sizes[k], 1);
    MPI_Barrier(MPI_COMM_WORLD); /* keeps the wildcard rounds apart */
  }
  for (size_t k = 0; k < NSIZES; k++) {
    shift_replace(sizes[k]);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  mt_pass();
  MPI_Finalize();
  return 0;
}
