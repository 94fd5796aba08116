/*
 * The completion calls of MPI-3.1 §3.7.3 and §3.7.5: MPI_Wait, MPI_Test and
 * their any/all/some forms, with MPI_REQUEST_NULL entries, all-null arrays
 * (index/outcount MPI_UNDEFINED, empty statuses), the returned indices and
 * statuses, completed requests set to MPI_REQUEST_NULL, and a false
 * MPI_Testall leaving the request array untouched.
 *
 * Ranks work in pairs: the checker posts receives and asks its peer (the
 * server) for one message at a time, so it always knows exactly which
 * receives can have completed. The pair then swaps roles. On an odd rank
 * count the last rank is its own peer and sends to itself.
 */
#define TEST_NAME "p2p_completion"
#include "mpitest.h"

#define TAG_CMD 1
#define TAG_DATA 100
#define NMSG 10

static int rank, size;

static size_t msg_bytes(int idx) { return idx % 2 ? 200 * 1024 + (size_t)idx : (size_t)(idx * 5 + 1); }
static uint32_t msg_seed(int src, int idx) { return mt_seed((uint32_t)src, (uint32_t)idx, 77); }

/* The peer and, when it is this rank itself, its outstanding sends. */
static int peer;
static unsigned char *self_bufs[NMSG];
static MPI_Request self_reqs[NMSG];

/* Asks the peer to send message idx (or sends it to self). */
static void request_msg(int idx) {
  if (peer == rank) {
    if (self_reqs[idx] != MPI_REQUEST_NULL) { /* an earlier send of idx */
      MPI_Wait(&self_reqs[idx], MPI_STATUS_IGNORE);
      free(self_bufs[idx]);
    }
    self_bufs[idx] = mt_malloc(msg_bytes(idx));
    mt_fill(self_bufs[idx], msg_bytes(idx), msg_seed(rank, idx));
    MPI_Isend(self_bufs[idx], (int)msg_bytes(idx), MPI_BYTE, rank, TAG_DATA + idx,
              MPI_COMM_WORLD, &self_reqs[idx]);
  } else {
    MPI_Send(&idx, 1, MPI_INT, peer, TAG_CMD, MPI_COMM_WORLD);
  }
}

