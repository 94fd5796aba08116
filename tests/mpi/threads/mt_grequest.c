/*
 * Generalized requests (MPI-3.1 §12.2), completed by another thread.
 *
 * A request from MPI_Grequest_start completes when the program calls
 * MPI_Grequest_complete, here from a worker thread while the main thread
 * waits in MPI_Wait, polls MPI_Test, or waits on it together with a
 * point-to-point receive in MPI_Waitall. MPI then calls query_fn (which
 * fills the status), then free_fn, each exactly once; MPI_Cancel calls
 * cancel_fn, telling it whether the operation has completed;
 * MPI_Request_free calls free_fn and the request goes once completed.
 */
#define TEST_NAME "mt_grequest"
#include "mpitest.h"
#include "mt_threads.h"

#include <time.h>

struct op {
  int id;
  int queried, freed, cancelled, cancel_saw_complete;
};

static int query_fn(void *extra, MPI_Status *st) {
  struct op *o = extra;
  o->queried++;
  st->MPI_SOURCE = 1000 + o->id;
  st->MPI_TAG = 2000 + o->id;
  MPI_Status_set_elements(st, MPI_INT, o->id);
  MPI_Status_set_cancelled(st, o->cancelled > 0 && !o->cancel_saw_complete);
  return MPI_SUCCESS;
}

static int free_fn(void *extra) {
  ((struct op *)extra)->freed++;
  return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete) {
  struct op *o = extra;
  o->cancelled++;
  o->cancel_saw_complete = complete;
  return MPI_SUCCESS;
}

static MPI_Request pending;

/* The worker completes `pending` after giving the waiter time to block: a
 * sleep, not sched_yield()s, whose cost grows without bound when the main
 * thread spins in MPI_Test beside other busy processes (a loaded CI machine
 * took over 60 s for 200 of them). */
static void *complete_later(void *arg) {
  (void)arg;
  struct timespec pause = {0, 2 * 1000 * 1000};
  nanosleep(&pause, NULL);
  MPI_Grequest_complete(pending);
  return NULL;
}

static void start(struct op *o, int id) {
  memset(o, 0, sizeof *o);
  o->id = id;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, o, &pending);
}

static void check_done(const struct op *o, const MPI_Status *st, const char *how) {
  CHECK(o->queried == 1 && o->freed == 1, "%s: query_fn ran %d times, free_fn %d (expected once each)", how,
        o->queried, o->freed);
  if (st == NULL) return;
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  CHECK(st->MPI_SOURCE == 1000 + o->id && st->MPI_TAG == 2000 + o->id && count == o->id,
        "%s: status (source %d, tag %d, count %d) is not query_fn's", how, st->MPI_SOURCE, st->MPI_TAG, count);
}

int main(int argc, char **argv) {
  int reps = mtt_init(&argc, &argv, 20);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct op o;
  pthread_t worker;
  for (int rep = 0; rep < reps; rep++) {
    MPI_Status st;

    /* MPI_Wait wakes when another thread completes it. */
    start(&o, 1 + rep % 5);
    CHECK(pthread_create(&worker, NULL, complete_later, NULL) == 0, "pthread_create failed");
    MPI_Wait(&pending, &st);
    pthread_join(worker, NULL);
    CHECK(pending == MPI_REQUEST_NULL, "MPI_Wait did not free the generalized request");
    check_done(&o, &st, "MPI_Wait");

    /* MPI_Test says not yet until it is completed. */
    start(&o, 2);
    int flag = 1;
    MPI_Test(&pending, &flag, &st);
    CHECK(!flag && o.queried == 0, "MPI_Test completed a generalized request nobody completed");
    CHECK(pthread_create(&worker, NULL, complete_later, NULL) == 0, "pthread_create failed");
    while (!flag) MPI_Test(&pending, &flag, &st);
    pthread_join(worker, NULL);
    check_done(&o, &st, "MPI_Test");

    /* Beside a point-to-point receive in MPI_Waitall. */
    start(&o, 3);
    MPI_Request both[2] = {pending, MPI_REQUEST_NULL};
    int in = -1, out = rank + rep;
    MPI_Irecv(&in, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &both[1]);
    CHECK(pthread_create(&worker, NULL, complete_later, NULL) == 0, "pthread_create failed");
    MPI_Send(&out, 1, MPI_INT, 0, 5, MPI_COMM_SELF);
    MPI_Status sts[2];
    MPI_Waitall(2, both, sts);
    pthread_join(worker, NULL);
    CHECK(in == out, "the receive beside a generalized request got %d, expected %d", in, out);
    check_done(&o, &sts[0], "MPI_Waitall");

    /* MPI_Cancel before completion: cancel_fn is told "not complete". */
    start(&o, 4);
    MPI_Request copy = pending;
    MPI_Cancel(&copy);
    CHECK(o.cancelled == 1 && o.cancel_saw_complete == 0, "MPI_Cancel: cancel_fn ran %d times (complete %d)",
          o.cancelled, o.cancel_saw_complete);
    MPI_Grequest_complete(pending);
    MPI_Wait(&pending, &st);
    int was_cancelled = 0;
    MPI_Test_cancelled(&st, &was_cancelled);
    CHECK(was_cancelled, "query_fn's cancelled bit did not reach the status");
    check_done(&o, NULL, "MPI_Cancel then MPI_Wait");

    /* MPI_Request_free before completion: free_fn now, the request goes
     * when the program completes it (through its own copy of the handle). */
    start(&o, 5);
    copy = pending;
    MPI_Request_free(&copy);
    CHECK(copy == MPI_REQUEST_NULL && o.freed == 1 && o.queried == 0,
          "MPI_Request_free: handle %x, free_fn %d times, query_fn %d times", (unsigned)copy, o.freed, o.queried);
    MPI_Grequest_complete(pending);
    CHECK(o.freed == 1 && o.queried == 0, "completing a freed generalized request ran its callbacks again");
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
