/*
 * Small rooted collectives back to back through the shared-memory segment's
 * ring of slots (coll/shm, segment.h): a root may run up to a ring's length
 * ahead of its slowest reader, and must wait when it wraps. Thousands of
 * MPI_Bcast, MPI_Scatter, MPI_Gather and MPI_Reduce of 1-128 bytes (now and
 * then one beyond a slot, through a cell), in runs from one root (the root
 * turning at each run), one rank at a time sleeping now and then (a slow reader, which the
 * others' roots must not overrun), every value checked: each call's data
 * depend on the call's number, so data left over from, or overwritten by,
 * another call is caught. Also: in-place forms, a strided datatype on one
 * side, runs of nonblocking calls (more outstanding than the ring holds)
 * between blocking ones, two communicators in turns, and a duplicate made
 * and freed over and over (its segment's room reused).
 */
#define TEST_NAME "shm_ring_stress"
#include <time.h>

#include "../mpitest.h"

static int rank_w;

/* The value of element i of rank r's block in call k. */
static int val(int k, int r, int i) { return k * 131 + r * 17 + i + 1; }

/* One rank in turn sleeps 30 us before some calls. */
static void maybe_sleep(int k, int rank, int size) {
  if (k % 7 == 3 && rank == (k / 7 + 1) % size) {
    struct timespec t = {0, 30000};
    nanosleep(&t, NULL);
  }
}

/* Ints per rank of call k: 1-32 (4-128 bytes: 48 bytes and less share the
 * record's line, more start on the next), 300 (1200 bytes, beyond a slot)
 * every 23rd call, and every 29th 256 or 257 (1024 bytes, the most a slot
 * holds, or 4 more: a cell). */
static int count_of(int k) {
  if (k % 23 == 22) return 300;
  if (k % 29 == 28) return 256 + (k / 29) % 2;
  return 1 + (k * 5) % 32;
}

#define MAXN 300
#define MAXR 16

static void one_call(MPI_Comm comm, int k) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* Runs of 256 calls from one root (the root turning at each run), so that
   * it can run ahead of its readers and lap the ring (16 slots, or 128 where
   * ranks share cores): bcasts only, scatters only, both in turns, and all
   * four kinds in turns. */
  const int run = k / 256, root = run % size;
  const int n = count_of(k);
  static int buf[MAXN * MAXR], mine[MAXN * 2];
  static const int kinds[4][4] = {{0, 0, 0, 0}, {1, 1, 1, 1}, {0, 1, 0, 1}, {0, 1, 2, 3}};
  maybe_sleep(k, rank, size);
  switch (kinds[run % 4][k % 4]) {
    case 0: { /* bcast; odd calls with a strided type on the root */
      if (rank == root && k % 8 == 4) {
        MPI_Datatype v;
        MPI_Type_vector(n, 1, 2, MPI_INT, &v);
        MPI_Type_commit(&v);
        for (int i = 0; i < n; i++) mine[2 * i] = val(k, root, i), mine[2 * i + 1] = -1;
        MPI_Bcast(mine, 1, v, root, comm);
        MPI_Type_free(&v);
        for (int i = 0; i < n; i++) CHECK(mine[2 * i + 1] == -1, "bcast %d: root's hole %d overwritten", k, i);
      } else {
        for (int i = 0; i < n; i++) mine[i] = rank == root ? val(k, root, i) : -7;
        MPI_Bcast(mine, n, MPI_INT, root, comm);
        for (int i = 0; i < n; i++)
          CHECK(mine[i] == val(k, root, i), "bcast %d (root %d, %d ints): [%d] = %d, not %d", k, root, n, i, mine[i],
                val(k, root, i));
      }
      break;
    }
    case 1: { /* scatter; every third in place at the root */
      if (rank == root)
        for (int r = 0; r < size; r++)
          for (int i = 0; i < n; i++) buf[r * n + i] = val(k, r, i);
      for (int i = 0; i < n; i++) mine[i] = -7;
      const int in_place = rank == root && k % 3 == 0;
      MPI_Scatter(buf, n, MPI_INT, in_place ? MPI_IN_PLACE : mine, n, MPI_INT, root, comm);
      const int *got = in_place ? buf + root * n : mine;
      for (int i = 0; i < n; i++)
        CHECK(got[i] == val(k, rank, i), "scatter %d (root %d, %d ints): [%d] = %d, not %d", k, root, n, i, got[i],
              val(k, rank, i));
      break;
    }
    case 2: { /* gather; every third in place at the root */
      for (int i = 0; i < n; i++) mine[i] = val(k, rank, i);
      const int in_place = rank == root && k % 3 == 0;
      if (rank == root)
        for (int i = 0; i < size * n; i++) buf[i] = -7;
      if (in_place)
        for (int i = 0; i < n; i++) buf[root * n + i] = val(k, root, i);
      MPI_Gather(in_place ? MPI_IN_PLACE : mine, n, MPI_INT, buf, n, MPI_INT, root, comm);
      if (rank == root)
        for (int r = 0; r < size; r++)
          for (int i = 0; i < n; i++)
            CHECK(buf[r * n + i] == val(k, r, i), "gather %d (root %d, %d ints): rank %d's [%d] = %d, not %d", k,
                  root, n, r, i, buf[r * n + i], val(k, r, i));
      break;
    }
    default: { /* reduce (sum); in place at the root every third */
      for (int i = 0; i < n; i++) mine[i] = val(k, rank, i);
      const int in_place = rank == root && k % 3 == 0;
      if (rank == root)
        for (int i = 0; i < n; i++) buf[i] = in_place ? mine[i] : -7;
      MPI_Reduce(in_place ? MPI_IN_PLACE : mine, buf, n, MPI_INT, MPI_SUM, root, comm);
      if (rank == root)
        for (int i = 0; i < n; i++) {
          int want = 0;
          for (int r = 0; r < size; r++) want += val(k, r, i);
          CHECK(buf[i] == want, "reduce %d (root %d, %d ints): [%d] = %d, not %d", k, root, n, i, buf[i], want);
        }
      break;
    }
  }
}

