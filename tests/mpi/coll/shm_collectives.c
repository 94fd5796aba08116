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

#include <complex.h>
#include <stdbool.h>

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

/* --- Reductions: every pair MPI_Reduce_local takes -------------------------- */
typedef struct { float v; int k; } float_int;
typedef struct { double v; int k; } double_int;
typedef struct { long v; int k; } long_int;
typedef struct { short v; int k; } short_int;
typedef struct { long double v; int k; } long_double_int;
typedef struct { int v; int k; } two_int;

enum kind { SINT, UINT, FLT, DBL, LDBL, BOOL, CFLT, CDBL, PAIR };
struct type_info { MPI_Datatype type; const char *name; enum kind kind; size_t size; int pair; };

#define T(t, k, c) {t, #t, k, sizeof(c), 0}
static struct type_info types[] = {
    T(MPI_SIGNED_CHAR, SINT, signed char), T(MPI_UNSIGNED_CHAR, UINT, unsigned char), T(MPI_SHORT, SINT, short),
    T(MPI_UNSIGNED_SHORT, UINT, unsigned short), T(MPI_INT, SINT, int), T(MPI_UNSIGNED, UINT, unsigned),
    T(MPI_LONG, SINT, long), T(MPI_UNSIGNED_LONG, UINT, unsigned long), T(MPI_LONG_LONG, SINT, long long),
    T(MPI_UNSIGNED_LONG_LONG, UINT, unsigned long long), T(MPI_INT8_T, SINT, int8_t), T(MPI_INT16_T, SINT, int16_t),
    T(MPI_INT32_T, SINT, int32_t), T(MPI_INT64_T, SINT, int64_t), T(MPI_UINT8_T, UINT, uint8_t),
    T(MPI_UINT16_T, UINT, uint16_t), T(MPI_UINT32_T, UINT, uint32_t), T(MPI_UINT64_T, UINT, uint64_t),
    T(MPI_AINT, SINT, MPI_Aint), T(MPI_OFFSET, SINT, MPI_Offset), T(MPI_COUNT, SINT, MPI_Count),
    T(MPI_FLOAT, FLT, float), T(MPI_DOUBLE, DBL, double), T(MPI_LONG_DOUBLE, LDBL, long double),
    T(MPI_C_BOOL, BOOL, bool), T(MPI_BYTE, UINT, unsigned char),
    T(MPI_C_FLOAT_COMPLEX, CFLT, float _Complex), T(MPI_C_DOUBLE_COMPLEX, CDBL, double _Complex),
    {MPI_2INT, "MPI_2INT", PAIR, sizeof(two_int), 1}, {MPI_FLOAT_INT, "MPI_FLOAT_INT", PAIR, sizeof(float_int), 2},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", PAIR, sizeof(double_int), 3}, {MPI_LONG_INT, "MPI_LONG_INT", PAIR, sizeof(long_int), 4},
    {MPI_SHORT_INT, "MPI_SHORT_INT", PAIR, sizeof(short_int), 5},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", PAIR, sizeof(long_double_int), 6},
};
static struct { MPI_Op op; const char *name; } ops[] = {
    {MPI_SUM, "MPI_SUM"}, {MPI_PROD, "MPI_PROD"}, {MPI_MIN, "MPI_MIN"}, {MPI_MAX, "MPI_MAX"},
    {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"}, {MPI_LXOR, "MPI_LXOR"}, {MPI_BAND, "MPI_BAND"},
    {MPI_BOR, "MPI_BOR"}, {MPI_BXOR, "MPI_BXOR"}, {MPI_MINLOC, "MPI_MINLOC"}, {MPI_MAXLOC, "MPI_MAXLOC"},
};

/* Small values (1..3) so that sums and products over 8 ranks are exact in
 * every type; location pairs carry the rank as their index. */
static void fill_input(const struct type_info *t, void *buf, int count, int rank) {
  for (int i = 0; i < count; i++) {
    int v = 1 + (rank * 5 + i) % 3;
    char *e = (char *)buf + (size_t)i * t->size;
    switch (t->kind) {
      case SINT: case UINT:
        memset(e, 0, t->size);
        if (t->size == 1) *(unsigned char *)e = (unsigned char)v;
        else if (t->size == 2) *(uint16_t *)e = (uint16_t)v;
        else if (t->size == 4) *(uint32_t *)e = (uint32_t)v;
        else *(uint64_t *)e = (uint64_t)v;
        if (t->type == MPI_BYTE) *(unsigned char *)e = (unsigned char)(v << (rank % 6));
        break;
      case FLT: *(float *)e = (float)v; break;
      case DBL: *(double *)e = v; break;
      case LDBL: memset(e, 0, t->size); *(long double *)e = v; break;
      case BOOL: *(bool *)e = (v + rank) % 2; break;
      case CFLT: *(float _Complex *)e = (float)v + (float)((rank + i) % 2) * I; break;
      case CDBL: *(double _Complex *)e = v + ((rank + i) % 2) * I; break;
      case PAIR:
        memset(e, 0, t->size);
        switch (t->pair) {
          case 1: ((two_int *)e)->v = v; ((two_int *)e)->k = rank; break;
          case 2: ((float_int *)e)->v = (float)v; ((float_int *)e)->k = rank; break;
          case 3: ((double_int *)e)->v = v; ((double_int *)e)->k = rank; break;
          case 4: ((long_int *)e)->v = v; ((long_int *)e)->k = rank; break;
          case 5: ((short_int *)e)->v = (short)v; ((short_int *)e)->k = rank; break;
          default: ((long_double_int *)e)->v = v; ((long_double_int *)e)->k = rank; break;
        }
        break;
    }
  }
}

/* Packed bytes (the data without padding), to compare two buffers. */
static int same_data(const void *a, const void *b, int count, MPI_Datatype type, char *pa, char *pb, int cap) {
  int pos = 0;
  MPI_Pack(a, count, type, pa, cap, &pos, MPI_COMM_SELF);
  int pos2 = 0;
  MPI_Pack(b, count, type, pb, cap, &pos2, MPI_COMM_SELF);
  return pos == pos2 && memcmp(pa, pb, (size_t)pos) == 0;
}

static void reductions(MPI_Comm comm, const char *name, int count) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  size_t bytes = (size_t)count * 32;
  char *in = rc_alloc(bytes), *out = rc_alloc(bytes), *ref = rc_alloc(bytes), *tmp = rc_alloc(bytes);
  char *pa = rc_alloc(bytes * 2), *pb = rc_alloc(bytes * 2);
  int pairs = 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    const struct type_info *t = &types[ti];
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
      /* Reference: the fold in rank order, x0 op (x1 op (...)). A pair
       * Reduce_local refuses is not one the host path supports. */
      fill_input(t, ref, count, size - 1);
      int ok = 1;
      for (int r = size - 2; r >= 0 && ok; r--) {
        fill_input(t, tmp, count, r);
        ok = MPI_Reduce_local(tmp, ref, count, t->type, ops[oi].op) == MPI_SUCCESS;
      }
      if (size == 1) {
        fill_input(t, tmp, count, 0);
        ok = MPI_Reduce_local(tmp, tmp, count, t->type, ops[oi].op) == MPI_SUCCESS;
      }
      if (!ok) continue;
      pairs++;
      fill_input(t, in, count, rank);
      memset(out, 0, bytes);
      CHECK_MPI(MPI_Allreduce(in, out, count, t->type, ops[oi].op, comm));
      CHECK(same_data(out, ref, count, t->type, pa, pb, (int)bytes * 2), "%s: allreduce %d x %s %s differs", name,
            count, t->name, ops[oi].name);
      memcpy(out, in, bytes);
      CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, count, t->type, ops[oi].op, comm));
      CHECK(same_data(out, ref, count, t->type, pa, pb, (int)bytes * 2), "%s: allreduce in place %d x %s %s differs",
            name, count, t->name, ops[oi].name);
      int root = (int)(ti + oi) % size;
      memset(out, 0, bytes);
      if (rank == root && (ti % 2)) {
        memcpy(out, in, bytes);
        CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, out, count, t->type, ops[oi].op, root, comm));
      } else {
        CHECK_MPI(MPI_Reduce(in, out, count, t->type, ops[oi].op, root, comm));
      }
      if (rank == root)
        CHECK(same_data(out, ref, count, t->type, pa, pb, (int)bytes * 2), "%s: reduce %d x %s %s to %d differs",
              name, count, t->name, ops[oi].name, root);
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK(pairs >= 100, "only %d (datatype, op) pairs accepted", pairs);
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
  free(m); free(p); free(in); free(out); free(ref); free(tmp); free(pa); free(pb);
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
