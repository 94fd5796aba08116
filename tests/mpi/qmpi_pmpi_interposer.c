/*
 * A PMPI-style profiling interposer and a QMPI tool in one program. The program's own MPI_Send
 * replaces libmpi's (weak) one, as MPI-4.0 §15.2 requires, and reaches the library through
 * PMPI_Send, which no QMPI tool sees; the QMPI tool still sees every other call it registered
 * (MPI_Recv here). Run with the tool list "count".
 */
#define TEST_NAME "qmpi_pmpi_interposer"
#include "mpitest.h"

static int interposed_sends, tool_sends, tool_recvs;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  interposed_sends++;
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

static int count_send(QMPI_Context context, int tool_id, const void *buf, int count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm) {
  tool_sends++;
  void (*fn)(void);
  int next;
  QMPI_Get_function(tool_id, MPI_SEND_T, &fn, &next);
  return ((QMPI_Send_t *)fn)(context, next, buf, count, datatype, dest, tag, comm);
}

static int count_recv(QMPI_Context context, int tool_id, void *buf, int count, MPI_Datatype datatype, int source,
                      int tag, MPI_Comm comm, MPI_Status *status) {
  tool_recvs++;
  void (*fn)(void);
  int next;
  QMPI_Get_function(tool_id, MPI_RECV_T, &fn, &next);
  return ((QMPI_Recv_t *)fn)(context, next, buf, count, datatype, source, tag, comm, status);
}

static void count_init(int tool_id) {
  QMPI_Register_function(tool_id, MPI_SEND_T, (void (*)(void))count_send);
  QMPI_Register_function(tool_id, MPI_RECV_T, (void (*)(void))count_recv);
}

__attribute__((constructor)) static void register_tool(void) { QMPI_Register_tool_name("count", count_init); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    value = 42;
    MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    CHECK(interposed_sends == 1, "the interposer's MPI_Send ran %d times, not once", interposed_sends);
    CHECK(tool_sends == 0, "the QMPI tool saw %d sends past the interposer's PMPI_Send", tool_sends);
  } else if (rank == 1) {
    MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(value == 42, "received %d, not 42", value);
    CHECK(tool_recvs == 1, "the QMPI tool saw %d receives, not 1", tool_recvs);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("%s: OK\n", TEST_NAME);
  MPI_Finalize();
  return 0;
}
