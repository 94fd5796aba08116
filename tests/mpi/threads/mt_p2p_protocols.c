/*
 * Point-to-point from several threads at once (MPI_THREAD_MULTIPLE), through
 * every protocol and every send mode, with the data checked.
 *
 * Ranks pair up (0-1, 2-3, ...). Thread t of each rank talks to thread t of
 * its partner, on its own tags, with every combination of
 *   size      8 B and 4 KiB (eager), 96 KiB and 640 KiB (rendezvous; the
 *             larger in several chunks, read in place under FERRY_SHM_CMA=on)
 *   layout    contiguous both sides; strided sender (packed as it goes);
 *             strided receiver (unpacked as it arrives)
 *   mode      send, ssend, bsend, isend, issend (completed with MPI_Test),
 *             ibsend, persistent, sendrecv
 * in both directions, --reps times. ctest runs it over shared memory, with
 * cross-memory attach forced on, and over TCP. A receive that gets another
 * thread's message, a torn or shifted payload, a wrong status or a hang
 * fails the test.
 */
#define TEST_NAME "mt_p2p_protocols"
#include "mpitest.h"
#include "mt_threads.h"

#define NTHREADS 4
#define NSIZES 4
#define NLAYOUTS 3
#define NMODES 8
#define MAX_BYTES (640 * 1024)
#define GAP_WORD 0x5a5a5a5a5a5a5a5aull

static const size_t sizes[NSIZES] = {8, 4096, 96 * 1024, MAX_BYTES};
enum { CONTIGUOUS, STRIDED_SENDER, STRIDED_RECEIVER };
static const char *layout_names[NLAYOUTS] = {"contiguous", "strided sender", "strided receiver"};
enum { SEND, SSEND, BSEND, ISEND, ISSEND, IBSEND, PERSISTENT, SENDRECV };
static const char *mode_names[NMODES] = {"send", "ssend", "bsend", "isend", "issend", "ibsend", "persistent",
                                         "sendrecv"};

static int rank, partner, reps;
static MPI_Comm comm;
/* strided[s]: sizes[s] / 8 doubles, every other 8-byte word of a buffer. */
static MPI_Datatype strided[NSIZES];

/* What one side of a message passes to MPI: buffer, count, type. */
struct side {
  void *buf;
  int count;
  MPI_Datatype type;
};

static struct side describe(uint64_t *buf, int s, int is_strided) {
  struct side d = {buf, (int)(sizes[s] / 8), MPI_DOUBLE};
  if (is_strided) {
    d.count = 1;
    d.type = strided[s];
  }
  return d;
}

/* Fills the data words (every word, or every other one) with the message's
 * pattern, and the gaps with GAP_WORD. */
static void fill(uint64_t *buf, int s, int is_strided, uint32_t seed) {
  size_t n = sizes[s] / 8;
  for (size_t j = 0; j < n; j++) {
    if (is_strided) {
      buf[2 * j] = mt_word(seed, j);
      buf[2 * j + 1] = GAP_WORD;
    } else {
      buf[j] = mt_word(seed, j);
    }
  }
}

static void clear(uint64_t *buf, int s, int is_strided) {
  size_t words = sizes[s] / 8 * (is_strided ? 2 : 1);
  for (size_t j = 0; j < words; j++) buf[j] = GAP_WORD;
}

static void check(const uint64_t *buf, int s, int is_strided, uint32_t seed, int t, int mode, int layout, int rep) {
  size_t n = sizes[s] / 8;
  for (size_t j = 0; j < n; j++) {
    uint64_t got = is_strided ? buf[2 * j] : buf[j];
    CHECK(got == mt_word(seed, j), "thread %d, %s, %s, %zu B, rep %d: word %zu of %zu is %016llx, expected %016llx",
          t, mode_names[mode], layout_names[layout], sizes[s], rep, j, n, (unsigned long long)got,
          (unsigned long long)mt_word(seed, j));
    if (is_strided)
      CHECK(buf[2 * j + 1] == GAP_WORD, "thread %d, %s, %s, %zu B: the gap after word %zu was written", t,
            mode_names[mode], layout_names[layout], sizes[s], j);
  }
}

static void check_status(const MPI_Status *st, int tag, int s, int t, int mode) {
  int count = -1;
  MPI_Get_count(st, MPI_BYTE, &count);
  CHECK(st->MPI_SOURCE == partner && st->MPI_TAG == tag && count == (int)sizes[s],
        "thread %d, %s, %zu B: status (source %d, tag %d, %d bytes), expected (%d, %d, %zu)", t, mode_names[mode],
        sizes[s], st->MPI_SOURCE, st->MPI_TAG, count, partner, tag, sizes[s]);
}

/* One exchange: both partners send one message and receive one. The lower
 * rank sends first in the blocking modes. */
