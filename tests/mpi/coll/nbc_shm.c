/*
 * Nonblocking collectives through shared memory (coll/shm/started.h) give
 * the results the standard defines, whatever order the program waits for
 * them in (MPI-3.1 §5.12: outstanding nonblocking collectives on one
 * communicator are matched in the order they were started, and may be
 * completed in any order). On MPI_COMM_WORLD, a duplicate and a split in
 * reverse order (each first used by a blocking call, which makes its
 * segment):
 *   - rounds of MPI_Ibarrier, MPI_Ibcast (every root), MPI_Ireduce (every
 *     root, in place at the root), MPI_Iallreduce (in place too) with a
 *     blocking MPI_Allreduce and MPI_Bcast between the starts, waited for
 *     in reverse order, or with MPI_Testall, or one by one with MPI_Test;
 *   - every (datatype, op) pair MPI_Reduce_local accepts, through
 *     MPI_Iallreduce (and in place) and MPI_Ireduce, all of a datatype's
 *     calls outstanding at once and waited for from the last;
 *   - a non-commutative user operation freed, and a derived datatype
 *     freed, before the calls that use them complete;
 *   - MPI_Ibcast of a strided (non-contiguous) datatype, and of 0 bytes;
 *   - MPI_Igather, MPI_Iscatter, MPI_Iallgather and MPI_Ialltoall from
 *     every root, through a vector type on the send side or in place,
 *     all four outstanding at once, counts below and above the cell;
 *   - more calls outstanding at once than any queue had before (64);
 *   - calls above the cell (16 KiB) between small ones (message schedules).
 * `--quick` runs the rounds on MPI_COMM_WORLD only (for the FERRY_DEBUG run).
 */
#define TEST_NAME "nbc_shm"
#include "../mpitest.h"
#include "reduction_check.h"
#include "reduction_pairs.h"

static int quick;

/* --- Rounds of mixed calls ------------------------------------------------ */
enum { kCalls = 8 };

static void rounds(MPI_Comm comm, const char *name, int n_rounds) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int i = 0; i < n_rounds; i++) {
    MPI_Request req[kCalls];
    int nreq = 0;
    int x = rank + i, sum = -1, inplace = rank * 2 + i, bc = rank == i % size ? 1000 + i : -1;
    long red[3] = {rank, rank * 10 + i, -rank}, red_out[3] = {-1, -1, -1};
    double big_in[3000], big_out[3000]; /* 24000 B: above the cell, by messages */
    int root_b = i % size, root_r = (i * 7 + 3) % size;
    CHECK_MPI(MPI_Ibarrier(comm, &req[nreq++]));
    CHECK_MPI(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm, &req[nreq++]));
    CHECK_MPI(MPI_Ibcast(&bc, 1, MPI_INT, root_b, comm, &req[nreq++]));
    /* Blocking calls between the starts: their flags come after these. */
    int y = rank, ysum = -1;
    CHECK_MPI(MPI_Allreduce(&y, &ysum, 1, MPI_INT, MPI_MAX, comm));
    CHECK(ysum == size - 1, "%s: round %d: blocking allreduce between starts: %d", name, i, ysum);
    if (rank == root_r && i % 2) {
      memcpy(red_out, red, sizeof red);
      CHECK_MPI(MPI_Ireduce(MPI_IN_PLACE, red_out, 3, MPI_LONG, MPI_SUM, root_r, comm, &req[nreq++]));
    } else {
      CHECK_MPI(MPI_Ireduce(red, red_out, 3, MPI_LONG, MPI_SUM, root_r, comm, &req[nreq++]));
    }
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, &inplace, 1, MPI_INT, MPI_MIN, comm, &req[nreq++]));
    int by = rank == (i + 1) % size ? 77 + i : 0;
    CHECK_MPI(MPI_Bcast(&by, 1, MPI_INT, (i + 1) % size, comm));
    CHECK(by == 77 + i, "%s: round %d: blocking bcast between starts: %d", name, i, by);
    if (i % 4 == 0) {
      for (int k = 0; k < 3000; k++) big_in[k] = rank + k;
      CHECK_MPI(MPI_Iallreduce(big_in, big_out, 3000, MPI_DOUBLE, MPI_SUM, comm, &req[nreq++]));
    }
    CHECK_MPI(MPI_Ibarrier(comm, &req[nreq++]));
    /* Waits: reverse order, Testall, or one at a time by MPI_Test from the last. */
    if (i % 3 == 0) {
      for (int k = nreq - 1; k >= 0; k--) CHECK_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    } else if (i % 3 == 1) {
      int done = 0;
      while (!done) CHECK_MPI(MPI_Testall(nreq, req, &done, MPI_STATUSES_IGNORE));
    } else {
      for (int k = nreq - 1; k >= 0; k--) {
        int done = 0;
        while (!done) CHECK_MPI(MPI_Test(&req[k], &done, MPI_STATUS_IGNORE));
      }
    }
    CHECK(sum == size * (size - 1) / 2 + size * i, "%s: round %d: iallreduce %d", name, i, sum);
    CHECK(bc == 1000 + i, "%s: round %d: ibcast from %d: %d", name, i, root_b, bc);
    CHECK(inplace == i, "%s: round %d: iallreduce in place: %d", name, i, inplace);
    if (rank == root_r) {
      long want1 = 0;
      for (int r = 0; r < size; r++) want1 += r * 10 + i;
      CHECK(red_out[0] == (long)size * (size - 1) / 2 && red_out[1] == want1 &&
                red_out[2] == -(long)size * (size - 1) / 2,
            "%s: round %d: ireduce to %d: %ld %ld %ld", name, i, root_r, red_out[0], red_out[1], red_out[2]);
    }
    if (i % 4 == 0)
      for (int k = 0; k < 3000; k += 999)
        CHECK(big_out[k] == (double)size * (size - 1) / 2 + (double)size * k, "%s: round %d: large iallreduce [%d]",
              name, i, k);
  }
}

