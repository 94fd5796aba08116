/*
 * Sender and receiver of one partitioned message need not agree on the
 * partitioning (MPI-4.0 §4.2.2 matches them on the message, not on the
 * partitions): partitions of the receiver that straddle, split or group the
 * sender's, a receive type whose elements the sender's partitions cut in
 * the middle (bytes sent, ints received into a strided layout), more
 * partitions than the wire has tags for (70000), and a receive buffer
 * larger than the message. The receiver polls MPI_Parrived until every
 * partition has arrived, then checks the data and the status. Even ranks
 * send to the next odd one; an odd-sized job's last rank talks to itself.
 */
#define TEST_NAME "part_diff_counts"
#include "mpitest.h"

#include <limits.h>

struct side {
  int parts, count;
  MPI_Datatype type;
};

static MPI_Datatype strided_int(void) {
  MPI_Datatype vec, type;
  CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, 2 * sizeof(int), &type));
  CHECK_MPI(MPI_Type_free(&vec));
  CHECK_MPI(MPI_Type_commit(&type));
  return type;
}

/* The bytes of the message, in the receiver's layout: byte i of the packed
 * message is mt_byte(seed, i). */
static void check_received(const unsigned char *in, struct side r, size_t message_bytes, uint32_t seed,
                           const char *what) {
  if (r.type == MPI_INT) {
    CHECK_PATTERN(in, message_bytes, seed, "%s", what);
    size_t all = (size_t)r.parts * (size_t)r.count * sizeof(int);
    for (size_t i = message_bytes; i < all; i++) CHECK(in[i] == 0xEE, "%s: byte %zu past the message written", what, i);
    return;
  }
  /* strided ints: int k of the message sits at int 2k of the buffer */
  for (size_t b = 0; b < message_bytes; b++) {
    size_t k = b / sizeof(int), o = b % sizeof(int);
    CHECK(in[2 * k * sizeof(int) + o] == mt_byte(seed, b), "%s: message byte %zu is 0x%02x, expected 0x%02x", what,
          b, in[2 * k * sizeof(int) + o], mt_byte(seed, b));
    CHECK(in[(2 * k + 1) * sizeof(int) + o] == 0xEE, "%s: gap byte after message int %zu written", what, k);
  }
}

static size_t type_size(MPI_Datatype t) {
  int n = 0;
  CHECK_MPI(MPI_Type_size(t, &n));
  return (size_t)n;
}

static size_t type_extent(MPI_Datatype t) {
  MPI_Aint lb, extent;
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
  return (size_t)extent;
}

static void run(MPI_Comm comm, int me, int peer, struct side s, struct side r, int rounds) {
  int sender = me == peer || me < peer, receiver = me == peer || me > peer;
  size_t message = (size_t)s.parts * (size_t)s.count * type_size(s.type);
  size_t rbytes = (size_t)r.parts * (size_t)r.count * type_extent(r.type);
  unsigned char *out = mt_malloc(message), *in = mt_malloc(rbytes);
  char what[160];
  snprintf(what, sizeof what, "%d x %d -> %d x %d%s", s.parts, s.count, r.parts, r.count,
           r.type == MPI_INT ? "" : " strided");
  MPI_Request sreq = MPI_REQUEST_NULL, rreq = MPI_REQUEST_NULL;
  if (receiver) CHECK_MPI(MPI_Precv_init(in, r.parts, r.count, r.type, peer, 5, comm, MPI_INFO_NULL, &rreq));
  if (sender) CHECK_MPI(MPI_Psend_init(out, s.parts, s.count, s.type, peer, 5, comm, MPI_INFO_NULL, &sreq));
  for (int round = 0; round < rounds; round++) {
    uint32_t seed = mt_seed((uint32_t)round, (uint32_t)s.parts, (uint32_t)r.parts);
    if (receiver) {
      memset(in, 0xEE, rbytes);
      CHECK_MPI(MPI_Start(&rreq));
    }
    if (sender) {
      mt_fill(out, message, seed);
      CHECK_MPI(MPI_Start(&sreq));
      CHECK_MPI(MPI_Pready_range(0, s.parts - 1, sreq));
    }
    if (receiver) {
      double start = MPI_Wtime();
      for (int p = 0; p < r.parts; p++) {
        int flag = 0;
        while (!flag) {
          CHECK_MPI(MPI_Parrived(rreq, p, &flag));
          CHECK(flag || MPI_Wtime() - start < MT_POLL_LIMIT_S, "%s round %d: partition %d never arrived", what,
                round, p);
        }
      }
      MPI_Status st;
      CHECK_MPI(MPI_Wait(&rreq, &st));
      int n = -1;
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
      CHECK(n == (int)message && st.MPI_SOURCE == peer && st.MPI_TAG == 5,
            "%s: status count %d source %d tag %d, expected %zu %d 5", what, n, st.MPI_SOURCE, st.MPI_TAG, message,
            peer);
      check_received(in, r, message, seed, what);
    }
    if (sender) CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
  }
  if (receiver) CHECK_MPI(MPI_Request_free(&rreq));
  if (sender) CHECK_MPI(MPI_Request_free(&sreq));
  free(out);
  free(in);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int peer = rank ^ 1, me = rank;
  MPI_Comm comm = MPI_COMM_WORLD;
  if (peer >= size) {
    comm = MPI_COMM_SELF;
    me = peer = 0;
  }
  MPI_Datatype strided = strided_int();
  struct {
    struct side s, r;
  } cases[] = {
      {{16, 4, MPI_INT}, {32, 2, MPI_INT}},      /* each sender partition feeds two */
      {{6, 4, MPI_INT}, {4, 6, MPI_INT}},        /* straddling */
      {{1, 64, MPI_INT}, {16, 4, MPI_INT}},      /* one partition feeds all */
      {{64, 4, MPI_INT}, {1, 256, MPI_INT}},     /* all feed one */
      {{8192, 64, MPI_INT}, {512, 1024, MPI_INT}},
      {{70000, 1, MPI_INT}, {7, 10000, MPI_INT}}, /* more partitions than block tags */
      {{4, 4, MPI_INT}, {4, 5, MPI_INT}},        /* a larger receive buffer */
      {{8, 3, MPI_BYTE}, {6, 1, MPI_DATATYPE_NULL}},   /* 3-byte partitions into strided ints */
      {{5, 4, MPI_INT}, {10, 2, MPI_DATATYPE_NULL}},   /* whole ints into strided ints */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    if (cases[c].r.type == MPI_DATATYPE_NULL) cases[c].r.type = strided;
    run(comm, me, peer, cases[c].s, cases[c].r, 4);
  }
  CHECK_MPI(MPI_Type_free(&strided));
  mt_pass();
  MPI_Finalize();
  return 0;
}
