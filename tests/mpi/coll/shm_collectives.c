/*
 * The shared-memory collectives (coll/shm) give the results the standard
 * defines, on the communicators a program makes: MPI_COMM_WORLD, a
 * duplicate, a split into even and odd ranks numbered in reverse, a subset
 * (the lower half, MPI_Comm_create), and two communicators used in turns
 * (their segments side by side). On each: barrier; bcast, gather, scatter,
 * allgather, alltoall of ints through a vector datatype on one side and
 * MPI_INT on the other, from every root, in place where allowed; reduce
 * and allreduce with every (datatype, operation) pair MPI_Reduce_local
 * accepts, the result compared with a rank-order fold of every rank's
 * input (so shared memory's rank-order combine must match it bit for bit),
 * and a non-commutative user operation. Counts below and above the cell
 * (FERRY_COLL_SHM_CELL, 16 KiB), so both sides of the threshold run; many
 * operations in a row, so both slots of each cell are reused.
 */
#define TEST_NAME "shm_collectives"
#include "../mpitest.h"
#include "reduction_check.h"
#include "reduction_pairs.h"

static int wrank;

/* --- Data movement ------------------------------------------------------- */
static int val(int rank, int i) { return rank * 100003 + i * 7 + 1; }

static void data_movement(MPI_Comm comm, const char *name, int count) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* `count` ints as a vector of stride 2 (holes must survive). */
  MPI_Datatype strided;
  MPI_Type_vector(count, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int *big = rc_alloc(sizeof(int) * (size_t)count * 2 * (size_t)size);
  int *flat = rc_alloc(sizeof(int) * (size_t)count * (size_t)size);
  for (int root = 0; root < size; root++) {
    /* bcast: root sends strided, others receive flat. */
    for (int i = 0; i < 2 * count; i++) big[i] = i % 2 ? -1 : val(root, i / 2);
    if (rank == root) MPI_Bcast(big, 1, strided, root, comm);
    else {
      MPI_Bcast(flat, count, MPI_INT, root, comm);
      for (int i = 0; i < count; i++)
        CHECK(flat[i] == val(root, i), "%s: bcast %d from %d: [%d]=%d", name, count, root, i, flat[i]);
    }
    /* gather: everyone sends flat; root receives. */
    for (int i = 0; i < count; i++) flat[i] = val(rank, i);
    memset(big, 0, sizeof(int) * (size_t)count * (size_t)size);
    MPI_Gather(flat, count, MPI_INT, big, count, MPI_INT, root, comm);
    if (rank == root)
      for (int r = 0; r < size; r++)
        for (int i = 0; i < count; i++)
          CHECK(big[r * count + i] == val(r, i), "%s: gather %d to %d: block %d [%d]=%d", name, count, root, r, i,
                big[r * count + i]);
    /* gather in place at the root */
    if (rank == root) {
      for (int r = 0; r < size; r++)
        for (int i = 0; i < count; i++) big[r * count + i] = r == root ? val(r, i) : 0;
      MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, big, count, MPI_INT, root, comm);
      for (int r = 0; r < size; r++)
        for (int i = 0; i < count; i++)
          CHECK(big[r * count + i] == val(r, i), "%s: gather in place %d: block %d [%d]", name, count, r, i);
    } else {
      MPI_Gather(flat, count, MPI_INT, NULL, 0, MPI_INT, root, comm);
    }
    /* scatter: root sends block r = val(r, i). */
    if (rank == root)
      for (int r = 0; r < size; r++)
        for (int i = 0; i < count; i++) big[r * count + i] = val(r + 7, i);
    memset(flat, 0, sizeof(int) * (size_t)count);
    MPI_Scatter(big, count, MPI_INT, flat, count, MPI_INT, root, comm);
    for (int i = 0; i < count; i++)
      CHECK(flat[i] == val(rank + 7, i), "%s: scatter %d from %d: [%d]=%d", name, count, root, i, flat[i]);
  }
  /* allgather into strided blocks... through flat (types differ per side) */
  for (int i = 0; i < count; i++) flat[i] = val(rank, i);
  int *all = rc_alloc(sizeof(int) * (size_t)count * (size_t)size);
  MPI_Allgather(flat, count, MPI_INT, all, count, MPI_INT, comm);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < count; i++)
      CHECK(all[r * count + i] == val(r, i), "%s: allgather %d: block %d [%d]=%d", name, count, r, i, all[r * count + i]);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < count; i++) all[r * count + i] = r == rank ? val(r + 3, i) : -7;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, count, MPI_INT, comm);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < count; i++)
      CHECK(all[r * count + i] == val(r + 3, i), "%s: allgather in place %d: block %d [%d]", name, count, r, i);
  /* alltoall: block j from rank r is val(r * size + j, i) */
  for (int j = 0; j < size; j++)
    for (int i = 0; i < count; i++) big[j * count + i] = val(rank * size + j, i);
  MPI_Alltoall(big, count, MPI_INT, all, count, MPI_INT, comm);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < count; i++)
      CHECK(all[r * count + i] == val(r * size + rank, i), "%s: alltoall %d: block %d [%d]", name, count, r, i);
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, big, count, MPI_INT, comm);
  for (int r = 0; r < size; r++)
    for (int i = 0; i < count; i++)
      CHECK(big[r * count + i] == val(r * size + rank, i), "%s: alltoall in place %d: block %d [%d]", name, count, r, i);
  free(all);
  free(big);
  free(flat);
  MPI_Type_free(&strided);
}

