/*
 * MPI_T performance variables (MPI-4.0 §15.3.7) count what happened, exactly:
 * after rank 0 sends N messages of B bytes to rank 1, the transports'
 * messages_sent/bytes_sent counters of a started handle have grown by N and
 * N*B at rank 0 (summed over shm, tcp and self, whichever carried them), and
 * rank 1's received counters by the same; a message above the eager limit
 * counts one rendezvous send; K messages left unreceived show as the
 * unexpected queue's LEVEL and HIGHWATERMARK, the level falls back to 0 when
 * they are received and the watermark keeps K until reset; one allreduce
 * counts once among the ferry.coll.allreduce.* counters, and so does each
 * small bcast, gather, scatter and reduce among its operation's (on one
 * host those skip the selection table, coll/choose.h shared_now, and must
 * still count their choice), and so does each small scan and exscan; where
 * FERRY_<OP>_ALGORITHM names an algorithm (the test's algorithm_set form),
 * every such call counts on that algorithm's counter: the path that skips
 * the table must not skip the override. Also: stopped
 * handles stop counting, sessions do not disturb each other, readreset and
 * write act on the handle only, and the classes refuse what they must.
 */
#define TEST_NAME "tool_pvars"
#include "mpitest.h"

#include <ctype.h>

enum { N = 25, B = 100, K = 7, BIG = 4 << 20 };

static MPI_T_pvar_session session;

static MPI_T_pvar_handle handle_of(const char *name, int var_class) {
  int index = -1, count = 0;
  MPI_T_pvar_handle h;
  CHECK(MPI_T_pvar_get_index(name, var_class, &index) == MPI_SUCCESS, "no pvar %s", name);
  CHECK(MPI_T_pvar_handle_alloc(session, index, NULL, &h, &count) == MPI_SUCCESS && count == 1,
        "handle_alloc(%s)", name);
  return h;
}

static unsigned long long read_pvar(MPI_T_pvar_handle h) {
  unsigned long long v = 0;
  CHECK(MPI_T_pvar_read(session, h, &v) == MPI_SUCCESS, "pvar_read");
  return v;
}

/* The sum over the three transports of ferry.transport.<t>.<what>. */
static const char *transports[] = {"shm", "tcp", "self"};
static MPI_T_pvar_handle traffic[3];
static void open_traffic(const char *what) {
  for (int t = 0; t < 3; ++t) {
    char name[128];
    snprintf(name, sizeof name, "ferry.transport.%s.%s", transports[t], what);
    traffic[t] = handle_of(name, MPI_T_PVAR_CLASS_COUNTER);
  }
}
static unsigned long long sum(MPI_T_pvar_handle *hs) {
  unsigned long long s = 0;
  for (int t = 0; t < 3; ++t) s += read_pvar(hs[t]);
  return s;
}

/* The other ranks wait in here until rank 1 has read its counters, so that
 * none of their later messages (a barrier's) reaches rank 1 inside its
 * window. Rank 1's token adds to its sent counters, which it does not read. */
