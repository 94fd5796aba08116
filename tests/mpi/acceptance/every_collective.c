/* Acceptance for the collectives issue: every collective, blocking and
 * nonblocking, on MPI_COMM_WORLD, on a split communicator and on a
 * duplicate, with MPI_IN_PLACE where the standard allows it and a
 * non-commutative user operation (2x2 matrix product, applied in rank
 * order). Every result is compared with a reference computed locally from
 * inputs that are a function of (rank, index). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 5
static int failures = 0;
static const char* where = "";
#define CHECK(cond, ...)                                                 \
  do {                                                                   \
    if (!(cond)) {                                                       \
      if (failures++ < 20) {                                             \
        fprintf(stderr, "every_collective: FAILED (%s): ", where);       \
        fprintf(stderr, __VA_ARGS__);                                    \
        fprintf(stderr, "\n");                                           \
      }                                                                  \
    }                                                                    \
  } while (0)

static int value(int rank, int i) { return rank * 1000 + i; }

/* inout = in * inout for 2x2 matrices (row-major, 4 unsigned per element). */
static void matmul(void* in, void* inout, int* len, MPI_Datatype* type) {
  unsigned* a = in;
  unsigned* b = inout;
  for (int e = 0; e < *len; e++, a += 4, b += 4) {
    unsigned r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                     a[2] * b[1] + a[3] * b[3]};
    memcpy(b, r, sizeof r);
  }
}
static void matrix_of(int rank, unsigned m[4]) {
  m[0] = 1 + rank, m[1] = 2 * rank + 1, m[2] = rank % 3, m[3] = 1;
}
static void matrix_product(int first, int last, unsigned m[4]) { /* M_first * ... * M_last */
  unsigned acc[4] = {1, 0, 0, 1};
  for (int r = first; r <= last; r++) {
    unsigned x[4];
    matrix_of(r, x);
    int one = 1;
    matmul(acc, x, &one, NULL); /* x = acc * x */
    memcpy(acc, x, sizeof acc);
  }
  memcpy(m, acc, sizeof acc);
}

/* Runs `call` blocking or as its nonblocking form followed by MPI_Wait. */
#define RUN(nb, blocking_call, nonblocking_call) \
  do {                                           \
    if (nb) {                                    \
      MPI_Request req_;                          \
      nonblocking_call;                          \
      MPI_Wait(&req_, MPI_STATUS_IGNORE);        \
    } else {                                     \
      blocking_call;                             \
    }                                            \
  } while (0)

