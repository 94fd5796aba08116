/*
 * call_instructions: the instructions of one trivial MPI call (issue 29), counted by callgrind, per
 * call: the collectives of 0 bytes (Bcast, Gather, Scatter, Allgather, Alltoall, Reduce, Allreduce,
 * Reduce_scatter_block, Reduce_scatter, Scan, Exscan) on MPI_COMM_WORLD, MPI_Comm_rank, MPI_Send to and
 * MPI_Recv from MPI_PROC_NULL, and an 8-byte MPI_Iallreduce + MPI_Wait and MPI_Start + MPI_Wait of an
 * 8-byte persistent allreduce (the rows where FERRY_PROFILE's companion barriers, src/profile/companions.h,
 * cost most; with more than one rank they count the Wait's polling for the partner too, so compare them
 * at -n 1, or as the same run's two halves), and the bench's one-sided rows (below). The load-independent
 * figure behind scripts/bench's call_overhead and the sweep's 0-byte rows, where the VM has no
 * hardware counters for perf stat.
 *
 *   mpirun -n 2 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=cg.%p \
 *       call_instructions [calls per dump, 1000] [warm calls, 2000]
 *   for f in cg.*.*; do sed -n 's/^desc: Trigger: Client Request: //p; s/^summary: //p' $f; done | paste - -
 *
 * Under FERRY_PROFILE, give 200000 warm calls or more: the profile times every call of a function
 * whose timed calls average 5 us or more, which callgrind's slow instrumented ones would reach
 * otherwise (counters.h Sampling), and its untimed path is the figure wanted.
 *
 * Each operation runs uninstrumented first (warm), then instrumented but not counted (callgrind
 * translates the code on its first runs), then one dump of `calls` calls: its summary / calls is
 * the figure. A barrier separates the operations. Built without valgrind's header, it runs the
 * calls and counts nothing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "callgrind_marks.h"

static char sbuf[64], rbuf[64];
static int sink;

static void bcast(void) { MPI_Bcast(sbuf, 0, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void gather(void) { MPI_Gather(sbuf, 0, MPI_BYTE, rbuf, 0, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void scatter(void) { MPI_Scatter(sbuf, 0, MPI_BYTE, rbuf, 0, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void allgather(void) { MPI_Allgather(sbuf, 0, MPI_BYTE, rbuf, 0, MPI_BYTE, MPI_COMM_WORLD); }
static void alltoall(void) { MPI_Alltoall(sbuf, 0, MPI_BYTE, rbuf, 0, MPI_BYTE, MPI_COMM_WORLD); }
static void reduce(void) { MPI_Reduce(sbuf, rbuf, 0, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD); }
static void allreduce(void) { MPI_Allreduce(sbuf, rbuf, 0, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static void reduce_scatter_block(void) {
  MPI_Reduce_scatter_block(sbuf, rbuf, 0, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
static int *zeros; /* recvcounts of 0, one per rank of MPI_COMM_WORLD (calloc'd in main) */
static void reduce_scatter(void) { MPI_Reduce_scatter(sbuf, rbuf, zeros, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static void scan(void) { MPI_Scan(sbuf, rbuf, 0, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static void exscan(void) { MPI_Exscan(sbuf, rbuf, 0, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static void comm_rank(void) {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  sink += r;
}
static void send_null(void) { MPI_Send(sbuf, 8, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD); }
static void recv_null(void) { MPI_Recv(rbuf, 8, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
static void iallreduce_wait(void) {
  MPI_Request r;
  MPI_Iallreduce(sbuf, rbuf, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}
static MPI_Request persistent; /* an 8-byte MPI_Allreduce_init on MPI_COMM_WORLD, made in main */
static void start_wait(void) {
  MPI_Start(&persistent);
  MPI_Wait(&persistent, MPI_STATUS_IGNORE);
}

/* One-sided, each rank on the other's MPI_Win_allocate memory (the bench's rma rows, issue 31's
 * FERRY_PROFILE cost there): an 8-byte MPI_Put + MPI_Win_flush and an MPI_Fetch_and_op +
 * MPI_Win_flush inside an MPI_Win_lock_all epoch, an exclusive MPI_Win_lock + MPI_Win_unlock, and a
 * fence epoch with one 8-byte MPI_Put. */
static MPI_Win win;
static int other; /* the rank whose window memory this rank's one-sided calls reach */
static void lock_all(void) { MPI_Win_lock_all(0, win); }
static void unlock_all(void) { MPI_Win_unlock_all(win); }
static void put_flush(void) {
  MPI_Put(sbuf, 8, MPI_BYTE, other, 0, 8, MPI_BYTE, win);
  MPI_Win_flush(other, win);
}
static void fetch_and_op_flush(void) {
  MPI_Fetch_and_op(sbuf, rbuf, MPI_LONG, other, 8, MPI_SUM, win);
  MPI_Win_flush(other, win);
}
static void lock_unlock(void) {
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, other, 0, win);
  MPI_Win_unlock(other, win);
}
static void fence_put(void) {
  MPI_Win_fence(0, win);
  MPI_Put(sbuf, 8, MPI_BYTE, other, 0, 8, MPI_BYTE, win);
  MPI_Win_fence(0, win);
}

static struct {
  const char *name;
  void (*fn)(void);
  void (*begin)(void), (*end)(void); /* around the op's calls, or NULL */
} ops[] = {
    {"Bcast0", bcast},         {"Gather0", gather},     {"Scatter0", scatter},   {"Allgather0", allgather},
    {"Alltoall0", alltoall},   {"Reduce0", reduce},     {"Allreduce0", allreduce},
    {"Reduce_scatter_block0", reduce_scatter_block}, {"Reduce_scatter0", reduce_scatter},
    {"Scan0", scan},           {"Exscan0", exscan},     {"Comm_rank", comm_rank},
    {"Send_PROC_NULL", send_null}, {"Recv_PROC_NULL", recv_null}, {"Iallreduce8_Wait", iallreduce_wait},
    {"Start_Wait8", start_wait},
    {"Put8_flush", put_flush, lock_all, unlock_all}, {"Fetch_and_op_flush", fetch_and_op_flush, lock_all, unlock_all},
    {"Lock_unlock", lock_unlock}, {"Fence_Put8_fence", fence_put},
};

int main(int argc, char **argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 1000;
  int warm = argc > 2 ? atoi(argv[2]) : 2000;
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  zeros = calloc((size_t)size, sizeof *zeros);
  if (zeros == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Allreduce_init(sbuf, rbuf, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  other = (rank + 1) % size;
  void *window_memory;
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &window_memory, &win);
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (ops[o].begin != NULL) ops[o].begin();
    for (int i = 0; i < warm; i++) ops[o].fn();
    CALLGRIND_START_INSTRUMENTATION;
    for (int i = 0; i < 200; i++) ops[o].fn();
    CALLGRIND_ZERO_STATS;
    for (int i = 0; i < calls; i++) ops[o].fn();
    CALLGRIND_DUMP_STATS_AT(ops[o].name);
    CALLGRIND_STOP_INSTRUMENTATION;
    if (ops[o].end != NULL) ops[o].end();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Request_free(&persistent);
  free(zeros);
  MPI_Finalize();
  return sink == -1;
}
