/*
 * MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv and MPI_Imrecv
 * (MPI-3.1 §3.8): status fields, MPI_Get_count / MPI_Get_elements on a
 * probed status, that probing leaves the message in place while a matched
 * probe removes it from matching, and the MPI_PROC_NULL forms.
 *
 * Each rank receives from its left neighbour, which sends only after this
 * rank says "go", so a probe made before that must find nothing.
 */
#define TEST_NAME "p2p_probe"
#include "mpitest.h"

enum { TAG_GO = 1, TAG_INTS = 5, TAG_ODD = 6, TAG_PAIR = 7, TAG_BIG = 8, TAG_LAST = 9, TAG_FAN = 10 };
#define NINTS 10
#define ODD_BYTES 13
#define PAIR_SMALL 3
#define PAIR_LARGE 100000
#define BIG_BYTES (1 << 20)
#define LAST_BYTES 77

static int rank, size, left, right;

static uint32_t seed_of(int src, int tag) { return mt_seed((uint32_t)src, (uint32_t)tag, 42); }

static void check_count(const MPI_Status *st, MPI_Datatype type, int want, const char *what) {
  int n = -7;
  MPI_Get_count(st, type, &n);
  CHECK(n == want, "%s: MPI_Get_count gave %d, expected %d", what, n, want);
}

static void check_elements(const MPI_Status *st, MPI_Datatype type, int want, const char *what) {
  int n = -7;
  MPI_Get_elements(st, type, &n);
  CHECK(n == want, "%s: MPI_Get_elements gave %d, expected %d", what, n, want);
}

/* The messages this rank sends to its right neighbour once told to. */
struct outbox {
  int ints[NINTS];
  unsigned char odd[ODD_BYTES];
  double pair_small[PAIR_SMALL], *pair_large;
  unsigned char *big, last[LAST_BYTES];
  MPI_Request reqs[6];
};

static void send_all(struct outbox *o) {
  mt_fill(o->ints, sizeof o->ints, seed_of(rank, TAG_INTS));
  mt_fill(o->odd, sizeof o->odd, seed_of(rank, TAG_ODD));
  mt_fill(o->pair_small, sizeof o->pair_small, seed_of(rank, TAG_PAIR));
  o->pair_large = mt_malloc(sizeof(double) * PAIR_LARGE);
  mt_fill(o->pair_large, sizeof(double) * PAIR_LARGE, seed_of(rank, TAG_PAIR + 100));
  o->big = mt_malloc(BIG_BYTES);
  mt_fill(o->big, BIG_BYTES, seed_of(rank, TAG_BIG));
  mt_fill(o->last, sizeof o->last, seed_of(rank, TAG_LAST));
  MPI_Isend(o->ints, NINTS, MPI_INT, right, TAG_INTS, MPI_COMM_WORLD, &o->reqs[0]);
  MPI_Isend(o->odd, ODD_BYTES, MPI_BYTE, right, TAG_ODD, MPI_COMM_WORLD, &o->reqs[1]);
  /* Same tag twice: small first, then large. */
  MPI_Isend(o->pair_small, PAIR_SMALL, MPI_DOUBLE, right, TAG_PAIR, MPI_COMM_WORLD, &o->reqs[2]);
  MPI_Isend(o->pair_large, PAIR_LARGE, MPI_DOUBLE, right, TAG_PAIR, MPI_COMM_WORLD, &o->reqs[3]);
  MPI_Isend(o->big, BIG_BYTES, MPI_BYTE, right, TAG_BIG, MPI_COMM_WORLD, &o->reqs[4]);
  MPI_Isend(o->last, LAST_BYTES, MPI_BYTE, right, TAG_LAST, MPI_COMM_WORLD, &o->reqs[5]);
}

