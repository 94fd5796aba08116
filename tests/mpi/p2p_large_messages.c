/*
 * Large and odd-sized messages arrive whole and in place, whichever way the
 * library moves them: on one host Ferry reads a large contiguous message
 * straight out of the sender's memory (FERRY_SHM_CMA=on), pipes it through
 * its shared-memory ring (off), or offers it in place and has the receiver
 * decline (run with --odd-ranks-cma-off: odd ranks turn CMA off before
 * MPI_Init, so their senders offer and they refuse). Every run covers sizes
 * around the thresholds, strided datatypes on either side, truncation
 * (MPI-3.1 §3.2.2: the first bytes land, nothing past the buffer), a
 * synchronous send, a receive posted after the message arrived, a probe,
 * and several large messages in both directions at once.
 */
#define TEST_NAME "p2p_large_messages"
#include "mpitest.h"

static const size_t sizes[] = {65535, 65536, 65537, 262144 + 13, (1 << 20) + 1, (4 << 20) + 3};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static int rank, size, left, right;

/* A ring shift of n contiguous bytes. */
static void shift_contiguous(size_t n, int tag) {
  unsigned char *s = mt_malloc(n), *r = mt_guarded(n);
  mt_fill(s, n, mt_seed((uint32_t)rank, (uint32_t)n, (uint32_t)tag));
  MPI_Status st;
  MPI_Sendrecv(s, (int)n, MPI_BYTE, right, tag, r, (int)n, MPI_BYTE, left, tag, MPI_COMM_WORLD, &st);
  char what[96];
  snprintf(what, sizeof what, "contiguous shift of %zu B", n);
  CHECK_STATUS(st, left, tag, MPI_BYTE, (int)n, what);
  CHECK_PATTERN(r, n, mt_seed((uint32_t)left, (uint32_t)n, (uint32_t)tag), "%s", what);
  CHECK_PATTERN(s, n, mt_seed((uint32_t)rank, (uint32_t)n, (uint32_t)tag), "%s: send buffer afterwards", what);
  mt_check_guard(r, n, what);
  free(s);
  free(r);
}

/* Blocks of 1000 bytes every 1536: the packed message is blocks * 1000 B. */
static MPI_Datatype strided(int blocks) {
  MPI_Datatype t;
  MPI_Type_vector(blocks, 1000, 1536, MPI_BYTE, &t);
  MPI_Type_commit(&t);
  return t;
}

/* Strided on the sending side, contiguous on the receiving side, then the
 * other way round. */
static void shift_strided(size_t n) {
  int blocks = (int)(n / 1000) + 1;
  size_t packed = (size_t)blocks * 1000, extent = (size_t)(blocks - 1) * 1536 + 1000;
  MPI_Datatype t = strided(blocks);
  unsigned char *sparse = mt_guarded(extent), *dense = mt_guarded(packed);
  char what[96];
  MPI_Status st;

  /* strided -> contiguous: the sender's blocks, packed in order */
  for (int b = 0; b < blocks; b++)
    mt_fill(sparse + (size_t)b * 1536, 1000, mt_seed((uint32_t)rank, (uint32_t)b, 3));
  MPI_Sendrecv(sparse, 1, t, right, 21, dense, (int)packed, MPI_BYTE, left, 21, MPI_COMM_WORLD, &st);
  snprintf(what, sizeof what, "strided send of %zu B into a contiguous receive", packed);
  CHECK_STATUS(st, left, 21, MPI_BYTE, (int)packed, what);
  for (int b = 0; b < blocks; b++)
    CHECK_PATTERN(dense + (size_t)b * 1000, 1000, mt_seed((uint32_t)left, (uint32_t)b, 3), "%s: block %d", what, b);
  mt_check_guard(dense, packed, what);

  /* contiguous -> strided: the gaps between blocks stay as they were */
  mt_fill(dense, packed, mt_seed((uint32_t)rank, (uint32_t)packed, 4));
  memset(sparse, 0x5A, extent);
  MPI_Sendrecv(dense, (int)packed, MPI_BYTE, right, 22, sparse, 1, t, left, 22, MPI_COMM_WORLD, &st);
  snprintf(what, sizeof what, "contiguous send of %zu B into a strided receive", packed);
  CHECK_STATUS(st, left, 22, MPI_BYTE, (int)packed, what);
  unsigned char *expect = mt_malloc(packed);
  mt_fill(expect, packed, mt_seed((uint32_t)left, (uint32_t)packed, 4));
  mt_check_strided(sparse, expect, blocks, 1000, 1536, 0x5A, what);
  mt_check_guard(sparse, extent, what);
  free(expect);
  free(sparse);
  free(dense);
  MPI_Type_free(&t);
}