/* RUN nonblocking bcasts and scatters from one root started back to back
 * (more than the ring's slots: 16, or 128 where ranks share cores), then
 * all waited for. */
#define RUN 160
static void nonblocking_run(MPI_Comm comm, int k0) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  static int data[RUN][MAXR * 8], out[RUN][8];
  MPI_Request req[RUN];
  maybe_sleep(k0, rank, size);
  for (int j = 0; j < RUN; j++) {
    const int k = k0 + j, root = (k0 / 7) % size, n = 1 + k % 8;
    if (j % 2 == 0) {
      for (int i = 0; i < n; i++) out[j][i] = rank == root ? val(k, root, i) : -7;
      MPI_Ibcast(out[j], n, MPI_INT, root, comm, &req[j]);
    } else {
      if (rank == root)
        for (int r = 0; r < size; r++)
          for (int i = 0; i < n; i++) data[j][r * n + i] = val(k, r, i);
      for (int i = 0; i < n; i++) out[j][i] = -7;
      MPI_Iscatter(data[j], n, MPI_INT, out[j], n, MPI_INT, root, comm, &req[j]);
    }
  }
  MPI_Waitall(RUN, req, MPI_STATUSES_IGNORE);
  for (int j = 0; j < RUN; j++) {
    const int k = k0 + j, root = (k0 / 7) % size, n = 1 + k % 8;
    const int owner = j % 2 == 0 ? root : rank;
    for (int i = 0; i < n; i++)
      CHECK(out[j][i] == val(k, owner, i), "%s %d (root %d): [%d] = %d, not %d", j % 2 ? "iscatter" : "ibcast", k,
            root, i, out[j][i], val(k, owner, i));
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_w);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= MAXR, "at most %d ranks", MAXR);
  /* A second communicator: the ranks in reverse order. */
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank_w, &rev);
  const int calls = 4000;
  for (int k = 0; k < calls; k++) {
    one_call(k % 5 == 4 ? rev : MPI_COMM_WORLD, k);
    if (k % 100 == 50) nonblocking_run(k % 200 == 50 ? MPI_COMM_WORLD : rev, k);
  }
  /* Duplicates made, used and freed again and again. */
  for (int d = 0; d < 20; d++) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int k = 0; k < 60; k++) one_call(dup, d * 60 + k);
    MPI_Comm_free(&dup);
  }
  MPI_Comm_free(&rev);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_w == 0) printf("%s: OK\n", TEST_NAME);
  MPI_Finalize();
  return 0;
}
