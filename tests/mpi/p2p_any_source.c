/*
 * MPI_ANY_SOURCE fan-in: every rank in turn is the root, and all ranks (the
 * root included) send it a burst of messages of mixed sizes. The root takes
 * them with wildcard receives and checks, from each status, that the data is
 * the one its reported source sent, that every message arrives exactly once,
 * and that messages of one sender keep their order (MPI-3.1 §3.5).
 *
 *   1  MPI_Recv(MPI_ANY_SOURCE, specific tag), tag by tag;
 *   2  MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG);
 *   3  MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) all posted before the sends:
 *      per sender, the receives it matched must be in posting order.
 */
#define TEST_NAME "p2p_any_source"
#include "mpitest.h"

#define NMSG 12
#define TAG0 1000
#define MAX_BYTES (96 * 1024 + NMSG)

static int rank, size;

static size_t msg_bytes(int k) { return k % 5 == 2 ? 96 * 1024 + (size_t)k : (size_t)(k * 13 % 200); }

static uint32_t msg_seed(int src, int root, int k, int variant) {
  return mt_seed((uint32_t)src, (uint32_t)(root * 10 + variant), (uint32_t)k);
}

/* Every rank sends NMSG messages to root, tags TAG0 + k. */
static void start_sends(int root, int variant, unsigned char **bufs, MPI_Request *reqs) {
  for (int k = 0; k < NMSG; k++) {
    bufs[k] = mt_malloc(msg_bytes(k));
    mt_fill(bufs[k], msg_bytes(k), msg_seed(rank, root, k, variant));
    MPI_Isend(bufs[k], (int)msg_bytes(k), MPI_BYTE, root, TAG0 + k, MPI_COMM_WORLD, &reqs[k]);
  }
}

static void finish_sends(unsigned char **bufs, MPI_Request *reqs) {
  MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE);
  for (int k = 0; k < NMSG; k++) free(bufs[k]);
}

/* Identifies the message in `buf` from its status, checks it and records
 * it; `last[src]` is the sequence number last seen from src. */
static void accept_message(const unsigned char *buf, const MPI_Status *st, int root,
                           int variant, int *seen, int *last, int want_tag) {
  const int src = st->MPI_SOURCE, k = st->MPI_TAG - TAG0;
  int n = -1;
  MPI_Get_count(st, MPI_BYTE, &n);
  CHECK(src >= 0 && src < size && k >= 0 && k < NMSG,
        "variant %d root %d: status names source %d tag %d, not one that was sent",
        variant, root, src, st->MPI_TAG);
  CHECK(want_tag == MPI_ANY_TAG || st->MPI_TAG == want_tag,
        "variant %d: receive for tag %d matched tag %d", variant, want_tag, st->MPI_TAG);
  CHECK(!seen[src * NMSG + k], "variant %d root %d: message %d from rank %d received twice",
        variant, root, k, src);
  seen[src * NMSG + k] = 1;
  CHECK(k > last[src], "variant %d root %d: message %d from rank %d came after message %d",
        variant, root, k, src, last[src]);
  last[src] = k;
  CHECK(n == (int)msg_bytes(k), "variant %d: message %d from rank %d has %d bytes, expected %zu",
        variant, k, src, n, msg_bytes(k));
  CHECK_PATTERN(buf, (size_t)n, msg_seed(src, root, k, variant),
                "variant %d: message %d from rank %d (as the status says)", variant, k, src);
}

static void fan_in(int root, int variant) {
  unsigned char *sbufs[NMSG];
  MPI_Request sreqs[NMSG];
  const int total = size * NMSG;

  if (variant != 3) {
    start_sends(root, variant, sbufs, sreqs);
    if (rank == root) {
      unsigned char *rbuf = mt_malloc(MAX_BYTES);
      int *seen = calloc((size_t)total, sizeof(int));
      int *last = mt_malloc(sizeof(int) * (size_t)size);
      for (int i = 0; i < size; i++) last[i] = -1;
      for (int i = 0; i < total; i++) {
        /* Variant 1: tag by tag, each tag once from every rank. */
        const int tag = variant == 1 ? TAG0 + i / size : MPI_ANY_TAG;
        MPI_Status st;
        MPI_Recv(rbuf, MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
        accept_message(rbuf, &st, root, variant, seen, last, tag);
      }
      free(last);
      free(seen);
      free(rbuf);
    }
    finish_sends(sbufs, sreqs);
    return;
  }

  /* Variant 3: the root posts every receive, then the sends start. */
  unsigned char **rbufs = NULL;
  MPI_Request *rreqs = NULL;
  if (rank == root) {
    rbufs = mt_malloc(sizeof(unsigned char *) * (size_t)total);
    rreqs = mt_malloc(sizeof(MPI_Request) * (size_t)total);
    for (int i = 0; i < total; i++) {
      rbufs[i] = mt_malloc(MAX_BYTES);
      MPI_Irecv(rbufs[i], MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                &rreqs[i]);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  start_sends(root, variant, sbufs, sreqs);
  if (rank == root) {
    MPI_Status *sts = mt_malloc(sizeof(MPI_Status) * (size_t)total);
    int *seen = calloc((size_t)total, sizeof(int));
    int *last = mt_malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) last[i] = -1;
    MPI_Waitall(total, rreqs, sts);
    /* Walking the receives in posting order, each sender's numbers rise. */
    for (int i = 0; i < total; i++) {
      accept_message(rbufs[i], &sts[i], root, variant, seen, last, MPI_ANY_TAG);
      free(rbufs[i]);
    }
    free(last);
    free(seen);
    free(sts);
    free(rreqs);
    free(rbufs);
  }
  finish_sends(sbufs, sreqs);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  for (int root = 0; root < size; root++)
    for (int variant = 1; variant <= 3; variant++) {
      fan_in(root, variant);
      /* Keeps one fan-in's messages out of the next one's wildcards. */
      MPI_Barrier(MPI_COMM_WORLD);
    }

  mt_pass();
  MPI_Finalize();
  return 0;
}
