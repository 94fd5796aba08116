/*
 * pingpong_instructions: the instructions of each side of a 2-rank 8-byte ping-pong (blocking
 * MPI_Send and MPI_Recv, shared memory), counted by callgrind call by call: the load-independent
 * figure for the small-message path between two ranks (docs/performance.md; issue 29).
 *
 *   mpirun -n 2 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=cg.%p \
 *       pingpong_instructions [warm round trips, 100000] [counted round trips, 40] [bytes, 8 (at most 65536)]
 *   for f in cg.*.*; do ...; done   (dumps are named send / recv; the most common count is the figure)
 *
 * A spinning receive counts its empty polls too, and how many there are depends on timing; so each
 * side sleeps (uninstrumented) before it receives, long enough for the message to be in its ring
 * already: a counted MPI_Recv is the posted receive, one poll that finds the packet, the copy and
 * the completion, and nothing else. Rank 0 sends first; rank 1 answers.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "callgrind_marks.h"

static int bytes = 8;

static void counted_send(long* buf, int peer) {
  CALLGRIND_ZERO_STATS;
  MPI_Send(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
  CALLGRIND_DUMP_STATS_AT("send");
}

static void counted_recv(long* buf, int peer) {
  usleep(20000);  // the peer's packet lands meanwhile (under valgrind a call takes tens of us)
  CALLGRIND_ZERO_STATS;
  MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CALLGRIND_DUMP_STATS_AT("recv");
}

int main(int argc, char** argv) {
  int warm = argc > 1 ? atoi(argv[1]) : 100000, counted = argc > 2 ? atoi(argv[2]) : 40, rank, size;
  static long data[65536 / sizeof(long)];
  long* buf = data;
  bytes = argc > 3 ? atoi(argv[3]) : 8;
  if (bytes < 8 || bytes > (int)sizeof data) bytes = 8;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) printf("pingpong_instructions: needs 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  int peer = 1 - rank;
  for (int i = 0; i < warm; i++) {
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    }
  }
  CALLGRIND_START_INSTRUMENTATION;
  // The first instrumented round trips are translated by callgrind: counted from the tenth on.
  for (int i = 0; i < counted + 10; i++) {
    buf[0] = i;
    if (rank == 0) {
      counted_send(buf, peer);
      counted_recv(buf, peer);
      if (buf[0] != i + 1) {
        printf("pingpong_instructions: FAILED: received %ld, expected %d\n", buf[0], i + 1);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    } else {
      counted_recv(buf, peer);
      buf[0] += 1;
      counted_send(buf, peer);
    }
  }
  CALLGRIND_STOP_INSTRUMENTATION;
  MPI_Finalize();
  return 0;
}
