/*
 * MPI_T events (MPI-4.0 §15.3.8): the source "ferry.clock" ticks in
 * nanoseconds; a callback on ferry.p2p.unexpected_message fires once for
 * each of K messages that reach rank 1 before their receive, and
 * MPI_T_event_read/_copy/_get_timestamp/_get_source give its record (source
 * 0, the tag, the size) in time order; a handle whose only callback needs
 * MPI_T_CB_REQUIRE_NONE (stricter than the context the events are raised
 * in) gets none of them but its dropped handler counts them all; a freed
 * handle gets nothing more; ferry.coll.algorithm fires once per collective
 * call and names a ferry.coll.<operation>.* counter; and, where
 * FERRY_CHECKPOINT_DIR is set, MPIX_Checkpoint's commit fires
 * ferry.checkpoint.committed with its epoch.
 */
#define TEST_NAME "tool_events"
#include "mpitest.h"
#include "mpix.h"

enum { K = 5, B = 48, MAXSEEN = 64 };

struct seen {
  int count;
  int source[MAXSEEN], tag[MAXSEEN];
  MPI_Count bytes[MAXSEEN], stamp[MAXSEEN];
  int copy_matches;
};
static struct seen unexpected;
static long long dropped;
static int coll_calls, coll_pvar = -1, committed_epoch = -2, freed_called;

static void on_unexpected(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *user) {
  (void)r;
  struct seen *w = user;
  CHECK(s >= MPI_T_CB_REQUIRE_MPI_RESTRICTED, "callback run at safety %d", (int)s);
  if (w->count >= MAXSEEN) return;
  int i = w->count++, source_index = -1;
  CHECK(MPI_T_event_read(e, 0, &w->source[i]) == MPI_SUCCESS, "event_read 0");
  CHECK(MPI_T_event_read(e, 1, &w->tag[i]) == MPI_SUCCESS, "event_read 1");
  CHECK(MPI_T_event_read(e, 2, &w->bytes[i]) == MPI_SUCCESS, "event_read 2");
  CHECK(MPI_T_event_read(e, 3, &w->bytes[i]) == MPI_T_ERR_INVALID_INDEX, "event_read past the record");
  CHECK(MPI_T_event_get_timestamp(e, &w->stamp[i]) == MPI_SUCCESS, "event_get_timestamp");
  CHECK(MPI_T_event_get_source(e, &source_index) == MPI_SUCCESS && source_index == 0, "event_get_source");
  struct {
    int source, tag;
    MPI_Count bytes;
  } copy;
  CHECK(MPI_T_event_copy(e, &copy) == MPI_SUCCESS, "event_copy");
  w->copy_matches += copy.source == w->source[i] && copy.tag == w->tag[i] && copy.bytes == w->bytes[i];
}

static void never(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *user) {
  (void)e, (void)r, (void)s, (void)user;
  CHECK(0, "a callback that needs MPI_T_CB_REQUIRE_NONE ran inside MPI");
}

static void on_dropped(MPI_Count count, MPI_T_event_registration r, int source, MPI_T_cb_safety s, void *user) {
  (void)r, (void)s, (void)user, (void)source;
  dropped += count;
}

static void on_coll(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *user) {
  (void)r, (void)s, (void)user;
  ++coll_calls;
  MPI_T_event_read(e, 0, &coll_pvar);
}

static void on_commit(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *user) {
  (void)r, (void)s, (void)user;
  MPI_T_event_read(e, 0, &committed_epoch);
}

static void on_free(MPI_T_event_registration r, MPI_T_cb_safety s, void *user) {
  (void)r, (void)s;
  *(int *)user = 1;
}

static MPI_T_event_registration handle_on(const char *name) {
  int index = -1;
  MPI_T_event_registration h;
  CHECK(MPI_T_event_get_index(name, &index) == MPI_SUCCESS, "no event %s", name);
  CHECK(MPI_T_event_handle_alloc(index, NULL, MPI_INFO_NULL, &h) == MPI_SUCCESS, "event_handle_alloc(%s)", name);
  return h;
}

