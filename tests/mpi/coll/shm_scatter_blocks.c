/*
 * Scatter and alltoall through shared memory (coll/shm/scatter.cc and the
 * started forms of shm/started.cc): a sender packs into its cell only the
 * blocks of the other ranks, each at its rank's place, and copies its own
 * block straight across (or leaves it, in place). Every rank must get
 * exactly the block meant for it, at every call: the values change from
 * call to call, so a block left over in a cell from an earlier call (or one
 * read from the wrong place) shows.
 *
 * From every root; blocking and nonblocking; MPI_IN_PLACE at the scatter's
 * root and for alltoall; MPI_INT blocks and a strided vector type on the
 * send side (packed through the datatype engine); 1 and 8 ints per block.
 * Run with FERRY_COLL_SHM=on so that every call takes the cells.
 */
#define TEST_NAME "shm_scatter_blocks"
#include "../mpitest.h"

static int rank, size;

/* What `from` sends to `to` at call `round`, element i. */
static int val(int round, int from, int to, int i) { return round * 100003 + from * 1009 + to * 31 + i + 1; }

static void scatter_round(int round, int root, int count, int strided, int nonblocking, int in_place) {
  /* Strided: every second int of a 2 * count * size array, one vector per block. */
  const int n = count * size;
  int *send = malloc(sizeof(int) * 2 * (size_t)n), *recv = malloc(sizeof(int) * (size_t)count);
  MPI_Datatype block = MPI_INT;
  int scount = count;
  if (strided) {
    MPI_Datatype vec;
    MPI_Type_vector(count, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * count * sizeof(int)), &block);
    MPI_Type_free(&vec);
    MPI_Type_commit(&block);
    scount = 1;
  }
  for (int i = 0; i < 2 * n; i++) send[i] = -7;
  for (int r = 0; r < size; r++)
    for (int i = 0; i < count; i++) send[strided ? 2 * (r * count + i) : r * count + i] = val(round, root, r, i);
  for (int i = 0; i < count; i++) recv[i] = -1;
  const int me_in_place = in_place && rank == root && !strided;
  void *rbuf = me_in_place ? MPI_IN_PLACE : recv;
  if (nonblocking) {
    MPI_Request req;
    CHECK_MPI(MPI_Iscatter(send, scount, block, rbuf, count, MPI_INT, root, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Scatter(send, scount, block, rbuf, count, MPI_INT, root, MPI_COMM_WORLD));
  }
  if (me_in_place) {
    for (int i = 0; i < count; i++)
      CHECK(send[rank * count + i] == val(round, root, rank, i), "scatter in place, root %d, round %d: [%d]=%d", root,
            round, i, send[rank * count + i]);
  } else {
    for (int i = 0; i < count; i++)
      CHECK(recv[i] == val(round, root, rank, i),
            "scatter%s%s, root %d, %d ints, round %d: [%d]=%d, want %d", nonblocking ? " (nonblocking)" : "",
            strided ? " (strided)" : "", root, count, round, i, recv[i], val(round, root, rank, i));
  }
  if (strided) MPI_Type_free(&block);
  free(send);
  free(recv);
}

static void alltoall_round(int round, int count, int nonblocking, int in_place) {
  const int n = count * size;
  int *send = malloc(sizeof(int) * (size_t)n), *recv = malloc(sizeof(int) * (size_t)n);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < count; i++) {
      send[r * count + i] = val(round, rank, r, i);
      recv[r * count + i] = in_place ? val(round, rank, r, i) : -1;
    }
  const void *sbuf = in_place ? MPI_IN_PLACE : send;
  if (nonblocking) {
    MPI_Request req;
    CHECK_MPI(MPI_Ialltoall(sbuf, count, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Alltoall(sbuf, count, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD));
  }
  for (int r = 0; r < size; r++)
    for (int i = 0; i < count; i++)
      CHECK(recv[r * count + i] == val(round, r, rank, i), "alltoall%s%s, %d ints, round %d: block %d [%d]=%d, want %d",
            nonblocking ? " (nonblocking)" : "", in_place ? " (in place)" : "", count, round, r, i,
            recv[r * count + i], val(round, r, rank, i));
  free(send);
  free(recv);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int round = 0;
  const int counts[] = {1, 8};
  for (int ci = 0; ci < 2; ci++)
    for (int root = 0; root < size; root++)
      for (int mode = 0; mode < 8; mode++) {
        /* Twice each: the second call of a pair finds the first one's data in the other slot. */
        for (int twice = 0; twice < 3; twice++)
          scatter_round(++round, root, counts[ci], mode & 1, (mode >> 1) & 1, (mode >> 2) & 1);
      }
  for (int ci = 0; ci < 2; ci++)
    for (int mode = 0; mode < 4; mode++)
      for (int twice = 0; twice < 3; twice++) alltoall_round(++round, counts[ci], mode & 1, (mode >> 1) & 1);
  mt_pass();
  MPI_Finalize();
  return 0;
}
