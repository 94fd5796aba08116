/* A program whose communication and I/O are known exactly, for FERRY_PROFILE's report
 * (tests/profile/check_report.py computes what report.json must say from the same numbers).
 *
 *   known_traffic FILE [crash|crash-first|show-dir]
 *
 * Every rank: a ring of RING_MESSAGES sends of RING_BYTES to the right (MPI_Isend, MPI_Recv,
 * MPI_Wait); ALLTOALLS MPI_Alltoall of ALLTOALL_INTS ints per peer; ALLREDUCES MPI_Allreduce of
 * one double; PERSISTENT_ROUNDS starts of a persistent send of PERSISTENT_BYTES to the right
 * (MPI_Send_init_c, MPI_Start and MPI_Startall in turn: a message at each start, none at the init); RMA_PUTS MPI_Put of RMA_PUT_INTS ints on
 * the right neighbour's window and one MPI_Fetch_and_op of an int on rank 0's, then, on a window
 * over a communicator that orders the ranks backwards (which often gets the freed window's handle:
 * the profile's memory of the last window reached, bindings/gen_qmpi.py recent_win, must not give
 * it the old one's ranks), REUSE_PUTS MPI_Put of one int, each rank's own, on its rank 0 (the last
 * world rank); rank 0 also sends
 * BIG_MESSAGES of BIG_BYTES to the last rank (MPI_Send; on MPI_COMM_WORLD, a duplicate of it, and
 * with a derived datatype in turn). Then FILE:
 * WRITE_ROUNDS collective writes of BLOCK bytes each (MPI_File_write_at_all), rank 0 alone two
 * independent writes of TAIL bytes (MPI_File_write_at), one collective read of BLOCK bytes; the
 * collective writes with romio_cb_write=enable (through aggregators), the read without.
 * Last, for the profile's sampling of short calls (src/profile/counters.h): SHORT_PROBES
 * MPI_Iprobe that find nothing, then LONG_BARRIERS MPI_Barrier that rank 0 enters BARRIER_WAIT_US
 * late each, so the other ranks' barriers are long (every one timed).
 * With "crash", rank 1 dies (SIGKILL) after the ring, so the report must be partial; with
 * "crash-first", only in the first attempt under mpirun --max-restarts (FERRY_RESTART_COUNT unset
 * or 0). With "show-dir", each rank first prints where it counts:
 * "known_traffic: rank R on HOST counts in DIR" (FERRY_PROFILE_DIR as the launcher set it).
 *
 * The program also carries a QMPI tool, "relay", attached only when the tool list names it
 * (MPIR_CVAR_QMPI_TOOL_LIST=relay): it takes MPI_Isend, MPI_Recv and MPI_Iprobe, counts them and
 * passes them on. The profile then comes after it for those three (QMPI's general dispatch) and
 * alone first for the rest (the entry points' direct call of its wrappers, api/qmpi.h): the
 * report's numbers must be the same, and the tool must have seen each of its calls. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RING_MESSAGES 10
#define RING_BYTES 1000
#define ALLTOALLS 5
#define ALLTOALL_INTS 16
#define ALLREDUCES 7
#define PERSISTENT_ROUNDS 6
#define PERSISTENT_BYTES 512
#define RMA_PUTS 5
#define RMA_PUT_INTS 32
#define REUSE_PUTS 7
#define BIG_MESSAGES 3
#define BIG_BYTES 65536
#define WRITE_ROUNDS 4
#define BLOCK 4096
#define TAIL 100
#define SHORT_PROBES 20000
#define LONG_BARRIERS 40
#define BARRIER_WAIT_US 6000

static void fail(int rank, const char* what) {
  printf("known_traffic: rank %d: FAILED: %s\n", rank, what);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The "relay" tool: what it saw. */
static int relay_attached, relay_isends, relay_recvs, relay_iprobes;

