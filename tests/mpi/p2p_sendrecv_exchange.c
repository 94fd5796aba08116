/*
 * MPI_Sendrecv as an exchange (MPI-3.1 §3.10): every rank sends to its right
 * neighbour and receives from its left at once, at sizes on both sides of the
 * eager limit and the single-copy threshold (64 KiB on one host), where Ferry
 * offers the send buffer in place even when one-way messages would go through
 * the shared-memory ring (p2p/engine.cc, Request::exchange). Each case checks
 * the data, the status and the bytes past the receive buffer:
 *   - equal sizes, named and wildcard sources/tags; the send buffer is
 *     overwritten the moment the call returns, so a send that completed
 *     before its receiver had read the data shows as wrong bytes there;
 *   - unequal sizes: odd ranks send n, even ranks a third of it, each
 *     receiving into a buffer the size of its own send, so a large message
 *     meets a small receive (MPI_ERR_TRUNCATE, nothing past the buffer; in
 *     Ferry the first bytes land) while a small one meets a large receive;
 *   - derived datatypes: a contiguous one on both sides, and a strided
 *     receive of a contiguous send (the receiver cannot read it in place);
 *   - a line instead of a ring: the first rank receives from MPI_PROC_NULL,
 *     the last sends to it.
 */
#define TEST_NAME "p2p_sendrecv_exchange"
#include "mpitest.h"

static const size_t sizes[] = {0, 1, 4096, 65535, 65536, 65537, 262144 + 3, (1 << 20) + 1, (4 << 20) + 3};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static int rank, size, left, right;
static MPI_Comm comm; /* MPI_COMM_WORLD's duplicate, errors returned */

static void equal(size_t n, int wildcard) {
  unsigned char *s = mt_malloc(n + 1), *r = mt_guarded(n);
  const int tag = 10 + wildcard;
  mt_fill(s, n, mt_seed((uint32_t)rank, (uint32_t)n, (uint32_t)tag));
  MPI_Status st;
  int rc = MPI_Sendrecv(s, (int)n, MPI_BYTE, right, tag, r, (int)n, MPI_BYTE, wildcard ? MPI_ANY_SOURCE : left,
                        wildcard ? MPI_ANY_TAG : tag, comm, &st);
  /* The send is complete: its buffer is ours again (MPI-3.1 §3.4). */
  memset(s, 0xEE, n + 1);
  char what[96];
  snprintf(what, sizeof what, "exchange of %zu B%s", n, wildcard ? " (wildcard receive)" : "");
  CHECK(rc == MPI_SUCCESS, "%s: MPI_Sendrecv returned %d", what, rc);
  CHECK_STATUS(st, left, tag, MPI_BYTE, (int)n, what);
  CHECK_PATTERN(r, n, mt_seed((uint32_t)left, (uint32_t)n, (uint32_t)tag), "%s", what);
  mt_check_guard(r, n, what);
  MPI_Barrier(comm);
  free(s);
  free(r);
}

static size_t share(int of, size_t n) { return of % 2 == 1 ? n : n / 3; }

static void unequal(size_t n) {
  size_t mine = share(rank, n), theirs = share(left, n);
  unsigned char *s = mt_malloc(mine), *r = mt_guarded(mine);
  mt_fill(s, mine, mt_seed((uint32_t)rank, (uint32_t)n, 20));
  MPI_Status st;
  int rc = MPI_Sendrecv(s, (int)mine, MPI_BYTE, right, 20, r, (int)mine, MPI_BYTE, left, 20, comm, &st);
  memset(s, 0xEE, mine);
  char what[96];
  snprintf(what, sizeof what, "%zu B sent, %zu B arriving into %zu B", mine, theirs, mine);
  if (theirs > mine) {
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "%s: error class %d, expected MPI_ERR_TRUNCATE", what, cls);
  } else {
    CHECK(rc == MPI_SUCCESS, "%s: MPI_Sendrecv returned %d", what, rc);
    CHECK_STATUS(st, left, 20, MPI_BYTE, (int)theirs, what);
  }
  /* Truncated: the first bytes land in Ferry (MPICH leaves an eager
   * message's buffer as it was); never anything past the buffer. */
  if (theirs <= mine || mt_is_ferry())
    CHECK_PATTERN(r, theirs < mine ? theirs : mine, mt_seed((uint32_t)left, (uint32_t)n, 20), "%s", what);
  mt_check_guard(r, mine, what);
  MPI_Barrier(comm);
  free(s);
  free(r);
}

