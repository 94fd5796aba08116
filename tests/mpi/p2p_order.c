/*
 * MPI-3.1 §3.5, non-overtaking: two messages from the same sender that both
 * match a receive arrive in the order they were sent. Every rank sends a
 * sequence of messages to every rank (itself included) whose sizes mix tiny,
 * medium and large (rendezvous-sized) ones, so a small message that slips
 * past a large one still in flight is caught.
 *
 * Each message starts with its sequence number; the rest is a pattern of
 * (sender, receiver, sequence). The phases differ in how receives match:
 *   A  specific source, one tag, receives posted after the sends;
 *   B  specific source, MPI_ANY_TAG, messages carry different tags;
 *   C  receives posted before the sends; small messages go by blocking
 *      MPI_Send, large ones by MPI_Isend;
 *   D  MPI_ANY_SOURCE and MPI_ANY_TAG: per sender, sequence numbers rise.
 */
#define TEST_NAME "p2p_order"
#include "mpitest.h"

#define NMSG 32
#define TAG 7
#define MAX_INTS (256 * 1024 / 4 + NMSG)

static int rank, size;

/* Tiny, large, tiny, medium, ...: sizes in ints, all at least one. */
static int msg_ints(int seq) {
  switch (seq % 4) {
  case 1: return 256 * 1024 / 4 + seq; /* ~256 KiB */
  case 3: return 16 * 1024 / 4 + seq;  /* ~16 KiB */
  default: return 1 + seq % 5;
  }
}

static int msg_tag(int phase, int seq) { return phase == 'B' ? 100 + seq % 7 : TAG; }

static uint32_t msg_seed(int src, int dst, int seq, int phase) {
  return mt_seed((uint32_t)src, (uint32_t)(dst * 1000 + phase), (uint32_t)seq);
}

static void fill_msg(int *buf, int src, int dst, int seq, int phase) {
  buf[0] = seq;
  mt_fill(buf + 1, (size_t)(msg_ints(seq) - 1) * sizeof(int), msg_seed(src, dst, seq, phase));
}

/* Checks a received message against the one expected from `src` at `seq`. */
static void check_msg(const int *buf, const MPI_Status *st, int src, int seq, int phase) {
  int n = -1;
  MPI_Get_count(st, MPI_INT, &n);
  CHECK(n >= 1 && buf[0] == seq,
        "phase %c: from rank %d expected message #%d, got #%d (%d ints): "
        "a later message overtook an earlier one",
        phase, src, seq, n >= 1 ? buf[0] : -1, n);
  CHECK(n == msg_ints(seq), "phase %c: message #%d from rank %d has %d ints, expected %d",
        phase, seq, src, n, msg_ints(seq));
  CHECK(st->MPI_SOURCE == src && st->MPI_TAG == msg_tag(phase, seq),
        "phase %c: message #%d: status source %d tag %d, expected %d %d", phase, seq,
        st->MPI_SOURCE, st->MPI_TAG, src, msg_tag(phase, seq));
  CHECK_PATTERN(buf + 1, (size_t)(n - 1) * sizeof(int), msg_seed(src, rank, seq, phase),
                "phase %c: message #%d from rank %d", phase, seq, src);
}

/* Send buffers: one per (destination, sequence), alive until the sends end. */
static int **make_sends(int phase) {
  int **bufs = mt_malloc(sizeof(int *) * (size_t)size * NMSG);
  for (int dst = 0; dst < size; dst++)
    for (int seq = 0; seq < NMSG; seq++) {
      int *b = mt_malloc(sizeof(int) * (size_t)msg_ints(seq));
      fill_msg(b, rank, dst, seq, phase);
      bufs[dst * NMSG + seq] = b;
    }
  return bufs;
}

static void free_sends(int **bufs) {
  for (int i = 0; i < size * NMSG; i++) free(bufs[i]);
  free(bufs);
}

/* Starts every send of a phase with MPI_Isend, destinations interleaved. */
static void isend_all(int **bufs, int phase, MPI_Request *reqs) {
  for (int seq = 0; seq < NMSG; seq++)
    for (int dst = 0; dst < size; dst++)
      MPI_Isend(bufs[dst * NMSG + seq], msg_ints(seq), MPI_INT, dst, msg_tag(phase, seq),
                MPI_COMM_WORLD, &reqs[dst * NMSG + seq]);
}

