/*
 * "Partitions are sent as they become ready" (MPI-4.0 §4.1): the sender
 * readies one partition, then waits for the receiver's go-ahead before it
 * readies the next. So MPI_Parrived must report the readied partition while
 * the later ones have not even been readied: the test proves early delivery
 * without timing. The receiver also sees that partitions not readied yet
 * are not reported, and checks each partition's data as soon as it is
 * reported. The receiver uses 1 or 2 partitions per sender partition; the
 * go-aheads travel as ordinary messages on the same communicator (they must
 * not disturb the partitioned traffic). Over several rounds, and with
 * MPI_Pready, MPI_Pready_range and MPI_Pready_list in turn.
 */
#define TEST_NAME "part_early_arrival"
#include "mpitest.h"

enum { PARTS = 8, COUNT = 2048, ROUNDS = 4, GO_TAG = 7 };

static int value(int round, int partition, int i) { return round * 1000003 + partition * 4099 + i; }

static void sender(MPI_Comm comm, int peer) {
  static int buf[PARTS * COUNT];
  MPI_Request req;
  CHECK_MPI(MPI_Psend_init(buf, PARTS, COUNT, MPI_INT, peer, 3, comm, MPI_INFO_NULL, &req));
  for (int round = 0; round < ROUNDS; round++) {
    CHECK_MPI(MPI_Start(&req));
    for (int p = 0; p < PARTS; p++) {
      for (int i = 0; i < COUNT; i++) buf[p * COUNT + i] = value(round, p, i);
      switch ((p + round) % 3) {
        case 0: CHECK_MPI(MPI_Pready(p, req)); break;
        case 1: CHECK_MPI(MPI_Pready_range(p, p, req)); break;
        default: CHECK_MPI(MPI_Pready_list(1, &p, req)); break;
      }
      /* the receiver has seen partition p before we ready p + 1 */
      int go = -1;
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, GO_TAG, comm, MPI_STATUS_IGNORE));
      CHECK(go == p, "round %d: go-ahead for partition %d, expected %d", round, go, p);
    }
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_Request_free(&req));
}

static void receiver(MPI_Comm comm, int peer, int split) {
  static int buf[PARTS * COUNT];
  int rparts = PARTS * split, rcount = COUNT / split;
  MPI_Request req;
  CHECK_MPI(MPI_Precv_init(buf, rparts, rcount, MPI_INT, peer, 3, comm, MPI_INFO_NULL, &req));
  for (int round = 0; round < ROUNDS; round++) {
    for (int i = 0; i < PARTS * COUNT; i++) buf[i] = -1;
    CHECK_MPI(MPI_Start(&req));
    for (int p = 0; p < PARTS; p++) {
      double start = MPI_Wtime();
      for (int q = p * split; q < (p + 1) * split; q++) {
        int flag = 0;
        while (!flag) {
          CHECK_MPI(MPI_Parrived(req, q, &flag));
          CHECK(flag || MPI_Wtime() - start < MT_POLL_LIMIT_S,
                "round %d: partition %d, readied by the sender, never arrived", round, q);
        }
        for (int i = 0; i < rcount; i++) {
          int want = value(round, p, (q - p * split) * rcount + i);
          CHECK(buf[q * rcount + i] == want, "round %d: partition %d int %d is %d, expected %d", round, q, i,
                buf[q * rcount + i], want);
        }
      }
      /* the sender waits for our go-ahead before it readies any later one */
      for (int q = (p + 1) * split; q < rparts; q++) {
        int flag = 1;
        CHECK_MPI(MPI_Parrived(req, q, &flag));
        CHECK(!flag, "round %d: partition %d reported arrived before the sender readied it", round, q);
      }
      CHECK_MPI(MPI_Send(&p, 1, MPI_INT, peer, GO_TAG, comm));
    }
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 3, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
  }
  CHECK_MPI(MPI_Request_free(&req));
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int peer = rank ^ 1;
  if (peer < size) {
    for (int split = 1; split <= 2; split++) {
      if (rank % 2 == 0) sender(MPI_COMM_WORLD, peer);
      else receiver(MPI_COMM_WORLD, peer, split);
    }
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
