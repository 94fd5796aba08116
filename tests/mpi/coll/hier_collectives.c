/*
 * Hierarchical collectives (coll/hier) give the results the standard
 * defines on communicators that span hosts, whatever the hosts' order in
 * the communicator: MPI_COMM_WORLD, its reverse, and an interleaving that
 * puts each host's ranks far apart (the hosts being real ones, or each
 * FERRY_COLL_TEST_RANKS_PER_HOST consecutive world ranks). On each:
 * allreduce and reduce (every root, in place, MPI_SUM/MAX/MIN/BAND of
 * int, double, MPI_2INT MAXLOC), scan and exscan (MPI_SUM of int, in
 * place too, MPI_MAX of double), bcast from every root with a strided type
 * on the root's side, allgather into blocks with holes and in place,
 * barrier held by a late rank; counts from 1 element to past the cell
 * (FERRY_COLL_SHM_CELL), so the host phases run in pieces; a
 * non-commutative operation (which keeps the flat path, rank order) and
 * nonblocking calls between the blocking ones (tags in step).
 * Validated against MPICH (mpiexec.mpich -n 1..6) with
 * MPIR_CVAR_DEVICE_COLLECTIVES=none: Debian's MPICH 4 crashes in its own
 * shared-memory MPI_Reduce with MPI_IN_PLACE at a non-zero root (1000 ints).
 */
#define TEST_NAME "hier_collectives"
#include "../mpitest.h"
#include "reduction_check.h"

static int val(int rank, long i) { return (int)((rank + 1) * 1000 + i % 997); }