/* --- Gather, scatter, allgather, alltoall, all outstanding at once --------- */
static int val(int rank, int i) { return rank * 100003 + i * 7 + 1; }

/* Each call's receive side takes MPI_INT; the send side every other int of
 * a buffer twice as long (a vector type) on odd rounds. Every root; in
 * place where allowed (the root of a gather and a scatter, allgather and
 * alltoall on even roots). */
static void movement(MPI_Comm comm, const char *name, int count) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t all = (size_t)count * (size_t)size;
  /* One block: every other int of 2 x count (extent 2 x count ints). */
  MPI_Datatype vector, strided;
  MPI_Type_vector(count, 1, 2, MPI_INT, &vector);
  MPI_Type_create_resized(vector, 0, (MPI_Aint)(2 * sizeof(int) * (size_t)count), &strided);
  MPI_Type_commit(&strided);
  MPI_Type_free(&vector);
  int *own = mt_malloc(sizeof(int) * 2 * all), *g = mt_malloc(sizeof(int) * all), *sc = mt_malloc(sizeof(int) * all);
  int *ag = mt_malloc(sizeof(int) * all), *aa = mt_malloc(sizeof(int) * all), *src = mt_malloc(sizeof(int) * 2 * all);
  for (int root = 0; root < size; root++) {
    const int in_place = root % 2 == 0, vec = root % 2 == 1;
    MPI_Request req[4];
    /* The send side: block b of rank `rank` holds val(rank, b * count + i). */
    for (size_t i = 0; i < all; i++) {
      own[2 * i] = val(rank, (int)i);
      own[2 * i + 1] = -7;
      src[i] = val(rank, (int)i);
    }
    for (size_t i = 0; i < all; i++) g[i] = sc[i] = ag[i] = aa[i] = -1;
    /* Gather: rank r's block (val(r, 0..count-1)) to block r of the root. */
    if (rank == root && in_place) {
      for (int i = 0; i < count; i++) g[(size_t)root * count + i] = val(root, i);
      CHECK_MPI(MPI_Igather(MPI_IN_PLACE, count, MPI_INT, g, count, MPI_INT, root, comm, &req[0]));
    } else if (vec) {
      CHECK_MPI(MPI_Igather(own, 1, strided, g, count, MPI_INT, root, comm, &req[0]));
    } else {
      CHECK_MPI(MPI_Igather(src, count, MPI_INT, g, count, MPI_INT, root, comm, &req[0]));
    }
    /* Scatter: the root's block r to rank r. */
    if (rank == root && in_place) {
      CHECK_MPI(MPI_Iscatter(src, count, MPI_INT, MPI_IN_PLACE, count, MPI_INT, root, comm, &req[1]));
    } else if (vec) {
      CHECK_MPI(MPI_Iscatter(own, 1, strided, sc, count, MPI_INT, root, comm, &req[1]));
    } else {
      CHECK_MPI(MPI_Iscatter(src, count, MPI_INT, sc, count, MPI_INT, root, comm, &req[1]));
    }
    /* Allgather and alltoall (in place on even roots: the input in recvbuf). */
    if (in_place) {
      for (int i = 0; i < count; i++) ag[(size_t)rank * count + i] = val(rank, i);
      CHECK_MPI(MPI_Iallgather(MPI_IN_PLACE, count, MPI_INT, ag, count, MPI_INT, comm, &req[2]));
      for (size_t i = 0; i < all; i++) aa[i] = val(rank, (int)i);
      CHECK_MPI(MPI_Ialltoall(MPI_IN_PLACE, count, MPI_INT, aa, count, MPI_INT, comm, &req[3]));
    } else {
      CHECK_MPI(MPI_Iallgather(own, 1, strided, ag, count, MPI_INT, comm, &req[2]));
      CHECK_MPI(MPI_Ialltoall(src, count, MPI_INT, aa, count, MPI_INT, comm, &req[3]));
    }
    for (int k = 3; k >= 0; k--) CHECK_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    for (int r = 0; r < size; r++)
      for (int i = 0; i < count; i++) {
        const size_t at = (size_t)r * count + i;
        if (rank == root) CHECK(g[at] == val(r, i), "%s: igather %d from %d to %d: [%zu] = %d", name, count, r, root, at, g[at]);
        CHECK(ag[at] == val(r, i), "%s: iallgather %d (round %d): [%zu] = %d", name, count, root, at, ag[at]);
        CHECK(aa[at] == val(r, rank * count + i), "%s: ialltoall %d (round %d): [%zu] = %d", name, count, root, at,
              aa[at]);
      }
    for (int i = 0; i < count; i++) {
      const int want = val(root, rank * count + i);
      const int got = rank == root && in_place ? src[(size_t)root * count + i] : sc[i];
      CHECK(got == want, "%s: iscatter %d from %d: [%d] = %d", name, count, root, i, got);
    }
  }
  MPI_Type_free(&strided);
  free(own); free(g); free(sc); free(ag); free(aa); free(src);
}

