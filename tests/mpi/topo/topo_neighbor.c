/*
 * Neighbourhood collectives (MPI-3.1 §7.6, §7.7), blocking and nonblocking,
 * all five operations, on: a periodic ring of every rank (with 1 or 2 ranks
 * one rank is a neighbour twice, and the block sent towards the negative
 * neighbour must land in its positive block), a non-periodic 2-D grid (edges
 * are MPI_PROC_NULL: those blocks stay untouched), and a distributed graph
 * whose edges go both ways around a ring. Every element says who sent it and
 * from which block, so a block in the wrong place shows.
 */
#define TEST_NAME "topo_neighbor"
#include "mpitest.h"

#define PER 3        /* elements per block (allgather, alltoall) */
#define MAXN 8       /* neighbours at most */
#define UNTOUCHED -7

static int value(int sender, int block, int e) { return sender * 1000 + block * 100 + e; }

struct hood {
  int nin, nout, in[MAXN], out[MAXN];
  int from_block[MAXN]; /* in-block i holds the sender's out-block from_block[i] */
};

/* Runs every operation over `comm` and checks against `h`. */
static void check_all(MPI_Comm comm, const struct hood *h, const char *what, int nonblocking) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  int send[MAXN * PER * 2], recv[MAXN * PER * 2], counts_s[MAXN], displs_s[MAXN], counts_r[MAXN], displs_r[MAXN];
  MPI_Aint bytes_s[MAXN], bytes_r[MAXN];
  MPI_Datatype types_s[MAXN], types_r[MAXN];
  MPI_Request req;

#define RUN(call, icall)                                      \
  do {                                                        \
    if (nonblocking) {                                        \
      CHECK_MPI(icall);                                       \
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));           \
    } else {                                                  \
      CHECK_MPI(call);                                        \
    }                                                         \
  } while (0)
#define RESET() for (int z = 0; z < MAXN * PER * 2; z++) recv[z] = UNTOUCHED

  /* Allgather: my PER elements to every out-neighbour. */
  for (int e = 0; e < PER; e++) send[e] = value(rank, 0, e);
  RESET();
  RUN(MPI_Neighbor_allgather(send, PER, MPI_INT, recv, PER, MPI_INT, comm),
      MPI_Ineighbor_allgather(send, PER, MPI_INT, recv, PER, MPI_INT, comm, &req));
  for (int i = 0; i < h->nin; i++)
    for (int e = 0; e < PER; e++) {
      int want = h->in[i] == MPI_PROC_NULL ? UNTOUCHED : value(h->in[i], 0, e);
      CHECK(recv[i * PER + e] == want, "%s allgather: block %d[%d] = %d, want %d", what, i, e, recv[i * PER + e],
            want);
    }

  /* Allgatherv: the same, into blocks spaced 2 PER apart. */
  for (int i = 0; i < h->nin; i++) counts_r[i] = PER, displs_r[i] = 2 * PER * (h->nin - 1 - i);
  RESET();
  RUN(MPI_Neighbor_allgatherv(send, PER, MPI_INT, recv, counts_r, displs_r, MPI_INT, comm),
      MPI_Ineighbor_allgatherv(send, PER, MPI_INT, recv, counts_r, displs_r, MPI_INT, comm, &req));
  for (int i = 0; i < h->nin; i++)
    for (int e = 0; e < PER; e++) {
      int want = h->in[i] == MPI_PROC_NULL ? UNTOUCHED : value(h->in[i], 0, e);
      CHECK(recv[displs_r[i] + e] == want, "%s allgatherv: block %d[%d] = %d, want %d", what, i, e,
            recv[displs_r[i] + e], want);
    }

  /* Alltoall: block j to out-neighbour j. */
  for (int j = 0; j < h->nout; j++)
    for (int e = 0; e < PER; e++) send[j * PER + e] = value(rank, j, e);
  RESET();
  RUN(MPI_Neighbor_alltoall(send, PER, MPI_INT, recv, PER, MPI_INT, comm),
      MPI_Ineighbor_alltoall(send, PER, MPI_INT, recv, PER, MPI_INT, comm, &req));
  for (int i = 0; i < h->nin; i++)
    for (int e = 0; e < PER; e++) {
      int want = h->in[i] == MPI_PROC_NULL ? UNTOUCHED : value(h->in[i], h->from_block[i], e);
      CHECK(recv[i * PER + e] == want, "%s alltoall: block %d[%d] = %d, want %d (from rank %d)", what, i, e,
            recv[i * PER + e], want, h->in[i]);
    }

  /* Alltoallv: block j has 1 + j elements, laid out backwards. */
  int at = 0;
  for (int j = h->nout - 1; j >= 0; j--) {
    counts_s[j] = 1 + j, displs_s[j] = at;
    for (int e = 0; e < counts_s[j]; e++) send[at + e] = value(rank, j, e);
    at += counts_s[j];
  }
  at = 0;
  for (int i = 0; i < h->nin; i++) counts_r[i] = 1 + h->from_block[i], displs_r[i] = at, at += counts_r[i] + 1;
  RESET();
  RUN(MPI_Neighbor_alltoallv(send, counts_s, displs_s, MPI_INT, recv, counts_r, displs_r, MPI_INT, comm),
      MPI_Ineighbor_alltoallv(send, counts_s, displs_s, MPI_INT, recv, counts_r, displs_r, MPI_INT, comm, &req));
  for (int i = 0; i < h->nin; i++) {
    for (int e = 0; e < counts_r[i]; e++) {
      int want = h->in[i] == MPI_PROC_NULL ? UNTOUCHED : value(h->in[i], h->from_block[i], e);
      CHECK(recv[displs_r[i] + e] == want, "%s alltoallv: block %d[%d] = %d, want %d", what, i, e,
            recv[displs_r[i] + e], want);
    }
    CHECK(recv[displs_r[i] + counts_r[i]] == UNTOUCHED, "%s alltoallv: wrote past block %d", what, i);
  }

  /* Alltoallw: the v layout in bytes, with MPI_INT per block. */
  for (int j = 0; j < h->nout; j++) bytes_s[j] = (MPI_Aint)displs_s[j] * (MPI_Aint)sizeof(int), types_s[j] = MPI_INT;
  for (int i = 0; i < h->nin; i++) bytes_r[i] = (MPI_Aint)displs_r[i] * (MPI_Aint)sizeof(int), types_r[i] = MPI_INT;
  RESET();
  RUN(MPI_Neighbor_alltoallw(send, counts_s, bytes_s, types_s, recv, counts_r, bytes_r, types_r, comm),
      MPI_Ineighbor_alltoallw(send, counts_s, bytes_s, types_s, recv, counts_r, bytes_r, types_r, comm, &req));
  for (int i = 0; i < h->nin; i++)
    for (int e = 0; e < counts_r[i]; e++) {
      int want = h->in[i] == MPI_PROC_NULL ? UNTOUCHED : value(h->in[i], h->from_block[i], e);
      CHECK(recv[displs_r[i] + e] == want, "%s alltoallw: block %d[%d] = %d, want %d", what, i, e,
            recv[displs_r[i] + e], want);
    }