static void all_collectives(MPI_Comm comm, int nb, MPI_Op matop, MPI_Datatype mat) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  int root = p - 1;
  int* send = malloc(sizeof(int) * COUNT * p);
  int* recv = malloc(sizeof(int) * COUNT * p);
  int *counts = malloc(sizeof(int) * p), *displs = malloc(sizeof(int) * p);
  int *sdispls = malloc(sizeof(int) * p), *rdispls = malloc(sizeof(int) * p);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * p);

  RUN(nb, MPI_Barrier(comm), MPI_Ibarrier(comm, &req_));

  /* Bcast from the last rank. */
  for (int i = 0; i < COUNT; i++) send[i] = rank == root ? value(root, i) : -1;
  RUN(nb, MPI_Bcast(send, COUNT, MPI_INT, root, comm), MPI_Ibcast(send, COUNT, MPI_INT, root, comm, &req_));
  for (int i = 0; i < COUNT; i++) CHECK(send[i] == value(root, i), "bcast[%d]=%d", i, send[i]);

  /* Reduce (SUM, in place at the root) and Allreduce (in place). */
  for (int i = 0; i < COUNT; i++) recv[i] = value(rank, i);
  if (rank == root)
    RUN(nb, MPI_Reduce(MPI_IN_PLACE, recv, COUNT, MPI_INT, MPI_SUM, root, comm),
        MPI_Ireduce(MPI_IN_PLACE, recv, COUNT, MPI_INT, MPI_SUM, root, comm, &req_));
  else
    RUN(nb, MPI_Reduce(recv, NULL, COUNT, MPI_INT, MPI_SUM, root, comm),
        MPI_Ireduce(recv, NULL, COUNT, MPI_INT, MPI_SUM, root, comm, &req_));
  if (rank == root)
    for (int i = 0; i < COUNT; i++) CHECK(recv[i] == 1000 * p * (p - 1) / 2 + p * i, "reduce[%d]=%d", i, recv[i]);
  for (int i = 0; i < COUNT; i++) recv[i] = value(rank, i);
  RUN(nb, MPI_Allreduce(MPI_IN_PLACE, recv, COUNT, MPI_INT, MPI_MAX, comm),
      MPI_Iallreduce(MPI_IN_PLACE, recv, COUNT, MPI_INT, MPI_MAX, comm, &req_));
  for (int i = 0; i < COUNT; i++) CHECK(recv[i] == value(p - 1, i), "allreduce max[%d]=%d", i, recv[i]);

  /* The non-commutative matrix product, in rank order: Allreduce, Reduce, Scan, Exscan. */
  unsigned m[4], r[4], want[4];
  matrix_of(rank, m);
  RUN(nb, MPI_Allreduce(m, r, 1, mat, matop, comm), MPI_Iallreduce(m, r, 1, mat, matop, comm, &req_));
  matrix_product(0, p - 1, want);
  CHECK(memcmp(r, want, sizeof want) == 0, "matrix allreduce: (%u %u %u %u)", r[0], r[1], r[2], r[3]);
  memset(r, 0, sizeof r);
  RUN(nb, MPI_Reduce(m, r, 1, mat, matop, 0, comm), MPI_Ireduce(m, r, 1, mat, matop, 0, comm, &req_));
  if (rank == 0) CHECK(memcmp(r, want, sizeof want) == 0, "matrix reduce");
  RUN(nb, MPI_Scan(m, r, 1, mat, matop, comm), MPI_Iscan(m, r, 1, mat, matop, comm, &req_));
  matrix_product(0, rank, want);
  CHECK(memcmp(r, want, sizeof want) == 0, "matrix scan");
  RUN(nb, MPI_Exscan(m, r, 1, mat, matop, comm), MPI_Iexscan(m, r, 1, mat, matop, comm, &req_));
  matrix_product(0, rank - 1, want);
  if (rank > 0) CHECK(memcmp(r, want, sizeof want) == 0, "matrix exscan");

  /* Scan in place with SUM. */
  for (int i = 0; i < COUNT; i++) recv[i] = value(rank, i);
  RUN(nb, MPI_Scan(MPI_IN_PLACE, recv, COUNT, MPI_INT, MPI_SUM, comm),
      MPI_Iscan(MPI_IN_PLACE, recv, COUNT, MPI_INT, MPI_SUM, comm, &req_));
  for (int i = 0; i < COUNT; i++)
    CHECK(recv[i] == 1000 * rank * (rank + 1) / 2 + (rank + 1) * i, "scan[%d]=%d", i, recv[i]);

  /* Gather (in place at the root) and Gatherv (rank r sends r+1 ints). */
  for (int q = 0; q < p * COUNT; q++) recv[q] = -1;
  for (int i = 0; i < COUNT; i++) send[i] = value(rank, i);
  if (rank == root) {
    memcpy(recv + root * COUNT, send, sizeof(int) * COUNT);
    RUN(nb, MPI_Gather(MPI_IN_PLACE, COUNT, MPI_INT, recv, COUNT, MPI_INT, root, comm),
        MPI_Igather(MPI_IN_PLACE, COUNT, MPI_INT, recv, COUNT, MPI_INT, root, comm, &req_));
    for (int q = 0; q < p; q++)
      for (int i = 0; i < COUNT; i++) CHECK(recv[q * COUNT + i] == value(q, i), "gather[%d][%d]", q, i);
  } else {
    RUN(nb, MPI_Gather(send, COUNT, MPI_INT, NULL, 0, MPI_INT, root, comm),
        MPI_Igather(send, COUNT, MPI_INT, NULL, 0, MPI_INT, root, comm, &req_));
  }
  int total = 0;
  for (int q = 0; q < p; q++) counts[q] = (q % COUNT) + 1, displs[q] = total, total += counts[q];
  int* big = malloc(sizeof(int) * (total + 1));
  for (int i = 0; i < total; i++) big[i] = -1;
  RUN(nb, MPI_Gatherv(send, counts[rank], MPI_INT, big, counts, displs, MPI_INT, 0, comm),
      MPI_Igatherv(send, counts[rank], MPI_INT, big, counts, displs, MPI_INT, 0, comm, &req_));
  if (rank == 0)
    for (int q = 0; q < p; q++)
      for (int i = 0; i < counts[q]; i++) CHECK(big[displs[q] + i] == value(q, i), "gatherv[%d][%d]", q, i);

  /* Scatter and Scatterv from rank 0 (in place at the root for Scatter). */
  if (rank == 0)
    for (int q = 0; q < p; q++)
      for (int i = 0; i < COUNT; i++) recv[q * COUNT + i] = value(q, i) + 7;
  if (rank == 0)
    RUN(nb, MPI_Scatter(recv, COUNT, MPI_INT, MPI_IN_PLACE, COUNT, MPI_INT, 0, comm),
        MPI_Iscatter(recv, COUNT, MPI_INT, MPI_IN_PLACE, COUNT, MPI_INT, 0, comm, &req_));
  else
    RUN(nb, MPI_Scatter(NULL, 0, MPI_INT, send, COUNT, MPI_INT, 0, comm),
        MPI_Iscatter(NULL, 0, MPI_INT, send, COUNT, MPI_INT, 0, comm, &req_));
  if (rank != 0)
    for (int i = 0; i < COUNT; i++) CHECK(send[i] == value(rank, i) + 7, "scatter[%d]=%d", i, send[i]);
  if (rank == 0)
    for (int q = 0; q < p; q++)
      for (int i = 0; i < counts[q]; i++) big[displs[q] + i] = value(q, i) + 9;
  RUN(nb, MPI_Scatterv(big, counts, displs, MPI_INT, send, counts[rank], MPI_INT, 0, comm),
      MPI_Iscatterv(big, counts, displs, MPI_INT, send, counts[rank], MPI_INT, 0, comm, &req_));
  for (int i = 0; i < counts[rank]; i++) CHECK(send[i] == value(rank, i) + 9, "scatterv[%d]", i);

  /* Allgather (in place) and Allgatherv. */
  for (int i = 0; i < COUNT; i++) recv[rank * COUNT + i] = value(rank, i);
  RUN(nb, MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, COUNT, MPI_INT, comm),
      MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, COUNT, MPI_INT, comm, &req_));
  for (int q = 0; q < p; q++)
    for (int i = 0; i < COUNT; i++) CHECK(recv[q * COUNT + i] == value(q, i), "allgather[%d][%d]", q, i);
  for (int i = 0; i < COUNT; i++) send[i] = value(rank, i);
  RUN(nb, MPI_Allgatherv(send, counts[rank], MPI_INT, big, counts, displs, MPI_INT, comm),
      MPI_Iallgatherv(send, counts[rank], MPI_INT, big, counts, displs, MPI_INT, comm, &req_));
  for (int q = 0; q < p; q++)
    for (int i = 0; i < counts[q]; i++) CHECK(big[displs[q] + i] == value(q, i), "allgatherv[%d][%d]", q, i);

  /* Alltoall (in place), Alltoallv, Alltoallw: block q of rank r is value(r, q). */
  for (int q = 0; q < p; q++) recv[q] = value(rank, q);
  RUN(nb, MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, 1, MPI_INT, comm),
      MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, 1, MPI_INT, comm, &req_));
  for (int q = 0; q < p; q++) CHECK(recv[q] == value(q, rank), "alltoall[%d]=%d", q, recv[q]);
  for (int q = 0; q < p; q++) send[q] = value(rank, q), counts[q] = 1, sdispls[q] = q, rdispls[q] = p - 1 - q;
  RUN(nb, MPI_Alltoallv(send, counts, sdispls, MPI_INT, recv, counts, rdispls, MPI_INT, comm),
      MPI_Ialltoallv(send, counts, sdispls, MPI_INT, recv, counts, rdispls, MPI_INT, comm, &req_));
  for (int q = 0; q < p; q++) CHECK(recv[p - 1 - q] == value(q, rank), "alltoallv[%d]", q);
  for (int q = 0; q < p; q++) sdispls[q] = q * (int)sizeof(int), rdispls[q] = q * (int)sizeof(int), types[q] = MPI_INT;
  RUN(nb, MPI_Alltoallw(send, counts, sdispls, types, recv, counts, rdispls, types, comm),
      MPI_Ialltoallw(send, counts, sdispls, types, recv, counts, rdispls, types, comm, &req_));
  for (int q = 0; q < p; q++) CHECK(recv[q] == value(q, rank), "alltoallw[%d]", q);

  /* Reduce_scatter (rank q gets q+1 elements) and Reduce_scatter_block (in place). */
  int rs_total = 0;
  for (int q = 0; q < p; q++) counts[q] = q + 1, rs_total += q + 1;
  int* rs = malloc(sizeof(int) * rs_total);
  for (int i = 0; i < rs_total; i++) rs[i] = value(rank, i);
  RUN(nb, MPI_Reduce_scatter(rs, recv, counts, MPI_INT, MPI_SUM, comm),
      MPI_Ireduce_scatter(rs, recv, counts, MPI_INT, MPI_SUM, comm, &req_));
  int offset = rank * (rank + 1) / 2;
  for (int i = 0; i < counts[rank]; i++)
    CHECK(recv[i] == 1000 * p * (p - 1) / 2 + p * (offset + i), "reduce_scatter[%d]=%d", i, recv[i]);
  for (int i = 0; i < p * COUNT; i++) recv[i] = value(rank, i);
  RUN(nb, MPI_Reduce_scatter_block(MPI_IN_PLACE, recv, COUNT, MPI_INT, MPI_SUM, comm),
      MPI_Ireduce_scatter_block(MPI_IN_PLACE, recv, COUNT, MPI_INT, MPI_SUM, comm, &req_));
  for (int i = 0; i < COUNT; i++)
    CHECK(recv[i] == 1000 * p * (p - 1) / 2 + p * (rank * COUNT + i), "reduce_scatter_block[%d]", i);

  free(rs), free(big), free(send), free(recv), free(counts), free(displs), free(sdispls), free(rdispls),
      free(types);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op matop;
  MPI_Op_create(matmul, 0, &matop);
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
  MPI_Type_commit(&mat);

  MPI_Comm halves, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &halves); /* reversed order inside each half */
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  const char* names[3] = {"MPI_COMM_WORLD", "split", "dup"};
  MPI_Comm comms[3] = {MPI_COMM_WORLD, halves, dup};
  char label[64];
  for (int c = 0; c < 3; c++)
    for (int nb = 0; nb < 2; nb++) {
      snprintf(label, sizeof label, "%s, %s", names[c], nb ? "nonblocking" : "blocking");
      where = label;
      all_collectives(comms[c], nb, matop, mat);
    }

  /* Several nonblocking collectives outstanding at once on one communicator. */
  where = "overlapping nonblocking";
  int a = rank, b = 0, c[1] = {rank}, sum = 0;
  MPI_Request reqs[3];
  MPI_Iallreduce(&a, &sum, 1, MPI_INT, MPI_SUM, dup, &reqs[0]);
  if (rank == 0) b = 42;
  MPI_Ibcast(&b, 1, MPI_INT, 0, dup, &reqs[1]);
  MPI_Ibarrier(dup, &reqs[2]);
  MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
  CHECK(sum == size * (size - 1) / 2 && b == 42, "sum %d b %d", sum, b);
  (void)c;

  MPI_Comm_free(&halves);
  MPI_Comm_free(&dup);
  MPI_Type_free(&mat);
  MPI_Op_free(&matop);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("every_collective: OK on %d ranks\n", size);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
