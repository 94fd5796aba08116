/*
 * QMPI (MPICH 4.0's tool interface): tools chained in the order of the tool list, each passing the
 * call on with QMPI_Get_function, arguments and results passed through the chain, per-instance
 * storage, the calling address, and errors for bad tool ids and function numbers.
 *
 * Two tools register from constructors: "trace" and "count". Run with the list
 * trace:count:trace (ids 1, 2, 3): every MPI_Send goes 1 -> 2 -> 3 -> the library, and id 1 raises
 * the tag by one on the way, which the receive (intercepted by "count" alone) must see. With the
 * argument "unknown" and the list trace:nosuch, the unregistered name is skipped with one warning.
 */
#define TEST_NAME "qmpi_tools"
#include "mpitest.h"

#include <string.h>

static void trace_init(int tool_id);
static void count_init(int tool_id);

static int registered_trace = -1, registered_count = -1;
__attribute__((constructor)) static void register_tools(void) {
  registered_trace = QMPI_Register_tool_name("trace", trace_init);
  registered_count = QMPI_Register_tool_name("count", count_init);
}

struct storage {
  int tool_id;
  const char *name;
};
static struct storage storages[8];

/* What the tools saw, in order. */
static int send_log[16], n_send_log;
static int recv_log[16], n_recv_log;
static int init_log[8], n_init_log;
static int tool_inits[8], n_tool_inits;
static int pcontrol_level = -1, wtime_calls;
static void *send_caller;
static int next_send_tool[4] = {0, 2, 3, 0}; /* [id]: the next for MPI_Send; 0: the library */

static struct storage *own_storage(QMPI_Context context, int tool_id) {
  void *s = NULL;
  CHECK(QMPI_Get_tool_storage(context, tool_id, &s) == MPI_SUCCESS, "QMPI_Get_tool_storage(%d)", tool_id);
  CHECK(s == &storages[tool_id] && storages[tool_id].tool_id == tool_id, "tool %d got another's storage", tool_id);
  return s;
}

static int next_function(int tool_id, enum QMPI_Functions_enum f, void (**fn)(void)) {
  int next = -1;
  CHECK(QMPI_Get_function(tool_id, f, fn, &next) == MPI_SUCCESS && *fn != NULL, "QMPI_Get_function(%d, %d)",
        tool_id, (int)f);
  return next;
}

static int trace_init_call(QMPI_Context context, int tool_id, int *argc, char ***argv) {
  own_storage(context, tool_id);
  init_log[n_init_log++] = tool_id;
  void (*fn)(void);
  int next = next_function(tool_id, MPI_INIT_T, &fn);
  return ((QMPI_Init_t *)fn)(context, next, argc, argv);
}

static int trace_send(QMPI_Context context, int tool_id, const void *buf, int count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm) {
  own_storage(context, tool_id);
  send_log[n_send_log++] = tool_id;
  CHECK(count == 1 && datatype == MPI_INT && comm == MPI_COMM_WORLD && *(const int *)buf == 1337,
        "tool %d: MPI_Send's arguments changed on the way", tool_id);
  if (tool_id == 1) {
    CHECK(tag == 7, "tool 1 saw tag %d, the program sent 7", tag);
    QMPI_Get_calling_address(context, &send_caller);
    tag = 8; /* passed on changed: the rest of the chain and the library must see 8 */
  } else {
    CHECK(tag == 8, "tool %d saw tag %d, tool 1 passed 8", tool_id, tag);
  }
  void (*fn)(void);
  int next = next_function(tool_id, MPI_SEND_T, &fn);
  CHECK(next == next_send_tool[tool_id], "tool %d: next tool for MPI_Send is %d", tool_id, next);
  return ((QMPI_Send_t *)fn)(context, next, buf, count, datatype, dest, tag, comm);
}

