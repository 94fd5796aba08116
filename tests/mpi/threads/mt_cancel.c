/*
 * Cancelling receives while other threads communicate (MPI_THREAD_MULTIPLE).
 *
 * Ranks pair up (0-1, 2-3, ...). Per repetition, thread t of each rank
 *   - posts a receive nobody will match and cancels it: the wait must end
 *     with MPI_Test_cancelled true;
 *   - posts a receive for a message its partner thread sends at about the
 *     same time, and cancels it: either the cancel won (the status says
 *     cancelled, and the message is then received by a second receive) or
 *     the message did (the status says not cancelled and the data is
 *     there), never both and never neither;
 *   - cancels a receive on which another thread of its rank waits
 *     (MPI_Wait on one thread, MPI_Cancel from another is legal: the
 *     waiting thread must wake with a cancelled status);
 * while the last thread streams checked messages to its partner, so that
 * cancellation never disturbs other traffic.
 */
#define TEST_NAME "mt_cancel"
#include "mpitest.h"
#include "mt_threads.h"

#include <sched.h>

#define NCANCELLERS 3
#define NTHREADS (NCANCELLERS + 1)
#define STREAM_TAG 900
#define NEVER_TAG 901
#define RACE_TAG(t) (100 + (t))
#define STREAM_MESSAGES 40
#define RACE_BYTES 4096

static int rank, partner, reps;
static MPI_Comm comm;

static int cancelled(const MPI_Status *st) {
  int flag = -1;
  MPI_Test_cancelled(st, &flag);
  return flag;
}

static void cancel_unmatched(int t) {
  int buf;
  MPI_Request r;
  MPI_Status st;
  MPI_Irecv(&buf, 1, MPI_INT, partner, NEVER_TAG, comm, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  CHECK(cancelled(&st) == 1, "thread %d: a receive nobody matched was not cancelled", t);
  CHECK(r == MPI_REQUEST_NULL, "thread %d: the cancelled request was not freed", t);
}

/* Both partners race their cancel against the other's send. */
static void cancel_racing(int t, int rep) {
  unsigned char *in = mt_malloc(RACE_BYTES), *out = mt_malloc(RACE_BYTES);
  const uint32_t their_seed = mt_seed((uint32_t)partner, (uint32_t)t, (uint32_t)rep);
  mt_fill(out, RACE_BYTES, mt_seed((uint32_t)rank, (uint32_t)t, (uint32_t)rep));
  memset(in, 0, RACE_BYTES);
  MPI_Request recv, send;
  MPI_Status st;
  MPI_Irecv(in, RACE_BYTES, MPI_BYTE, partner, RACE_TAG(t), comm, &recv);
  MPI_Isend(out, RACE_BYTES, MPI_BYTE, partner, RACE_TAG(t), comm, &send);
  for (int i = 0; i < rep % 4; i++) sched_yield();  /* vary who wins */
  MPI_Cancel(&recv);
  MPI_Wait(&recv, &st);
  if (cancelled(&st)) {
    /* The message is still to come: a second receive must get it. */
    MPI_Recv(in, RACE_BYTES, MPI_BYTE, partner, RACE_TAG(t), comm, &st);
    CHECK(!cancelled(&st), "thread %d: a plain receive says cancelled", t);
  }
  CHECK(st.MPI_SOURCE == partner && st.MPI_TAG == RACE_TAG(t), "thread %d: status (source %d, tag %d)", t,
        st.MPI_SOURCE, st.MPI_TAG);
  CHECK_PATTERN(in, RACE_BYTES, their_seed, "thread %d, repetition %d: raced message", t, rep);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  free(in);
  free(out);
}

/* One thread waits on a receive that another thread of the rank cancels. */
static MPI_Request shared_request;
static pthread_barrier_t posted;

static void *wait_on_shared(void *arg) {
  (void)arg;
  MPI_Status st;
  pthread_barrier_wait(&posted);
  MPI_Wait(&shared_request, &st);
  CHECK(cancelled(&st) == 1, "a receive cancelled by another thread did not end cancelled");
  return NULL;
}

static void cancel_from_another_thread(void) {
  int buf;
  pthread_t waiter;
  pthread_barrier_init(&posted, NULL, 2);
  MPI_Irecv(&buf, 1, MPI_INT, partner, NEVER_TAG, comm, &shared_request);
  MPI_Request mine = shared_request;
  CHECK(pthread_create(&waiter, NULL, wait_on_shared, NULL) == 0, "pthread_create failed");
  pthread_barrier_wait(&posted);
  for (int i = 0; i < 50; i++) sched_yield();  /* usually the waiter is asleep by now */
  MPI_Cancel(&mine);
  pthread_join(waiter, NULL);
  pthread_barrier_destroy(&posted);
}

static void stream(int rep) {
  unsigned char buf[1024];
  for (int i = 0; i < STREAM_MESSAGES; i++) {
    uint32_t my_seed = mt_seed((uint32_t)rank, (uint32_t)i, (uint32_t)rep);
    uint32_t their_seed = mt_seed((uint32_t)partner, (uint32_t)i, (uint32_t)rep);
    mt_fill(buf, sizeof buf, my_seed);
    MPI_Sendrecv_replace(buf, sizeof buf, MPI_BYTE, partner, STREAM_TAG, partner, STREAM_TAG, comm,
                         MPI_STATUS_IGNORE);
    CHECK_PATTERN(buf, sizeof buf, their_seed, "stream message %d of repetition %d", i, rep);
  }
}

static int current_rep;

static void *worker(void *arg) {
  const int t = mtt_thread(arg);
  if (t == NCANCELLERS) {
    stream(current_rep);
    return NULL;
  }
  for (int i = 0; i < 8; i++) cancel_unmatched(t);
  cancel_racing(t, current_rep);
  if (t == 0) cancel_from_another_thread();
  return NULL;
}

int main(int argc, char **argv) {
  reps = mtt_init(&argc, &argv, 30);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  partner = rank ^ 1;
  for (current_rep = 0; current_rep < reps; current_rep++)
    if (partner < size) mtt_run(NTHREADS, worker);
  MPI_Comm_free(&comm);
  mt_pass();
  MPI_Finalize();
  return 0;
}