static void reductions(MPI_Comm comm, const char *name, int count) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *in = rc_alloc(sizeof(int) * (size_t)count), *out = rc_alloc(sizeof(int) * (size_t)count);
  double *din = rc_alloc(sizeof(double) * (size_t)count), *dout = rc_alloc(sizeof(double) * (size_t)count);
  for (int i = 0; i < count; i++) {
    in[i] = val(rank, i);
    din[i] = (double)val(rank, i) * 0.5;
  }
  long base = 0;
  for (int r = 0; r < size; r++) base += (r + 1) * 1000;
  /* allreduce: sums, maxima, minima, bitwise and; in place too */
  MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, comm);
  for (int i = 0; i < count; i++)
    CHECK(out[i] == base + (long)size * (i % 997), "%s: allreduce %d SUM [%d]=%d", name, count, i, out[i]);
  memcpy(out, in, sizeof(int) * (size_t)count);
  MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_INT, MPI_MAX, comm);
  for (int i = 0; i < count; i++)
    CHECK(out[i] == val(size - 1, i), "%s: allreduce in place %d MAX [%d]=%d", name, count, i, out[i]);
  MPI_Allreduce(in, out, count, MPI_INT, MPI_BAND, comm);
  for (int i = 0; i < count; i++) {
    int want = val(0, i);
    for (int r = 1; r < size; r++) want &= val(r, i);
    CHECK(out[i] == want, "%s: allreduce %d BAND [%d]=%d", name, count, i, out[i]);
  }
  MPI_Allreduce(din, dout, count, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < count; i++)
    CHECK(dout[i] == (double)(base + (long)size * (i % 997)) * 0.5, "%s: allreduce %d double SUM [%d]=%g", name,
          count, i, dout[i]);
  rc_check_identical(dout, sizeof(double) * (size_t)count, comm, "hier allreduce double");
  /* MAXLOC of pairs: the value peaks at rank (i % size) */
  int *pairs = rc_alloc(sizeof(int) * 2 * (size_t)count), *pout = rc_alloc(sizeof(int) * 2 * (size_t)count);
  for (int i = 0; i < count; i++) {
    pairs[2 * i] = rank == i % size ? 100 : rank % 3;
    pairs[2 * i + 1] = rank;
  }
  MPI_Allreduce(pairs, pout, count, MPI_2INT, MPI_MAXLOC, comm);
  for (int i = 0; i < count; i++)
    CHECK(pout[2 * i] == 100 && pout[2 * i + 1] == i % size, "%s: allreduce %d MAXLOC [%d]=(%d,%d)", name, count, i,
          pout[2 * i], pout[2 * i + 1]);
  /* reduce to every root; in place at odd roots */
  for (int root = 0; root < size; root++) {
    memset(out, 0, sizeof(int) * (size_t)count);
    if (rank == root && root % 2) {
      memcpy(out, in, sizeof(int) * (size_t)count);
      MPI_Reduce(MPI_IN_PLACE, out, count, MPI_INT, MPI_SUM, root, comm);
    } else {
      MPI_Reduce(in, out, count, MPI_INT, MPI_SUM, root, comm);
    }
    if (rank == root)
      for (int i = 0; i < count; i++)
        CHECK(out[i] == base + (long)size * (i % 997), "%s: reduce %d to %d [%d]=%d", name, count, root, i, out[i]);
    MPI_Reduce(din, dout, count, MPI_DOUBLE, MPI_MIN, root, comm);
    if (rank == root)
      for (int i = 0; i < count; i++)
        CHECK(dout[i] == (double)val(0, i) * 0.5, "%s: reduce %d MIN to %d [%d]=%g", name, count, root, i, dout[i]);
  }
  /* scan and exscan (the chain where each host's ranks are consecutive,
   * recursive doubling in the interleaved order): sums of the ranks up to
   * mine, in place too, and maxima of doubles */
  long upto = 0;  /* sum of (q + 1) * 1000 over ranks q < rank */
  for (int r = 0; r < rank; r++) upto += (r + 1) * 1000;
  MPI_Scan(in, out, count, MPI_INT, MPI_SUM, comm);
  for (int i = 0; i < count; i++)
    CHECK(out[i] == upto + (rank + 1) * 1000 + (long)(rank + 1) * (i % 997), "%s: scan %d SUM [%d]=%d", name, count,
          i, out[i]);
  memcpy(out, in, sizeof(int) * (size_t)count);
  MPI_Scan(MPI_IN_PLACE, out, count, MPI_INT, MPI_SUM, comm);
  for (int i = 0; i < count; i++)
    CHECK(out[i] == upto + (rank + 1) * 1000 + (long)(rank + 1) * (i % 997), "%s: scan in place %d SUM [%d]=%d", name,
          count, i, out[i]);
  for (int i = 0; i < count; i++) out[i] = -7;
  MPI_Exscan(in, out, count, MPI_INT, MPI_SUM, comm);
  for (int i = 0; rank > 0 && i < count; i++)
    CHECK(out[i] == upto + (long)rank * (i % 997), "%s: exscan %d SUM [%d]=%d", name, count, i, out[i]);
  MPI_Exscan(din, dout, count, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; rank > 0 && i < count; i++)
    CHECK(dout[i] == (double)val(rank - 1, i) * 0.5, "%s: exscan %d double MAX [%d]=%g", name, count, i, dout[i]);
  free(pairs); free(pout); free(in); free(out); free(din); free(dout);
}

static void data_movement(MPI_Comm comm, const char *name, int count) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Datatype strided, block;
  MPI_Type_vector(count, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  /* one block of `count` ints with holes, blocks 2 * count ints apart */
  MPI_Type_create_resized(strided, 0, (MPI_Aint)(sizeof(int) * 2 * (size_t)count), &block);
  MPI_Type_commit(&block);
  int *big = rc_alloc(sizeof(int) * 2 * (size_t)count * (size_t)size), *flat = rc_alloc(sizeof(int) * (size_t)count);
  for (int root = 0; root < size; root++) {
    for (int i = 0; i < 2 * count; i++) big[i] = i % 2 ? -1 : val(root + 11, i / 2);
    if (rank == root) {
      MPI_Bcast(big, 1, strided, root, comm);
    } else {
      memset(flat, 0, sizeof(int) * (size_t)count);
      MPI_Bcast(flat, count, MPI_INT, root, comm);
      for (int i = 0; i < count; i++)
        CHECK(flat[i] == val(root + 11, i), "%s: bcast %d from %d: [%d]=%d", name, count, root, i, flat[i]);
    }
  }
  /* allgather into blocks with holes */
  for (int i = 0; i < count; i++) flat[i] = val(rank + 5, i);
  for (size_t i = 0; i < 2 * (size_t)count * (size_t)size; i++) big[i] = -1;
  MPI_Allgather(flat, count, MPI_INT, big, 1, block, comm);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < 2 * count; i++) {
      int want = i % 2 ? -1 : val(r + 5, i / 2);
      CHECK(big[(size_t)r * 2 * count + i] == want, "%s: allgather %d: block %d [%d]=%d", name, count, r, i,
            big[(size_t)r * 2 * count + i]);
    }
  /* in place: my block is already in recvbuf */
  int *all = rc_alloc(sizeof(int) * (size_t)count * (size_t)size);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < count; i++) all[(size_t)r * count + i] = r == rank ? val(r + 9, i) : -3;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, count, MPI_INT, comm);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < count; i++)
      CHECK(all[(size_t)r * count + i] == val(r + 9, i), "%s: allgather in place %d: block %d [%d]=%d", name, count,
            r, i, all[(size_t)r * count + i]);
  free(all); free(big); free(flat);
  MPI_Type_free(&block);
  MPI_Type_free(&strided);
}

