/*
 * Collectives beyond 2^31 elements (MPI-4.0 §6.2.2, the _c calls): an
 * MPI_Bcast_c of 2^31 + 1000 MPI_BYTEs and an in-place MPI_Allreduce_c of
 * as many MPI_UNSIGNED_CHARs with MPI_SUM, and on MPI_COMM_SELF an
 * MPI_Allreduce_c that is one local copy of as many bytes, every byte
 * checked. The counts
 * do not fit an int, so nothing may be truncated on the way (the schedule
 * cuts the messages into pieces under 2 GiB). Needs about 2 GiB per rank
 * (plus the library's scratch); if a rank cannot allocate it, every rank
 * skips with a message and the test passes.
 */
#define TEST_NAME "large_count"
#include "../mpitest.h"

static int rank, size;

/* Every rank gets the buffer, or none keeps one. */
static unsigned char *alloc_all(MPI_Count n) {
  unsigned char *p = malloc((size_t)n);
  int ok = p != NULL, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    free(p);
    if (rank == 0) printf("%s: SKIP: cannot allocate %lld bytes on every rank\n", TEST_NAME, (long long)n);
    return NULL;
  }
  return p;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Count n = ((MPI_Count)1 << 31) + 1000;

  unsigned char *buf = alloc_all(n);
  if (buf != NULL) {
    if (rank == 0) mt_fill(buf, (size_t)n, 1234);
    else memset(buf, 0, (size_t)n);
    CHECK_MPI(MPI_Bcast_c(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD));
    CHECK_PATTERN(buf, (size_t)n, 1234, "MPI_Bcast_c of %lld bytes", (long long)n);

    /* Byte i of rank r is (i + 3r) mod 251: the sum over ranks, mod 256. */
    for (MPI_Count i = 0; i < n; i++) buf[i] = (unsigned char)((i + 3 * rank) % 251);
    CHECK_MPI(MPI_Allreduce_c(MPI_IN_PLACE, buf, n, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD));
    for (MPI_Count i = 0; i < n; i++) {
      unsigned want = 0;
      for (int r = 0; r < size; r++) want += (unsigned)((i + 3 * r) % 251);
      if (buf[i] != (unsigned char)want)
        CHECK(0, "MPI_Allreduce_c: byte %lld is %u, want %u", (long long)i, buf[i], want & 0xffu);
    }
    free(buf);
  }

  /* On MPI_COMM_SELF an allreduce is a copy of sendbuf into recvbuf: one
   * local copy of more than 2^31 elements (rank 0 only: 4 GiB). */
  if (rank == 0) {
    unsigned char *in = malloc((size_t)n), *out = malloc((size_t)n);
    if (in == NULL || out == NULL) {
      printf("%s: SKIP: cannot allocate 2 x %lld bytes for the MPI_COMM_SELF copy\n", TEST_NAME, (long long)n);
    } else {
      mt_fill(in, (size_t)n, 99);
      memset(out, 0, (size_t)n);
      CHECK_MPI(MPI_Allreduce_c(in, out, n, MPI_UNSIGNED_CHAR, MPI_BAND, MPI_COMM_SELF));
      CHECK_PATTERN(out, (size_t)n, 99, "MPI_Allreduce_c on MPI_COMM_SELF of %lld bytes", (long long)n);
    }
    free(in);
    free(out);
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
