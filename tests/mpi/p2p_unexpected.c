/*
 * Unexpected messages: sends that start before the matching receive is
 * posted must be kept (small ones as data, large ones at least as an
 * envelope) and matched correctly when the receive comes. Each rank sends to
 * its right neighbour with non-blocking sends, then a barrier makes every
 * receive start after every send of the phase has started.
 *
 *   1  many small messages, distinct tags, received in reverse tag order
 *      (each receive must search past the others);
 *   2  large (1 MiB + a few bytes) messages, distinct tags, received in
 *      reverse order after MPI_Probe saw each one;
 *   3  a mix of small and large with one tag, received with
 *      MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) posted late: oldest first.
 */
#define TEST_NAME "p2p_unexpected"
#include "mpitest.h"

#define NSMALL 500
#define NLARGE 4
#define LARGE_BYTES ((1 << 20) + 3)
#define NMIX 16
#define MIX_MAX_BYTES (300 * 1024 + NMIX)

static int rank, size, left, right;

static size_t small_bytes(int i) { return (size_t)(i % 61); }
static size_t mix_bytes(int i) { return i % 3 == 1 ? 300 * 1024 + (size_t)i : (size_t)(4 * i + 1); }

static void phase_many_small(void) {
  unsigned char *sbuf = mt_malloc(NSMALL * 64);
  unsigned char rbuf[64];
  MPI_Request *reqs = mt_malloc(sizeof(MPI_Request) * NSMALL);
  for (int i = 0; i < NSMALL; i++) {
    mt_fill(sbuf + 64 * i, small_bytes(i), mt_seed((uint32_t)rank, 1, (uint32_t)i));
    MPI_Isend(sbuf + 64 * i, (int)small_bytes(i), MPI_BYTE, right, i, MPI_COMM_WORLD, &reqs[i]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = NSMALL - 1; i >= 0; i--) {
    MPI_Status st;
    MPI_Recv(rbuf, sizeof rbuf, MPI_BYTE, left, i, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, left, i, MPI_BYTE, (int)small_bytes(i), "small unexpected message");
    CHECK_PATTERN(rbuf, small_bytes(i), mt_seed((uint32_t)left, 1, (uint32_t)i),
                  "small unexpected message tag %d", i);
  }
  MPI_Waitall(NSMALL, reqs, MPI_STATUSES_IGNORE);
  free(reqs);
  free(sbuf);
}

static void phase_large(void) {
  unsigned char *sbuf[NLARGE];
  unsigned char *rbuf = mt_malloc(LARGE_BYTES);
  MPI_Request reqs[NLARGE];
  for (int i = 0; i < NLARGE; i++) {
    sbuf[i] = mt_malloc(LARGE_BYTES);
    mt_fill(sbuf[i], LARGE_BYTES, mt_seed((uint32_t)rank, 2, (uint32_t)i));
    MPI_Isend(sbuf[i], LARGE_BYTES, MPI_BYTE, right, 100 + i, MPI_COMM_WORLD, &reqs[i]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = NLARGE - 1; i >= 0; i--) {
    MPI_Status st;
    MPI_Probe(left, 100 + i, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, left, 100 + i, MPI_BYTE, LARGE_BYTES, "MPI_Probe of a large unexpected message");
    memset(rbuf, 0, LARGE_BYTES);
    MPI_Recv(rbuf, LARGE_BYTES, MPI_BYTE, left, 100 + i, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, left, 100 + i, MPI_BYTE, LARGE_BYTES, "large unexpected message");
    CHECK_PATTERN(rbuf, LARGE_BYTES, mt_seed((uint32_t)left, 2, (uint32_t)i),
                  "large unexpected message tag %d", 100 + i);
  }
  MPI_Waitall(NLARGE, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < NLARGE; i++) free(sbuf[i]);
  free(rbuf);
}

static void phase_mixed_wildcard(void) {
  unsigned char *sbuf[NMIX], *rbuf[NMIX];
  MPI_Request sreqs[NMIX], rreqs[NMIX];
  MPI_Status sts[NMIX];
  for (int i = 0; i < NMIX; i++) {
    sbuf[i] = mt_malloc(mix_bytes(i));
    rbuf[i] = mt_malloc(MIX_MAX_BYTES);
    mt_fill(sbuf[i], mix_bytes(i), mt_seed((uint32_t)rank, 3, (uint32_t)i));
    MPI_Isend(sbuf[i], (int)mix_bytes(i), MPI_BYTE, right, 200, MPI_COMM_WORLD, &sreqs[i]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* Only the left neighbour sends to this rank in this phase, so the
   * wildcards must take its messages in the order it sent them. */
  for (int i = 0; i < NMIX; i++)
    MPI_Irecv(rbuf[i], MIX_MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
              MPI_COMM_WORLD, &rreqs[i]);
  MPI_Waitall(NMIX, rreqs, sts);
  for (int i = 0; i < NMIX; i++) {
    CHECK_STATUS(sts[i], left, 200, MPI_BYTE, (int)mix_bytes(i), "wildcard receive of an unexpected message");
    CHECK_PATTERN(rbuf[i], mix_bytes(i), mt_seed((uint32_t)left, 3, (uint32_t)i),
                  "unexpected message #%d taken by a wildcard receive", i);
  }
  MPI_Waitall(NMIX, sreqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < NMIX; i++) {
    free(sbuf[i]);
    free(rbuf[i]);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;

  phase_many_small();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_large();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_mixed_wildcard();

  mt_pass();
  MPI_Finalize();
  return 0;
}