#undef RUN
#undef RESET
}

/* A Cartesian communicator's neighbourhood, from MPI_Cart_shift: per
 * dimension the negative then the positive neighbour; what the negative one
 * sent me is its positive block, and the reverse. */
static void cart_hood(MPI_Comm comm, struct hood *h) {
  int nd;
  MPI_Cartdim_get(comm, &nd);
  h->nin = h->nout = 2 * nd;
  for (int d = 0; d < nd; d++) {
    MPI_Cart_shift(comm, d, 1, &h->in[2 * d], &h->in[2 * d + 1]);
    h->out[2 * d] = h->in[2 * d], h->out[2 * d + 1] = h->in[2 * d + 1];
    h->from_block[2 * d] = 2 * d + 1;
    h->from_block[2 * d + 1] = 2 * d;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct hood h;

  /* A periodic ring of every rank. */
  MPI_Comm ring;
  int dims1[1] = {size}, per1[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, per1, 0, &ring));
  cart_hood(ring, &h);
  check_all(ring, &h, "periodic ring", 0);
  check_all(ring, &h, "periodic ring (nonblocking)", 1);

  /* A non-periodic grid. */
  MPI_Comm grid;
  int dims2[2] = {0, 0}, per2[2] = {0, 0};
  MPI_Dims_create(size, 2, dims2);
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, per2, 0, &grid));
  cart_hood(grid, &h);
  check_all(grid, &h, "grid", 0);
  check_all(grid, &h, "grid (nonblocking)", 1);

  /* A distributed graph: out to the right then the left; in from the left
   * (its block 0, to its right) then the right (its block 1). */
  MPI_Comm dg;
  const int left = (rank - 1 + size) % size, right = (rank + 1) % size;
  int in[2] = {left, right}, out[2] = {right, left};
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in, MPI_UNWEIGHTED, 2, out, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &dg));
  h.nin = h.nout = 2;
  h.in[0] = left, h.in[1] = right, h.out[0] = right, h.out[1] = left;
  h.from_block[0] = 0, h.from_block[1] = 1;
  check_all(dg, &h, "distributed graph", 0);
  check_all(dg, &h, "distributed graph (nonblocking)", 1);

  /* Without a topology: MPI_ERR_TOPOLOGY. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x = 0, y[MAXN], cls;
  int code = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "Neighbor_allgather without a topology: class %d", cls);

  MPI_Comm_free(&dg);
  MPI_Comm_free(&grid);
  MPI_Comm_free(&ring);
  mt_pass();
  MPI_Finalize();
  return 0;
}
