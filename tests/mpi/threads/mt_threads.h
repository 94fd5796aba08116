/*
 * Helpers for the MPI_THREAD_MULTIPLE tests (tests/mpi/threads): start the
 * library at MPI_THREAD_MULTIPLE, run one function on N threads at once, and
 * read the common --reps option.
 *
 * Every test repeats its racy pattern --reps times (ctest passes enough that
 * a race showing once in ten repetitions fails the run with probability
 * above 0.9), and runs under ThreadSanitizer in the "threads" job.
 */
#ifndef FERRY_TESTS_MPI_THREADS_MT_THREADS_H
#define FERRY_TESTS_MPI_THREADS_MT_THREADS_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Initializes MPI at MPI_THREAD_MULTIPLE; fails the test if not provided.
 * Returns --reps N from the arguments, or `default_reps`. */
static inline int mtt_init(int *argc, char ***argv, int default_reps) {
  int provided = -1;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d, expected MPI_THREAD_MULTIPLE (%d)",
        provided, MPI_THREAD_MULTIPLE);
  int reps = default_reps;
  for (int i = 1; i + 1 < *argc; i++)
    if (!strcmp((*argv)[i], "--reps")) reps = atoi((*argv)[i + 1]);
  CHECK(reps > 0, "--reps must be positive");
  return reps;
}

/* Runs fn(t) on threads t = 0..n-1 at once and waits for all of them. */
static inline void mtt_run(int n, void *(*fn)(void *)) {
  pthread_t threads[64];
  CHECK(n > 0 && n <= 64, "mtt_run: %d threads", n);
  for (int t = 0; t < n; t++)
    CHECK(pthread_create(&threads[t], NULL, fn, (void *)(intptr_t)t) == 0, "pthread_create failed");
  for (int t = 0; t < n; t++) pthread_join(threads[t], NULL);
}

static inline int mtt_thread(void *arg) { return (int)(intptr_t)arg; }

#endif
