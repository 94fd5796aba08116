/*
 * MPI_BOTTOM as the buffer of collectives (MPI-3.1 §4.1.5: the address 0
 * that absolute addresses are relative to). A buffer argument of MPI_BOTTOM
 * is valid wherever the block's data does not start at address 0: the
 * datatype carries absolute addresses (a struct built from MPI_Get_address),
 * or, in the w forms, the byte displacement is the absolute address of a
 * predefined type's data. The data must then move from and to those
 * addresses. mpi4py's testAlltoallwBottom, testNeighborAlltoallwBottom and
 * TestMessageVectorW.testMessageBottom do this.
 *
 * Covered: MPI_Alltoallw (struct types, counts 1, displacements 0; and
 * MPI_INT with absolute byte displacements), MPI_Neighbor_alltoallw on a
 * periodic ring (both ways), MPI_Alltoallv, MPI_Gatherv, MPI_Scatterv,
 * MPI_Allgatherv with a struct type holding one int at an absolute address
 * (each block then lies at displs[i] ints from it), MPI_Reduce,
 * MPI_Allreduce and MPI_Reduce_local with such a type and a user operation
 * that follows the absolute addresses, and MPI_Send/MPI_Recv. A buffer
 * whose data would start at address 0 (NULL with a predefined type and a
 * count, or a v-form block placed at 0) is still refused with
 * MPI_ERR_BUFFER under MPI_ERRORS_RETURN.
 */
#define TEST_NAME "bottom_buffers"
#include "../mpitest.h"

#define N 3 /* ints per block */

static int rank, size;

/* The value rank `r` sends in its block `b`, int `k`. */
static int value(int r, int b, int k) { return 10000 * r + 100 * b + k + 1; }

