/*
 * Communicators created and freed from several threads at once
 * (MPI_THREAD_MULTIPLE). Each thread t owns a parent communicator (a dup of
 * MPI_COMM_WORLD made before the threads start) and, --reps times, makes
 * from it, all at the same time as the other threads:
 *   MPI_Comm_dup, MPI_Comm_split (two colours, reversed keys),
 *   MPI_Comm_idup (two at once, overlapped with an MPI_Iallreduce on the
 *   parent), MPI_Comm_create_group (the even ranks, tag t), MPI_Comm_create,
 *   and MPI_Comm_dup of MPI_COMM_SELF under a lock shared by the threads
 *   (MPICH's comm_dup_deadlock: a local dup must not wait for a dup over
 *   other ranks that waits for this very thread).
 * Each new communicator must have the expected size and rank order (checked
 * with an allreduce and a ring exchange on it, so its context id is agreed by
 * all its members and distinct from every other live one), and is freed.
 * Threads start staggered by rank, so agreements overlap differently on
 * each rank.
 */
#define TEST_NAME "mt_comm_create"
#include "mpitest.h"
#include "mt_threads.h"

#include <sched.h>

#define NTHREADS 4

static int rank, size, reps;
static MPI_Comm parents[NTHREADS];
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;

/* The communicator works and its members are `expected` (world ranks, in
 * rank order): everyone agrees on membership and order, and messages stay
 * on it. */
static void check_comm(MPI_Comm c, const int *expected, int n, int t, const char *what) {
  int crank = -1, csize = -1;
  MPI_Comm_rank(c, &crank);
  MPI_Comm_size(c, &csize);
  CHECK(csize == n, "thread %d, %s: size %d, expected %d", t, what, csize, n);
  CHECK(crank >= 0 && crank < n && expected[crank] == rank, "thread %d, %s: rank %d is not world rank %d's place",
        t, what, crank, rank);
  /* Everyone contributes its world rank at its position. */
  int *mine = calloc((size_t)n, sizeof(int)), *all = calloc((size_t)n, sizeof(int));
  mine[crank] = rank + 1;
  MPI_Allreduce(mine, all, n, MPI_INT, MPI_SUM, c);
  for (int i = 0; i < n; i++)
    CHECK(all[i] == expected[i] + 1, "thread %d, %s: member %d is world rank %d, expected %d", t, what, i,
          all[i] - 1, expected[i]);
  /* A ring exchange on the new context, with the thread's tag. */
  int token = rank * 100 + t, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (crank + 1) % n, t, &got, 1, MPI_INT, (crank + n - 1) % n, t, c,
               MPI_STATUS_IGNORE);
  CHECK(got == expected[(crank + n - 1) % n] * 100 + t, "thread %d, %s: ring token %d", t, what, got);
  free(mine);
  free(all);
}

static void *worker(void *arg) {
  const int t = mtt_thread(arg);
  MPI_Comm parent = parents[t];
  int *world = malloc(sizeof(int) * (size_t)size), *half = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; i++) world[i] = i;
  for (int rep = 0; rep < reps; rep++) {
    if ((rank + rep) % NTHREADS == t)
      for (int i = 0; i < 200; i++) sched_yield();

    MPI_Comm dup;
    MPI_Comm_dup(parent, &dup);
    check_comm(dup, world, size, t, "MPI_Comm_dup");

    /* Split by parity, keys reversed: members in decreasing world rank. */
    MPI_Comm split;
    MPI_Comm_split(parent, rank % 2, -rank, &split);
    int n = 0;
    for (int r = size - 1; r >= 0; r--)
      if (r % 2 == rank % 2) half[n++] = r;
    check_comm(split, half, n, t, "MPI_Comm_split");

    /* Two idups in flight with a nonblocking collective on the parent. */
    MPI_Comm idup[2];
    MPI_Request reqs[3];
    int one = 1, sum = 0;
    MPI_Comm_idup(parent, &idup[0], &reqs[0]);
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, parent, &reqs[1]);
    MPI_Comm_idup(parent, &idup[1], &reqs[2]);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    CHECK(sum == size, "thread %d: iallreduce beside idups gave %d", t, sum);
    check_comm(idup[0], world, size, t, "MPI_Comm_idup (first)");
    check_comm(idup[1], world, size, t, "MPI_Comm_idup (second)");

    /* create_group over the even ranks only, with the thread's tag. */
    MPI_Group parent_group, evens;
    MPI_Comm_group(parent, &parent_group);
    int ranges[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(parent_group, 1, ranges, &evens);
    n = 0;
    for (int r = 0; r < size; r += 2) half[n++] = r;
    MPI_Comm group_comm = MPI_COMM_NULL;
    if (rank % 2 == 0) {
      MPI_Comm_create_group(parent, evens, t, &group_comm);
      check_comm(group_comm, half, n, t, "MPI_Comm_create_group");
    }
    /* MPI_Comm_create over the parent: odd ranks get MPI_COMM_NULL. */
    MPI_Comm created;
    MPI_Comm_create(parent, rank % 2 == 0 ? evens : MPI_GROUP_EMPTY, &created);
    if (rank % 2 == 0) check_comm(created, half, n, t, "MPI_Comm_create");
    else CHECK(created == MPI_COMM_NULL, "thread %d: MPI_Comm_create gave an odd rank a communicator", t);

    /* A local dup under a lock the threads share. */
    MPI_Comm self_dup;
    pthread_mutex_lock(&self_lock);
    MPI_Comm_dup(MPI_COMM_SELF, &self_dup);
    pthread_mutex_unlock(&self_lock);
    check_comm(self_dup, &rank, 1, t, "MPI_Comm_dup(MPI_COMM_SELF)");

    MPI_Comm_free(&self_dup);
    if (created != MPI_COMM_NULL) MPI_Comm_free(&created);
    if (group_comm != MPI_COMM_NULL) MPI_Comm_free(&group_comm);
    MPI_Group_free(&evens);
    MPI_Group_free(&parent_group);
    MPI_Comm_free(&idup[1]);
    MPI_Comm_free(&idup[0]);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
  }
  free(world);
  free(half);
  return NULL;
}

int main(int argc, char **argv) {
  reps = mtt_init(&argc, &argv, 30);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int t = 0; t < NTHREADS; t++) MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
  mtt_run(NTHREADS, worker);
  for (int t = 0; t < NTHREADS; t++) MPI_Comm_free(&parents[t]);
  mt_pass();
  MPI_Finalize();
  return 0;
}
