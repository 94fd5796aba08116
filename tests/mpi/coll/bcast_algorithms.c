/*
 * MPI_Bcast and MPI_Ibcast deliver the root's buffer intact to every rank:
 * sizes from 0 B to 3 MiB in several datatypes, every root (a few for the
 * large sizes), bytes after the buffer untouched. The nonblocking form
 * starts one broadcast per root at once on the same communicator and
 * completes them together. Run once per algorithm (FERRY_BCAST_ALGORITHM)
 * and once with the selection table's choice, on the communicators of
 * test_comms.h.
 */
#define TEST_NAME "bcast_algorithms"
#include "../mpitest.h"
#include "test_comms.h"

#define GUARD 16

static const size_t sizes[] = {0, 1, 3, 8, 100, 1000, 4100, 65536, 65548, 262148, (1 << 20) + 4, 3 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* A datatype that divides the size, so that counts of every type get used. */
static MPI_Datatype type_for(size_t bytes, int *count) {
  if (bytes % 8 == 0 && bytes > 0) {
    *count = (int)(bytes / 8);
    return MPI_DOUBLE;
  }
  if (bytes % 4 == 0) {
    *count = (int)(bytes / 4);
    return MPI_INT;
  }
  *count = (int)bytes;
  return MPI_BYTE;
}

static uint32_t seed_of(int root, size_t s, int form) { return mt_seed((uint32_t)root, (uint32_t)s, (uint32_t)form); }

static void run(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (size_t s = 0; s < NSIZES; s++) {
    size_t bytes = sizes[s];
    int count;
    MPI_Datatype type = type_for(bytes, &count);
    /* Large sizes: first, middle and last root only. */
    int roots[64], nroots = 0;
    for (int root = 0; root < size; root++)
      if (bytes < 100000 || root == 0 || root == size / 2 || root == size - 1) roots[nroots++] = root;

    /* Blocking: one root after another. */
    unsigned char *buf = mt_malloc(bytes + GUARD);
    for (int i = 0; i < nroots; i++) {
      int root = roots[i];
      uint32_t seed = seed_of(root, s, 0);
      if (rank == root) mt_fill(buf, bytes, seed);
      else memset(buf, 0xee, bytes);
      memset(buf + bytes, 0xab, GUARD);
      MPI_Bcast(buf, count, type, root, comm);
      CHECK_PATTERN(buf, bytes, seed, "%s: MPI_Bcast of %zu bytes from root %d", name, bytes, root);
      for (int g = 0; g < GUARD; g++)
        CHECK(buf[bytes + g] == 0xab, "%s: MPI_Bcast of %zu bytes wrote past the buffer", name, bytes);
    }
    free(buf);

    /* Nonblocking: every root at once, completed together. */
    unsigned char *bufs[64];
    MPI_Request reqs[64];
    for (int i = 0; i < nroots; i++) {
      bufs[i] = mt_malloc(bytes + GUARD);
      if (rank == roots[i]) mt_fill(bufs[i], bytes, seed_of(roots[i], s, 1));
      else memset(bufs[i], 0xee, bytes);
      memset(bufs[i] + bytes, 0xab, GUARD);
      MPI_Ibcast(bufs[i], count, type, roots[i], comm, &reqs[i]);
    }
    MPI_Waitall(nroots, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < nroots; i++) {
      CHECK(reqs[i] == MPI_REQUEST_NULL, "%s: MPI_Waitall left an MPI_Ibcast request set", name);
      CHECK_PATTERN(bufs[i], bytes, seed_of(roots[i], s, 1), "%s: MPI_Ibcast of %zu bytes from root %d", name,
                    bytes, roots[i]);
      for (int g = 0; g < GUARD; g++)
        CHECK(bufs[i][bytes + g] == 0xab, "%s: MPI_Ibcast of %zu bytes wrote past the buffer", name, bytes);
      free(bufs[i]);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  for_each_comm(run);
  mt_pass();
  MPI_Finalize();
  return 0;
}