/* Barrier holds everyone until the late last rank arrives. */
static void barrier_waits(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  /* 400 ms against a 0.1 s bound: a rank descheduled for a while on a
   * loaded host after the first barrier must not fail the check. */
  if (rank == size - 1) {
    struct timespec pause = {0, 400 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  MPI_Barrier(comm);
  CHECK(MPI_Wtime() - t0 >= 0.1, "%s: MPI_Barrier returned before the last rank entered", name);
  for (int i = 0; i < 100; i++) MPI_Barrier(comm);
}

static void mixed(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* Non-commutative: the flat path, in rank order. */
  MPI_Op matmul;
  MPI_Op_create(rc_matmul_op, 0, &matmul);
  uint64_t m = rc_matrix(rank, 3), p = 0;
  MPI_Allreduce(&m, &p, 1, MPI_UINT64_T, matmul, comm);
  CHECK(p == rc_matrix_product(0, size - 1, 3), "%s: non-commutative allreduce", name);
  MPI_Reduce(&m, &p, 1, MPI_UINT64_T, matmul, size / 2, comm);
  if (rank == size / 2) CHECK(p == rc_matrix_product(0, size - 1, 3), "%s: non-commutative reduce", name);
  MPI_Op_free(&matmul);
  /* Nonblocking calls started before and finished after blocking ones. */
  for (int i = 0; i < 50; i++) {
    int a = rank + i, sa = 0, b = rank, sb = 0, x = i;
    MPI_Request req;
    MPI_Iallreduce(&a, &sa, 1, MPI_INT, MPI_SUM, comm, &req);
    MPI_Allreduce(&b, &sb, 1, MPI_INT, MPI_MAX, comm);
    MPI_Bcast(&x, 1, MPI_INT, i % size, comm);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(sa == size * (size - 1) / 2 + size * i && sb == size - 1 && x == i, "%s: mixed %d: %d %d %d", name, i, sa,
          sb, x);
  }
}

static void run(MPI_Comm comm, const char *name) {
  static const int counts[] = {1, 3, 1000, 5000};
  barrier_waits(comm, name);
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    reductions(comm, name, counts[k]);
    data_movement(comm, name, counts[k]);
  }
  mixed(comm, name);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int wrank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *per = getenv("FERRY_COLL_TEST_RANKS_PER_HOST");
  int per_host = per != NULL && atoi(per) > 0 ? atoi(per) : 2;
  run(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  MPI_Comm reversed, interleaved;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &reversed);
  run(reversed, "reversed");
  /* Rank order: every host's first rank, then every host's second, ... */
  MPI_Comm_split(MPI_COMM_WORLD, 0, (wrank % per_host) * size + wrank / per_host, &interleaved);
  run(interleaved, "interleaved");
  MPI_Comm_free(&interleaved);
  MPI_Comm_free(&reversed);
  MPI_Barrier(MPI_COMM_WORLD);
  mt_pass();
  MPI_Finalize();
  return 0;
}