/* --- Every (datatype, op) pair, all of a type's calls outstanding ---------- */
enum { kOps = sizeof ops / sizeof ops[0] };

static void pairs(MPI_Comm comm, const char *name, int count) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  size_t bytes = (size_t)count * 32;
  char *in = rc_alloc(bytes), *tmp = rc_alloc(bytes), *pa = rc_alloc(bytes * 2), *pb = rc_alloc(bytes * 2);
  char *ref[kOps], *out[kOps], *place[kOps], *red[kOps];
  for (int o = 0; o < kOps; o++) {
    ref[o] = rc_alloc(bytes);
    out[o] = rc_alloc(bytes);
    place[o] = rc_alloc(bytes);
    red[o] = rc_alloc(bytes);
  }
  int accepted = 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    const struct type_info *t = &types[ti];
    MPI_Request req[3 * kOps];
    int nreq = 0, ok[kOps], root = (int)ti % size;
    fill_input(t, in, count, rank);
    for (int o = 0; o < kOps; o++) {
      ok[o] = rp_reference(t, ops[o].op, count, size, ref[o], tmp);
      if (!ok[o]) continue;
      accepted++;
      memset(out[o], 0, bytes);
      memcpy(place[o], in, bytes);
      memset(red[o], 0, bytes);
      CHECK_MPI(MPI_Iallreduce(in, out[o], count, t->type, ops[o].op, comm, &req[nreq++]));
      CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, place[o], count, t->type, ops[o].op, comm, &req[nreq++]));
      if (rank == root && o % 2) {
        memcpy(red[o], in, bytes);
        CHECK_MPI(MPI_Ireduce(MPI_IN_PLACE, red[o], count, t->type, ops[o].op, root, comm, &req[nreq++]));
      } else {
        CHECK_MPI(MPI_Ireduce(in, red[o], count, t->type, ops[o].op, root, comm, &req[nreq++]));
      }
    }
    for (int k = nreq - 1; k >= 0; k--) CHECK_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    for (int o = 0; o < kOps; o++) {
      if (!ok[o]) continue;
      CHECK(same_data(out[o], ref[o], count, t->type, pa, pb, (int)bytes * 2), "%s: iallreduce %d x %s %s differs",
            name, count, t->name, ops[o].name);
      CHECK(same_data(place[o], ref[o], count, t->type, pa, pb, (int)bytes * 2),
            "%s: iallreduce in place %d x %s %s differs", name, count, t->name, ops[o].name);
      if (rank == root)
        CHECK(same_data(red[o], ref[o], count, t->type, pa, pb, (int)bytes * 2), "%s: ireduce %d x %s %s to %d differs",
              name, count, t->name, ops[o].name, root);
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK(accepted >= 100, "only %d (datatype, op) pairs accepted", accepted);
  for (int o = 0; o < kOps; o++) {
    free(ref[o]);
    free(out[o]);
    free(place[o]);
    free(red[o]);
  }
  free(in);
  free(tmp);
  free(pa);
  free(pb);
}