static int trace_pcontrol(QMPI_Context context, int tool_id, const int level, ...) {
  pcontrol_level = level;
  void (*fn)(void);
  int next = next_function(tool_id, MPI_PCONTROL_T, &fn);
  return ((QMPI_Pcontrol_t *)fn)(context, next, level);
}

static int count_send(QMPI_Context context, int tool_id, const void *buf, int count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm) {
  return trace_send(context, tool_id, buf, count, datatype, dest, tag, comm);
}

static int count_recv(QMPI_Context context, int tool_id, void *buf, int count, MPI_Datatype datatype, int source,
                      int tag, MPI_Comm comm, MPI_Status *status) {
  own_storage(context, tool_id);
  recv_log[n_recv_log++] = tool_id;
  void (*fn)(void);
  int next = next_function(tool_id, MPI_RECV_T, &fn);
  CHECK(next == 0, "count: MPI_Recv's next tool is %d, only count takes it", next);
  return ((QMPI_Recv_t *)fn)(context, next, buf, count, datatype, source, tag, comm, status);
}

static double count_wtime(QMPI_Context context, int tool_id) {
  wtime_calls++;
  void (*fn)(void);
  int next = next_function(tool_id, MPI_WTIME_T, &fn);
  return ((QMPI_Wtime_t *)fn)(context, next);
}

static void common_init(int tool_id, const char *name) {
  tool_inits[n_tool_inits++] = tool_id;
  storages[tool_id].tool_id = tool_id;
  storages[tool_id].name = name;
  CHECK(QMPI_Register_tool_storage(tool_id, &storages[tool_id]) == MPI_SUCCESS, "QMPI_Register_tool_storage");
}

static void trace_init(int tool_id) {
  common_init(tool_id, "trace");
  QMPI_Register_function(tool_id, MPI_INIT_T, (void (*)(void))trace_init_call);
  QMPI_Register_function(tool_id, MPI_SEND_T, (void (*)(void))trace_send);
  QMPI_Register_function(tool_id, MPI_PCONTROL_T, (void (*)(void))trace_pcontrol);
}

static void count_init(int tool_id) {
  common_init(tool_id, "count");
  QMPI_Register_function(tool_id, MPI_SEND_T, (void (*)(void))count_send);
  QMPI_Register_function(tool_id, MPI_RECV_T, (void (*)(void))count_recv);
  QMPI_Register_function(tool_id, MPI_WTIME_T, (void (*)(void))count_wtime);
}

static void __attribute__((noinline)) send_from_here(int dest) {
  int value = 1337;
  /* Not a tail call: the call returns here, so its return address lies in this function. */
  int rc = MPI_Send(&value, 1, MPI_INT, dest, 7, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "MPI_Send through the tools answered %d", rc);
}

static void check_errors(int tools) {
  void (*fn)(void) = NULL;
  void *s = NULL;
  int next = 0;
  QMPI_Context context = {NULL};
  CHECK(QMPI_Register_function(tools + 1, MPI_SEND_T, (void (*)(void))trace_send) == MPI_ERR_ARG,
        "QMPI_Register_function accepted tool id %d of %d", tools + 1, tools);
  CHECK(QMPI_Register_function(0, MPI_SEND_T, (void (*)(void))trace_send) == MPI_ERR_ARG,
        "QMPI_Register_function accepted tool id 0 (the library)");
  CHECK(QMPI_Register_function(1, MPI_LAST_FUNC_T, (void (*)(void))trace_send) == MPI_ERR_ARG,
        "QMPI_Register_function accepted MPI_LAST_FUNC_T");
  CHECK(QMPI_Register_function(1, (enum QMPI_Functions_enum) - 1, (void (*)(void))trace_send) == MPI_ERR_ARG,
        "QMPI_Register_function accepted function -1");
  CHECK(QMPI_Get_function(tools + 1, MPI_SEND_T, &fn, &next) == MPI_ERR_ARG, "QMPI_Get_function: bad tool id");
  CHECK(QMPI_Get_function(1, (enum QMPI_Functions_enum)100000, &fn, &next) == MPI_ERR_ARG,
        "QMPI_Get_function: bad function");
  CHECK(QMPI_Get_tool_storage(context, -1, &s) == MPI_ERR_ARG, "QMPI_Get_tool_storage: tool id -1");
  CHECK(QMPI_Register_tool_storage(tools + 1, &s) == MPI_ERR_ARG, "QMPI_Register_tool_storage: bad tool id");
  CHECK(QMPI_Register_tool_name("nosuch", count_init) == MPI_ERR_OTHER,
        "QMPI_Register_tool_name: a name not in the list");
  CHECK(QMPI_Register_tool_name("trace", trace_init) == MPI_ERR_OTHER,
        "QMPI_Register_tool_name: the same name twice");
  /* Outside a tool's function there is no calling address. */
  s = &s;
  CHECK(QMPI_Get_calling_address(context, &s) == MPI_SUCCESS && s == NULL, "QMPI_Get_calling_address outside a tool");
}

