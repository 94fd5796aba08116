/*
 * rooted_instructions: the instructions of one small rooted collective (issue 29), counted by
 * callgrind per call and per rank: MPI_Bcast, MPI_Gather, MPI_Scatter, MPI_Reduce, MPI_Scan and
 * MPI_Exscan (floats, sum) of BYTES per rank (a block, for gather and scatter), root 0, on
 * MPI_COMM_WORLD, the buffers written (not calloc's zero page). In a stream of such calls the root runs ahead of the others
 * (coll/shm/segment.h), so one rank's count includes its waits' polling: compare the functions
 * below the wait (callgrind_annotate --inclusive=yes), or the rank that does not wait (bcast,
 * scatter: the root's; gather, reduce: the others'; scan, exscan: rank 0's).
 *
 *   mpirun -n 2 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=cg.%p \
 *       rooted_instructions [bytes, 8] [calls per dump, 1000] [warm calls, 2000]
 *   for f in cg.*.*; do sed -n 's/^desc: Trigger: Client Request: //p; s/^summary: //p' $f; done | paste - -
 *
 * Each operation runs uninstrumented first (warm), then instrumented but not counted, then one dump
 * of `calls` calls: its summary / calls is the figure. A barrier separates the operations.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind_marks.h"

static char *sbuf, *rbuf;
static int bytes;

static void bcast(void) { MPI_Bcast(sbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void gather(void) { MPI_Gather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void scatter(void) { MPI_Scatter(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void reduce(void) { MPI_Reduce(sbuf, rbuf, bytes / 4, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD); }
static void scan(void) { MPI_Scan(sbuf, rbuf, bytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static void exscan(void) { MPI_Exscan(sbuf, rbuf, bytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }

static struct {
  const char *name;
  void (*fn)(void);
} ops[] = {{"Bcast", bcast}, {"Gather", gather}, {"Scatter", scatter}, {"Reduce", reduce}, {"Scan", scan},
           {"Exscan", exscan}};

int main(int argc, char **argv) {
  bytes = argc > 1 ? atoi(argv[1]) : 8;
  int calls = argc > 2 ? atoi(argv[2]) : 1000;
  int warm = argc > 3 ? atoi(argv[3]) : 2000;
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sbuf = malloc((size_t)bytes * (size_t)size + 64);
  rbuf = malloc((size_t)bytes * (size_t)size + 64);
  if (sbuf == NULL || rbuf == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(sbuf, 1, (size_t)bytes * (size_t)size + 64);
  memset(rbuf, 2, (size_t)bytes * (size_t)size + 64);
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < warm; i++) ops[o].fn();
    CALLGRIND_START_INSTRUMENTATION;
    for (int i = 0; i < 200; i++) ops[o].fn();
    CALLGRIND_ZERO_STATS;
    for (int i = 0; i < calls; i++) ops[o].fn();
    CALLGRIND_DUMP_STATS_AT(ops[o].name);
    CALLGRIND_STOP_INSTRUMENTATION;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