static void (*relay_next(int tool_id, enum QMPI_Functions_enum function, int* next))(void) {
  void (*f)(void) = NULL;
  if (QMPI_Get_function(tool_id, function, &f, next) != MPI_SUCCESS || f == NULL) abort();
  return f;
}
static int relay_isend(QMPI_Context context, int tool_id, const void* buf, int count, MPI_Datatype datatype, int dest,
                       int tag, MPI_Comm comm, MPI_Request* request) {
  ++relay_isends;
  int next;
  QMPI_Isend_t* f = (QMPI_Isend_t*)relay_next(tool_id, MPI_ISEND_T, &next);
  return f(context, next, buf, count, datatype, dest, tag, comm, request);
}
static int relay_recv(QMPI_Context context, int tool_id, void* buf, int count, MPI_Datatype datatype, int source,
                      int tag, MPI_Comm comm, MPI_Status* status) {
  ++relay_recvs;
  int next;
  QMPI_Recv_t* f = (QMPI_Recv_t*)relay_next(tool_id, MPI_RECV_T, &next);
  return f(context, next, buf, count, datatype, source, tag, comm, status);
}
static int relay_iprobe(QMPI_Context context, int tool_id, int source, int tag, MPI_Comm comm, int* flag,
                        MPI_Status* status) {
  ++relay_iprobes;
  int next;
  QMPI_Iprobe_t* f = (QMPI_Iprobe_t*)relay_next(tool_id, MPI_IPROBE_T, &next);
  return f(context, next, source, tag, comm, flag, status);
}
static void relay_init(int tool_id) {
  relay_attached = 1;
  QMPI_Register_function(tool_id, MPI_ISEND_T, (void (*)(void))relay_isend);
  QMPI_Register_function(tool_id, MPI_RECV_T, (void (*)(void))relay_recv);
  QMPI_Register_function(tool_id, MPI_IPROBE_T, (void (*)(void))relay_iprobe);
}
__attribute__((constructor)) static void register_relay(void) { QMPI_Register_tool_name("relay", relay_init); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) fail(rank, "usage: known_traffic FILE [crash|crash-first]");
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  if (argc > 2 && strcmp(argv[2], "show-dir") == 0) {
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    const char* dir = getenv("FERRY_PROFILE_DIR");
    printf("known_traffic: rank %d on %s counts in %s\n", rank, host, dir != NULL ? dir : "(unset)");
    fflush(stdout);
  }

  char out[RING_BYTES], in[RING_BYTES];
  memset(out, rank, sizeof out);
  for (int i = 0; i < RING_MESSAGES; ++i) {
    MPI_Request r;
    MPI_Isend(out, RING_BYTES, MPI_BYTE, right, i, MPI_COMM_WORLD, &r);
    MPI_Recv(in, RING_BYTES, MPI_BYTE, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (in[0] != (char)left) fail(rank, "ring message has the wrong contents");
  }
  const char* restart = getenv("FERRY_RESTART_COUNT");
  int first_attempt = restart == NULL || strcmp(restart, "0") == 0;
  if (argc > 2 && (strcmp(argv[2], "crash") == 0 || (strcmp(argv[2], "crash-first") == 0 && first_attempt))) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) raise(SIGKILL);
    MPI_Barrier(MPI_COMM_WORLD);  /* never returns: the job ends */
  }

  int* send = malloc(sizeof(int) * ALLTOALL_INTS * size);
  int* recv = malloc(sizeof(int) * ALLTOALL_INTS * size);
  for (int i = 0; i < ALLTOALL_INTS * size; ++i) send[i] = rank * 1000 + i / ALLTOALL_INTS;
  for (int i = 0; i < ALLTOALLS; ++i)
    MPI_Alltoall(send, ALLTOALL_INTS, MPI_INT, recv, ALLTOALL_INTS, MPI_INT, MPI_COMM_WORLD);
  for (int p = 0; p < size; ++p)
    if (recv[p * ALLTOALL_INTS] != p * 1000 + rank) fail(rank, "alltoall delivered the wrong block");
  double one = 1, sum = 0;
  for (int i = 0; i < ALLREDUCES; ++i) MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (sum != size) fail(rank, "allreduce sum");

  char pout[PERSISTENT_BYTES], pin[PERSISTENT_BYTES];
  MPI_Request persistent[2];
  MPI_Send_init_c(pout, (MPI_Count)PERSISTENT_BYTES, MPI_BYTE, right, 50, MPI_COMM_WORLD, &persistent[0]);
  MPI_Recv_init(pin, PERSISTENT_BYTES, MPI_BYTE, left, 50, MPI_COMM_WORLD, &persistent[1]);
  for (int i = 0; i < PERSISTENT_ROUNDS; ++i) {
    memset(pout, i + 1, sizeof pout);
    if (i % 2 == 0) {
      MPI_Start(&persistent[0]);
      MPI_Start(&persistent[1]);
    } else {
      MPI_Startall(2, persistent);
    }
    MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE);
    if (pin[0] != (char)(i + 1)) fail(rank, "persistent message has the wrong contents");
  }
  MPI_Request_free(&persistent[0]);
  MPI_Request_free(&persistent[1]);

  int* window_memory;
  MPI_Win win;
  MPI_Win_allocate(sizeof(int) * (RMA_PUT_INTS + 1), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &window_memory, &win);
  for (int i = 0; i <= RMA_PUT_INTS; ++i) window_memory[i] = -1;
  int origin[RMA_PUT_INTS];
  for (int i = 0; i < RMA_PUT_INTS; ++i) origin[i] = rank;
  MPI_Win_fence(0, win);
  for (int i = 0; i < RMA_PUTS; ++i) MPI_Put(origin, RMA_PUT_INTS, MPI_INT, right, 0, RMA_PUT_INTS, MPI_INT, win);
  MPI_Win_fence(0, win);
  if (window_memory[0] != left || window_memory[RMA_PUT_INTS - 1] != left) fail(rank, "MPI_Put delivered the wrong ints");
  int increment = 1, before;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Fetch_and_op(&increment, &before, MPI_INT, 0, RMA_PUT_INTS, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Win_free(&win);

  MPI_Comm backwards;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &backwards);
  MPI_Win_allocate(sizeof(int) * size, sizeof(int), MPI_INFO_NULL, backwards, &window_memory, &win);
  for (int i = 0; i < size; ++i) window_memory[i] = -1;
  MPI_Win_fence(0, win);
  for (int i = 0; i < REUSE_PUTS; ++i) MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < size && rank == size - 1; ++i)
    if (window_memory[i] != i) fail(rank, "MPI_Put on the backwards window delivered the wrong int");
  MPI_Win_free(&win);
  MPI_Comm_free(&backwards);

  /* The same bytes three ways: the profile's inline count (MPI_COMM_WORLD, a predefined type), then
   * its general one (counted_X in the generated wrappers) for another communicator, then for a
   * derived datatype. */
  static char big[BIG_BYTES];
  MPI_Comm dup;
  MPI_Datatype eight;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Type_contiguous(8, MPI_DOUBLE, &eight);
  MPI_Type_commit(&eight);
  for (int i = 0; i < BIG_MESSAGES && size > 1; ++i) {
    MPI_Comm comm = i % 3 == 1 ? dup : MPI_COMM_WORLD;
    MPI_Datatype type = i % 3 == 2 ? eight : MPI_DOUBLE;
    int count = i % 3 == 2 ? BIG_BYTES / 64 : BIG_BYTES / 8;
    if (rank == 0) MPI_Send(big, count, type, size - 1, 100 + i, comm);
    if (rank == size - 1) MPI_Recv(big, count, type, 0, 100 + i, comm, MPI_STATUS_IGNORE);
  }
  MPI_Type_free(&eight);
  MPI_Comm_free(&dup);

  /* Collective buffering for the writes (two-phase, through aggregators), not for the read. */
  MPI_File fh;
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "romio_cb_write", "enable");
  if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, hints, &fh) != MPI_SUCCESS)
    fail(rank, "MPI_File_open");
  MPI_Info_free(&hints);
  char block[BLOCK];
  memset(block, 'a' + rank % 26, sizeof block);
  for (int i = 0; i < WRITE_ROUNDS; ++i)
    MPI_File_write_at_all(fh, ((MPI_Offset)i * size + rank) * BLOCK, block, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);
  if (rank == 0)
    for (int i = 0; i < 2; ++i)
      MPI_File_write_at(fh, (MPI_Offset)WRITE_ROUNDS * size * BLOCK + i * TAIL, block, TAIL, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_read_at_all(fh, (MPI_Offset)rank * BLOCK, block, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);
  if (block[0] != 'a' + rank % 26) fail(rank, "read back the wrong block");
  MPI_File_close(&fh);

  int found = 0;
  for (int i = 0; i < SHORT_PROBES; ++i) {
    MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE);
    if (found) fail(rank, "MPI_Iprobe found a message nobody sent");
  }
  for (int i = 0; i < LONG_BARRIERS; ++i) {
    if (rank == 0 && size > 1) usleep(BARRIER_WAIT_US);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(send);
  free(recv);
  if (relay_attached) {
    int recvs = RING_MESSAGES + (rank == size - 1 && size > 1 ? BIG_MESSAGES : 0);
    if (relay_isends != RING_MESSAGES || relay_recvs != recvs || relay_iprobes != SHORT_PROBES) {
      char what[160];
      snprintf(what, sizeof what, "the relay tool saw %d MPI_Isend, %d MPI_Recv, %d MPI_Iprobe; expected %d, %d, %d",
               relay_isends, relay_recvs, relay_iprobes, RING_MESSAGES, recvs, SHORT_PROBES);
      fail(rank, what);
    }
  }
  if (rank == 0) printf("known_traffic: OK%s\n", relay_attached ? " (through the relay tool)" : "");
  MPI_Finalize();
  return 0;
}
