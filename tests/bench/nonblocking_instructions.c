/*
 * nonblocking_instructions: the instructions of one MPI_Irecv + MPI_Isend + MPI_Waitall of 8 bytes
 * to oneself on a duplicate of MPI_COMM_WORLD (as msgrate's pairs talk), counted by callgrind round
 * by round: FERRY_PROFILE's cost per call where a send is not on MPI_COMM_WORLD, load-independent
 * (docs/performance.md). Run and read as counted_rounds.h says:
 *
 *   mpirun -n 1 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=cg.%p \
 *       nonblocking_instructions [warm rounds, 400000] [counted rounds, 40] [world|dup|multiple]
 *   grep -h ^summary: cg.*.* | sort | uniq -c          (the most common count is the figure)
 *
 * "world": on MPI_COMM_WORLD instead; "multiple": on the duplicate, MPI_Init_thread(MULTIPLE), one
 * thread.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "counted_rounds.h"

static void round_trip(long* out, long* in, int rank, MPI_Comm comm) {
  MPI_Request r[2];
  MPI_Irecv(in, 8, MPI_BYTE, rank, 0, comm, &r[0]);
  MPI_Isend(out, 8, MPI_BYTE, rank, 0, comm, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
}

int main(int argc, char** argv) {
  const char* form = argc > 3 ? argv[3] : "dup";
  long out = 42, in = 0;
  struct rounds rounds = start_mpi(&argc, &argv, strcmp(form, "multiple") == 0);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm comm = MPI_COMM_WORLD;
  if (strcmp(form, "world") != 0) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  COUNT_ROUNDS(rounds, round_trip(&out, &in, rank, comm), "round");
  if (in != out) {
    printf("nonblocking_instructions: FAILED: received %ld\n", in);
    return 1;
  }
  if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
