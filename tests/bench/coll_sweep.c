/*
 * The sweep of issue 29, measured the way the standard MPI benchmark suites
 * do (IMB's t_avg): every collective plus PingPong and Sendrecv, at every
 * power-of-two size from 0 B to --max (default 4 MiB), on however many ranks
 * it is started with. For each (operation, size): a few warm-up calls, then
 * as many calls as fit --time seconds (rank 0's estimate, broadcast), a
 * barrier before the timed loop; each rank's mean time per call, averaged
 * over the ranks. PingPong: ranks 0 and 1, one whole round trip per call
 * (not IMB's half; beyond 2 ranks the others' calls take no time, and
 * their zeros are averaged in as every row's ranks are); Sendrecv:
 * each rank sends to its right neighbour and receives from its left (a
 * ring). Sizes are per rank: the message for bcast, pingpong, sendrecv,
 * reductions; one block for gather, scatter, allgather, alltoall (as IMB).
 *
 *   coll_sweep [--min BYTES] [--max BYTES] [--time SECONDS] [--only OP,OP...]
 * (--min: the smallest size measured, default 0; Barrier always runs once).
 * prints "# op bytes t_avg_us" then one line per (op, size).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static char *sbuf, *rbuf;

typedef void (*call_fn)(size_t bytes);
static void pingpong(size_t b) {
  if (rank == 0) {
    MPI_Send(sbuf, (int)b, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(rbuf, (int)b, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(rbuf, (int)b, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(sbuf, (int)b, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
  }
}
static void sendrecv(size_t b) {
  MPI_Sendrecv(sbuf, (int)b, MPI_BYTE, (rank + 1) % size, 0, rbuf, (int)b, MPI_BYTE, (rank + size - 1) % size, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static void barrier(size_t b) { (void)b; MPI_Barrier(MPI_COMM_WORLD); }
static void bcast(size_t b) { MPI_Bcast(sbuf, (int)b, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void gather(size_t b) { MPI_Gather(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void scatter(size_t b) { MPI_Scatter(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void allgather(size_t b) { MPI_Allgather(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE, MPI_COMM_WORLD); }
static void alltoall(size_t b) { MPI_Alltoall(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE, MPI_COMM_WORLD); }
/* Reductions of floats (IMB's default type), bytes / 4 of them. */
static void reduce(size_t b) { MPI_Reduce(sbuf, rbuf, (int)(b / 4), MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD); }
static void allreduce(size_t b) { MPI_Allreduce(sbuf, rbuf, (int)(b / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static void reduce_scatter(size_t b) {
  MPI_Reduce_scatter_block(sbuf, rbuf, (int)(b / 4 / (size_t)size), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
static void scan(size_t b) { MPI_Scan(sbuf, rbuf, (int)(b / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static void exscan(size_t b) { MPI_Exscan(sbuf, rbuf, (int)(b / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }

static struct { const char *name; call_fn fn; } ops[] = {
    {"PingPong", pingpong},   {"Sendrecv", sendrecv},   {"Barrier", barrier},     {"Bcast", bcast},
    {"Gather", gather},       {"Scatter", scatter},     {"Allgather", allgather}, {"Alltoall", alltoall},
    {"Reduce", reduce},       {"Allreduce", allreduce}, {"Reduce_scatter", reduce_scatter},
    {"Scan", scan},           {"Exscan", exscan},
};

static double measure(call_fn fn, size_t bytes, double budget) {
  for (int i = 0; i < 5; i++) fn(bytes);
  /* Rank 0's estimate of the calls that fit the budget, for everyone. */
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int probe = 10;
  for (int i = 0; i < probe; i++) fn(bytes);
  double per = (MPI_Wtime() - t0) / probe;
  long iters = per > 0 ? (long)(budget / per) : 100000;
  if (iters < 10) iters = 10;
  if (iters > 200000) iters = 200000;
  MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (long i = 0; i < iters; i++) fn(bytes);
  double mine = (MPI_Wtime() - t0) / (double)iters, sum = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  return sum / size * 1e6;
}

int main(int argc, char **argv) {
  size_t max = 4u << 20, min = 0;
  double budget = 0.05;
  const char *only = NULL;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--max")) max = (size_t)strtoull(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--min")) min = (size_t)strtoull(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--time")) budget = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--only")) only = argv[i + 1];
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t buffer_bytes = max * (size_t)size + 64;
  sbuf = malloc(buffer_bytes);
  rbuf = malloc(buffer_bytes);
  if (sbuf == NULL || rbuf == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  /* Every page written before the first row, with 1.0f (a normal float for the reductions):
   * calloc's untouched pages all read as the one zero page, which stays in cache, so a row that
   * only reads a buffer no earlier row wrote (MPI_Reduce's send buffer after nothing but
   * gathers) ran out of cache, and each row's time depended on which rows ran before it (a 1 MiB
   * MPI_Reduce took 50 us alone and 70-75 us after MPI_Bcast had written the buffer). */
  for (size_t i = 0; i + sizeof(float) <= buffer_bytes; i += sizeof(float)) {
    const float one = 1.0f;
    memcpy(sbuf + i, &one, sizeof one);
    memcpy(rbuf + i, &one, sizeof one);
  }
  if (rank == 0) printf("# op bytes t_avg_us (%d ranks)\n", size);
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
    if (only != NULL) {
      char list[256];
      snprintf(list, sizeof list, ",%s,", only);
      char key[64];
      snprintf(key, sizeof key, ",%s,", ops[o].name);
      if (!strstr(list, key)) continue;
    }
    for (size_t b = 0; b <= max; b = b ? b * 2 : 1) {
      if (ops[o].fn == barrier && b > 0) break;
      if (ops[o].fn != barrier && b < min) continue;
      double t = measure(ops[o].fn, b, budget);
      if (rank == 0) {
        printf("%s %zu %.3f\n", ops[o].name, b, t);
        fflush(stdout);
      }
    }
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
