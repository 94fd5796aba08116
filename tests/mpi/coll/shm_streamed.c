/*
 * MPI_Bcast and MPI_Gather of more than a cell streamed through the
 * writers' cells (coll/shm/bcast.cc, gather.cc: from 2 MiB, or from one
 * cell where ranks share cores, gather then up to 1 MiB): the data arrive
 * whole, from every root, whatever the chunk count (sizes just above a
 * cell, above the four cells a writer has, of 1 MiB, and from 2 MiB on,
 * which stream on any host), with a strided datatype on the writing
 * side and MPI_INT on the reading one (same signature, the chunks packed
 * and unpacked by ranges), and with nothing written past the buffer.
 * Between the streams come small calls (allreduces, a 1 KiB bcast, a
 * gather of a cell's size), so that the slots holding the chunk counts
 * and the writers' cells are reused by other operations and back. Then,
 * erroneous (Ferry only): rank 0 passes 3 MiB and the others 2 MiB, and
 * the reverse; every rank that reads another's data fails
 * (MPI_ERR_TRUNCATE, MPI_ERR_OTHER), none hangs, and the communicator
 * stays in step.
 */
#define TEST_NAME "shm_streamed"
#include "../mpitest.h"

static int rank, size;
static int *sbuf, *rbuf; /* for count_mismatch.h: 3 MiB of ints x size */

#include "count_mismatch.h"

static int val(int root, size_t i, int round) { return (int)(i * 2654435761u) ^ (root * 977 + round); }