static void hold_others(int rank, int size) {
  int token = 0;
  if (rank == 1)
    for (int r = 0; r < size; ++r) {
      if (r != 1) MPI_Send(&token, 1, MPI_INT, r, 50, MPI_COMM_WORLD);
    }
  else
    MPI_Recv(&token, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Rank 0 sends into rank 1's window only once rank 1 has started its
 * counters (rank 1's token counts among its sends and rank 0's receives,
 * which neither reads). */
static void wait_for_receiver(int rank) {
  int token = 0;
  if (rank == 1) MPI_Send(&token, 1, MPI_INT, 0, 51, MPI_COMM_WORLD);
  if (rank == 0) MPI_Recv(&token, 1, MPI_INT, 1, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* How many of `calls` calls of `call` count among ferry.coll.<op>.*, each
 * on every rank (summed over the operation's algorithms, in a session of
 * its own); all of them on FERRY_<OP>_ALGORITHM's where that is set. */
static void one_count_per_call(const char *op, void (*call)(void), int calls) {
  char setting[64];
  snprintf(setting, sizeof setting, "FERRY_%s_ALGORITHM", op);
  for (char *c = setting; *c; ++c) *c = (char)toupper((unsigned char)*c);
  const char *forced = getenv(setting);
  char forced_name[128] = "";
  if (forced != NULL && *forced != 0) snprintf(forced_name, sizeof forced_name, "ferry.coll.%s.%s", op, forced);
  int forced_at = -1;
  MPI_T_pvar_session s;
  CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS, "session for %s", op);
  char prefix[64];
  snprintf(prefix, sizeof prefix, "ferry.coll.%s.", op);
  MPI_T_pvar_handle hs[16];
  int num = 0, n = 0;
  MPI_T_pvar_get_num(&num);
  for (int i = 0; i < num && n < 16; ++i) {
    char name[128];
    int name_len = sizeof name, var_class, count;
    MPI_T_pvar_get_info(i, name, &name_len, NULL, &var_class, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (strncmp(name, prefix, strlen(prefix)) != 0) continue;
    CHECK(MPI_T_pvar_handle_alloc(s, i, NULL, &hs[n], &count) == MPI_SUCCESS, "alloc %s", name);
    if (strcmp(name, forced_name) == 0) forced_at = n;
    ++n;
  }
  CHECK(n >= 1, "no %s* counter", prefix);
  CHECK(forced_name[0] == 0 || forced_at >= 0, "no %s counter", forced_name);
  CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start %s", op);
  for (int i = 0; i < calls; ++i) call();
  unsigned long long counted = 0;
  for (int i = 0; i < n; ++i) {
    unsigned long long v = 0;
    CHECK(MPI_T_pvar_read(s, hs[i], &v) == MPI_SUCCESS, "read %s", op);
    counted += v;
    if (i == forced_at)
      CHECK(v == (unsigned long long)calls, "%d calls of %s with %s=%s: %llu counted on %s", calls, op, setting,
            forced, v, forced_name);
  }
  CHECK(counted == (unsigned long long)calls, "%d calls of %s counted %llu times", calls, op, counted);
  CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS, "free the %s session", op);
}

static char small_in[64], small_out[64 * 8];
static void small_bcast(void) { MPI_Bcast(small_in, 8, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void small_gather(void) { MPI_Gather(small_in, 8, MPI_BYTE, small_out, 8, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void small_scatter(void) { MPI_Scatter(small_out, 8, MPI_BYTE, small_in, 8, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void small_reduce(void) { MPI_Reduce(small_in, small_out, 2, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD); }
static void small_scan(void) { MPI_Scan(small_in, small_out, 2, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static void small_exscan(void) { MPI_Exscan(small_in, small_out, 2, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  int provided, rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
  CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "session_create");

  /* Every variable describes itself. */
  int num = 0;
  CHECK(MPI_T_pvar_get_num(&num) == MPI_SUCCESS && num >= 12 + 3, "%d pvars", num);
  for (int i = 0; i < num; ++i) {
    char name[128];
    int name_len = sizeof name, verbosity, var_class, bind, readonly, continuous, atomic;
    MPI_Datatype type;
    CHECK(MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &type, NULL, NULL, NULL, &bind, &readonly,
                              &continuous, &atomic) == MPI_SUCCESS, "pvar_get_info(%d)", i);
    CHECK(strncmp(name, "ferry.", 6) == 0 && type == MPI_UNSIGNED_LONG_LONG && bind == MPI_T_BIND_NO_OBJECT,
          "pvar %d: %s", i, name);
    CHECK(continuous == (var_class != MPI_T_PVAR_CLASS_COUNTER), "%s: continuous %d", name, continuous);
  }

  /* Messages and bytes. */
  MPI_T_pvar_handle sent_msgs[3], sent_bytes[3], recv_msgs[3], recv_bytes[3];
  open_traffic(rank == 0 ? "messages_sent" : "messages_received");
  memcpy(rank == 0 ? sent_msgs : recv_msgs, traffic, sizeof traffic);
  open_traffic(rank == 0 ? "bytes_sent" : "bytes_received");
  memcpy(rank == 0 ? sent_bytes : recv_bytes, traffic, sizeof traffic);
  MPI_T_pvar_handle *msgs = rank == 0 ? sent_msgs : recv_msgs, *bytes = rank == 0 ? sent_bytes : recv_bytes;
  MPI_T_pvar_handle rendezvous = handle_of("ferry.p2p.rendezvous_sends", MPI_T_PVAR_CLASS_COUNTER);
  CHECK(sum(msgs) == 0 && sum(bytes) == 0, "a counter not yet started reads nonzero");
  CHECK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start all");
  wait_for_receiver(rank);

  char buf[B];
  memset(buf, 1, sizeof buf);
  if (rank == 0) {
    for (int i = 0; i < N; ++i) MPI_Send(buf, B, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
  } else if (rank == 1) {
    for (int i = 0; i < N; ++i) MPI_Recv(buf, B, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank <= 1) {
    CHECK(sum(msgs) == N, "%llu messages counted, %d exchanged", sum(msgs), N);
    CHECK(sum(bytes) == (unsigned long long)N * B, "%llu bytes counted, %d exchanged", sum(bytes), N * B);
    CHECK(read_pvar(rendezvous) == 0, "%llu rendezvous sends for small messages", read_pvar(rendezvous));
  }
  hold_others(rank, size);

  /* Stopped: no more counting; readreset gives the value and restarts at 0. */
  CHECK(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "stop all");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank <= 1) CHECK(sum(msgs) == N, "a stopped counter moved to %llu", sum(msgs));
  unsigned long long before = 0;
  CHECK(MPI_T_pvar_readreset(session, msgs[0], &before) == MPI_SUCCESS && read_pvar(msgs[0]) == 0, "readreset");
  unsigned long long forty_two = 42;
  CHECK(MPI_T_pvar_write(session, msgs[1], &forty_two) == MPI_SUCCESS && read_pvar(msgs[1]) == 42, "pvar_write");
  CHECK(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS && sum(msgs) == 0, "reset all");

  /* A large message: one rendezvous send, its whole size in bytes. */
  char *big = malloc(BIG);
  memset(big, 2, BIG);
  CHECK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start all again");
  wait_for_receiver(rank);
  if (rank == 0) MPI_Send(big, BIG, MPI_CHAR, 1, 2, MPI_COMM_WORLD);
  if (rank == 1) MPI_Recv(big, BIG, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0) CHECK(read_pvar(rendezvous) == 1, "%llu rendezvous sends for one large message", read_pvar(rendezvous));
  if (rank <= 1)
    CHECK(sum(msgs) == 1 && sum(bytes) == BIG, "large message: %llu messages, %llu bytes", sum(msgs), sum(bytes));
  hold_others(rank, size);
  CHECK(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "stop all");
  free(big);

  /* The unexpected queue: K messages wait at rank 1 until the marker (sent
   * after them, so behind them) has been received. */
  MPI_T_pvar_handle level = handle_of("ferry.p2p.unexpected_queue", MPI_T_PVAR_CLASS_LEVEL);
  MPI_T_pvar_handle peak = handle_of("ferry.p2p.unexpected_queue_peak", MPI_T_PVAR_CLASS_HIGHWATERMARK);
  CHECK(MPI_T_pvar_start(session, level) == MPI_T_ERR_PVAR_NO_STARTSTOP, "a level was started");
  unsigned long long zero = 0;
  CHECK(MPI_T_pvar_write(session, level, &zero) == MPI_T_ERR_PVAR_NO_WRITE, "a level was written");
  CHECK(MPI_T_pvar_reset(session, level) == MPI_T_ERR_PVAR_NO_WRITE, "a level was reset");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < K; ++i) MPI_Send(buf, B, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
    MPI_Send(buf, 1, MPI_CHAR, 1, 4, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(buf, 1, MPI_CHAR, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(read_pvar(level) == K, "unexpected queue holds %llu, expected %d", read_pvar(level), K);
    CHECK(read_pvar(peak) >= K, "peak %llu below %d", read_pvar(peak), K);
    for (int i = 0; i < K; ++i) MPI_Recv(buf, B, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(read_pvar(level) == 0, "unexpected queue holds %llu after receiving all", read_pvar(level));
    CHECK(read_pvar(peak) >= K, "the peak fell to %llu", read_pvar(peak));
    CHECK(MPI_T_pvar_reset(session, peak) == MPI_SUCCESS && read_pvar(peak) == 0, "peak after reset: %llu",
          read_pvar(peak));
  }
  hold_others(rank, size);

  /* Watermark handles are a bounded resource: past the last one,
   * MPI_T_ERR_OUT_OF_HANDLES, and freeing one makes room again. */
  MPI_T_pvar_handle extra[16];
  int peak_index = -1, nextra = 0, count = 0, err = MPI_SUCCESS;
  MPI_T_pvar_get_index("ferry.p2p.unexpected_queue_peak", MPI_T_PVAR_CLASS_HIGHWATERMARK, &peak_index);
  while (nextra < 16 && (err = MPI_T_pvar_handle_alloc(session, peak_index, NULL, &extra[nextra], &count)) ==
                            MPI_SUCCESS)
    ++nextra;
  CHECK(err == MPI_T_ERR_OUT_OF_HANDLES && nextra >= 1, "watermark handles: %d, then error %d", nextra, err);
  CHECK(MPI_T_pvar_handle_free(session, &extra[0]) == MPI_SUCCESS, "free a watermark handle");
  CHECK(MPI_T_pvar_handle_alloc(session, peak_index, NULL, &extra[0], &count) == MPI_SUCCESS,
        "no room after freeing a watermark handle");
  for (int i = 0; i < nextra; ++i) MPI_T_pvar_handle_free(session, &extra[i]);

  /* One allreduce counts once among ferry.coll.allreduce.*, in a second
   * session; the first session's stopped handles do not move. */
  MPI_T_pvar_session other;
  CHECK(MPI_T_pvar_session_create(&other) == MPI_SUCCESS, "second session");
  MPI_T_pvar_handle chosen[16];
  int nchosen = 0;
  for (int i = 0; i < num && nchosen < 16; ++i) {
    char name[128];
    int name_len = sizeof name, var_class, count;
    MPI_T_pvar_get_info(i, name, &name_len, NULL, &var_class, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (strncmp(name, "ferry.coll.allreduce.", 21) != 0) continue;
    CHECK(MPI_T_pvar_handle_alloc(other, i, NULL, &chosen[nchosen], &count) == MPI_SUCCESS, "alloc %s", name);
    ++nchosen;
  }
  CHECK(nchosen >= 2, "%d allreduce algorithms", nchosen);
  CHECK(MPI_T_pvar_read(session, chosen[0], &before) == MPI_T_ERR_INVALID_HANDLE, "a handle read in another session");
  CHECK(MPI_T_pvar_start(other, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start other");
  unsigned long long first_session = sum(msgs);
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(total == size, "allreduce gave %d", total);
  unsigned long long calls = 0;
  for (int i = 0; i < nchosen; ++i) {
    unsigned long long v = 0;
    CHECK(MPI_T_pvar_read(other, chosen[i], &v) == MPI_SUCCESS, "read");
    calls += v;
  }
  CHECK(calls == 1, "one allreduce counted %llu times", calls);
  CHECK(sum(msgs) == first_session, "a stopped handle of the first session moved");
  CHECK(MPI_T_pvar_session_free(&other) == MPI_SUCCESS, "free other (with its handles)");

  /* Small rooted calls, counted alike whether they run before or after the
   * call that makes the communicator's shared-memory segment (where the
   * ranks share a host, its fifth: the creation's own bcast and allreduce
   * count as no call of the program's). */
  if (size <= 8) {
    one_count_per_call("bcast", small_bcast, 3);
    one_count_per_call("gather", small_gather, 3);
    one_count_per_call("scatter", small_scatter, 3);
    one_count_per_call("reduce", small_reduce, 3);
    one_count_per_call("scan", small_scan, 3);
    one_count_per_call("exscan", small_exscan, 3);
  }

  CHECK(MPI_T_pvar_handle_free(session, &level) == MPI_SUCCESS && level == MPI_T_PVAR_HANDLE_NULL, "handle_free");
  CHECK(MPI_T_pvar_read(session, level, &before) == MPI_T_ERR_INVALID_HANDLE, "reading a freed handle");
  CHECK(MPI_T_pvar_get_index("ferry.p2p.unexpected_queue", MPI_T_PVAR_CLASS_COUNTER, &one) == MPI_T_ERR_INVALID_NAME,
        "a name with the wrong class");
  CHECK(MPI_T_pvar_session_free(&session) == MPI_SUCCESS, "session_free");
  CHECK(MPI_T_finalize() == MPI_SUCCESS, "MPI_T_finalize");
  MPI_Barrier(MPI_COMM_WORLD);
  mt_pass();
  MPI_Finalize();
  return 0;
}
