/*
 * A small blocking MPI_Send skips its request when the transport takes the
 * packet at once (p2p::send_now, issue 29). It must still keep MPI's
 * non-overtaking rule (MPI-3.1 §3.5) against the sender's earlier messages
 * that are still queued, and it must match receives (wildcards included)
 * like any other message.
 *
 *   A  queued ahead: rank 2k starts MPI_Isend of large eager messages to
 *      rank 2k+1 (more than its shared-memory ring holds, so some wait in
 *      the sender's queue, one written in part), computes without MPI calls
 *      while the receiver drains some of the ring, then sends small messages
 *      with MPI_Send. The last of an odd number of ranks sends to itself,
 *      where the Isends wait in the self queue. Received with one tag, in
 *      order: an inline message that overtook a queued one shows as a wrong
 *      sequence number, one written into the middle of a queued message's
 *      stream as a bad pattern or a hang.
 *   B  a posted wildcard: every rank pre-posts MPI_ANY_SOURCE/MPI_ANY_TAG
 *      receives, then every rank sends small messages with MPI_Send to every
 *      rank; per sender, the posted receives complete in sequence order.
 */
#define TEST_NAME "p2p_inline_order"
#include "mpitest.h"

#include <time.h>

#define BIG_INTS (48 * 1024 / 4) /* eager (below shared memory's 64 KiB limit) */
#define NBIG 10                  /* 480 KiB: more than a 256 KiB ring */
#define NSMALL 16
#define NB 24

static int rank, size;

static void pause_ms(long ms) {
  struct timespec t = {0, ms * 1000 * 1000};
  nanosleep(&t, NULL);
}

static uint32_t seed(int src, int dst, int seq) { return mt_seed((uint32_t)src, (uint32_t)dst, (uint32_t)seq); }

static int *make_big(int src, int dst, int seq) {
  int *b = mt_malloc(sizeof(int) * BIG_INTS);
  b[0] = seq;
  mt_fill(b + 1, (BIG_INTS - 1) * sizeof(int), seed(src, dst, seq));
  return b;
}

/* Message #i of phase A from `src`: NBIG large ones, then NSMALL small ones. */
static void check_queued(const int *buf, const MPI_Status *st, int src, int i) {
  int n = -1;
  MPI_Get_count(st, MPI_INT, &n);
  CHECK(n >= 1 && buf[0] == i, "phase A: from rank %d expected message #%d, got #%d (%d ints): a message overtook an earlier one",
        src, i, n >= 1 ? buf[0] : -1, n);
  if (i < NBIG) {
    CHECK(n == BIG_INTS, "phase A: message #%d from rank %d has %d ints, expected %d", i, src, n, BIG_INTS);
    CHECK_PATTERN(buf + 1, (BIG_INTS - 1) * sizeof(int), seed(src, rank, i), "phase A: message #%d from rank %d", i, src);
  } else {
    CHECK(n == 2 && buf[1] == src * 1000 + (i - NBIG), "phase A: small message #%d from rank %d: %d ints, second %d", i,
          src, n, buf[1]);
  }
}

/* Ranks 2k send to 2k+1; with an odd number of ranks the last one sends to
 * itself (its receives posted first, so that the program is safe). */
static void phase_queued_ahead(void) {
  const int self = rank == size - 1 && size % 2 == 1;
  const int peer = self ? rank : rank ^ 1;
  const int sends = self || rank % 2 == 0, receives = self || rank % 2 == 1;
  int *big[NBIG];
  MPI_Request sreqs[NBIG], rreqs[NBIG + NSMALL];
  int *rbuf[NBIG + NSMALL];
  MPI_Status sts[NBIG + NSMALL];
  if (self)
    for (int i = 0; i < NBIG + NSMALL; i++) {
      rbuf[i] = mt_malloc(sizeof(int) * BIG_INTS);
      MPI_Irecv(rbuf[i], BIG_INTS, MPI_INT, rank, 5, MPI_COMM_WORLD, &rreqs[i]);
    }
  if (sends) {
    for (int i = 0; i < NBIG; i++) {
      big[i] = make_big(rank, peer, i);
      MPI_Isend(big[i], BIG_INTS, MPI_INT, peer, 5, MPI_COMM_WORLD, &sreqs[i]);
    }
    /* No MPI call for a while: the receiver frees part of the ring, so it
     * has room while this rank's queue still holds the rest (self: the
     * Isends wait in the self queue until a poll). */
    if (!self) pause_ms(100);
    for (int i = 0; i < NSMALL; i++) {
      int small[2] = {NBIG + i, rank * 1000 + i};
      MPI_Send(small, 2, MPI_INT, peer, 5, MPI_COMM_WORLD);
    }
  }
  if (receives && !self) {
    pause_ms(20); /* the sender fills the ring and its queue first */
    rbuf[0] = mt_malloc(sizeof(int) * BIG_INTS);
    for (int i = 0; i < NBIG + NSMALL; i++) {
      MPI_Recv(rbuf[0], BIG_INTS, MPI_INT, peer, 5, MPI_COMM_WORLD, &sts[0]);
      check_queued(rbuf[0], &sts[0], peer, i);
    }
    free(rbuf[0]);
  }
  if (self) {
    MPI_Waitall(NBIG + NSMALL, rreqs, sts);
    for (int i = 0; i < NBIG + NSMALL; i++) {
      check_queued(rbuf[i], &sts[i], rank, i);
      free(rbuf[i]);
    }
  }
  if (sends) {
    MPI_Waitall(NBIG, sreqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < NBIG; i++) free(big[i]);
  }
}

static void phase_posted_wildcard(void) {
  const int total = NB * size;
  int(*rbuf)[2] = mt_malloc(sizeof(int[2]) * (size_t)total);
  MPI_Request *reqs = mt_malloc(sizeof(MPI_Request) * (size_t)total);
  MPI_Status *sts = mt_malloc(sizeof(MPI_Status) * (size_t)total);
  for (int i = 0; i < total; i++)
    MPI_Irecv(rbuf[i], 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[i]);
  MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted before any send */
  for (int seq = 0; seq < NB; seq++)
    for (int k = 0; k < size; k++) {
      int dst = (rank + k) % size;
      int msg[2] = {rank, seq};
      MPI_Send(msg, 2, MPI_INT, dst, 100 + seq % 3, MPI_COMM_WORLD);
    }
  MPI_Waitall(total, reqs, sts);
  int *next = mt_malloc(sizeof(int) * (size_t)size);
  for (int s = 0; s < size; s++) next[s] = 0;
  /* Posted receives take messages in posting order: from one sender, the
   * sequence rises with the receive's index. */
  for (int i = 0; i < total; i++) {
    int s = sts[i].MPI_SOURCE;
    CHECK(s >= 0 && s < size && rbuf[i][0] == s, "phase B: receive %d: source %d, message says %d", i, s, rbuf[i][0]);
    CHECK(rbuf[i][1] == next[s], "phase B: receive %d from rank %d got message #%d, expected #%d", i, s, rbuf[i][1], next[s]);
    CHECK(sts[i].MPI_TAG == 100 + next[s] % 3, "phase B: receive %d: tag %d, expected %d", i, sts[i].MPI_TAG,
          100 + next[s] % 3);
    next[s]++;
  }
  for (int s = 0; s < size; s++) CHECK(next[s] == NB, "phase B: %d messages from rank %d, expected %d", next[s], s, NB);
  free(next);
  free(sts);
  free(reqs);
  free(rbuf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  phase_queued_ahead();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_posted_wildcard();
  mt_pass();
  MPI_Finalize();
  return 0;
}