/* --- Freed handles, non-contiguous and empty bcasts, a deep queue ---------- */
/* The matrix product on elements of 5 uint64_t each (the type below). */
static void matmul5_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  int n = *len * 5;
  (void)type;
  rc_matmul_op(in, inout, &n, type);
}

static void handles(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  enum { n = 5 };
  /* Non-commutative: the matrix product in rank order, the op freed at once. */
  MPI_Op matmul, matmul5;
  MPI_Op_create(rc_matmul_op, 0, &matmul);
  MPI_Op_create(matmul5_op, 0, &matmul5);
  uint64_t m[n], p[n], q[n];
  for (int i = 0; i < n; i++) m[i] = rc_matrix(rank, i);
  /* A contiguous derived type of 5 uint64_t, freed before the wait. */
  MPI_Datatype five;
  MPI_Type_contiguous(n, MPI_UINT64_T, &five);
  MPI_Type_commit(&five);
  MPI_Request req[4];
  CHECK_MPI(MPI_Iallreduce(m, p, 1, five, matmul5, comm, &req[0]));
  CHECK_MPI(MPI_Ireduce(m, q, n, MPI_UINT64_T, matmul, size - 1, comm, &req[1]));
  MPI_Op_free(&matmul);
  MPI_Op_free(&matmul5);
  MPI_Type_free(&five);
  /* A bcast of every other int of 9 (a vector type), and one of 0 bytes. */
  int v[9], empty = 5;
  for (int i = 0; i < 9; i++) v[i] = rank == 0 ? 100 + i : -1;
  MPI_Datatype every_other;
  MPI_Type_vector(5, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  CHECK_MPI(MPI_Ibcast(v, 1, every_other, 0, comm, &req[2]));
  MPI_Type_free(&every_other);
  CHECK_MPI(MPI_Ibcast(&empty, 0, MPI_INT, size - 1, comm, &req[3]));
  CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
  for (int i = 0; i < n; i++) {
    CHECK(p[i] == rc_matrix_product(0, size - 1, i), "%s: non-commutative iallreduce [%d]", name, i);
    if (rank == size - 1) CHECK(q[i] == rc_matrix_product(0, size - 1, i), "%s: non-commutative ireduce [%d]", name, i);
  }
  for (int i = 0; i < 9; i++)
    CHECK(v[i] == (i % 2 == 0 || rank == 0 ? 100 + i : -1), "%s: ibcast of a vector type: [%d] = %d", name, i, v[i]);
  CHECK(empty == 5, "%s: ibcast of 0 bytes wrote %d", name, empty);
  /* 64 outstanding at once, each from its own root, waited for from the last. */
  enum { deep = 64 };
  MPI_Request many[deep];
  int got[deep];
  for (int i = 0; i < deep; i++) {
    got[i] = rank == i % size ? i * 3 : -1;
    CHECK_MPI(MPI_Ibcast(&got[i], 1, MPI_INT, i % size, comm, &many[i]));
  }
  for (int i = deep - 1; i >= 0; i--) CHECK_MPI(MPI_Wait(&many[i], MPI_STATUS_IGNORE));
  for (int i = 0; i < deep; i++) CHECK(got[i] == i * 3, "%s: ibcast %d of %d outstanding: %d", name, i, deep, got[i]);
}

static void run(MPI_Comm comm, const char *name) {
  MPI_Barrier(comm); /* the segment is made at the first blocking call (FERRY_COLL_SHM_AFTER=0) */
  rounds(comm, name, quick ? 12 : 300);
  if (quick) {
    movement(comm, name, 7);
    return;
  }
  static const int counts[] = {1, 7, 100, 5000};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) movement(comm, name, counts[k]);
  /* Ferry only: MPICH 4's nonblocking path asserts (opland.c) on pairs its
   * MPI_Reduce_local accepts; the rest of the program passes there. */
  if (mt_is_ferry()) {
    pairs(comm, name, 1);
    pairs(comm, name, 9);
  }
  handles(comm, name);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  if (!quick) {
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    run(dup, "a duplicate");
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);
    run(split, rank % 2 ? "odd ranks, reversed" : "even ranks, reversed");
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
