/*
 * A 64 MiB strided message (every other double of a 128 MiB array) sent
 * around a ring and received with a different type map of the same
 * signature (blocks of 4 doubles, 6 apart), then each side against a
 * contiguous buffer. Non-contiguous data must move through bounded
 * buffers: the peak resident memory (VmHWM) during each exchange may grow by
 * far less than the message (Ferry pipelines 256 KiB chunks; the check is
 * Ferry's design, so only Ferry is held to it).
 */
#define TEST_NAME "large_strided"
#include "mpitest.h"

#define MESSAGE_DOUBLES ((size_t)8 << 20) /* 64 MiB of data */
#define GROWTH_LIMIT ((long)16 << 20)     /* well below the message size */

static double value(int rank, size_t k) { return rank * 1e9 + (double)k; }

/* Bytes of resident memory: now, and the peak since the last reset. */
static long status_kib(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  size_t n = strlen(field);
  if (f == NULL) return -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0) kib = atol(line + n);
  fclose(f);
  return kib;
}

/* Resets VmHWM to the current resident size (Linux >= 4.0). */
static void reset_peak(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f == NULL) return;
  fputs("5", f);
  fclose(f);
}

static void exchange(const char *what, const void *sendbuf, MPI_Datatype stype, int scount, void *recvbuf,
                     MPI_Datatype rtype, int rcount, int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st;
  MPI_Barrier(MPI_COMM_WORLD);
  long before = status_kib("VmRSS:");
  reset_peak();
  MPI_Sendrecv(sendbuf, scount, stype, right, 7, recvbuf, rcount, rtype, left, 7, MPI_COMM_WORLD, &st);
  long peak = status_kib("VmHWM:");
  int elements;
  MPI_Get_elements(&st, MPI_DOUBLE, &elements);
  CHECK(elements == (int)MESSAGE_DOUBLES, "%s: %d doubles arrived, expected %zu", what, elements, MESSAGE_DOUBLES);
  long growth = (peak - before) * 1024;
  if (rank == 0) printf("%s: peak resident memory grew by %ld KiB for a %zu KiB message\n", what, growth / 1024,
                        MESSAGE_DOUBLES * 8 / 1024);
  if (mt_is_ferry() && before > 0 && peak > 0)
    CHECK(growth < GROWTH_LIMIT, "%s: peak resident memory grew by %ld MiB during a %zu MiB exchange", what,
          growth >> 20, MESSAGE_DOUBLES * 8 >> 20);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size;
  const size_t n = MESSAGE_DOUBLES;

  /* Every other double of 2n; blocks of 4 doubles every 6 in 1.5n. */
  MPI_Datatype every_other, fours;
  MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_vector((int)(n / 4), 4, 6, MPI_DOUBLE, &fours);
  MPI_Type_commit(&every_other);
  MPI_Type_commit(&fours);

  double *strided = mt_malloc(2 * n * sizeof(double));
  double *blocks = mt_malloc(n / 4 * 6 * sizeof(double));
  double *flat = mt_malloc(n * sizeof(double));
  /* Touch everything first, so that only what MPI allocates counts. */
  for (size_t k = 0; k < n; k++) strided[2 * k] = value(rank, k), strided[2 * k + 1] = -1.0;
  for (size_t k = 0; k < n / 4 * 6; k++) blocks[k] = -2.0;
  for (size_t k = 0; k < n; k++) flat[k] = -3.0;

  /* 1. Strided to blocked. */
  exchange("vector(1 of 2) -> vector(4 of 6)", strided, every_other, 1, blocks, fours, 1, rank, size);
  for (size_t k = 0; k < n; k++) {
    size_t at = k / 4 * 6 + k % 4;
    CHECK(blocks[at] == value(left, k), "blocked: double %zu is %.0f, expected %.0f", k, blocks[at], value(left, k));
  }
  for (size_t b = 0; b < n / 4; b++)
    CHECK(blocks[b * 6 + 4] == -2.0 && blocks[b * 6 + 5] == -2.0, "blocked: gap after block %zu was written", b);

  /* 2. Blocked (what arrived) to contiguous: a packing sender, a receiver
   *    that takes chunks at their offsets. */
  exchange("vector(4 of 6) -> contiguous", blocks, fours, 1, flat, MPI_DOUBLE, (int)n, rank, size);
  int left2 = (left + size - 1) % size;
  for (size_t k = 0; k < n; k++)
    CHECK(flat[k] == value(left2, k), "contiguous: double %zu is %.0f, expected %.0f", k, flat[k], value(left2, k));

  /* 3. Contiguous to strided: the receiver asks a contiguous sender for
   *    chunks, which it unpacks as they land. */
  for (size_t k = 0; k < n; k++) strided[2 * k] = -4.0;
  exchange("contiguous -> vector(1 of 2)", flat, MPI_DOUBLE, (int)n, strided, every_other, 1, rank, size);
  int left3 = (left2 + size - 1) % size;
  for (size_t k = 0; k < n; k++) {
    CHECK(strided[2 * k] == value(left3, k), "strided: double %zu is %.0f, expected %.0f", k, strided[2 * k],
          value(left3, k));
    CHECK(strided[2 * k + 1] == -1.0, "strided: gap %zu was written", k);
  }

  MPI_Type_free(&every_other);
  MPI_Type_free(&fours);
  free(strided), free(blocks), free(flat);
  mt_pass();
  MPI_Finalize();
  return 0;
}
