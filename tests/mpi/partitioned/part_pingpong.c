/*
 * Partitioned ping-pong (MPI-4.0 §4.2): pairs of ranks (0-1, 2-3) bounce a
 * message of P partitions back and forth over many rounds of one pair of
 * persistent partitioned requests per direction. Every round changes the
 * data (the pattern's seed is the round), readies the partitions in a
 * different way (one by one backwards, MPI_Pready_range in halves,
 * MPI_Pready_list in a scrambled order) and checks the whole buffer and the
 * status (source, tag, count). Sizes cover the eager and the rendezvous
 * protocols; a vector datatype covers non-contiguous partitions. A rank with
 * no partner talks to itself over MPI_COMM_SELF.
 */
#define TEST_NAME "part_pingpong"
#include "mpitest.h"

enum { ROUNDS = 12 };

static void ready_all(MPI_Request req, int parts, int round) {
  switch (round % 3) {
    case 0:
      for (int p = parts - 1; p >= 0; p--) CHECK_MPI(MPI_Pready(p, req));
      break;
    case 1: {
      int half = parts / 2;
      if (half > 0) CHECK_MPI(MPI_Pready_range(0, half - 1, req));
      CHECK_MPI(MPI_Pready_range(half, parts - 1, req));
      break;
    }
    default: {
      int *list = mt_malloc(sizeof(int) * (size_t)parts);
      for (int i = 0; i < parts; i++) list[i] = (i * 7 + 3) % parts;
      /* (i*7+3) mod parts is a permutation when gcd(7, parts) == 1 */
      if (parts % 7 == 0)
        for (int i = 0; i < parts; i++) list[i] = parts - 1 - i;
      CHECK_MPI(MPI_Pready_list(parts, list, req));
      free(list);
    }
  }
}

/* elements per partition, with a vector type of stride 2 ints when `strided` */
static void run(MPI_Comm comm, int me, int peer, int parts, int count, int strided) {
  MPI_Datatype type = MPI_INT;
  size_t span = (size_t)parts * (size_t)count * (strided ? 2 : 1); /* ints in the buffer */
  if (strided) {
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_create_resized(vec, 0, 2 * sizeof(int), &type));
    CHECK_MPI(MPI_Type_free(&vec));
    CHECK_MPI(MPI_Type_commit(&type));
  }
  int *out = mt_malloc(span * sizeof(int)), *in = mt_malloc(span * sizeof(int));
  int *want = mt_malloc(span * sizeof(int));
  MPI_Request send, recv;
  int tag = 40 + parts % 7;
  CHECK_MPI(MPI_Psend_init(out, parts, count, type, peer, tag, comm, MPI_INFO_NULL, &send));
  CHECK_MPI(MPI_Precv_init(in, parts, count, type, peer, tag, comm, MPI_INFO_NULL, &recv));
  for (int round = 0; round < ROUNDS; round++) {
    uint32_t seed = mt_seed((uint32_t)round, (uint32_t)parts, (uint32_t)count);
    /* the lower rank sends in even rounds, the higher in odd ones */
    int sends = me == peer || (round % 2 == 0) == (me < peer);
    int receives = me == peer || !sends;
    if (receives) {
      for (size_t i = 0; i < span; i++) in[i] = -1;
      CHECK_MPI(MPI_Start(&recv));
    }
    if (sends) {
      mt_fill(out, span * sizeof(int), seed);
      CHECK_MPI(MPI_Start(&send));
      ready_all(send, parts, round);
      CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
    }
    if (receives) {
      MPI_Status st;
      CHECK_MPI(MPI_Wait(&recv, &st));
      int n = -1;
      CHECK_MPI(MPI_Get_count(&st, type, &n));
      CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag && n == parts * count,
            "round %d: status source %d tag %d count %d, expected %d %d %d", round, st.MPI_SOURCE, st.MPI_TAG,
            n, peer, tag, parts * count);
      mt_fill(want, span * sizeof(int), seed);
      for (size_t i = 0; i < span; i += strided ? 2 : 1)
        CHECK(in[i] == want[i], "round %d (%d partitions of %d%s): int %zu is %d, expected %d", round, parts,
              count, strided ? " strided" : "", i, in[i], want[i]);
      if (strided)
        for (size_t i = 1; i < span; i += 2) CHECK(in[i] == -1, "round %d: gap int %zu was written", round, i);
    }
  }
  CHECK_MPI(MPI_Request_free(&send));
  CHECK_MPI(MPI_Request_free(&recv));
  if (strided) CHECK_MPI(MPI_Type_free(&type));
  free(out);
  free(in);
  free(want);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int peer = rank ^ 1;
  MPI_Comm comm = MPI_COMM_WORLD;
  int me = rank;
  if (peer >= size) {
    comm = MPI_COMM_SELF;
    me = peer = 0;
  }
  static const int shapes[][2] = {{1, 1}, {8, 4}, {16, 1}, {7, 1000}, {64, 4096}, {3, 100000}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) run(comm, me, peer, shapes[s][0], shapes[s][1], 0);
  run(comm, me, peer, 8, 300, 1);
  run(comm, me, peer, 4, 100000, 1);
  mt_pass();
  MPI_Finalize();
  return 0;
}