/* One int at the absolute address of `at`: MPI_BOTTOM plus it is `at`. */
static MPI_Datatype int_at(const int *at) {
  MPI_Aint address;
  MPI_Datatype t;
  int one = 1;
  MPI_Get_address(at, &address);
  MPI_Datatype basic = MPI_INT;
  CHECK_MPI(MPI_Type_create_struct(1, &one, &address, &basic, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

/* N ints at the absolute address of `at`. */
static MPI_Datatype ints_at(const int *at) {
  MPI_Aint address;
  MPI_Datatype t;
  int n = N;
  MPI_Get_address(at, &address);
  MPI_Datatype basic = MPI_INT;
  CHECK_MPI(MPI_Type_create_struct(1, &n, &address, &basic, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

static void check_block(const int *got, int from, int block, const char *what) {
  for (int k = 0; k < N; ++k)
    CHECK(got[k] == value(from, block, k), "%s: int %d of the block from rank %d is %d, expected %d", what, k, from,
          got[k], value(from, block, k));
}

static void fill_send(int *send, int blocks) {
  for (int b = 0; b < blocks; ++b)
    for (int k = 0; k < N; ++k) send[b * N + k] = value(rank, b, k);
}

static void alltoallw_bottom(void) {
  int *send = mt_malloc(sizeof(int) * N * (size_t)size), *recv = mt_malloc(sizeof(int) * N * (size_t)size);
  int *counts = mt_malloc(sizeof(int) * (size_t)size), *displs = mt_malloc(sizeof(int) * (size_t)size);
  MPI_Datatype *stypes = mt_malloc(sizeof(MPI_Datatype) * (size_t)size);
  MPI_Datatype *rtypes = mt_malloc(sizeof(MPI_Datatype) * (size_t)size);

  /* Struct types of absolute addresses, counts 1, displacements 0. */
  fill_send(send, size);
  for (int i = 0; i < size * N; ++i) recv[i] = -1;
  for (int i = 0; i < size; ++i) {
    stypes[i] = ints_at(send + i * N);
    rtypes[i] = ints_at(recv + i * N);
    counts[i] = 1;
    displs[i] = 0;
  }
  CHECK_MPI(MPI_Alltoallw(MPI_BOTTOM, counts, displs, stypes, MPI_BOTTOM, counts, displs, rtypes, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i) check_block(recv + i * N, i, rank, "MPI_Alltoallw, struct types at MPI_BOTTOM");
  for (int i = 0; i < size; ++i) MPI_Type_free(&stypes[i]), MPI_Type_free(&rtypes[i]);

  /* MPI_INT, the byte displacements absolute addresses (MPI_Aint in the
   * large-count form; an int cannot hold an address). */
  MPI_Count *ccounts = mt_malloc(sizeof(MPI_Count) * (size_t)size);
  MPI_Aint *sdispls = mt_malloc(sizeof(MPI_Aint) * (size_t)size), *rdispls = mt_malloc(sizeof(MPI_Aint) * (size_t)size);
  for (int i = 0; i < size * N; ++i) recv[i] = -1;
  for (int i = 0; i < size; ++i) {
    MPI_Get_address(send + i * N, &sdispls[i]);
    MPI_Get_address(recv + i * N, &rdispls[i]);
    stypes[i] = rtypes[i] = MPI_INT;
    ccounts[i] = N;
  }
  CHECK_MPI(MPI_Alltoallw_c(MPI_BOTTOM, ccounts, sdispls, stypes, MPI_BOTTOM, ccounts, rdispls, rtypes,
                            MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i)
    check_block(recv + i * N, i, rank, "MPI_Alltoallw_c, MPI_INT at absolute byte displacements");
  free(ccounts), free(sdispls), free(rdispls);
  free(send), free(recv), free(counts), free(displs), free(stypes), free(rtypes);
}

/* A distributed graph of the ring: in-neighbours (left, right), out-
 * neighbours (right, left), so that in-neighbour j sends its block j here;
 * with fewer than 3 ranks only the first of each (no neighbour twice). */
static void neighbor_alltoallw_bottom(void) {
  MPI_Comm ring;
  const int left = (rank - 1 + size) % size, right = (rank + 1) % size;
  const int sources[2] = {left, right}, destinations[2] = {right, left};
  const int degree = size >= 3 ? 2 : 1;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, sources, MPI_UNWEIGHTED, degree, destinations,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring));
  int send[2 * N], recv[2 * N];
  int counts[2];
  MPI_Aint sdispls[2], rdispls[2];
  MPI_Datatype stypes[2], rtypes[2];

  for (int variant = 0; variant < 2; ++variant) {
    fill_send(send, 2);
    for (int i = 0; i < 2 * N; ++i) recv[i] = -1;
    for (int j = 0; j < 2; ++j) {
      if (variant == 0) { /* MPI_INT at absolute byte displacements (mpi4py's) */
        MPI_Get_address(send + j * N, &sdispls[j]);
        MPI_Get_address(recv + j * N, &rdispls[j]);
        stypes[j] = rtypes[j] = MPI_INT;
        counts[j] = N;
      } else { /* struct types of absolute addresses */
        sdispls[j] = rdispls[j] = 0;
        stypes[j] = ints_at(send + j * N);
        rtypes[j] = ints_at(recv + j * N);
        counts[j] = 1;
      }
    }
    CHECK_MPI(MPI_Neighbor_alltoallw(MPI_BOTTOM, counts, sdispls, stypes, MPI_BOTTOM, counts, rdispls, rtypes,
                                     ring));
    const char *what = variant == 0 ? "MPI_Neighbor_alltoallw, MPI_INT at absolute byte displacements"
                                    : "MPI_Neighbor_alltoallw, struct types at MPI_BOTTOM";
    for (int j = 0; j < degree; ++j) check_block(recv + j * N, sources[j], j, what);
    if (variant == 1)
      for (int j = 0; j < 2; ++j) MPI_Type_free(&stypes[j]), MPI_Type_free(&rtypes[j]);
  }
  MPI_Comm_free(&ring);
}

/* The v forms: one int at an absolute address as the type, so that block i
 * lies displs[i] ints past that address. */
static void v_forms_bottom(void) {
  const size_t ints = (size_t)N * (size_t)size;
  int *send = mt_malloc(sizeof(int) * ints), *recv = mt_malloc(sizeof(int) * ints);
  int *counts = mt_malloc(sizeof(int) * (size_t)size), *displs = mt_malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) counts[i] = N, displs[i] = i * N;
  MPI_Datatype st = int_at(send), rt = int_at(recv);
  const int root = size - 1;

  fill_send(send, size);
  for (size_t i = 0; i < ints; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Alltoallv(MPI_BOTTOM, counts, displs, st, MPI_BOTTOM, counts, displs, rt, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i) check_block(recv + i * N, i, rank, "MPI_Alltoallv at MPI_BOTTOM");

  /* Gatherv: every rank sends its block 0 (send[0..N-1]). */
  for (size_t i = 0; i < ints; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Gatherv(MPI_BOTTOM, N, st, MPI_BOTTOM, counts, displs, rt, root, MPI_COMM_WORLD));
  if (rank == root)
    for (int i = 0; i < size; ++i) check_block(recv + i * N, i, 0, "MPI_Gatherv at MPI_BOTTOM");

  /* Scatterv: the root's block i goes to rank i, into recv[0..N-1]. */
  for (size_t i = 0; i < ints; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Scatterv(MPI_BOTTOM, counts, displs, st, MPI_BOTTOM, N, rt, root, MPI_COMM_WORLD));
  check_block(recv, root, rank, "MPI_Scatterv at MPI_BOTTOM");

  /* Allgatherv: every rank's block 0 into block i everywhere. */
  for (size_t i = 0; i < ints; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Allgatherv(MPI_BOTTOM, N, st, MPI_BOTTOM, counts, displs, rt, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i) check_block(recv + i * N, i, 0, "MPI_Allgatherv at MPI_BOTTOM");

  /* Point-to-point: to the right, from the left. */
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  for (size_t i = 0; i < ints; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Sendrecv(MPI_BOTTOM, N, st, right, 7, MPI_BOTTOM, N, rt, left, 7, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  check_block(recv, left, 0, "MPI_Sendrecv at MPI_BOTTOM");

  MPI_Type_free(&st), MPI_Type_free(&rt);
  free(send), free(recv), free(counts), free(displs);
}

/* A user operation on one int at an absolute address: the buffers it gets
 * are MPI_BOTTOM or scratch laid out as the type says, so the int is at the
 * type's displacement from either. */
static MPI_Aint op_displacement;
static void sum_at(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) {
    const int *a = (const int *)((char *)in + op_displacement + (MPI_Aint)i * (MPI_Aint)sizeof(int));
    int *b = (int *)((char *)inout + op_displacement + (MPI_Aint)i * (MPI_Aint)sizeof(int));
    *b += *a;
  }
}

static void reductions_bottom(void) {
  /* A reduction has one datatype for both buffers: one of them is
   * MPI_BOTTOM with a type whose int lies at the absolute address A of its
   * array, the other is described by the same type from (its array - A). */
  int send[N] = {0}, recv[N] = {0};
  MPI_Datatype st = int_at(send), rt = int_at(recv);
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(sum_at, 1, &op));
  int expected[N];
  for (int k = 0; k < N; ++k) {
    expected[k] = 0;
    for (int r = 0; r < size; ++r) expected[k] += value(r, 0, k);
  }

  /* sendbuf MPI_BOTTOM. */
  MPI_Get_address(send, &op_displacement);
  fill_send(send, 1);
  for (int k = 0; k < N; ++k) recv[k] = -1;
  char *recv_origin = (char *)recv - op_displacement; /* recv_origin + displacement = recv */
  CHECK_MPI(MPI_Allreduce(MPI_BOTTOM, recv_origin, N, st, op, MPI_COMM_WORLD));
  for (int k = 0; k < N; ++k)
    CHECK(recv[k] == expected[k], "MPI_Allreduce from MPI_BOTTOM: int %d is %d, expected %d", k, recv[k],
          expected[k]);

  const int root = 0;
  for (int k = 0; k < N; ++k) recv[k] = -1;
  CHECK_MPI(MPI_Reduce(MPI_BOTTOM, recv_origin, N, st, op, root, MPI_COMM_WORLD));
  if (rank == root)
    for (int k = 0; k < N; ++k)
      CHECK(recv[k] == expected[k], "MPI_Reduce from MPI_BOTTOM: int %d is %d, expected %d", k, recv[k],
            expected[k]);

  /* recvbuf MPI_BOTTOM. */
  MPI_Get_address(recv, &op_displacement);
  for (int k = 0; k < N; ++k) recv[k] = -1;
  char *send_origin = (char *)send - op_displacement;
  CHECK_MPI(MPI_Allreduce(send_origin, MPI_BOTTOM, N, rt, op, MPI_COMM_WORLD));
  for (int k = 0; k < N; ++k)
    CHECK(recv[k] == expected[k], "MPI_Allreduce into MPI_BOTTOM: int %d is %d, expected %d", k, recv[k],
          expected[k]);

  /* MPI_Reduce_local: inoutbuf MPI_BOTTOM (MPICH 4.0.2 crashes on it:
   * Ferry only). */
  if (mt_is_ferry()) {
    for (int k = 0; k < N; ++k) recv[k] = k;
    CHECK_MPI(MPI_Reduce_local(send_origin, MPI_BOTTOM, N, rt, op));
    for (int k = 0; k < N; ++k)
      CHECK(recv[k] == k + value(rank, 0, k), "MPI_Reduce_local into MPI_BOTTOM: int %d is %d, expected %d", k,
            recv[k], k + value(rank, 0, k));
  }

  MPI_Op_free(&op);
  MPI_Type_free(&st), MPI_Type_free(&rt);
}

static void expect_buffer_error(int rc, const char *call, const char *what) {
  mt_expect_error(rc, MPI_ERR_BUFFER, call, what);
}

/* Data at address 0 is still an error. */
static void null_refused(void) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int *buf = mt_malloc(sizeof(int) * N * (size_t)size);
  int *counts = mt_malloc(sizeof(int) * (size_t)size), *displs = mt_malloc(sizeof(int) * (size_t)size);
  MPI_Datatype *types = mt_malloc(sizeof(MPI_Datatype) * (size_t)size);
  for (int i = 0; i < size; ++i) counts[i] = N, displs[i] = 0, types[i] = MPI_INT;

  expect_buffer_error(MPI_Alltoallw(NULL, counts, displs, types, buf, counts, displs, types, comm), "MPI_Alltoallw",
                      "NULL sendbuf, MPI_INT, displacements 0");
  expect_buffer_error(MPI_Alltoallw(buf, counts, displs, types, NULL, counts, displs, types, comm), "MPI_Alltoallw",
                      "NULL recvbuf, MPI_INT, displacements 0");
  expect_buffer_error(MPI_Alltoallv(NULL, counts, displs, MPI_INT, buf, counts, displs, MPI_INT, comm),
                      "MPI_Alltoallv", "NULL sendbuf, MPI_INT, displacements 0");
  expect_buffer_error(MPI_Allgather(NULL, N, MPI_INT, buf, N, MPI_INT, comm), "MPI_Allgather",
                      "NULL sendbuf, MPI_INT");
  expect_buffer_error(MPI_Reduce(NULL, buf, N, MPI_INT, MPI_SUM, 0, comm), "MPI_Reduce", "NULL sendbuf, MPI_INT");
  if (mt_is_ferry()) /* MPICH 4.0.2 does not check, and crashes */
    expect_buffer_error(MPI_Reduce_local(NULL, buf, N, MPI_INT, MPI_SUM), "MPI_Reduce_local", "NULL inbuf, MPI_INT");
  expect_buffer_error(MPI_Send(NULL, N, MPI_INT, rank, 0, comm), "MPI_Send", "NULL buffer, MPI_INT");

  free(buf), free(counts), free(displs), free(types);
  MPI_Comm_free(&comm);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  alltoallw_bottom();
  neighbor_alltoallw_bottom();
  v_forms_bottom();
  reductions_bottom();
  null_refused();

  mt_pass();
  MPI_Finalize();
  return 0;
}