static void test_from_left(void) {
  MPI_Status st;
  MPI_Message msg;
  int flag = -1;

  /* Nothing can have been sent yet: left waits for our "go". (Not
   * MPI_ANY_TAG: on 2 ranks, left also sends us its own "go".) */
  for (int tag = TAG_INTS; tag <= TAG_LAST; tag++) {
    MPI_Iprobe(left, tag, MPI_COMM_WORLD, &flag, &st);
    CHECK(flag == 0, "MPI_Iprobe found a message (tag %d) before the sender was told to send",
          tag);
    msg = MPI_MESSAGE_NULL;
    MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &msg, &st);
    CHECK(flag == 0 && msg == MPI_MESSAGE_NULL,
          "MPI_Improbe matched a message (tag %d) before the sender was told to send", tag);
  }

  struct outbox out;
  MPI_Request go;
  MPI_Isend(NULL, 0, MPI_BYTE, left, TAG_GO, MPI_COMM_WORLD, &go);
  MPI_Recv(NULL, 0, MPI_BYTE, right, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  send_all(&out);
  MPI_Wait(&go, MPI_STATUS_IGNORE);

  /* MPI_Probe: the status describes the message, which stays there. */
  MPI_Probe(left, TAG_INTS, MPI_COMM_WORLD, &st);
  CHECK_STATUS(st, left, TAG_INTS, MPI_INT, NINTS, "MPI_Probe of 10 ints");
  check_count(&st, MPI_BYTE, NINTS * (int)sizeof(int), "MPI_Probe of 10 ints, as bytes");
  check_elements(&st, MPI_INT, NINTS, "MPI_Probe of 10 ints");
  MPI_Iprobe(left, TAG_INTS, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag, "MPI_Iprobe no longer sees the message MPI_Probe found");
  int ints[NINTS];
  MPI_Recv(ints, NINTS, MPI_INT, left, TAG_INTS, MPI_COMM_WORLD, &st);
  CHECK_STATUS(st, left, TAG_INTS, MPI_INT, NINTS, "MPI_Recv after MPI_Probe");
  CHECK_PATTERN(ints, sizeof ints, seed_of(left, TAG_INTS), "10 ints received after probing");

  /* MPI_Iprobe with wildcards; a byte count that is no whole number of
   * ints gives MPI_UNDEFINED (MPI-3.1 §3.2.5). */
  mt_wait_probe(MPI_ANY_SOURCE, TAG_ODD, MPI_COMM_WORLD, &st, "MPI_Iprobe(MPI_ANY_SOURCE)");
  CHECK_STATUS(st, left, TAG_ODD, MPI_BYTE, ODD_BYTES, "MPI_Iprobe(MPI_ANY_SOURCE) of 13 bytes");
  check_count(&st, MPI_INT, MPI_UNDEFINED, "13 bytes counted as MPI_INT");
  check_elements(&st, MPI_INT, MPI_UNDEFINED, "13 bytes as MPI_INT elements");
  check_elements(&st, MPI_BYTE, ODD_BYTES, "13 bytes as MPI_BYTE elements");
  unsigned char odd[ODD_BYTES];
  MPI_Recv(odd, ODD_BYTES, MPI_BYTE, left, TAG_ODD, MPI_COMM_WORLD, &st);
  CHECK_PATTERN(odd, sizeof odd, seed_of(left, TAG_ODD), "13 bytes");

  /* MPI_Mprobe takes the first of two same-tag messages out of matching:
   * a later probe sees the second, and MPI_Mrecv still gets the first. */
  MPI_Message first = MPI_MESSAGE_NULL, second = MPI_MESSAGE_NULL;
  MPI_Mprobe(left, TAG_PAIR, MPI_COMM_WORLD, &first, &st);
  CHECK(first != MPI_MESSAGE_NULL && first != MPI_MESSAGE_NO_PROC, "MPI_Mprobe gave no message");
  CHECK_STATUS(st, left, TAG_PAIR, MPI_DOUBLE, PAIR_SMALL, "MPI_Mprobe of the first message");
  MPI_Probe(left, TAG_PAIR, MPI_COMM_WORLD, &st);
  CHECK_STATUS(st, left, TAG_PAIR, MPI_DOUBLE, PAIR_LARGE,
               "MPI_Probe after MPI_Mprobe (must see the second message)");
  MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &second, &st);
  CHECK_STATUS(st, left, TAG_PAIR, MPI_DOUBLE, PAIR_LARGE, "MPI_Mprobe of the second message");
  double small[PAIR_SMALL], *large = mt_malloc(sizeof(double) * PAIR_LARGE);
  MPI_Request req;
  MPI_Imrecv(large, PAIR_LARGE, MPI_DOUBLE, &second, &req);
  CHECK(second == MPI_MESSAGE_NULL, "MPI_Imrecv did not set the message handle to MPI_MESSAGE_NULL");
  MPI_Mrecv(small, PAIR_SMALL, MPI_DOUBLE, &first, &st);
  CHECK(first == MPI_MESSAGE_NULL, "MPI_Mrecv did not set the message handle to MPI_MESSAGE_NULL");
  CHECK_STATUS(st, left, TAG_PAIR, MPI_DOUBLE, PAIR_SMALL, "MPI_Mrecv of the first message");
  CHECK_PATTERN(small, sizeof small, seed_of(left, TAG_PAIR), "first message by MPI_Mrecv");
  MPI_Wait(&req, &st);
  CHECK_STATUS(st, left, TAG_PAIR, MPI_DOUBLE, PAIR_LARGE, "MPI_Imrecv of the second message");
  CHECK_PATTERN(large, sizeof(double) * PAIR_LARGE, seed_of(left, TAG_PAIR + 100),
                "second message by MPI_Imrecv");
  free(large);

  /* MPI_Improbe polled until it matches, then MPI_Mrecv of 1 MiB. */
  double start = MPI_Wtime();
  do {
    MPI_Improbe(left, TAG_BIG, MPI_COMM_WORLD, &flag, &msg, &st);
    CHECK(flag || MPI_Wtime() - start < MT_POLL_LIMIT_S, "MPI_Improbe never matched");
  } while (!flag);
  CHECK_STATUS(st, left, TAG_BIG, MPI_BYTE, BIG_BYTES, "MPI_Improbe of 1 MiB");
  unsigned char *big = mt_malloc(BIG_BYTES);
  MPI_Mrecv(big, BIG_BYTES, MPI_BYTE, &msg, &st);
  CHECK_STATUS(st, left, TAG_BIG, MPI_BYTE, BIG_BYTES, "MPI_Mrecv of 1 MiB");
  CHECK_PATTERN(big, BIG_BYTES, seed_of(left, TAG_BIG), "1 MiB by MPI_Mrecv");
  free(big);

  /* The only message left: full wildcards find it. */
  MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  CHECK_STATUS(st, left, TAG_LAST, MPI_BYTE, LAST_BYTES, "MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG)");
  unsigned char last[LAST_BYTES];
  MPI_Recv(last, LAST_BYTES, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  CHECK_PATTERN(last, sizeof last, seed_of(left, TAG_LAST), "last message");

  MPI_Waitall(6, out.reqs, MPI_STATUSES_IGNORE);
  free(out.pair_large);
  free(out.big);
}

