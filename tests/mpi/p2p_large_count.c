/*
 * A message of more than 2^31 elements, sent with the large-count calls
 * (MPI-4.0: MPI_Send_c, MPI_Recv_c, MPI_Isend_c, MPI_Irecv_c), arrives
 * whole between two ranks: 2^31 + 7 MPI_BYTEs from rank 0 to rank 1 with
 * the blocking calls, and back with the nonblocking ones. The status says
 * 2^31 + 7 through MPI_Get_count_c and MPI_Get_elements_c, and MPI_UNDEFINED
 * through the int MPI_Get_count and MPI_Get_elements, which cannot hold it
 * (MPI-4.0 §3.2.5). Registered over shared memory (single-copy and through
 * the ring) and over TCP. Needs 2 GiB + a little per rank: a rank that
 * cannot get it says so, and the test is skipped (it still passes).
 */
#define TEST_NAME "p2p_large_count"
#include "mpitest.h"

#define N (((MPI_Count)1 << 31) + 7)

static void check_status(const MPI_Status *st, const char *what) {
  MPI_Count count = -1, elements = -1;
  int small = 0;
  CHECK_MPI(MPI_Get_count_c(st, MPI_BYTE, &count));
  CHECK(count == N, "%s: MPI_Get_count_c says %lld, sent %lld", what, (long long)count, (long long)N);
  CHECK_MPI(MPI_Get_elements_c(st, MPI_BYTE, &elements));
  CHECK(elements == N, "%s: MPI_Get_elements_c says %lld, sent %lld", what, (long long)elements, (long long)N);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &small));
  CHECK(small == MPI_UNDEFINED, "%s: MPI_Get_count says %d for %lld bytes, not MPI_UNDEFINED", what, small,
        (long long)N);
  CHECK_MPI(MPI_Get_elements(st, MPI_BYTE, &small));
  CHECK(small == MPI_UNDEFINED, "%s: MPI_Get_elements says %d, not MPI_UNDEFINED", what, small);
  /* An odd number of bytes is no whole number of shorts (MPI-4.0 §3.2.5). */
  MPI_Count pairs = -1;
  CHECK_MPI(MPI_Get_count_c(st, MPI_SHORT, &pairs));
  CHECK(pairs == MPI_UNDEFINED, "%s: %lld bytes are no whole number of shorts, MPI_Get_count_c says %lld", what,
        (long long)N, (long long)pairs);
  CHECK(st->MPI_SOURCE == 1 - mt_world_rank() && st->MPI_TAG == 7, "%s: source %d tag %d", what, st->MPI_SOURCE,
        st->MPI_TAG);
}

/* The whole pattern, and by name the bytes on either side of 2^31. */
static void check_data(const unsigned char *buf, uint32_t seed, const char *what) {
  const size_t at[] = {0, 1, ((size_t)1 << 31) - 1, (size_t)1 << 31, ((size_t)1 << 31) + 1, (size_t)N - 1};
  for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
    CHECK(buf[at[i]] == mt_byte(seed, at[i]), "%s: byte %zu is 0x%02x, expected 0x%02x", what, at[i], buf[at[i]],
          mt_byte(seed, at[i]));
  CHECK_PATTERN(buf, (size_t)N, seed, "%s", what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 ranks, has %d", size);

  unsigned char *buf = malloc((size_t)N);
  int have = buf != NULL, all = 0;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all) {
    if (!have) printf("%s: rank %d: SKIPPED: cannot allocate %lld bytes\n", TEST_NAME, rank, (long long)N);
    free(buf);
    mt_pass();
    MPI_Finalize();
    return 0;
  }

  uint32_t seed = mt_seed(31, 7, 0);
  MPI_Status st;
  /* Out: rank 0 to rank 1, blocking. */
  if (rank == 0) {
    mt_fill(buf, (size_t)N, seed);
    CHECK_MPI(MPI_Send_c(buf, N, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
  } else {
    memset(buf, 0, (size_t)N);
    CHECK_MPI(MPI_Recv_c(buf, N, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st));
    check_status(&st, "MPI_Recv_c");
    check_data(buf, seed, "MPI_Recv_c");
  }

  /* Back: rank 1 to rank 0, nonblocking, with another pattern. */
  uint32_t back = mt_seed(31, 7, 1);
  MPI_Request req;
  if (rank == 1) {
    mt_fill(buf, (size_t)N, back);
    CHECK_MPI(MPI_Isend_c(buf, N, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    memset(buf, 0, (size_t)N);
    CHECK_MPI(MPI_Irecv_c(buf, N, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    check_status(&st, "MPI_Irecv_c");
    check_data(buf, back, "MPI_Irecv_c");
  }

  free(buf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
