/*
 * Every send mode carries messages of every size intact: 0 B, 1 B, sizes
 * around the usual eager/rendezvous thresholds, up to 8 MiB, in several
 * predefined datatypes; also a nonblocking send whose request is freed at
 * once with MPI_Request_free. Each rank sends to its right neighbour and
 * receives from its left one (itself on one rank).
 *
 * The receive is always posted before the matching send starts (a zero-byte
 * "ready" exchange orders them), which makes MPI_Rsend legal and keeps the
 * blocking modes deadlock-free even when a rank sends to itself.
 */
#define TEST_NAME "p2p_basic"
#include "mpitest.h"

enum mode { SEND, SSEND, RSEND, BSEND, ISEND, ISSEND, IRSEND, IBSEND, ISEND_FREE, NMODES };
static const char *const mode_name[NMODES] = {
    "MPI_Send",  "MPI_Ssend",  "MPI_Rsend",  "MPI_Bsend",
    "MPI_Isend", "MPI_Issend", "MPI_Irsend", "MPI_Ibsend",
    "MPI_Isend + MPI_Request_free"};

static const size_t sizes[] = {0,      1,      2,      3,       7,
                               8,      15,     16,     17,      100,
                               1023,   1024,   1025,   4096,    8191,
                               16384,  65535,  65536,  65537,   262147,
                               1 << 20, (1 << 20) + 8, 8 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

#define READY_TAG 30000
#define GUARD_BYTES 64 /* after the message; the receive must not touch them */

struct type_info {
  MPI_Datatype type;
  size_t size;
  const char *name;
};

static void start_send(enum mode m, const void *buf, int count,
                       MPI_Datatype type, int dest, int tag,
                       MPI_Request *req) {
  *req = MPI_REQUEST_NULL;
  switch (m) {
  case SEND: MPI_Send(buf, count, type, dest, tag, MPI_COMM_WORLD); break;
  case SSEND: MPI_Ssend(buf, count, type, dest, tag, MPI_COMM_WORLD); break;
  case RSEND: MPI_Rsend(buf, count, type, dest, tag, MPI_COMM_WORLD); break;
  case BSEND: MPI_Bsend(buf, count, type, dest, tag, MPI_COMM_WORLD); break;
  case ISEND: MPI_Isend(buf, count, type, dest, tag, MPI_COMM_WORLD, req); break;
  case ISSEND: MPI_Issend(buf, count, type, dest, tag, MPI_COMM_WORLD, req); break;
  case IRSEND: MPI_Irsend(buf, count, type, dest, tag, MPI_COMM_WORLD, req); break;
  case IBSEND: MPI_Ibsend(buf, count, type, dest, tag, MPI_COMM_WORLD, req); break;
  case ISEND_FREE:
    /* The send goes on after its request is freed (MPI-3.1 §3.7.3). */
    MPI_Isend(buf, count, type, dest, tag, MPI_COMM_WORLD, req);
    MPI_Request_free(req);
    CHECK(*req == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
    break;
  default: CHECK(0, "unknown mode %d", (int)m);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  const struct type_info types[] = {{MPI_BYTE, 1, "MPI_BYTE"},
                                    {MPI_CHAR, 1, "MPI_CHAR"},
                                    {MPI_INT, sizeof(int), "MPI_INT"},
                                    {MPI_DOUBLE, sizeof(double), "MPI_DOUBLE"},
                                    {MPI_UNSIGNED_SHORT, sizeof(unsigned short),
                                     "MPI_UNSIGNED_SHORT"},
                                    {MPI_LONG_LONG, sizeof(long long),
                                     "MPI_LONG_LONG"}};
  const size_t ntypes = sizeof types / sizeof types[0];

  const size_t max_bytes = sizes[NSIZES - 1];
  unsigned char *sbuf = mt_malloc(max_bytes);
  unsigned char *rbuf = mt_malloc(max_bytes + GUARD_BYTES);

  /* Room for every buffered message of the run at once, so that buffer space
   * never depends on when the library recycles it (p2p_bsend tests that). */
  size_t bsend_bytes = 0;
  for (size_t k = 0; k < NSIZES; k++) bsend_bytes += 2 * (sizes[k] + MPI_BSEND_OVERHEAD);
  void *bsend_buf = mt_malloc(bsend_bytes);
  MPI_Buffer_attach(bsend_buf, (int)bsend_bytes);

  for (int m = 0; m < NMODES; m++) {
    for (size_t k = 0; k < NSIZES; k++) {
      const struct type_info *t = &types[(k + (size_t)m) % ntypes];
      const int count = (int)(sizes[k] / t->size);
      const size_t bytes = (size_t)count * t->size;
      const int tag = m * 100 + (int)k;
      const uint32_t send_seed = mt_seed((uint32_t)rank, (uint32_t)m, (uint32_t)k);
      const uint32_t recv_seed = mt_seed((uint32_t)left, (uint32_t)m, (uint32_t)k);

      /* Every byte starts as the complement of what the pattern says, so a
       * byte the receive fails to write, or writes past the message (into
       * the guard bytes), is seen. */
      mt_fill(rbuf, bytes + GUARD_BYTES, recv_seed);
      for (size_t i = 0; i < bytes + GUARD_BYTES; i++) rbuf[i] = (unsigned char)~rbuf[i];

      MPI_Request rreq, sreq;
      const int guard_count = (int)(GUARD_BYTES / t->size);
      MPI_Irecv(rbuf, count + guard_count, t->type, left, tag, MPI_COMM_WORLD, &rreq);
      MPI_Sendrecv(NULL, 0, MPI_BYTE, left, READY_TAG, NULL, 0, MPI_BYTE, right,
                   READY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      /* Right's "ready" also says it has received the previous message, so
       * the buffer of a freed send may be refilled only now. */
      mt_fill(sbuf, bytes, send_seed);
      start_send((enum mode)m, sbuf, count, t->type, right, tag, &sreq);

      MPI_Status st;
      MPI_Wait(&rreq, &st);
      CHECK(rreq == MPI_REQUEST_NULL, "%s %zu B: MPI_Wait left the receive request active",
            mode_name[m], bytes);
      MPI_Wait(&sreq, MPI_STATUS_IGNORE);

      char what[128];
      snprintf(what, sizeof what, "%s of %d x %s (%zu B) from rank %d",
               mode_name[m], count, t->name, bytes, left);
      CHECK_STATUS(st, left, tag, t->type, count, what);
      int elements = -7;
      MPI_Get_elements(&st, t->type, &elements);
      CHECK(elements == count, "%s: MPI_Get_elements gave %d", what, elements);
      CHECK_PATTERN(rbuf, bytes, recv_seed, "%s", what);
      for (size_t i = bytes; i < bytes + GUARD_BYTES; i++)
        CHECK(rbuf[i] == (unsigned char)~mt_byte(recv_seed, i),
              "%s: receive wrote past the message, at byte %zu", what, i);
      /* The send buffer is the caller's again (or, for a freed send, still
       * only read by the library): it must be unchanged. */
      CHECK_PATTERN(sbuf, bytes, send_seed, "%s: send buffer after completion", what);
    }
  }

  MPI_Barrier(MPI_COMM_WORLD); /* the last freed send has been received */
  void *detached = NULL;
  int detached_size = 0;
  MPI_Buffer_detach(&detached, &detached_size);
  CHECK(detached == bsend_buf && detached_size == (int)bsend_bytes,
        "MPI_Buffer_detach returned (%p, %d), attached (%p, %d)", detached,
        detached_size, bsend_buf, (int)bsend_bytes);
  free(bsend_buf);
  free(sbuf);
  free(rbuf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