static void exchange(int t, int mode, int s, int layout, int rep, uint64_t *sbuf, uint64_t *rbuf,
                     MPI_Request persistent[2]) {
  const int tag = t * NMODES + mode;
  const int strided_send = layout == STRIDED_SENDER, strided_recv = layout == STRIDED_RECEIVER;
  const uint32_t my_seed = mt_seed((uint32_t)rank, (uint32_t)tag, (uint32_t)(rep * 64 + s * 4 + layout));
  const uint32_t their_seed = mt_seed((uint32_t)partner, (uint32_t)tag, (uint32_t)(rep * 64 + s * 4 + layout));
  fill(sbuf, s, strided_send, my_seed);
  clear(rbuf, s, strided_recv);
  struct side out = describe(sbuf, s, strided_send), in = describe(rbuf, s, strided_recv);
  MPI_Status st;
  memset(&st, 0, sizeof st);
  const int first = rank < partner;
  switch (mode) {
    case SEND:
    case SSEND:
    case BSEND: {
      int (*send)(const void *, int, MPI_Datatype, int, int, MPI_Comm) =
          mode == SEND ? MPI_Send : mode == SSEND ? MPI_Ssend : MPI_Bsend;
      if (first) send(out.buf, out.count, out.type, partner, tag, comm);
      MPI_Recv(in.buf, in.count, in.type, partner, tag, comm, &st);
      if (!first) send(out.buf, out.count, out.type, partner, tag, comm);
      break;
    }
    case ISEND:
    case ISSEND:
    case IBSEND: {
      MPI_Request r[2];
      MPI_Status sts[2];
      MPI_Irecv(in.buf, in.count, in.type, partner, tag, comm, &r[0]);
      if (mode == ISEND) MPI_Isend(out.buf, out.count, out.type, partner, tag, comm, &r[1]);
      else if (mode == ISSEND) MPI_Issend(out.buf, out.count, out.type, partner, tag, comm, &r[1]);
      else MPI_Ibsend(out.buf, out.count, out.type, partner, tag, comm, &r[1]);
      if (mode == ISSEND) {
        /* Completion by polling, from several threads at once. */
        for (int i = 0; i < 2; i++) {
          int done = 0;
          while (!done) MPI_Test(&r[i], &done, &sts[i]);
        }
      } else {
        MPI_Waitall(2, r, sts);
      }
      st = sts[0];
      break;
    }
    case PERSISTENT:
      /* Described once per (size, layout), started every repetition. */
      if (persistent[0] == MPI_REQUEST_NULL) {
        MPI_Recv_init(in.buf, in.count, in.type, partner, tag, comm, &persistent[0]);
        MPI_Send_init(out.buf, out.count, out.type, partner, tag, comm, &persistent[1]);
      }
      MPI_Startall(2, persistent);
      MPI_Status sts[2];
      MPI_Waitall(2, persistent, sts);
      st = sts[0];
      break;
    case SENDRECV:
      MPI_Sendrecv(out.buf, out.count, out.type, partner, tag, in.buf, in.count, in.type, partner, tag, comm, &st);
      break;
  }
  check_status(&st, tag, s, t, mode);
  check(rbuf, s, strided_recv, their_seed, t, mode, layout, rep);
}

static void *worker(void *arg) {
  const int t = mtt_thread(arg);
  /* Twice the bytes: a strided buffer spans every other word. Persistent
   * requests keep pointing at their buffers, so each (size, layout) has its
   * own pair for them. */
  uint64_t *sbuf = mt_malloc(2 * MAX_BYTES), *rbuf = mt_malloc(2 * MAX_BYTES);
  uint64_t *psend[NSIZES][NLAYOUTS], *precv[NSIZES][NLAYOUTS];
  MPI_Request persistent[NSIZES][NLAYOUTS][2];
  for (int s = 0; s < NSIZES; s++)
    for (int l = 0; l < NLAYOUTS; l++) {
      psend[s][l] = mt_malloc(2 * sizes[s]);
      precv[s][l] = mt_malloc(2 * sizes[s]);
      persistent[s][l][0] = persistent[s][l][1] = MPI_REQUEST_NULL;
    }
  for (int rep = 0; rep < reps; rep++)
    for (int mode = 0; mode < NMODES; mode++)
      for (int s = 0; s < NSIZES; s++)
        for (int l = 0; l < NLAYOUTS; l++) {
          if (mode == PERSISTENT) exchange(t, mode, s, l, rep, psend[s][l], precv[s][l], persistent[s][l]);
          else exchange(t, mode, s, l, rep, sbuf, rbuf, NULL);
        }
  for (int s = 0; s < NSIZES; s++)
    for (int l = 0; l < NLAYOUTS; l++) {
      MPI_Request_free(&persistent[s][l][0]);
      MPI_Request_free(&persistent[s][l][1]);
      free(psend[s][l]);
      free(precv[s][l]);
    }
  free(sbuf);
  free(rbuf);
  return NULL;
}

int main(int argc, char **argv) {
  reps = mtt_init(&argc, &argv, 4);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  for (int s = 0; s < NSIZES; s++) {
    MPI_Type_vector((int)(sizes[s] / 8), 1, 2, MPI_DOUBLE, &strided[s]);
    MPI_Type_commit(&strided[s]);
  }
  /* Every thread may have a buffered send of each size in flight at once. */
  int bsend_bytes = 0;
  for (int s = 0; s < NSIZES; s++) bsend_bytes += (int)sizes[s] + MPI_BSEND_OVERHEAD;
  bsend_bytes *= 2 * NTHREADS;
  void *bsend_buffer = mt_malloc((size_t)bsend_bytes);
  MPI_Buffer_attach(bsend_buffer, bsend_bytes);

  partner = rank ^ 1;
  if (partner < size) mtt_run(NTHREADS, worker);  /* an odd rank out waits */

  void *detached;
  int detached_bytes;
  MPI_Buffer_detach(&detached, &detached_bytes);
  CHECK(detached == bsend_buffer && detached_bytes == bsend_bytes, "MPI_Buffer_detach returned another buffer");
  free(bsend_buffer);
  for (int s = 0; s < NSIZES; s++) MPI_Type_free(&strided[s]);
  MPI_Comm_free(&comm);
  mt_pass();
  MPI_Finalize();
  return 0;
}
