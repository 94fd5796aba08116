/* Passive target progresses without the target (MPI-4.0 §12.5.3; README
 * "One-sided communication"): rank 0 computes for 2 s without calling MPI;
 * meanwhile every other rank's lock/put/unlock and fetch_and_op on rank 0
 * must finish quickly, not when rank 0 comes back. On one host the origins
 * do the work themselves; across hosts (FERRY_RMA_TEST_RANKS_PER_HOST, or
 * FERRY_TRANSPORTS=tcp) they ring rank 0's doorbell and its thread serves
 * them (rma/doorbell.h); with FERRY_RMA_PROGRESS=calls this fails. */
#define TEST_NAME "rma_target_busy"
#include "../mpitest.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *mem;
  MPI_Win win;
  MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  mem[0] = mem[1] = 0;
  long user_mem[2] = {0, 0};
  MPI_Win uwin;
  MPI_Win_create(user_mem, sizeof user_mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &uwin);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    /* Computation: no MPI call for 2 s. */
    double start = now();
    volatile double x = 0;
    while (now() - start < 2.0) x += 1.0;
    MPI_Barrier(MPI_COMM_WORLD);  /* the others are done */
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, uwin);
    CHECK(mem[0] == size - 1, "rank 0's word 0 = %ld after everyone's put, expected %d", mem[0], size - 1);
    CHECK(mem[1] == size - 1, "rank 0's counter = %ld, expected %d", mem[1], size - 1);
    CHECK(user_mem[1] == size - 1, "rank 0's user-memory counter = %ld, expected %d", user_mem[1], size - 1);
    MPI_Win_unlock(0, uwin);
    MPI_Win_unlock(0, win);
  } else {
    /* Give rank 0 time to be inside its computation. */
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    double start = now();
    long v = size - 1, one = 1, old = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
    MPI_Win_unlock(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 1, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, uwin);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 1, MPI_SUM, uwin);
    MPI_Win_unlock(0, uwin);
    double took = now() - start;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(took < 1.0, "lock/put/unlock and fetch_and_op on a busy target took %.3f s (the target computed "
          "for 2 s without calling MPI)", took);
  }
  MPI_Win_free(&uwin);
  MPI_Win_free(&win);
  mt_pass();
  MPI_Finalize();
  return 0;
}
