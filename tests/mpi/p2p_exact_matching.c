/*
 * Matching on a communicator that asserts mpi_assert_no_any_source and
 * mpi_assert_no_any_tag (MPI-4.0 §7.4.4), where Ferry keys receives by
 * envelope: every message still reaches the right receive, messages of one
 * (source, tag) stay in order (MPI-3.1 §3.5), eager and rendezvous sizes,
 * receives posted before and after arrival, in reverse tag order; a probe
 * and a cancelled receive on such a communicator; and MPI_ANY_TAG on one
 * that asserts only mpi_assert_no_any_source (lanes by source).
 */
#define TEST_NAME "p2p_exact_matching"
#include "mpitest.h"

enum { kTags = 16, kPerTag = 3, kLarge = 256 * 1024 };

/* Message i of (source, tag) carries seed(source, tag, i); sizes alternate eager and rendezvous. */
static size_t bytes_of(int tag, int i) { return (tag + i) % 4 == 0 ? kLarge : (size_t)(8 + tag); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_no_any_source", "true");
  MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
  MPI_Comm comm;
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
  MPI_Info_free(&info);

  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int round = 0; round < 2; ++round) {
    /* Round 0: receives first (posted in reverse tag order), round 1: messages first (unexpected). */
    int n = kTags * kPerTag;
    MPI_Request *recvs = mt_malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Request *sends = mt_malloc(sizeof(MPI_Request) * (size_t)n);
    unsigned char **in = mt_malloc(sizeof(void *) * (size_t)n);
    unsigned char **out = mt_malloc(sizeof(void *) * (size_t)n);
    for (int k = 0; k < n; ++k) {
      int tag = k / kPerTag, i = k % kPerTag;
      in[k] = mt_malloc(bytes_of(tag, i));
      out[k] = mt_malloc(bytes_of(tag, i));
      mt_fill(out[k], bytes_of(tag, i), mt_seed(rank, tag, i + 10 * round));
    }
    if (round == 1) {
      for (int k = 0; k < n; ++k)
        CHECK_MPI(MPI_Isend(out[k], (int)bytes_of(k / kPerTag, k % kPerTag), MPI_BYTE, right, k / kPerTag, comm,
                            &sends[k]));
      /* Let them arrive before any receive is posted; a specific probe sees one. */
      MPI_Status st;
      CHECK_MPI(MPI_Probe(left, kTags - 1, comm, &st));
      CHECK(st.MPI_SOURCE == left && st.MPI_TAG == kTags - 1, "probe gave source %d tag %d", st.MPI_SOURCE,
            st.MPI_TAG);
    }
    for (int tag = kTags - 1; tag >= 0; --tag)
      for (int i = 0; i < kPerTag; ++i) {
        int k = tag * kPerTag + i;
        CHECK_MPI(MPI_Irecv(in[k], (int)bytes_of(tag, i), MPI_BYTE, left, tag, comm, &recvs[k]));
      }
    if (round == 0) {
      MPI_Barrier(comm);
      for (int k = 0; k < n; ++k)
        CHECK_MPI(MPI_Isend(out[k], (int)bytes_of(k / kPerTag, k % kPerTag), MPI_BYTE, right, k / kPerTag, comm,
                            &sends[k]));
    }
    CHECK_MPI(MPI_Waitall(n, recvs, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Waitall(n, sends, MPI_STATUSES_IGNORE));
    for (int k = 0; k < n; ++k) {
      int tag = k / kPerTag, i = k % kPerTag;
      CHECK_PATTERN(in[k], bytes_of(tag, i), mt_seed(left, tag, i + 10 * round),
                    "round %d: message %d of tag %d from rank %d", round, i, tag, left);
      free(in[k]);
      free(out[k]);
    }
    free(in);
    free(out);
    free(recvs);
    free(sends);
    MPI_Barrier(comm);
  }

  /* A receive cancelled while pending, then the context used again. */
  int buf = -1, flag = 0, token = rank;
  MPI_Request r;
  CHECK_MPI(MPI_Irecv(&buf, 1, MPI_INT, left, 999, comm, &r));
  CHECK_MPI(MPI_Cancel(&r));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&r, &st));
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag, "the pending receive was not cancelled");
  CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, right, 5, &buf, 1, MPI_INT, left, 5, comm, MPI_STATUS_IGNORE));
  CHECK(buf == left, "after the cancel: got %d", buf);

  /* Only mpi_assert_no_any_source (lanes by source): MPI_ANY_TAG still
   * receives the messages of one source in the order they were sent. */
  MPI_Comm by_source;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_no_any_source", "true");
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &by_source);
  MPI_Info_free(&info);
  int values[8], got[8];
  MPI_Request reqs[8];
  for (int i = 0; i < 8; ++i) values[i] = 100 * rank + i;
  for (int i = 0; i < 8; ++i) CHECK_MPI(MPI_Isend(&values[i], 1, MPI_INT, right, 40 - i, by_source, &reqs[i]));
  for (int i = 0; i < 8; ++i) {
    MPI_Status s;
    CHECK_MPI(MPI_Recv(&got[i], 1, MPI_INT, left, MPI_ANY_TAG, by_source, &s));
    CHECK(got[i] == 100 * left + i && s.MPI_TAG == 40 - i, "MPI_ANY_TAG receive %d got %d (tag %d)", i, got[i],
          s.MPI_TAG);
  }
  CHECK_MPI(MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE));
  MPI_Comm_free(&by_source);

  MPI_Comm_free(&comm);
  mt_pass();
  MPI_Finalize();
  return 0;
}
