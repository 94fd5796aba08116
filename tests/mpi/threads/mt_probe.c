/*
 * Probes from several threads at once (MPI_THREAD_MULTIPLE).
 *
 * Ranks pair up (0-1, 2-3, ...); the lower rank's threads send, the higher
 * rank's threads receive. Each repetition has two phases:
 *   own tags     receiving thread t takes the messages of sending thread t
 *                (tag t) with MPI_Probe then MPI_Recv, or MPI_Iprobe polled
 *                then MPI_Recv, sizing its buffer from the probed count
 *                (eager and rendezvous sizes);
 *   one tag      every sending thread sends on one shared tag, and every
 *                receiving thread takes whatever comes with MPI_Mprobe or
 *                MPI_Improbe and MPI_Mrecv / MPI_Imrecv. A matched probe
 *                takes the message out of the queue, so no two threads can
 *                get one message: each must arrive exactly once, intact
 *                (its first word names its sender and number).
 * Single-completion calls must leave status.MPI_ERROR alone (MPI-3.1
 * §3.2.5), so every status starts with a marker that must survive (MPICH
 * 4.0.2 writes it in MPI_Probe and MPI_Iprobe: those two are held to it on
 * Ferry only; tests/mpi/p2p_status_error.c).
 */
#define TEST_NAME "mt_probe"
#include "mpitest.h"
#include "mt_threads.h"

#define NTHREADS 4
#define PER_THREAD 24 /* messages per sending thread per phase */
#define SHARED_TAG 1000
#define MARKER 0x7e57

static int rank, partner, reps, rep, is_ferry;
static MPI_Comm comm;
static pthread_mutex_t seen_mutex = PTHREAD_MUTEX_INITIALIZER;
static int seen[NTHREADS][PER_THREAD];

/* Sizes cycle through eager and rendezvous ones. */
static size_t msg_bytes(int i) {
  static const size_t sizes[] = {8, 300, 4096, 70 * 1024, 200 * 1024 + 8};
  return sizes[i % 5];
}

static uint32_t msg_seed(int thread, int i) { return mt_seed((uint32_t)thread, (uint32_t)i, (uint32_t)rep); }

/* A message: word 0 names (thread, i), the rest is its pattern. */
static void fill_message(unsigned char *buf, int thread, int i) {
  size_t n = msg_bytes(i);
  mt_fill(buf, n, msg_seed(thread, i));
  if (n >= 8) {
    uint64_t id = ((uint64_t)thread << 32) | (uint32_t)i;
    memcpy(buf, &id, 8);
  }
}

static void check_message(const unsigned char *buf, size_t n, int thread, int i, const char *how) {
  CHECK(n == msg_bytes(i), "%s: message %d of thread %d has %zu bytes, expected %zu", how, i, thread, n,
        msg_bytes(i));
  /* The pattern of the whole message, but for the id word it starts with. */
  uint32_t seed = msg_seed(thread, i);
  long bad = -1;
  for (size_t w = 1; w < n / 8 && bad < 0; w++) {
    uint64_t v;
    memcpy(&v, buf + 8 * w, 8);
    if (v != mt_word(seed, w)) bad = (long)(8 * w);
  }
  for (size_t k = n / 8 * 8; k < n && bad < 0; k++)
    if (buf[k] != mt_byte(seed, k)) bad = (long)k;
  CHECK(bad < 0, "%s: message %d of thread %d: byte %ld is wrong", how, i, thread, bad);
}

static void send_phase(int t, int tag) {
  unsigned char *buf = mt_malloc(msg_bytes(4));
  for (int i = 0; i < PER_THREAD; i++) {
    fill_message(buf, t, i);
    MPI_Send(buf, (int)msg_bytes(i), MPI_BYTE, partner, tag, comm);
  }
  free(buf);
}

