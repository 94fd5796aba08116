/*
 * Ranks that sleep in the kernel while they wait are woken by their peers,
 * promptly and every time. Run by ctest with FERRY_WAIT=block and
 * FERRY_YIELD_US=0, so that every wait that finds nothing sleeps at once:
 * a wake-up that got lost would leave a rank asleep until Ferry's safety
 * timeout (100 ms) and show here as a slow step. Covers small messages
 * (ping-pong between pairs), a sender that waits for ring space while its
 * receiver sleeps (8 MiB each way), and allreduce of 1 MiB of floats (the
 * oversubscribed benchmark's operation), checking every result.
 */
#define TEST_NAME "wait_block_wakeup"
#include "mpitest.h"

/* Steps slower than this count as stalls; a few may come from a busy host,
 * a lost wake-up produces one per occurrence. */
#define STALL_S 0.095
#define MAX_STALLS 3

static int rank, size, stalls;

/* A step that took `allowance` seconds more than STALL_S is a stall. */
static void timed(double t0, double allowance, const char *what, int step) {
  double t = MPI_Wtime() - t0;
  if (t >= STALL_S + allowance) {
    stalls++;
    fprintf(stderr, "%s: rank %d: %s step %d took %.0f ms\n", TEST_NAME, rank, what, step, t * 1e3);
  }
}

static void ping_pong(void) {
  int partner = rank ^ 1, v = 0;
  if (partner >= size) return;
  for (int i = 0; i < 500; i++) {
    double t0 = MPI_Wtime();
    if (rank % 2 == 0) {
      v = i;
      MPI_Send(&v, 1, MPI_INT, partner, 1, MPI_COMM_WORLD);
      MPI_Recv(&v, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(v == i + 1000, "ping-pong %d: got %d back, expected %d", i, v, i + 1000);
    } else {
      MPI_Recv(&v, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(v == i, "ping-pong %d: got %d, expected %d", i, v, i);
      v += 1000;
      MPI_Send(&v, 1, MPI_INT, partner, 1, MPI_COMM_WORLD);
    }
    timed(t0, 0, "ping-pong", i);
  }
}

/* 8 MiB each way between neighbours: far more than a shared-memory ring
 * holds, so senders wait for space many times. */
static void stream(void) {
  const size_t n = 8u << 20;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char *s = mt_malloc(n), *r = mt_malloc(n);
  for (int i = 0; i < 4; i++) {
    mt_fill(s, n, mt_seed((uint32_t)rank, (uint32_t)i, 2));
    double t0 = MPI_Wtime();
    MPI_Sendrecv(s, (int)n, MPI_BYTE, right, 2, r, (int)n, MPI_BYTE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    timed(t0, 0.2, "8 MiB stream", i); /* the copies themselves take time */
    CHECK_PATTERN(r, n, mt_seed((uint32_t)left, (uint32_t)i, 2), "8 MiB from rank %d, round %d", left, i);
  }
  free(s);
  free(r);
}

static void allreduce(void) {
  const int count = 1 << 18; /* 1 MiB of floats */
  float *in = mt_malloc(sizeof(float) * count), *out = mt_malloc(sizeof(float) * count);
  for (int i = 0; i < 20; i++) {
    for (int k = 0; k < count; k++) in[k] = (float)(rank + 1) + (float)((k + i) % 64);
    double t0 = MPI_Wtime();
    MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    timed(t0, 0, "allreduce", i);
    /* Small integers: every order of summation gives the exact result. */
    for (int k = 0; k < count; k++) {
      float want = (float)size * (float)(size + 1) / 2 + (float)size * (float)((k + i) % 64);
      CHECK(out[k] == want, "allreduce %d: element %d is %g, expected %g", i, k, out[k], want);
    }
  }
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ping_pong();
  stream();
  allreduce();
  for (int i = 0; i < 200; i++) {
    double t0 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    timed(t0, 0, "barrier", i);
  }
  /* One stall holds up every rank that waits on it: the most any rank saw. */
  int total = 0;
  MPI_Allreduce(&stalls, &total, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(total <= MAX_STALLS, "%d waits stalled for %.0f ms or more (at most %d allowed): lost wake-ups?", total,
        STALL_S * 1e3, MAX_STALLS);
  mt_pass();
  MPI_Finalize();
  return 0;
}