/* MPI-3.1 §3.8: probes of MPI_PROC_NULL succeed at once with the PROC_NULL
 * status; the matched probe returns MPI_MESSAGE_NO_PROC. */
static void test_proc_null(void) {
  MPI_Status st;
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Request req;
  int flag = 0, buf = 12345;

  MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
  CHECK_PROC_NULL_STATUS(st, "MPI_Probe(MPI_PROC_NULL)");
  MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag, "MPI_Iprobe(MPI_PROC_NULL) returned flag 0");
  CHECK_PROC_NULL_STATUS(st, "MPI_Iprobe(MPI_PROC_NULL)");

  MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st);
  CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Mprobe(MPI_PROC_NULL) did not return MPI_MESSAGE_NO_PROC");
  CHECK_PROC_NULL_STATUS(st, "MPI_Mprobe(MPI_PROC_NULL)");
  MPI_Mrecv(&buf, 1, MPI_INT, &msg, &st);
  CHECK_PROC_NULL_STATUS(st, "MPI_Mrecv(MPI_MESSAGE_NO_PROC)");
  CHECK(msg == MPI_MESSAGE_NULL && buf == 12345,
        "MPI_Mrecv(MPI_MESSAGE_NO_PROC) changed the buffer or left the handle set");

  flag = 0;
  MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &msg, &st);
  CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "MPI_Improbe(MPI_PROC_NULL): flag %d, message %s",
        flag, msg == MPI_MESSAGE_NO_PROC ? "MPI_MESSAGE_NO_PROC" : "other");
  MPI_Imrecv(&buf, 1, MPI_INT, &msg, &req);
  MPI_Wait(&req, &st);
  CHECK_PROC_NULL_STATUS(st, "MPI_Imrecv(MPI_MESSAGE_NO_PROC)");
  CHECK(buf == 12345, "MPI_Imrecv(MPI_MESSAGE_NO_PROC) changed the buffer");
}

/* Fan-in to rank 0 by MPI_Mprobe(MPI_ANY_SOURCE): each message handle stays
 * bound to its own message, received here in the reverse order. */
static void test_mprobe_fan_in(void) {
  int val = 7000 + rank;
  MPI_Request req;
  MPI_Isend(&val, 1, MPI_INT, 0, TAG_FAN, MPI_COMM_WORLD, &req);
  if (rank == 0) {
    MPI_Message *msgs = mt_malloc(sizeof(MPI_Message) * (size_t)size);
    int *src = mt_malloc(sizeof(int) * (size_t)size), *seen = calloc((size_t)size, sizeof(int));
    for (int i = 0; i < size; i++) {
      MPI_Status st;
      MPI_Mprobe(MPI_ANY_SOURCE, TAG_FAN, MPI_COMM_WORLD, &msgs[i], &st);
      src[i] = st.MPI_SOURCE;
      CHECK(src[i] >= 0 && src[i] < size && !seen[src[i]],
            "MPI_Mprobe(MPI_ANY_SOURCE) #%d: source %d is out of range or matched twice", i, src[i]);
      seen[src[i]] = 1;
    }
    for (int i = size - 1; i >= 0; i--) {
      int got = -1;
      MPI_Status st;
      MPI_Mrecv(&got, 1, MPI_INT, &msgs[i], &st);
      CHECK(got == 7000 + src[i] && st.MPI_SOURCE == src[i],
            "MPI_Mrecv of the message probed from rank %d got %d from rank %d", src[i], got,
            st.MPI_SOURCE);
    }
    free(seen);
    free(src);
    free(msgs);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;

  test_from_left();
  test_proc_null();
  MPI_Barrier(MPI_COMM_WORLD);
  test_mprobe_fan_in();

  mt_pass();
  MPI_Finalize();
  return 0;
}