static void receive_own(int t) {
  for (int i = 0; i < PER_THREAD; i++) {
    MPI_Status st;
    st.MPI_ERROR = MARKER;
    if (i % 2 == 0) {
      MPI_Probe(partner, t, comm, &st);
    } else {
      int flag = 0;
      while (!flag) MPI_Iprobe(partner, t, comm, &flag, &st);
    }
    CHECK(st.MPI_ERROR == MARKER || !is_ferry, "thread %d: MPI_%sprobe changed status.MPI_ERROR to %d", t,
          i % 2 ? "I" : "", st.MPI_ERROR);
    CHECK(st.MPI_SOURCE == partner && st.MPI_TAG == t, "thread %d: probe found (source %d, tag %d)", t,
          st.MPI_SOURCE, st.MPI_TAG);
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (int)msg_bytes(i), "thread %d: probe says %d bytes for message %d, expected %zu", t, count, i,
          msg_bytes(i));
    unsigned char *buf = mt_malloc((size_t)count);
    st.MPI_ERROR = MARKER;
    MPI_Recv(buf, count, MPI_BYTE, partner, t, comm, &st);
    CHECK(st.MPI_ERROR == MARKER, "thread %d: MPI_Recv changed status.MPI_ERROR to %d", t, st.MPI_ERROR);
    check_message(buf, (size_t)count, t, i, "own tag");
    free(buf);
  }
}

/* Takes PER_THREAD messages of whichever senders from the shared tag. */
static void receive_shared(int t) {
  for (int k = 0; k < PER_THREAD; k++) {
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status st;
    st.MPI_ERROR = MARKER;
    if ((k + t) % 2 == 0) {
      MPI_Mprobe(partner, SHARED_TAG, comm, &message, &st);
    } else {
      int flag = 0;
      while (!flag) MPI_Improbe(partner, SHARED_TAG, comm, &flag, &message, &st);
    }
    CHECK(st.MPI_ERROR == MARKER, "thread %d: matched probe changed status.MPI_ERROR to %d", t, st.MPI_ERROR);
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count >= 8, "thread %d: matched probe says %d bytes", t, count);
    unsigned char *buf = mt_malloc((size_t)count);
    if (k % 3 == 0) {
      MPI_Request r;
      MPI_Imrecv(buf, count, MPI_BYTE, &message, &r);
      MPI_Wait(&r, &st);
    } else {
      MPI_Mrecv(buf, count, MPI_BYTE, &message, &st);
    }
    CHECK(message == MPI_MESSAGE_NULL, "thread %d: the message handle was not reset", t);
    CHECK(st.MPI_ERROR == MARKER, "thread %d: MPI_Mrecv changed status.MPI_ERROR to %d", t, st.MPI_ERROR);
    uint64_t id;
    memcpy(&id, buf, 8);
    int sender = (int)(id >> 32), i = (int)(uint32_t)id;
    CHECK(sender >= 0 && sender < NTHREADS && i >= 0 && i < PER_THREAD, "thread %d: message id %llx is garbage",
          t, (unsigned long long)id);
    check_message(buf, (size_t)count, sender, i, "shared tag");
    pthread_mutex_lock(&seen_mutex);
    int before = seen[sender][i]++;
    pthread_mutex_unlock(&seen_mutex);
    CHECK(before == 0, "thread %d: message %d of thread %d arrived twice", t, i, sender);
    free(buf);
  }
}

static void *worker(void *arg) {
  const int t = mtt_thread(arg);
  if (rank < partner) {
    send_phase(t, t);
    send_phase(t, SHARED_TAG);
  } else {
    receive_own(t);
    receive_shared(t);
  }
  return NULL;
}

int main(int argc, char **argv) {
  reps = mtt_init(&argc, &argv, 10);
  is_ferry = mt_is_ferry();
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  partner = rank ^ 1;
  for (rep = 0; rep < reps; rep++) {
    memset(seen, 0, sizeof seen);
    if (partner < size) mtt_run(NTHREADS, worker);
    if (rank > partner && partner < size)
      for (int s = 0; s < NTHREADS; s++)
        for (int i = 0; i < PER_THREAD; i++)
          CHECK(seen[s][i] == 1, "rep %d: message %d of thread %d arrived %d times", rep, i, s, seen[s][i]);
    MPI_Barrier(comm);
  }
  MPI_Comm_free(&comm);
  mt_pass();
  MPI_Finalize();
  return 0;
}