int main(int argc, char **argv) {
  int provided, rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");

  /* The source. */
  int nsources = 0;
  char name[64];
  int name_len = sizeof name;
  MPI_T_source_order order;
  MPI_Count ticks = 0, max_ticks = 0, t0 = 0, t1 = 0;
  CHECK(MPI_T_source_get_num(&nsources) == MPI_SUCCESS && nsources == 1, "%d sources", nsources);
  CHECK(MPI_T_source_get_info(0, name, &name_len, NULL, NULL, &order, &ticks, &max_ticks, NULL) == MPI_SUCCESS &&
            strcmp(name, "ferry.clock") == 0 && order == MPI_T_SOURCE_ORDERED && ticks == 1000000000 &&
            max_ticks > 0, "source 0: %s, %lld ticks per second", name, (long long)ticks);
  CHECK(MPI_T_source_get_timestamp(0, &t0) == MPI_SUCCESS, "source_get_timestamp");
  CHECK(MPI_T_source_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
        "source 1");

  /* The event types describe their records. */
  int nevents = 0;
  CHECK(MPI_T_event_get_num(&nevents) == MPI_SUCCESS && nevents >= 3, "%d event types", nevents);
  int index = -1, num_elements = 0;
  MPI_Datatype types[8];
  MPI_Aint displacements[8];
  CHECK(MPI_T_event_get_index("ferry.p2p.unexpected_message", &index) == MPI_SUCCESS, "event index");
  CHECK(MPI_T_event_get_info(index, NULL, NULL, NULL, NULL, NULL, &num_elements, NULL, NULL, NULL, NULL, NULL) ==
            MPI_SUCCESS && num_elements == 3, "%d elements", num_elements);
  CHECK(MPI_T_event_get_info(index, NULL, NULL, NULL, types, displacements, &num_elements, NULL, NULL, NULL, NULL,
                             NULL) == MPI_SUCCESS && types[0] == MPI_INT && types[1] == MPI_INT &&
            types[2] == MPI_COUNT && displacements[0] == 0, "element types");
  CHECK(MPI_T_event_get_index("ferry.no_such_event", &index) == MPI_T_ERR_INVALID_NAME, "unknown event");
  CHECK(MPI_T_event_handle_alloc(nevents, NULL, MPI_INFO_NULL, NULL) == MPI_T_ERR_INVALID_INDEX, "bad event index");

  /* Unexpected messages at rank 1. */
  MPI_T_event_registration h = handle_on("ferry.p2p.unexpected_message");
  CHECK(MPI_T_event_register_callback(h, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &unexpected,
                                      on_unexpected) == MPI_SUCCESS, "register_callback");
  MPI_T_event_registration unsafe = handle_on("ferry.p2p.unexpected_message");
  CHECK(MPI_T_event_register_callback(unsafe, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, never) == MPI_SUCCESS,
        "register_callback NONE");
  CHECK(MPI_T_event_set_dropped_handler(unsafe, on_dropped) == MPI_SUCCESS, "set_dropped_handler");
  CHECK(MPI_T_event_register_callback(h, (MPI_T_cb_safety)9, MPI_INFO_NULL, NULL, never) == MPI_T_ERR_INVALID,
        "a bad safety level");
  MPI_Barrier(MPI_COMM_WORLD);
  char buf[B];
  memset(buf, 3, sizeof buf);
  if (rank == 0) {
    for (int i = 0; i < K; ++i) MPI_Send(buf, B, MPI_CHAR, 1, 10 + i, MPI_COMM_WORLD);
    MPI_Send(buf, 1, MPI_CHAR, 1, 99, MPI_COMM_WORLD);
  } else if (rank == 1) {
    /* The marker comes behind the K messages, which then wait unexpected. */
    MPI_Recv(buf, 1, MPI_CHAR, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < K; ++i) MPI_Recv(buf, B, MPI_CHAR, 0, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* Rank 0 may leave the barrier first, so some of its messages may
     * have arrived while rank 1 was still in it: look at every event since
     * the handle was allocated (a barrier's messages are among them). */
    int found = 0;
    for (int j = 0; j < unexpected.count; ++j) {
      if (unexpected.source[j] != 0 || unexpected.tag[j] < 10 || unexpected.tag[j] >= 10 + K) continue;
      CHECK(unexpected.tag[j] == 10 + found, "event for tag %d, expected tag %d next", unexpected.tag[j], 10 + found);
      CHECK(unexpected.bytes[j] == B, "event %d: %lld bytes", j, (long long)unexpected.bytes[j]);
      ++found;
    }
    CHECK(found == K, "%d unexpected-message events for %d messages (%d events in all)", found, K, unexpected.count);
    for (int j = 1; j < unexpected.count; ++j)
      CHECK(unexpected.stamp[j] >= unexpected.stamp[j - 1], "timestamps out of order");
    CHECK(unexpected.count == 0 || unexpected.stamp[0] >= t0, "an event stamped before the test began");
    /* Both handles saw the same events (a barrier's messages too). */
    CHECK(dropped == unexpected.count, "%lld dropped for %d events", dropped, unexpected.count);
  }
  CHECK(MPI_T_source_get_timestamp(0, &t1) == MPI_SUCCESS && t1 >= t0, "the clock went back");

  /* A freed handle gets nothing more; its free callback runs. */
  CHECK(MPI_T_event_handle_free(h, &freed_called, on_free) == MPI_SUCCESS && freed_called == 1, "handle_free");
  CHECK(MPI_T_event_handle_free(unsafe, NULL, NULL) == MPI_SUCCESS, "handle_free");
  CHECK(MPI_T_event_register_callback(h, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, never) ==
            MPI_T_ERR_INVALID_HANDLE, "a freed handle took a callback");
  int frozen = unexpected.count;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Send(buf, B, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
    MPI_Send(buf, 1, MPI_CHAR, 1, 99, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(buf, 1, MPI_CHAR, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(buf, B, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  CHECK(unexpected.count == frozen, "a freed handle's callback ran");

  /* A collective's algorithm. */
  MPI_T_event_registration coll = handle_on("ferry.coll.algorithm");
  CHECK(MPI_T_event_register_callback(coll, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, NULL, on_coll) ==
            MPI_SUCCESS, "register coll callback");
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(coll_calls == 1, "%d algorithm events for one allreduce", coll_calls);
  char pvar_name[128];
  int pvar_len = sizeof pvar_name;
  CHECK(MPI_T_pvar_get_info(coll_pvar, pvar_name, &pvar_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                            NULL) == MPI_SUCCESS && strncmp(pvar_name, "ferry.coll.allreduce.", 21) == 0,
        "the event names pvar %d '%s'", coll_pvar, pvar_name);
  CHECK(MPI_T_event_handle_free(coll, NULL, NULL) == MPI_SUCCESS, "free coll handle");

  /* A checkpoint commit, where checkpoints go somewhere. */
  if (argc > 1 && strcmp(argv[1], "checkpoint") == 0) {
    MPI_T_event_registration commit = handle_on("ferry.checkpoint.committed");
    CHECK(MPI_T_event_register_callback(commit, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, NULL, on_commit) ==
              MPI_SUCCESS, "register commit callback");
    int epoch = -3;
    CHECK(MPIX_Checkpoint(MPI_COMM_WORLD, &epoch) == MPI_SUCCESS && epoch >= 0, "MPIX_Checkpoint: epoch %d", epoch);
    CHECK(committed_epoch == epoch, "commit event says epoch %d, MPIX_Checkpoint %d", committed_epoch, epoch);
    CHECK(MPI_T_event_handle_free(commit, NULL, NULL) == MPI_SUCCESS, "free commit handle");
  }

  CHECK(MPI_T_finalize() == MPI_SUCCESS, "MPI_T_finalize");
  MPI_Barrier(MPI_COMM_WORLD);
  mt_pass();
  MPI_Finalize();
  return 0;
}
