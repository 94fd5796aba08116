/*
 * MPI_T while other threads communicate (MPI_THREAD_MULTIPLE): thread 0 of
 * ranks 0 and 1 exchanges N messages of B bytes (rank 0 sends, rank 1
 * receives them out of tag order, so that most wait unexpected), while
 * thread 1 keeps reading a started counter, allocating and freeing
 * performance-variable handles and event registrations, and changing the
 * callback of an unexpected-message registration. The reads never go
 * backwards, nothing crashes, and when the traffic ends the counters of
 * thread 1's session hold exactly N messages and N*B bytes.
 */
#define TEST_NAME "mt_tool"
#include "../mpitest.h"
#include "mt_threads.h"

enum { N = 200, B = 64 };

static int rank;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle traffic[2][3]; /* [messages, bytes][shm, tcp, self] */
static volatile int traffic_done;
static int events_seen;

static void on_event(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *user) {
  (void)r, (void)s;
  int tag = -1;
  MPI_T_event_read(e, 1, &tag);
  __atomic_add_fetch((int *)user, 1, __ATOMIC_RELAXED);
}

static unsigned long long total(int what) {
  unsigned long long sum = 0;
  for (int t = 0; t < 3; ++t) {
    unsigned long long v = 0;
    CHECK(MPI_T_pvar_read(session, traffic[what][t], &v) == MPI_SUCCESS, "pvar_read");
    sum += v;
  }
  return sum;
}

static void *work(void *arg) {
  int t = mtt_thread(arg);
  char buf[B];
  memset(buf, 7, sizeof buf);
  if (t == 0) {
    if (rank == 0) {
      for (int i = 0; i < N; ++i) MPI_Send(buf, B, MPI_CHAR, 1, i, MPI_COMM_WORLD);
    } else if (rank == 1) {
      for (int i = N - 1; i >= 0; --i) MPI_Recv(buf, B, MPI_CHAR, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    __atomic_store_n(&traffic_done, 1, __ATOMIC_RELEASE);
    return NULL;
  }
  /* The tool thread. */
  int index = -1, count = 0;
  MPI_T_event_get_index("ferry.p2p.unexpected_message", &index);
  MPI_T_event_registration reg;
  CHECK(MPI_T_event_handle_alloc(index, NULL, MPI_INFO_NULL, &reg) == MPI_SUCCESS, "event_handle_alloc");
  unsigned long long last = 0;
  int rounds = 0;
  while (!__atomic_load_n(&traffic_done, __ATOMIC_ACQUIRE) || rounds < 10) {
    ++rounds;
    unsigned long long now = total(0);
    CHECK(now >= last, "a counter went back from %llu to %llu", last, now);
    last = now;
    /* Churn: handles and registrations come and go while events are raised. */
    MPI_T_pvar_handle h;
    int peak = -1;
    MPI_T_pvar_get_index("ferry.p2p.unexpected_queue_peak", MPI_T_PVAR_CLASS_HIGHWATERMARK, &peak);
    CHECK(MPI_T_pvar_handle_alloc(session, peak, NULL, &h, &count) == MPI_SUCCESS, "handle_alloc");
    CHECK(MPI_T_pvar_handle_free(session, &h) == MPI_SUCCESS, "handle_free");
    MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &events_seen,
                                  rounds % 2 ? on_event : NULL);
    MPI_T_event_registration extra;
    CHECK(MPI_T_event_handle_alloc(index, NULL, MPI_INFO_NULL, &extra) == MPI_SUCCESS, "event_handle_alloc");
    MPI_T_event_register_callback(extra, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &events_seen, on_event);
    CHECK(MPI_T_event_handle_free(extra, NULL, NULL) == MPI_SUCCESS, "event_handle_free");
  }
  CHECK(MPI_T_event_handle_free(reg, NULL, NULL) == MPI_SUCCESS, "event_handle_free");
  return NULL;
}

int main(int argc, char **argv) {
  int provided, size;
  mtt_init(&argc, &argv, 1);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
  CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "session_create");
  const char *transports[] = {"shm", "tcp", "self"};
  const char *what[2][2] = {{"messages_sent", "bytes_sent"}, {"messages_received", "bytes_received"}};
  for (int w = 0; w < 2; ++w)
    for (int t = 0; t < 3; ++t) {
      char name[128];
      int index = -1, count;
      snprintf(name, sizeof name, "ferry.transport.%s.%s", transports[t], what[rank == 1][w]);
      CHECK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index) == MPI_SUCCESS, "pvar %s", name);
      CHECK(MPI_T_pvar_handle_alloc(session, index, NULL, &traffic[w][t], &count) == MPI_SUCCESS, "alloc");
    }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start");
  /* Rank 0 sends only once rank 1 counts (a token outside what they read). */
  int go = 0;
  if (rank == 1) MPI_Send(&go, 1, MPI_INT, 0, N + 2, MPI_COMM_WORLD);
  if (rank == 0) MPI_Recv(&go, 1, MPI_INT, 1, N + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  mtt_run(2, work);
  CHECK(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "stop");
  /* The others send nothing more (a barrier's messages) until rank 1 has
   * stopped counting; its token counts among its sends, which it does not read. */
  int token = 0;
  if (rank == 1) {
    for (int r = 0; r < size; ++r)
      if (r != 1) MPI_Send(&token, 1, MPI_INT, r, N + 1, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 1, N + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank <= 1) {
    CHECK(total(0) == N && total(1) == (unsigned long long)N * B, "%llu messages, %llu bytes; expected %d, %d",
          total(0), total(1), N, N * B);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_T_pvar_session_free(&session) == MPI_SUCCESS, "session_free");
  CHECK(MPI_T_finalize() == MPI_SUCCESS, "MPI_T_finalize");
  mt_pass();
  MPI_Finalize();
  return 0;
}
