/*
 * call_overhead: what a trivial MPI call costs, entry point included: MPI_Comm_rank and MPI_Send of
 * 8 bytes to MPI_PROC_NULL, one process, in rounds of 10^6 calls, keeping each one's fastest round
 * (a noisy neighbour costs rounds, not the figure). scripts/bench figures rank and send0: the
 * generated MPI_ entry points test their QMPI slot before jumping to PMPI_ (README "QMPI tools").
 *
 *   mpirun -n 1 call_overhead [rounds]        (default 50)
 *
 * The program also registers a QMPI tool "passthrough" that intercepts MPI_Comm_rank and passes it
 * on: with MPIR_CVAR_QMPI_TOOL_LIST=passthrough the rank figure includes one tool. Against an
 * mpi.h without QMPI it builds without the tool.
 *
 * Output: '#' header lines, then: rank_ns send_ns (per call).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>


#ifdef QMPI_MAX_TOOL_NAME_LENGTH /* an MPI with QMPI (MPICH 4's, Ferry's) */
static QMPI_Comm_rank_t *next_rank;
static int next_rank_id;

static int passthrough_rank(QMPI_Context context, int tool_id, MPI_Comm comm, int *rank) {
  (void)tool_id;
  return next_rank(context, next_rank_id, comm, rank);
}

static void passthrough_init(int tool_id) {
  QMPI_Register_function(tool_id, MPI_COMM_RANK_T, (void (*)(void))passthrough_rank);
  QMPI_Get_function(tool_id, MPI_COMM_RANK_T, (void (**)(void))&next_rank, &next_rank_id);
}

__attribute__((constructor)) static void register_passthrough(void) {
  QMPI_Register_tool_name("passthrough", passthrough_init);
}
#endif

int main(int argc, char **argv) {
  enum { calls = 1000000 };
  int rounds = argc > 1 ? atoi(argv[1]) : 50, rank = 0, sink = 0;
  long buf = 0;
  MPI_Init(&argc, &argv);
  double best_rank = 1e30, best_send = 1e30;
  for (int r = 0; r < rounds; r++) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++) {
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      sink += rank;
    }
    double t = MPI_Wtime() - t0;
    if (t < best_rank) best_rank = t;
    t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++) MPI_Send(&buf, 8, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    t = MPI_Wtime() - t0;
    if (t < best_send) best_send = t;
  }
  printf("# call_overhead: MPI_Comm_rank and MPI_Send(8 B, MPI_PROC_NULL), fastest of %d rounds of %d calls\n",
         rounds, (int)calls);
  printf("# rank_ns send_ns\n%.2f %.2f\n", best_rank / calls * 1e9, best_send / calls * 1e9);
  MPI_Finalize();
  return sink == -1;
}