static void serve(void) {
  for (;;) {
    int idx;
    MPI_Recv(&idx, 1, MPI_INT, peer, TAG_CMD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (idx < 0) return;
    unsigned char *buf = mt_malloc(msg_bytes(idx));
    mt_fill(buf, msg_bytes(idx), msg_seed(rank, idx));
    MPI_Send(buf, (int)msg_bytes(idx), MPI_BYTE, peer, TAG_DATA + idx, MPI_COMM_WORLD);
    free(buf);
  }
}

static unsigned char *rbufs[NMSG];

static void post_recv(int idx, MPI_Request *req) {
  rbufs[idx] = mt_malloc(msg_bytes(idx));
  MPI_Irecv(rbufs[idx], (int)msg_bytes(idx), MPI_BYTE, peer, TAG_DATA + idx, MPI_COMM_WORLD, req);
}

/* A completed receive: right status, right data. */
static void check_done(int idx, const MPI_Status *st, const char *how) {
  char what[96];
  snprintf(what, sizeof what, "%s, message %d", how, idx);
  CHECK_STATUS(*st, peer, TAG_DATA + idx, MPI_BYTE, (int)msg_bytes(idx), what);
  CHECK_PATTERN(rbufs[idx], msg_bytes(idx), msg_seed(peer, idx), "%s", what);
  free(rbufs[idx]);
  rbufs[idx] = NULL;
}

static void check_all_null_arrays(void) {
  MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status st, sts[3];
  int index = -7, outcount = -7, flag = -7, indices[3];

  MPI_Waitany(3, reqs, &index, &st);
  CHECK(index == MPI_UNDEFINED, "MPI_Waitany on null requests: index %d, not MPI_UNDEFINED", index);
  CHECK_EMPTY_STATUS(st, "MPI_Waitany on null requests");
  MPI_Waitany(0, reqs, &index, &st);
  CHECK(index == MPI_UNDEFINED, "MPI_Waitany of 0 requests: index %d, not MPI_UNDEFINED", index);

  MPI_Testany(3, reqs, &index, &flag, &st);
  CHECK(flag && index == MPI_UNDEFINED,
        "MPI_Testany on null requests: flag %d index %d, expected 1 and MPI_UNDEFINED", flag, index);
  CHECK_EMPTY_STATUS(st, "MPI_Testany on null requests");

  MPI_Waitsome(3, reqs, &outcount, indices, sts);
  CHECK(outcount == MPI_UNDEFINED, "MPI_Waitsome on null requests: outcount %d", outcount);
  MPI_Testsome(3, reqs, &outcount, indices, sts);
  CHECK(outcount == MPI_UNDEFINED, "MPI_Testsome on null requests: outcount %d", outcount);

  flag = -7;
  MPI_Testall(3, reqs, &flag, sts);
  CHECK(flag == 1, "MPI_Testall on null requests: flag %d", flag);
  for (int i = 0; i < 3; i++) CHECK_EMPTY_STATUS(sts[i], "MPI_Testall on null requests");
  MPI_Waitall(3, reqs, sts);
  for (int i = 0; i < 3; i++) CHECK_EMPTY_STATUS(sts[i], "MPI_Waitall on null requests");
  MPI_Testall(0, reqs, &flag, sts);
  CHECK(flag == 1, "MPI_Testall of 0 requests: flag %d", flag);

  MPI_Wait(&reqs[0], &st);
  CHECK_EMPTY_STATUS(st, "MPI_Wait(MPI_REQUEST_NULL)");
  flag = -7;
  MPI_Test(&reqs[0], &flag, &st);
  CHECK(flag == 1, "MPI_Test(MPI_REQUEST_NULL): flag %d", flag);
  CHECK_EMPTY_STATUS(st, "MPI_Test(MPI_REQUEST_NULL)");
}

/* Slots 0 and 3 are MPI_REQUEST_NULL; the others wait for messages 0..5. */
#define NSLOTS 8
static const int slot_msg[NSLOTS] = {-1, 0, 1, -1, 2, 3, 4, 5};

static void check_mixed_array(void) {
  MPI_Request reqs[NSLOTS], copy[NSLOTS];
  MPI_Status st, sts[NSLOTS];
  int index, outcount, flag, indices[NSLOTS];
  for (int s = 0; s < NSLOTS; s++) {
    reqs[s] = MPI_REQUEST_NULL;
    if (slot_msg[s] >= 0) post_recv(slot_msg[s], &reqs[s]);
  }

  /* Nothing has been asked for yet, so nothing can complete. */
  MPI_Testany(NSLOTS, reqs, &index, &flag, &st);
  CHECK(!flag && index == MPI_UNDEFINED,
        "MPI_Testany with no message sent: flag %d index %d, expected 0 and MPI_UNDEFINED", flag,
        index);
  MPI_Testsome(NSLOTS, reqs, &outcount, indices, sts);
  CHECK(outcount == 0, "MPI_Testsome with no message sent: outcount %d", outcount);
  memcpy(copy, reqs, sizeof reqs);
  MPI_Testall(NSLOTS, reqs, &flag, sts);
  CHECK(!flag, "MPI_Testall with no message sent returned true");
  CHECK(memcmp(copy, reqs, sizeof reqs) == 0, "MPI_Testall returned false but changed the requests");

  /* One message at a time: MPI_Waitany must return its slot. */
  const int order[2][2] = {{2, 4}, {0, 1}}; /* {message, its slot} */
  for (int i = 0; i < 2; i++) {
    request_msg(order[i][0]);
    MPI_Waitany(NSLOTS, reqs, &index, &st);
    CHECK(index == order[i][1], "MPI_Waitany: only message %d was sent, its slot is %d, got index %d",
          order[i][0], order[i][1], index);
    CHECK(reqs[index] == MPI_REQUEST_NULL, "MPI_Waitany left request %d active", index);
    check_done(order[i][0], &st, "MPI_Waitany");
  }

  /* Messages 0 and 2 have arrived but 1, 3, 4 and 5 were never asked for. */
  memcpy(copy, reqs, sizeof reqs);
  MPI_Testall(NSLOTS, reqs, &flag, sts);
  CHECK(!flag, "MPI_Testall returned true with messages still unsent");
  CHECK(memcmp(copy, reqs, sizeof reqs) == 0, "MPI_Testall returned false but changed the requests");

  /* Two messages: MPI_Waitsome, repeated, reports each exactly once. */
  request_msg(3);
  request_msg(5);
  int got5 = 0, got7 = 0;
  while (!(got5 && got7)) {
    MPI_Waitsome(NSLOTS, reqs, &outcount, indices, sts);
    CHECK(outcount >= 1 && outcount <= 2, "MPI_Waitsome: outcount %d, expected 1 or 2", outcount);
    for (int i = 0; i < outcount; i++) {
      const int s = indices[i];
      CHECK((s == 5 && !got5) || (s == 7 && !got7),
            "MPI_Waitsome reported slot %d (expected slots 5 and 7, once each)", s);
      if (s == 5) got5 = 1; else got7 = 1;
      CHECK(reqs[s] == MPI_REQUEST_NULL, "MPI_Waitsome left request %d active", s);
      check_done(slot_msg[s], &sts[i], "MPI_Waitsome");
    }
  }
  MPI_Testsome(NSLOTS, reqs, &outcount, indices, sts);
  CHECK(outcount == 0, "MPI_Testsome: outcount %d with no message pending", outcount);

  /* MPI_Testany polled until message 1 (slot 2) arrives. */
  request_msg(1);
  double start = MPI_Wtime();
  do {
    MPI_Testany(NSLOTS, reqs, &index, &flag, &st);
    CHECK(flag || MPI_Wtime() - start < MT_POLL_LIMIT_S, "MPI_Testany never completed message 1");
  } while (!flag);
  CHECK(index == 2, "MPI_Testany: completed index %d, expected slot 2", index);
  check_done(1, &st, "MPI_Testany");

  /* MPI_Testall polled until the last one (message 4, slot 6) arrives. */
  request_msg(4);
  start = MPI_Wtime();
  do {
    MPI_Testall(NSLOTS, reqs, &flag, sts);
    CHECK(flag || MPI_Wtime() - start < MT_POLL_LIMIT_S, "MPI_Testall never completed");
  } while (!flag);
  for (int s = 0; s < NSLOTS; s++) {
    CHECK(reqs[s] == MPI_REQUEST_NULL, "MPI_Testall returned true but left request %d active", s);
    if (s != 6) CHECK_EMPTY_STATUS(sts[s], "MPI_Testall status of an already null request");
  }
  check_done(4, &sts[6], "MPI_Testall");

  MPI_Waitsome(NSLOTS, reqs, &outcount, indices, sts);
  CHECK(outcount == MPI_UNDEFINED, "MPI_Waitsome after all completed: outcount %d", outcount);
}

static void check_waitall(void) {
  MPI_Request reqs[4];
  MPI_Status sts[4];
  for (int i = 0; i < 4; i++) post_recv(6 + i, &reqs[i]);
  for (int i = 3; i >= 0; i--) request_msg(6 + i);
  MPI_Waitall(4, reqs, sts);
  for (int i = 0; i < 4; i++) {
    CHECK(reqs[i] == MPI_REQUEST_NULL, "MPI_Waitall left request %d active", i);
    check_done(6 + i, &sts[i], "MPI_Waitall");
  }

  /* And with MPI_STATUSES_IGNORE, and MPI_Wait / MPI_Test on one. */
  post_recv(6, &reqs[0]);
  post_recv(7, &reqs[1]);
  request_msg(7);
  request_msg(6);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  CHECK_PATTERN(rbufs[6], msg_bytes(6), msg_seed(peer, 6), "MPI_Waitall(MPI_STATUSES_IGNORE)");
  CHECK_PATTERN(rbufs[7], msg_bytes(7), msg_seed(peer, 7), "MPI_Waitall(MPI_STATUSES_IGNORE)");
  free(rbufs[6]);
  free(rbufs[7]);

  MPI_Status st;
  post_recv(8, &reqs[0]);
  request_msg(8);
  mt_wait_test(&reqs[0], &st, "MPI_Test");
  CHECK(reqs[0] == MPI_REQUEST_NULL, "MPI_Test returned true but left the request active");
  check_done(8, &st, "MPI_Test");
}

static void check(void) {
  check_all_null_arrays();
  check_mixed_array();
  check_waitall();
  if (peer == rank) {
    MPI_Waitall(NMSG, self_reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < NMSG; i++) {
      free(self_bufs[i]);
      self_bufs[i] = NULL;
    }
  } else {
    int stop = -1;
    MPI_Send(&stop, 1, MPI_INT, peer, TAG_CMD, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  peer = rank ^ 1;
  if (peer >= size) peer = rank;

  for (int i = 0; i < NMSG; i++) self_reqs[i] = MPI_REQUEST_NULL;
  for (int round = 0; round < 2; round++) {
    if (peer == rank || (rank % 2) == round) check();
    else serve();
  }

  mt_pass();
  MPI_Finalize();
  return 0;
}