/* Even ranks send n bytes to the next rank, which has room for half. */
static void truncated(size_t n) {
  int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (partner >= size) return;
  if (rank % 2 == 0) {
    unsigned char *s = mt_malloc(n);
    mt_fill(s, n, mt_seed((uint32_t)rank, (uint32_t)n, 5));
    MPI_Send(s, (int)n, MPI_BYTE, partner, 30, MPI_COMM_WORLD);
    free(s);
    return;
  }
  size_t half = n / 2;
  unsigned char *r = mt_guarded(half);
  MPI_Status st;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Recv(r, (int)half, MPI_BYTE, partner, 30, MPI_COMM_WORLD, &st);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  char what[96];
  snprintf(what, sizeof what, "%zu B into a %zu B receive", n, half);
  CHECK(cls == MPI_ERR_TRUNCATE, "%s: error class %d, expected MPI_ERR_TRUNCATE", what, cls);
  CHECK_PATTERN(r, half, mt_seed((uint32_t)partner, (uint32_t)n, 5), "%s", what);
  mt_check_guard(r, half, what);
  free(r);
}

/* MPI_Ssend, and a message whose receive is posted only after it arrived
 * (the barrier orders them), found first by MPI_Probe. */
static void synchronous_and_late(size_t n) {
  unsigned char *s = mt_malloc(n), *r = mt_guarded(n);
  mt_fill(s, n, mt_seed((uint32_t)rank, (uint32_t)n, 6));
  MPI_Request req;
  MPI_Status st;
  char what[96];
  MPI_Issend(s, (int)n, MPI_BYTE, right, 40, MPI_COMM_WORLD, &req);
  MPI_Recv(r, (int)n, MPI_BYTE, left, 40, MPI_COMM_WORLD, &st);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  snprintf(what, sizeof what, "MPI_Issend of %zu B", n);
  CHECK_PATTERN(r, n, mt_seed((uint32_t)left, (uint32_t)n, 6), "%s", what);

  mt_fill(s, n, mt_seed((uint32_t)rank, (uint32_t)n, 7));
  MPI_Isend(s, (int)n, MPI_BYTE, right, 41, MPI_COMM_WORLD, &req);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Probe(left, 41, MPI_COMM_WORLD, &st);
  snprintf(what, sizeof what, "late receive of %zu B", n);
  CHECK_STATUS(st, left, 41, MPI_BYTE, (int)n, what);
  MPI_Recv(r, (int)n, MPI_BYTE, left, 41, MPI_COMM_WORLD, &st);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK_PATTERN(r, n, mt_seed((uint32_t)left, (uint32_t)n, 7), "%s", what);
  mt_check_guard(r, n, what);
  free(s);
  free(r);
}

/* Four large messages each way between neighbours, all in flight at once. */
static void both_ways(size_t n) {
  enum { K = 4 };
  unsigned char *s[2 * K], *r[2 * K];
  MPI_Request req[4 * K];
  int q = 0;
  for (int k = 0; k < 2 * K; k++) {
    s[k] = mt_malloc(n);
    r[k] = mt_guarded(n);
    mt_fill(s[k], n, mt_seed((uint32_t)rank, (uint32_t)k, 8));
  }
  for (int k = 0; k < K; k++) {
    MPI_Irecv(r[k], (int)n, MPI_BYTE, left, 50 + k, MPI_COMM_WORLD, &req[q++]);
    MPI_Irecv(r[K + k], (int)n, MPI_BYTE, right, 60 + k, MPI_COMM_WORLD, &req[q++]);
  }
  for (int k = 0; k < K; k++) {
    MPI_Isend(s[k], (int)n, MPI_BYTE, right, 50 + k, MPI_COMM_WORLD, &req[q++]);
    MPI_Isend(s[K + k], (int)n, MPI_BYTE, left, 60 + k, MPI_COMM_WORLD, &req[q++]);
  }
  MPI_Waitall(q, req, MPI_STATUSES_IGNORE);
  for (int k = 0; k < K; k++) {
    CHECK_PATTERN(r[k], n, mt_seed((uint32_t)left, (uint32_t)k, 8), "message %d of %zu B from the left", k, n);
    CHECK_PATTERN(r[K + k], n, mt_seed((uint32_t)right, (uint32_t)(K + k), 8), "message %d of %zu B from the right",
                  k, n);
  }
  for (int k = 0; k < 2 * K; k++) {
    mt_check_guard(r[k], n, "both ways");
    free(s[k]);
    free(r[k]);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--odd-ranks-cma-off") == 0) {
    /* Before MPI_Init, from the launcher's variables: MPI cannot say yet. */
    const char *r = getenv("PMI_RANK");
    if (r == NULL) r = getenv("OMPI_COMM_WORLD_RANK");
    if (r != NULL && atoi(r) % 2 == 1) setenv("FERRY_SHM_CMA", "off", 1);
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  for (size_t i = 0; i < NSIZES; i++) {
    shift_contiguous(sizes[i], (int)i);
    shift_strided(sizes[i]);
    truncated(sizes[i]);
    synchronous_and_late(sizes[i]);
  }
  both_ways(1 << 20);
  both_ways(65536 + 7);
  mt_pass();
  MPI_Finalize();
  return 0;
}