static void derived(size_t n) {
  int count = (int)(n / 8);
  size_t bytes = (size_t)count * 8;
  MPI_Datatype block, strided;
  MPI_Type_contiguous(count, MPI_DOUBLE, &block);
  MPI_Type_commit(&block);
  /* count doubles, one every two */
  MPI_Type_vector(count, 1, 2, MPI_DOUBLE, &strided);
  MPI_Type_commit(&strided);
  unsigned char *s = mt_malloc(bytes + 1), *r = mt_guarded(bytes);
  char what[96];
  MPI_Status st;

  mt_fill(s, bytes, mt_seed((uint32_t)rank, (uint32_t)n, 30));
  int rc = MPI_Sendrecv(s, 1, block, right, 30, r, 1, block, left, 30, comm, &st);
  memset(s, 0xEE, bytes);
  snprintf(what, sizeof what, "exchange of one contiguous type of %d doubles", count);
  CHECK(rc == MPI_SUCCESS, "%s: MPI_Sendrecv returned %d", what, rc);
  CHECK_STATUS(st, left, 30, block, count > 0 ? 1 : 0, what); /* a size-0 type counts 0 (MPI-4.0 §3.2.5) */
  CHECK_PATTERN(r, bytes, mt_seed((uint32_t)left, (uint32_t)n, 30), "%s", what);
  mt_check_guard(r, bytes, what);

  /* Contiguous doubles into every other double: the gaps stay. */
  size_t extent = count > 0 ? ((size_t)count * 2 - 1) * 8 : 0;
  unsigned char *sparse = mt_guarded(extent);
  memset(sparse, 0x5A, extent);
  mt_fill(s, bytes, mt_seed((uint32_t)rank, (uint32_t)n, 31));
  rc = MPI_Sendrecv(s, count, MPI_DOUBLE, right, 31, sparse, 1, strided, left, 31, comm, &st);
  memset(s, 0xEE, bytes);
  snprintf(what, sizeof what, "%d doubles into a strided receive", count);
  CHECK(rc == MPI_SUCCESS, "%s: MPI_Sendrecv returned %d", what, rc);
  CHECK_STATUS(st, left, 31, MPI_DOUBLE, count, what);
  unsigned char *expect = mt_malloc(bytes + 1);
  mt_fill(expect, bytes, mt_seed((uint32_t)left, (uint32_t)n, 31));
  mt_check_strided(sparse, expect, count, 8, 16, 0x5A, what);
  mt_check_guard(sparse, extent, what);
  MPI_Barrier(comm);
  free(expect);
  free(sparse);
  free(s);
  free(r);
  MPI_Type_free(&block);
  MPI_Type_free(&strided);
}

static void line(size_t n) {
  int to = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, from = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  unsigned char *s = mt_malloc(n + 1), *r = mt_guarded(n);
  mt_fill(s, n, mt_seed((uint32_t)rank, (uint32_t)n, 40));
  memset(r, 0x3C, n);
  MPI_Status st;
  int rc = MPI_Sendrecv(s, (int)n, MPI_BYTE, to, 40, r, (int)n, MPI_BYTE, from, 40, comm, &st);
  memset(s, 0xEE, n);
  char what[96];
  snprintf(what, sizeof what, "line of %zu B, rank %d of %d", n, rank, size);
  CHECK(rc == MPI_SUCCESS, "%s: MPI_Sendrecv returned %d", what, rc);
  if (from == MPI_PROC_NULL) {
    CHECK_PROC_NULL_STATUS(st, what);
    for (size_t i = 0; i < n; i++) CHECK(r[i] == 0x3C, "%s: byte %zu of the receive from MPI_PROC_NULL changed", what, i);
  } else {
    CHECK_STATUS(st, from, 40, MPI_BYTE, (int)n, what);
    CHECK_PATTERN(r, n, mt_seed((uint32_t)from, (uint32_t)n, 40), "%s", what);
  }
  mt_check_guard(r, n, what);
  MPI_Barrier(comm);
  free(s);
  free(r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  for (int round = 0; round < 2; round++) /* the second: every path warm (peers met, CMA calibrated) */
    for (size_t k = 0; k < NSIZES; k++) {
      equal(sizes[k], 0);
      equal(sizes[k], 1);
      unequal(sizes[k]);
      derived(sizes[k]);
      line(sizes[k]);
    }
  MPI_Comm_free(&comm);
  mt_pass();
  MPI_Finalize();
  return 0;
}