static void phase_posted_late(int phase) {
  int **bufs = make_sends(phase);
  MPI_Request *reqs = mt_malloc(sizeof(MPI_Request) * (size_t)size * NMSG);
  int *rbuf = mt_malloc(sizeof(int) * MAX_INTS);
  isend_all(bufs, phase, reqs);
  const int tag = phase == 'A' ? TAG : MPI_ANY_TAG;
  for (int seq = 0; seq < NMSG; seq++)
    for (int k = 0; k < size; k++) {
      const int src = (rank + k) % size;
      MPI_Status st;
      MPI_Recv(rbuf, MAX_INTS, MPI_INT, src, tag, MPI_COMM_WORLD, &st);
      check_msg(rbuf, &st, src, seq, phase);
    }
  MPI_Waitall(size * NMSG, reqs, MPI_STATUSES_IGNORE);
  free(rbuf);
  free(reqs);
  free_sends(bufs);
}

static void phase_preposted(void) {
  const int phase = 'C';
  int **bufs = make_sends(phase);
  int **rbufs = mt_malloc(sizeof(int *) * (size_t)size * NMSG);
  MPI_Request *rreqs = mt_malloc(sizeof(MPI_Request) * (size_t)size * NMSG);
  MPI_Request *sreqs = mt_malloc(sizeof(MPI_Request) * (size_t)size * NMSG);
  MPI_Status *sts = mt_malloc(sizeof(MPI_Status) * (size_t)size * NMSG);
  /* Each buffer is just big enough for its own message: an overtaking
   * message lands in the wrong one, and shows as truncation or a bad seq. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int src = 0; src < size; src++)
    for (int seq = 0; seq < NMSG; seq++) {
      int i = src * NMSG + seq;
      rbufs[i] = mt_malloc(sizeof(int) * (size_t)msg_ints(seq));
      MPI_Irecv(rbufs[i], msg_ints(seq), MPI_INT, src, TAG, MPI_COMM_WORLD, &rreqs[i]);
    }
  MPI_Barrier(MPI_COMM_WORLD); /* receives are posted before any send starts */
  int nsend = 0;
  for (int seq = 0; seq < NMSG; seq++)
    for (int dst = 0; dst < size; dst++) {
      int *b = bufs[dst * NMSG + seq];
      if (msg_ints(seq) > 1024)
        MPI_Isend(b, msg_ints(seq), MPI_INT, dst, TAG, MPI_COMM_WORLD, &sreqs[nsend++]);
      else
        MPI_Send(b, msg_ints(seq), MPI_INT, dst, TAG, MPI_COMM_WORLD);
    }
  int rc = MPI_Waitall(size * NMSG, rreqs, sts);
  for (int src = 0; src < size; src++)
    for (int seq = 0; seq < NMSG; seq++) {
      int i = src * NMSG + seq;
      CHECK(rc == MPI_SUCCESS || sts[i].MPI_ERROR == MPI_SUCCESS,
            "phase C: receive of message #%d from rank %d failed with error %d "
            "(truncation means another message overtook it)",
            seq, src, sts[i].MPI_ERROR);
      check_msg(rbufs[i], &sts[i], src, seq, phase);
      free(rbufs[i]);
    }
  MPI_Waitall(nsend, sreqs, MPI_STATUSES_IGNORE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  free(sts);
  free(sreqs);
  free(rreqs);
  free(rbufs);
  free_sends(bufs);
}

static void phase_any_source(void) {
  const int phase = 'D';
  int **bufs = make_sends(phase);
  MPI_Request *reqs = mt_malloc(sizeof(MPI_Request) * (size_t)size * NMSG);
  int *rbuf = mt_malloc(sizeof(int) * MAX_INTS);
  int *next = calloc((size_t)size, sizeof(int));
  isend_all(bufs, phase, reqs);
  for (int i = 0; i < size * NMSG; i++) {
    MPI_Status st;
    MPI_Recv(rbuf, MAX_INTS, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < size && next[st.MPI_SOURCE] < NMSG,
          "phase D: message from unexpected source %d", st.MPI_SOURCE);
    check_msg(rbuf, &st, st.MPI_SOURCE, next[st.MPI_SOURCE]++, phase);
  }
  MPI_Waitall(size * NMSG, reqs, MPI_STATUSES_IGNORE);
  free(next);
  free(rbuf);
  free(reqs);
  free_sends(bufs);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  phase_posted_late('A');
  MPI_Barrier(MPI_COMM_WORLD);
  phase_posted_late('B');
  MPI_Barrier(MPI_COMM_WORLD);
  phase_preposted();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_any_source();

  mt_pass();
  MPI_Finalize();
  return 0;
}
