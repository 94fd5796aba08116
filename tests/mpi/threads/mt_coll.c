/*
 * Collectives on distinct communicators from distinct threads at once
 * (MPI_THREAD_MULTIPLE). Thread t of every rank owns communicator t (dups
 * of MPI_COMM_WORLD, the last one a split with reversed rank order) and,
 * --reps times, runs on it blocking and nonblocking collectives with
 * results that depend on the thread, the repetition and every rank's
 * contribution: allreduce (small, and large enough for the pipelined
 * algorithms), bcast from a moving root, reduce, allgather, alltoall, scan,
 * barrier, and an Iallreduce overlapped with an Ibcast. A collective that
 * matched another thread's messages, or a schedule advanced by the wrong
 * thread's progress into the wrong buffer, shows as a wrong result.
 */
#define TEST_NAME "mt_coll"
#include "mpitest.h"
#include "mt_threads.h"

#define NTHREADS 4
#define LARGE (256 * 1024) /* doubles: 2 MiB, pipelined algorithms */

static int rank, size, reps;
static MPI_Comm comms[NTHREADS];

static void *worker(void *arg) {
  const int t = mtt_thread(arg);
  MPI_Comm c = comms[t];
  int me, n;
  MPI_Comm_rank(c, &me);
  MPI_Comm_size(c, &n);
  double *big = mt_malloc(sizeof(double) * LARGE), *big_out = mt_malloc(sizeof(double) * LARGE);
  int *all = mt_malloc(sizeof(int) * (size_t)n), *to = mt_malloc(sizeof(int) * (size_t)n),
      *from = mt_malloc(sizeof(int) * (size_t)n);
  for (int rep = 0; rep < reps; rep++) {
    const int base = 1000 * t + rep;
    /* Sum of (rank + base) over ranks. */
    int mine = me + base, sum = -1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == n * (n - 1) / 2 + n * base, "thread %d rep %d: allreduce %d", t, rep, sum);

    for (int i = 0; i < LARGE; i++) big[i] = (double)(me + 1) * (i % 97) + t;
    MPI_Allreduce(big, big_out, LARGE, MPI_DOUBLE, MPI_SUM, c);
    for (int i = 0; i < LARGE; i += 4099) {
      double want = (double)n * (n + 1) / 2 * (i % 97) + (double)n * t;
      CHECK(big_out[i] == want, "thread %d rep %d: large allreduce [%d] = %g, expected %g", t, rep, i, big_out[i],
            want);
    }

    int root = rep % n, value = me == root ? base * 7 : -1;
    MPI_Bcast(&value, 1, MPI_INT, root, c);
    CHECK(value == base * 7, "thread %d rep %d: bcast from %d gave %d", t, rep, root, value);

    int max = -1;
    MPI_Reduce(&mine, &max, 1, MPI_INT, MPI_MAX, root, c);
    if (me == root) CHECK(max == n - 1 + base, "thread %d rep %d: reduce max %d", t, rep, max);

    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, c);
    for (int i = 0; i < n; i++) CHECK(all[i] == i + base, "thread %d rep %d: allgather[%d] = %d", t, rep, i, all[i]);

    for (int i = 0; i < n; i++) to[i] = base * 100 + me * 10 + i;
    MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, c);
    for (int i = 0; i < n; i++)
      CHECK(from[i] == base * 100 + i * 10 + me, "thread %d rep %d: alltoall from %d = %d", t, rep, i, from[i]);

    int prefix = -1;
    MPI_Scan(&mine, &prefix, 1, MPI_INT, MPI_SUM, c);
    CHECK(prefix == me * (me + 1) / 2 + (me + 1) * base, "thread %d rep %d: scan %d", t, rep, prefix);

    MPI_Barrier(c);

    MPI_Request reqs[2];
    int isum = -1, ivalue = me == 0 ? base : -1;
    MPI_Iallreduce(&mine, &isum, 1, MPI_INT, MPI_SUM, c, &reqs[0]);
    MPI_Ibcast(&ivalue, 1, MPI_INT, 0, c, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    CHECK(isum == sum && ivalue == base, "thread %d rep %d: iallreduce %d, ibcast %d", t, rep, isum, ivalue);
  }
  free(big);
  free(big_out);
  free(all);
  free(to);
  free(from);
  return NULL;
}

int main(int argc, char **argv) {
  reps = mtt_init(&argc, &argv, 10);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int t = 0; t < NTHREADS - 1; t++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &comms[NTHREADS - 1]);
  mtt_run(NTHREADS, worker);
  for (int t = 0; t < NTHREADS; t++) MPI_Comm_free(&comms[t]);
  mt_pass();
  MPI_Finalize();
  return 0;
}
