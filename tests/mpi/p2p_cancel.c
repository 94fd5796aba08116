/*
 * MPI_Cancel of receives and MPI_Test_cancelled (MPI-3.1 §3.8.4): a posted
 * receive that nothing matches is cancelled, its request completes, and a
 * later message with its envelope goes to the next receive, not to the
 * cancelled one. A receive that has already matched cannot be cancelled:
 * its data arrives and Test_cancelled says false. A cancel that races with
 * the message may go either way, but never both. Ring: from left, to right.
 */
#define TEST_NAME "p2p_cancel"
#include "mpitest.h"

enum { TAG_NEVER = 1, TAG_LATE, TAG_LATE_GO, TAG_MATCHED, TAG_MATCHED_DONE, TAG_RACE,
       TAG_PERSIST, TAG_PERSIST_GO };

static int rank, size, left, right;

static int cancelled(const MPI_Status *st) {
  int flag = -1;
  MPI_Test_cancelled(st, &flag);
  return flag;
}

/* Receives nothing ever matches, with specific and wildcard sources. */
static void cancel_unmatched(void) {
  int buf = -1;
  MPI_Request req;
  MPI_Status st;
  const int sources[2] = {left, MPI_ANY_SOURCE};
  for (int i = 0; i < 2; i++) {
    MPI_Irecv(&buf, 1, MPI_INT, sources[i], TAG_NEVER, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    CHECK(req != MPI_REQUEST_NULL, "MPI_Cancel freed the request");
    MPI_Wait(&req, &st);
    CHECK(req == MPI_REQUEST_NULL, "MPI_Wait on a cancelled receive left the request active");
    CHECK(cancelled(&st), "receive (source %d) that nothing matched was not cancelled",
          sources[i]);
    CHECK(buf == -1, "cancelled receive changed its buffer to %d", buf);
  }
  /* Cancelled, then completed by MPI_Test. */
  MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, TAG_NEVER, MPI_COMM_WORLD, &req);
  MPI_Cancel(&req);
  mt_wait_test(&req, &st, "MPI_Test on a cancelled receive");
  CHECK(cancelled(&st), "receive completed by MPI_Test after MPI_Cancel was not cancelled");
}

/* After a cancelled receive, a message with its envelope goes to the next
 * receive and the cancelled one stays empty. */