/* `n` ints from `root`: strided (every other int) at the root, flat elsewhere. */
static void one_bcast(MPI_Comm comm, int root, size_t n, int round) {
  if (rank == root) {
    MPI_Datatype strided;
    MPI_Type_vector((int)n, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int *b = mt_malloc(sizeof(int) * 2 * n);
    for (size_t i = 0; i < 2 * n; i++) b[i] = i % 2 ? -7 : val(root, i / 2, round);
    CHECK_MPI(MPI_Bcast(b, 1, strided, root, comm));
    for (size_t i = 0; i < 2 * n; i++)
      CHECK(b[i] == (i % 2 ? -7 : val(root, i / 2, round)), "%zu ints, root %d: its own buffer changed at [%zu]", n,
            root, i);
    free(b);
    MPI_Type_free(&strided);
    return;
  }
  unsigned char *g = mt_guarded(sizeof(int) * n);
  int *b = (int *)g;
  for (size_t i = 0; i < n; i++) b[i] = -1;
  CHECK_MPI(MPI_Bcast(b, (int)n, MPI_INT, root, comm));
  for (size_t i = 0; i < n; i++)
    if (b[i] != val(root, i, round)) {
      CHECK(0, "%zu ints from root %d, round %d: [%zu] = %d, want %d", n, root, round, i, b[i], val(root, i, round));
      break;
    }
  for (int i = 0; i < MT_GUARD; i++)
    CHECK(g[sizeof(int) * n + i] == 0xA5, "%zu ints from root %d: written past the buffer", n, root);
  free(g);
}

/* `n` ints from each rank to `root`: strided at every rank, flat at the root. */
static void one_gather(MPI_Comm comm, int root, size_t n, int round) {
  MPI_Datatype strided;
  MPI_Type_vector((int)n, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int *b = mt_malloc(sizeof(int) * 2 * n);
  for (size_t i = 0; i < 2 * n; i++) b[i] = i % 2 ? -7 : val(rank, i / 2, round);
  unsigned char *g = rank == root ? mt_guarded(sizeof(int) * n * (size_t)size) : NULL;
  int *all = (int *)g;
  if (all != NULL)
    for (size_t i = 0; i < n * (size_t)size; i++) all[i] = -1;
  CHECK_MPI(MPI_Gather(b, 1, strided, all, (int)n, MPI_INT, root, comm));
  if (all != NULL) {
    for (int r = 0; r < size; r++)
      for (size_t i = 0; i < n; i++)
        if (all[(size_t)r * n + i] != val(r, i, round)) {
          CHECK(0, "gather of %zu ints to root %d, round %d: rank %d's [%zu] = %d, want %d", n, root, round, r, i,
                all[(size_t)r * n + i], val(r, i, round));
          r = size;
          break;
        }
    for (int i = 0; i < MT_GUARD; i++)
      CHECK(g[sizeof(int) * n * (size_t)size + i] == 0xA5, "gather of %zu ints: written past the buffer", n);
  }
  free(g);
  free(b);
  MPI_Type_free(&strided);
}

/* Small calls between the streams: other operations take the slots and cells. A
 * ring's worth of allreduces first leave every slot's first data word all ones
 * (each rank's operand), the word where a stream counts its chunks: a count
 * read before its rank has set it would pass for a finished stream. */
static void small_calls(MPI_Comm comm, int round) {
  for (int i = 0; i < 16; i++) {
    long long ones = -1 - rank, least = 0;
    CHECK_MPI(MPI_Allreduce(&ones, &least, 1, MPI_LONG_LONG, MPI_MIN, comm));
    CHECK(least == -size, "allreduce after a stream: %lld, want %d", least, -size);
  }
  int small[256];
  for (int i = 0; i < 256; i++) small[i] = rank == round % size ? i + round : -1;
  CHECK_MPI(MPI_Bcast(small, 256, MPI_INT, round % size, comm));
  for (int i = 0; i < 256; i++) CHECK(small[i] == i + round, "1 KiB bcast after a stream: [%d] = %d", i, small[i]);
  const int per = 4096; /* 16 KiB from each rank: a cell */
  for (int i = 0; i < per; i++) sbuf[i] = rank * per + i;
  CHECK_MPI(MPI_Gather(sbuf, per, MPI_INT, rbuf, per, MPI_INT, 0, comm));
  if (rank == 0)
    for (int i = 0; i < per * size; i++) CHECK(rbuf[i] == i, "gather after a stream: [%d] = %d", i, rbuf[i]);
}

/* `op` (kBcast or kGather, root 0) with rank 0 passing `mine` ints and the
 * others `others`: the ranks that read another's data must fail (bcast: all
 * but the root; gather: the root); the others may succeed. */
static void disagree(MPI_Comm comm, int op, int mine, int others, const char *what) {
  const int n = rank == 0 ? mine : others;
  int rc = call(op, n, comm);
  const int reads = op == kBcast ? rank != 0 : rank == 0;
  if (reads)
    CHECK(rc != MPI_SUCCESS, "%s, %s: rank %d passed %d ints and did not fail", names[op], what, rank, n);
  if (rc != MPI_SUCCESS) check_mismatch_error(rc, op, NULL, what);
  check_still_in_step(comm, op, what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t mib = 1 << 18; /* ints */
  sbuf = mt_malloc(sizeof(int) * 3 * mib * (size_t)size);
  rbuf = mt_malloc(sizeof(int) * 3 * mib * (size_t)size);
  /* Ints: above one cell and four (16 KiB cells: streamed where ranks share cores), then from 2 MiB
   * (streamed on any host): just above, plus a cell, plus four cells and one int, and 3 MiB. */
  static const size_t counts[] = {4097,          16385,           65537,        1 << 18, (1 << 19) + 1,
                                  (1 << 19) + 4096, (1 << 19) + 16385, 3 << 18};
  int round = 0;
  for (int root = 0; root < size; root++)
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++, round++) {
      one_bcast(comm, root, counts[k], round);
      one_gather(comm, root, counts[k], round);
      if (round % 2) small_calls(comm, round);
    }
  /* Streams back to back, the root rotating: a root's cells still being read. */
  for (int i = 0; i < 20; i++, round++) one_bcast(comm, i % size, 65537 + (size_t)i * 1000, round);
  for (int i = 0; i < 20; i++, round++) one_gather(comm, i % size, 65537 + (size_t)i * 1000, round);
  for (int i = 0; i < 8; i++, round++) one_bcast(comm, i % size, (1 << 19) + (size_t)i * 4099, round);
  for (int i = 0; i < 8; i++, round++) one_gather(comm, i % size, (1 << 19) + (size_t)i * 4099, round);
  static const int streamed[] = {kBcast, kGather};
  if (size >= 2 && mt_is_ferry())
    for (int k = 0; k < 2; k++) {
      disagree(comm, streamed[k], 3 * (int)mib, 2 * (int)mib, "rank 0 passes 3 MiB, the others 2 MiB");
      disagree(comm, streamed[k], 2 * (int)mib, 3 * (int)mib, "rank 0 passes 2 MiB, the others 3 MiB");
    }
  MPI_Comm_free(&comm);
  free(sbuf);
  free(rbuf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
