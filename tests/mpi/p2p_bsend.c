/*
 * Buffered sends (MPI-3.1 §3.6): MPI_Bsend and MPI_Ibsend copy the message
 * into the attached buffer and return before any receive is posted; the
 * caller may overwrite its own buffer at once. MPI_Buffer_detach waits
 * until every buffered message has been delivered and returns the buffer
 * that was attached. The same space serves several rounds, each of which
 * fills it completely (the buffer is sized to the standard's rule: message
 * sizes plus MPI_BSEND_OVERHEAD each).
 *
 * The sender wipes both its send buffer (after each Bsend) and the detached
 * buffer (after detach), so a library that still reads either one later
 * delivers garbage, which the receiver sees.
 *
 * Then every rank buffers a 16 KiB message to its right and detaches before
 * it receives from its left: a buffered copy below the eager limit goes
 * eagerly, never waiting to be read in place by its receiver (as Ferry's
 * standard sends from FERRY_SHM_CMA_THRESHOLD do), or this would hang.
 */
#define TEST_NAME "p2p_bsend"
#include "mpitest.h"

#define ROUNDS 3
#define NMSG 12
#define TAG_NOTICE 99

static int rank, size, left, right;

static size_t msg_bytes(int i) { return i % 4 == 3 ? 300 * 1024 + (size_t)i : (size_t)(i * 11); }

static size_t round_space(void) {
  size_t total = 0;
  for (int i = 0; i < NMSG; i++) total += msg_bytes(i) + MPI_BSEND_OVERHEAD;
  return total;
}

static uint32_t msg_seed(int src, int round, int i) {
  return mt_seed((uint32_t)src, (uint32_t)round, (uint32_t)i);
}

static void receive_round(int round) {
  unsigned char *rbuf = mt_malloc(msg_bytes(NMSG - 1));
  MPI_Recv(NULL, 0, MPI_BYTE, left, TAG_NOTICE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < NMSG; i++) {
    MPI_Status st;
    MPI_Recv(rbuf, (int)msg_bytes(NMSG - 1), MPI_BYTE, left, i, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, left, i, MPI_BYTE, (int)msg_bytes(i), "buffered message");
    CHECK_PATTERN(rbuf, msg_bytes(i), msg_seed(left, round, i), "round %d, buffered message %d",
                  round, i);
  }
  free(rbuf);
}

/* Detach has waited for delivery, so the space is ours again: wiping it at
 * once spoils any message the library would still send from it. */
static void detach_and_wipe(unsigned char *attach, int attach_bytes) {
  void *detached = NULL;
  int detached_bytes = -1;
  MPI_Buffer_detach(&detached, &detached_bytes);
  CHECK(detached == attach && detached_bytes == attach_bytes,
        "MPI_Buffer_detach returned (%p, %d), attached (%p, %d)", detached, detached_bytes,
        (void *)attach, attach_bytes);
  memset(attach, 0xDD, (size_t)attach_bytes);
}

static void one_round(int round, unsigned char *attach, int attach_bytes) {
  MPI_Buffer_attach(attach, attach_bytes);
  unsigned char *sbuf = mt_malloc(msg_bytes(NMSG - 1));

  for (int i = 0; i < NMSG; i++) {
    mt_fill(sbuf, msg_bytes(i), msg_seed(rank, round, i));
    if (i % 2) {
      MPI_Request req;
      MPI_Ibsend(sbuf, (int)msg_bytes(i), MPI_BYTE, right, i, MPI_COMM_WORLD, &req);
      /* Buffered: the request completes locally, with no receive posted. */
      if (i % 4 == 1) MPI_Request_free(&req);
      else mt_wait_test(&req, MPI_STATUS_IGNORE, "MPI_Ibsend before any receive is posted");
    } else {
      MPI_Bsend(sbuf, (int)msg_bytes(i), MPI_BYTE, right, i, MPI_COMM_WORLD);
    }
    memset(sbuf, 0xEE, msg_bytes(i)); /* the library must hold its own copy */
  }
  free(sbuf);

  /* Only now may the right neighbour start receiving. */
  MPI_Request notice;
  MPI_Isend(NULL, 0, MPI_BYTE, right, TAG_NOTICE, MPI_COMM_WORLD, &notice);

  /* Detach blocks until our messages have reached the right neighbour, so it
   * runs alongside the receives of the left one's: even ranks detach first,
   * odd ones receive first (both orders get tested, and no cycle of ranks all
   * in detach forms). A single rank must receive its own messages first. */
  const int detach_first = size > 1 && rank % 2 == 0;
  if (detach_first) detach_and_wipe(attach, attach_bytes);
  receive_round(round);
  if (!detach_first) detach_and_wipe(attach, attach_bytes);
  MPI_Wait(&notice, MPI_STATUS_IGNORE);
}

static void crossing_detach(void) {
  enum { BYTES = 16 * 1024 };
  int space = BYTES + MPI_BSEND_OVERHEAD;
  unsigned char *attach = mt_malloc((size_t)space), *out = mt_malloc(BYTES), *in = mt_malloc(BYTES);
  for (int i = 0; i < BYTES; i++) out[i] = (unsigned char)(rank * 31 + i * 7);
  CHECK_MPI(MPI_Buffer_attach(attach, space));
  CHECK_MPI(MPI_Bsend(out, BYTES, MPI_BYTE, right, 5, MPI_COMM_WORLD));
  void *detached;
  int detached_bytes;
  CHECK_MPI(MPI_Buffer_detach(&detached, &detached_bytes));
  CHECK_MPI(MPI_Recv(in, BYTES, MPI_BYTE, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < BYTES; i++)
    CHECK(in[i] == (unsigned char)(left * 31 + i * 7), "crossing message from %d: byte %d is %d", left, i, in[i]);
  free(attach);
  free(out);
  free(in);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;

  /* Just enough for one round: the messages of a round need all of it. */
  const int attach_bytes = (int)round_space();
  unsigned char *attach = mt_malloc((size_t)attach_bytes);
  for (int round = 0; round < ROUNDS; round++) {
    one_round(round, attach, attach_bytes);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(attach);
  crossing_detach();

  mt_pass();
  MPI_Finalize();
  return 0;
}