static void cancel_then_send(void) {
  int got = -1, cancelled_buf = -1, val = 100 + rank;
  MPI_Request req;
  MPI_Status st;
  MPI_Irecv(&cancelled_buf, 1, MPI_INT, left, TAG_LATE, MPI_COMM_WORLD, &req);
  MPI_Cancel(&req);
  MPI_Wait(&req, &st);
  CHECK(cancelled(&st), "receive cancelled before its message was sent was not cancelled");
  /* Tell left it may send now; right tells us. */
  MPI_Sendrecv(NULL, 0, MPI_BYTE, left, TAG_LATE_GO, NULL, 0, MPI_BYTE, right, TAG_LATE_GO,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Request sreq;
  MPI_Isend(&val, 1, MPI_INT, right, TAG_LATE, MPI_COMM_WORLD, &sreq);
  MPI_Recv(&got, 1, MPI_INT, left, TAG_LATE, MPI_COMM_WORLD, &st);
  MPI_Wait(&sreq, MPI_STATUS_IGNORE);
  CHECK(got == 100 + left, "message after a cancelled receive: got %d, expected %d", got,
        100 + left);
  CHECK(cancelled_buf == -1, "the cancelled receive got data (%d)", cancelled_buf);
}

/* The left neighbour's MPI_Ssend to us has returned, so our receive has
 * matched: cancelling it must fail and the data must be there. */
static void cancel_matched(void) {
  int got = -1, val = 200 + rank;
  MPI_Request req;
  MPI_Status st;
  MPI_Irecv(&got, 1, MPI_INT, left, TAG_MATCHED, MPI_COMM_WORLD, &req);
  MPI_Request sreq;
  MPI_Issend(&val, 1, MPI_INT, right, TAG_MATCHED, MPI_COMM_WORLD, &sreq);
  MPI_Wait(&sreq, MPI_STATUS_IGNORE);
  /* Our send has matched at the right; tell it, and learn the same from left. */
  MPI_Sendrecv(NULL, 0, MPI_BYTE, right, TAG_MATCHED_DONE, NULL, 0, MPI_BYTE, left,
               TAG_MATCHED_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Cancel(&req);
  MPI_Wait(&req, &st);
  CHECK(!cancelled(&st), "a receive already matched by a completed MPI_Ssend was cancelled");
  CHECK(got == 200 + left, "matched receive after a failed cancel holds %d, expected %d", got,
        200 + left);
  CHECK_STATUS(st, left, TAG_MATCHED, MPI_INT, 1, "matched receive after a failed cancel");

  /* And a receive that completed normally never reports cancelled. */
  MPI_Irecv(&got, 1, MPI_INT, left, TAG_MATCHED, MPI_COMM_WORLD, &req);
  MPI_Isend(&val, 1, MPI_INT, right, TAG_MATCHED, MPI_COMM_WORLD, &sreq);
  MPI_Wait(&req, &st);
  MPI_Wait(&sreq, MPI_STATUS_IGNORE);
  CHECK(!cancelled(&st), "MPI_Test_cancelled is true for a receive that completed normally");
}

/* Cancel racing with the message: exactly one of them wins. */
static void cancel_race(void) {
  for (int i = 0; i < 20; i++) {
    int got = -1, val = 1000 * i + rank, spare = -1;
    MPI_Request rreq, sreq;
    MPI_Status st;
    MPI_Irecv(&got, 1, MPI_INT, left, TAG_RACE, MPI_COMM_WORLD, &rreq);
    MPI_Isend(&val, 1, MPI_INT, right, TAG_RACE, MPI_COMM_WORLD, &sreq);
    MPI_Cancel(&rreq);
    MPI_Wait(&rreq, &st);
    if (cancelled(&st)) {
      CHECK(got == -1, "race %d: cancelled receive holds data %d", i, got);
      /* The message was not consumed: the next receive gets it. */
      MPI_Recv(&spare, 1, MPI_INT, left, TAG_RACE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(spare == 1000 * i + left, "race %d: message after a cancelled receive: %d", i, spare);
    } else {
      CHECK(got == 1000 * i + left, "race %d: receive not cancelled but holds %d, expected %d", i,
            got, 1000 * i + left);
    }
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
  }
}

/* A started persistent receive can be cancelled and started again. */
static void cancel_persistent(void) {
  int got = -1, val = 300 + rank;
  MPI_Request req;
  MPI_Status st;
  MPI_Recv_init(&got, 1, MPI_INT, left, TAG_PERSIST, MPI_COMM_WORLD, &req);
  MPI_Start(&req);
  MPI_Cancel(&req);
  MPI_Wait(&req, &st);
  CHECK(cancelled(&st), "started persistent receive was not cancelled");
  CHECK(req != MPI_REQUEST_NULL, "cancelling a persistent receive freed the request");
  MPI_Sendrecv(NULL, 0, MPI_BYTE, left, TAG_PERSIST_GO, NULL, 0, MPI_BYTE, right, TAG_PERSIST_GO,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Start(&req);
  MPI_Send(&val, 1, MPI_INT, right, TAG_PERSIST, MPI_COMM_WORLD);
  MPI_Wait(&req, &st);
  CHECK(!cancelled(&st) && got == 300 + left,
        "persistent receive restarted after a cancel: cancelled %d, holds %d, expected %d",
        cancelled(&st), got, 300 + left);
  MPI_Request_free(&req);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;

  cancel_unmatched();
  cancel_then_send();
  cancel_matched();
  cancel_race();
  cancel_persistent();

  mt_pass();
  MPI_Finalize();
  return 0;
}