int main(int argc, char **argv) {
  int unknown = argc > 1 && strcmp(argv[1], "unknown") == 0;
  if (unknown) next_send_tool[1] = 0; /* trace:nosuch: id 2 was never attached */
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs two ranks");
  CHECK(registered_trace == MPI_SUCCESS, "QMPI_Register_tool_name(trace) answered %d", registered_trace);

  if (!unknown) {
    /* trace:count:trace */
    CHECK(registered_count == MPI_SUCCESS, "QMPI_Register_tool_name(count) answered %d", registered_count);
    CHECK(n_tool_inits == 3 && tool_inits[0] == 1 && tool_inits[1] == 2 && tool_inits[2] == 3,
          "tools initialized %d times, not ids 1, 2, 3 in order", n_tool_inits);
    CHECK(n_init_log == 2 && init_log[0] == 1 && init_log[1] == 3, "MPI_Init went through %d tools, not 1 then 3",
          n_init_log);
    if (rank == 0) {
      send_from_here(1);
      CHECK(n_send_log == 3 && send_log[0] == 1 && send_log[1] == 2 && send_log[2] == 3,
            "MPI_Send went through %d tools, not 1, 2, 3 in order", n_send_log);
      CHECK((char *)send_caller > (char *)send_from_here && (char *)send_caller < (char *)send_from_here + 4096,
            "QMPI_Get_calling_address answered %p, not a place in send_from_here (%p)", send_caller,
            (void *)send_from_here);
    } else if (rank == 1) {
      int value = 0;
      MPI_Status status;
      MPI_Recv(&value, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, &status);
      CHECK(value == 1337 && status.MPI_TAG == 8, "received %d with tag %d, expected 1337 with tag 8", value,
            status.MPI_TAG);
      CHECK(n_recv_log == 1 && recv_log[0] == 2, "MPI_Recv went through %d tools, not tool 2 alone", n_recv_log);
    }
    /* Variadic MPI_Pcontrol: the tool gets the level; a double result passes back through a tool. */
    MPI_Pcontrol(3, "ignored");
    CHECK(pcontrol_level == 3, "MPI_Pcontrol's tool saw level %d, not 3", pcontrol_level);
    double t = MPI_Wtime();
    CHECK(wtime_calls == 1 && t > 0, "MPI_Wtime through the tool: %d calls, %f", wtime_calls, t);
    check_errors(3);
  } else {
    /* trace:nosuch: the unregistered instance is passed by. */
    CHECK(n_tool_inits == 1 && tool_inits[0] == 1, "tools initialized %d times, not once as id 1", n_tool_inits);
    if (rank == 0) {
      send_from_here(1);
      CHECK(n_send_log == 1 && send_log[0] == 1, "MPI_Send went through %d tools, not tool 1 alone", n_send_log);
    } else if (rank == 1) {
      int value = 0;
      MPI_Recv(&value, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(value == 1337, "received %d", value);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("%s: OK\n", TEST_NAME);
  MPI_Finalize();
  return 0;
}
