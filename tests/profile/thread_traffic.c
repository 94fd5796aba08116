/* A program under MPI_THREAD_MULTIPLE whose traffic is known exactly, for FERRY_PROFILE's report
 * (tests/profile/check_report.py `threads` computes what report.json must say from the same
 * numbers). The profile counts the calls of the thread that initialised MPI apart from the other
 * threads' (src/profile/counters.h Threads); the report must hold both, exactly, however the two
 * threads' calls interleave.
 *
 * Every rank, two threads at once, each on a duplicate of MPI_COMM_WORLD of its own and on
 * MPI_COMM_WORLD itself (its own tag there):
 *   the main thread: RING rounds of MPI_Isend of MAIN_BYTES to the right, MPI_Recv from the left,
 *   MPI_Wait; WORLD_MESSAGES MPI_Send of MAIN_BYTES to the right on MPI_COMM_WORLD (and their
 *   receives); PROBES MPI_Iprobe that find nothing;
 *   a second thread: the same with HELPER_BYTES.
 * Then the main thread alone: REUSE_MESSAGES MPI_Send of REUSE_BYTES to the right on a duplicate
 * of MPI_COMM_WORLD, frees it, and as many on a communicator that orders the ranks backwards
 * (MPI_Comm_split), which often gets the freed one's handle: the profile's memory of the last
 * communicator sent on (bindings/gen_qmpi.py, RecentComm) must not give the new one the old one's
 * ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 3000
#define WORLD_MESSAGES 1000
#define PROBES 20000
#define MAIN_BYTES 8
#define HELPER_BYTES 100
#define REUSE_MESSAGES 10
#define REUSE_BYTES 1000

static int rank, size, right, left;
static pthread_barrier_t both_ready;

static void fail(const char* what) {
  printf("thread_traffic: rank %d: FAILED: %s\n", rank, what);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

struct traffic {
  MPI_Comm comm;
  int bytes, world_tag;
};

static void* exchange(void* arg) {
  const struct traffic* t = arg;
  char out[HELPER_BYTES], in[HELPER_BYTES];
  memset(out, t->bytes, sizeof out);
  pthread_barrier_wait(&both_ready);
  for (int i = 0; i < RING; ++i) {
    MPI_Request r;
    MPI_Isend(out, t->bytes, MPI_BYTE, right, 0, t->comm, &r);
    MPI_Recv(in, t->bytes, MPI_BYTE, left, 0, t->comm, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (in[0] != (char)t->bytes) fail("a ring message has the wrong contents");
  }
  for (int i = 0; i < WORLD_MESSAGES; ++i) {
    MPI_Send(out, t->bytes, MPI_BYTE, right, t->world_tag, MPI_COMM_WORLD);
    MPI_Recv(in, t->bytes, MPI_BYTE, left, t->world_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  int found = 0;
  for (int i = 0; i < PROBES; ++i) {
    MPI_Iprobe(MPI_ANY_SOURCE, 999, t->comm, &found, MPI_STATUS_IGNORE);
    if (found) fail("MPI_Iprobe found a message nobody sent");
  }
  return NULL;
}

/* REUSE_MESSAGES to the world rank `right`, which is rank `to` of `comm`, from `from`. */
static void send_on(MPI_Comm comm, int to, int from) {
  char out[REUSE_BYTES], in[REUSE_BYTES];
  memset(out, 7, sizeof out);
  for (int i = 0; i < REUSE_MESSAGES; ++i) {
    MPI_Send(out, REUSE_BYTES, MPI_BYTE, to, 5, comm);
    MPI_Recv(in, REUSE_BYTES, MPI_BYTE, from, 5, comm, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE) fail("MPI_THREAD_MULTIPLE not provided");
  right = (rank + 1) % size, left = (rank + size - 1) % size;

  struct traffic main_traffic = {MPI_COMM_NULL, MAIN_BYTES, 1}, helper_traffic = {MPI_COMM_NULL, HELPER_BYTES, 2};
  MPI_Comm_dup(MPI_COMM_WORLD, &main_traffic.comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &helper_traffic.comm);
  pthread_barrier_init(&both_ready, NULL, 2);
  pthread_t helper;
  if (pthread_create(&helper, NULL, exchange, &helper_traffic) != 0) fail("pthread_create");
  exchange(&main_traffic);
  pthread_join(helper, NULL);
  pthread_barrier_destroy(&both_ready);
  MPI_Comm_free(&main_traffic.comm);
  MPI_Comm_free(&helper_traffic.comm);

  MPI_Comm forwards, backwards;
  MPI_Comm_dup(MPI_COMM_WORLD, &forwards);
  send_on(forwards, right, left);
  MPI_Comm old = forwards;
  MPI_Comm_free(&forwards);
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &backwards);  /* world rank r is rank size-1-r */
  send_on(backwards, size - 1 - right, size - 1 - left);
  if (rank == 0) printf("thread_traffic: the backwards communicator %s the freed one's handle\n",
                        backwards == old ? "got" : "did not get");
  MPI_Comm_free(&backwards);

  if (rank == 0) printf("thread_traffic: OK\n");
  MPI_Finalize();
  return 0;
}