/* --- Reductions: every pair MPI_Reduce_local takes (reduction_pairs.h) -- */
struct named_comm { MPI_Comm comm; const char *name; };

/* One pair: allreduce, in place and not, and reduce to a root that rotates
 * with the pair (in place there for every other type) all give the
 * rank-order fold, x0 op (x1 op (...)). */
static void reduce_pair(const struct rp_pair *p, void *context) {
  const struct named_comm *on = context;
  memset(p->out, 0, p->bytes);
  CHECK_MPI(MPI_Allreduce(p->in, p->out, p->count, p->t->type, p->op, on->comm));
  CHECK(rp_out_is_ref(p), "%s: allreduce %d x %s %s differs", on->name, p->count, p->t->name, p->op_name);
  memcpy(p->out, p->in, p->bytes);
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, p->out, p->count, p->t->type, p->op, on->comm));
  CHECK(rp_out_is_ref(p), "%s: allreduce in place %d x %s %s differs", on->name, p->count, p->t->name, p->op_name);
  int root = (int)(p->ti + p->oi) % p->size;
  memset(p->out, 0, p->bytes);
  if (p->rank == root && (p->ti % 2)) {
    memcpy(p->out, p->in, p->bytes);
    CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, p->out, p->count, p->t->type, p->op, root, on->comm));
  } else {
    CHECK_MPI(MPI_Reduce(p->in, p->out, p->count, p->t->type, p->op, root, on->comm));
  }
  if (p->rank == root)
    CHECK(rp_out_is_ref(p), "%s: reduce %d x %s %s to %d differs", on->name, p->count, p->t->name, p->op_name, root);
}

static void reductions(MPI_Comm comm, const char *name, int count) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* A pair Reduce_local refuses is not one the host path supports. */
  rp_for_each_pair(count, rank, size, reduce_pair, &(struct named_comm){comm, name});
  /* Non-commutative: the matrix product in rank order. */
  MPI_Op matmul;
  MPI_Op_create(rc_matmul_op, 0, &matmul);
  uint64_t *m = rc_alloc(sizeof(uint64_t) * (size_t)count), *p = rc_alloc(sizeof(uint64_t) * (size_t)count);
  for (int i = 0; i < count; i++) m[i] = rc_matrix(rank, i);
  MPI_Allreduce(m, p, count, MPI_UINT64_T, matmul, comm);
  for (int i = 0; i < count; i++)
    CHECK(p[i] == rc_matrix_product(0, size - 1, i), "%s: non-commutative allreduce %d: [%d]", name, count, i);
  MPI_Reduce(m, p, count, MPI_UINT64_T, matmul, size - 1, comm);
  if (rank == size - 1)
    for (int i = 0; i < count; i++)
      CHECK(p[i] == rc_matrix_product(0, size - 1, i), "%s: non-commutative reduce %d: [%d]", name, count, i);
  MPI_Op_free(&matmul);
  free(m); free(p);
}

/* Barrier holds everyone until the late rank 0 arrives. */
static void barrier_waits(MPI_Comm comm, const char *name) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  if (rank == 0) {
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  MPI_Barrier(comm);
  CHECK(MPI_Wtime() - t0 >= 0.1, "%s: MPI_Barrier returned before rank 0 entered", name);
  for (int i = 0; i < 200; i++) MPI_Barrier(comm);
}

static void run(MPI_Comm comm, const char *name) {
  static const int counts[] = {1, 7, 100, 5000};
  barrier_waits(comm, name);
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    data_movement(comm, name, counts[k]);
    if (counts[k] <= 100) reductions(comm, name, counts[k]);
  }
  /* Many small operations in a row: both slots of every cell reused. */
  int rank, size, x, sum;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int i = 0; i < 500; i++) {
    x = rank + i;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm);
    CHECK(sum == size * (size - 1) / 2 + size * i, "%s: allreduce %d: %d", name, i, sum);
    x = i % 2 ? i : -i;
    MPI_Bcast(&x, 1, MPI_INT, i % size, comm);
    CHECK(x == (i % 2 ? i : -i), "%s: bcast %d: %d", name, i, x);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  MPI_Comm dup, split, lower, other;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  run(dup, "a duplicate");
  MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, size - wrank, &split);
  run(split, wrank % 2 ? "odd ranks, reversed" : "even ranks, reversed");
  MPI_Group world_group, lower_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int half[1][3] = {{0, (size - 1) / 2, 1}};
  MPI_Group_range_incl(world_group, 1, half, &lower_group);
  MPI_Comm_create(MPI_COMM_WORLD, lower_group, &lower);
  if (lower != MPI_COMM_NULL) {
    run(lower, "the lower half");
    MPI_Comm_free(&lower);
  }
  /* Two communicators in turns. */
  MPI_Comm_dup(dup, &other);
  for (int i = 0; i < 300; i++) {
    int a = wrank + i, b = 2 * wrank, sa, sb;
    MPI_Allreduce(&a, &sa, 1, MPI_INT, MPI_SUM, i % 2 ? dup : other);
    MPI_Allreduce(&b, &sb, 1, MPI_INT, MPI_MAX, i % 2 ? other : dup);
    CHECK(sa == size * (size - 1) / 2 + size * i && sb == 2 * (size - 1), "interleaved allreduce %d: %d %d", i, sa, sb);
    MPI_Barrier(i % 3 ? dup : other);
  }
  MPI_Comm_free(&other);
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup);
  MPI_Group_free(&lower_group);
  MPI_Group_free(&world_group);
  MPI_Barrier(MPI_COMM_WORLD);
  mt_pass();
  MPI_Finalize();
  return 0;
}
