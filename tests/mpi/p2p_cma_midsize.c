/*
 * Same-host messages between FERRY_SHM_CMA_THRESHOLD (8 KiB) and the ring's
 * 64 KiB eager limit go single-copy where CMA is used: rank 1 reads them out
 * of rank 0's buffer. Run with FERRY_SHM_CMA=on and `--expect-single-copy`
 * (each contiguous message from 8 KiB is one rendezvous send, counted by the
 * ferry.p2p.rendezvous_sends pvar; below 8 KiB none), and with
 * FERRY_SHM_CMA=off (all of them eager: no rendezvous send). Either way every
 * byte arrives: contiguous sizes around the threshold, a strided type of the
 * same sizes (packed eagerly, never offered in place), a message sent before
 * its receive is posted (the receiver sleeps first), and both ranks
 * exchanging with MPI_Isend/MPI_Irecv at once.
 */
#define TEST_NAME "p2p_cma_midsize"
#include "mpitest.h"

#include <unistd.h>

static const int sizes[] = {4096, 8191, 8192, 16384, 40000, 65536};
enum { NSIZES = sizeof sizes / sizeof sizes[0], MAX = 65536, THRESHOLD = 8192 };

static unsigned char expected(int size, int i) { return (unsigned char)(size * 7 + i * 13 + 1); }

static void fill(unsigned char *b, int n) {
  for (int i = 0; i < n; ++i) b[i] = expected(n, i);
}
static void verify(const unsigned char *b, int n, const char *what) {
  for (int i = 0; i < n; ++i)
    CHECK(b[i] == expected(n, i), "%s of %d bytes: byte %d is %d, expected %d", what, n, i, b[i], expected(n, i));
}

/* Whether this kernel may let a rank read its sibling's memory (Yama). */
static int cma_allowed(void) {
  FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
  if (f == NULL) return 1;
  int scope = 0;
  if (fscanf(f, "%d", &scope) != 1) scope = 0;
  fclose(f);
  return scope == 0;
}

int main(int argc, char **argv) {
  int rank, size, provided, expect_single_copy = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 ranks, has %d", size);
  for (int i = 1; i < argc; ++i)
    if (!strcmp(argv[i], "--expect-single-copy")) expect_single_copy = 1;
  if (expect_single_copy && !cma_allowed()) {
    if (rank == 0) printf("%s: SKIPPED (kernel.yama.ptrace_scope forbids process_vm_readv)\n", TEST_NAME);
    MPI_Finalize();
    return 0;
  }
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
  MPI_T_pvar_session session;
  CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "session_create");
  int index = -1, count = 0;
  MPI_T_pvar_handle rendezvous;
  CHECK(MPI_T_pvar_get_index("ferry.p2p.rendezvous_sends", MPI_T_PVAR_CLASS_COUNTER, &index) == MPI_SUCCESS,
        "no rendezvous_sends pvar");
  CHECK(MPI_T_pvar_handle_alloc(session, index, NULL, &rendezvous, &count) == MPI_SUCCESS, "handle_alloc");
  CHECK(MPI_T_pvar_start(session, rendezvous) == MPI_SUCCESS, "pvar_start");

  unsigned char *out = malloc(2 * MAX), *in = malloc(2 * MAX);
  CHECK(out != NULL && in != NULL, "malloc");
  int peer = 1 - rank;

  /* One way, contiguous: the protocol counted at the sender. */
  int offered = 0;
  for (int s = 0; s < NSIZES; ++s) {
    int n = sizes[s];
    if (rank == 0) {
      fill(out, n);
      MPI_Send(out, n, MPI_BYTE, 1, s, MPI_COMM_WORLD);
      offered += n >= THRESHOLD;
    } else {
      memset(in, 0, (size_t)n);
      MPI_Status st;
      MPI_Recv(in, MAX, MPI_BYTE, 0, s, MPI_COMM_WORLD, &st);
      int got = -1;
      MPI_Get_count(&st, MPI_BYTE, &got);
      CHECK(got == n, "received %d bytes, %d sent", got, n);
      verify(in, n, "contiguous message");
    }
  }
  if (rank == 0) {
    unsigned long long sent = 0;
    CHECK(MPI_T_pvar_read(session, rendezvous, &sent) == MPI_SUCCESS, "pvar_read");
    unsigned long long want = expect_single_copy ? (unsigned long long)offered : 0;
    CHECK(sent == want, "%llu rendezvous sends for %d messages of 4-64 KiB (%d from 8 KiB), expected %llu", sent,
          NSIZES, offered, want);
  }

  /* Strided: every other byte, so n bytes of data span 2n of memory. */
  for (int s = 0; s < NSIZES; ++s) {
    int n = sizes[s];
    MPI_Datatype strided;
    MPI_Type_vector(n, 1, 2, MPI_BYTE, &strided);
    MPI_Type_commit(&strided);
    if (rank == 0) {
      for (int i = 0; i < n; ++i) out[2 * i] = expected(n, i);
      MPI_Send(out, 1, strided, 1, 100 + s, MPI_COMM_WORLD);
    } else {
      memset(in, 0, (size_t)n);
      MPI_Recv(in, n, MPI_BYTE, 0, 100 + s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      verify(in, n, "strided message");
    }
    MPI_Type_free(&strided);
  }

  /* Sent before its receive is posted: the send waits for the receiver,
   * which reads it when it comes. */
  if (rank == 0) {
    fill(out, 16384);
    MPI_Request r;
    MPI_Isend(out, 16384, MPI_BYTE, 1, 200, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    usleep(50 * 1000);
    MPI_Recv(in, 16384, MPI_BYTE, 0, 200, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    verify(in, 16384, "late-received message");
  }

  /* Both ways at once. */
  for (int s = 0; s < NSIZES; ++s) {
    int n = sizes[s];
    fill(out, n);
    memset(in, 0, (size_t)n);
    MPI_Request r[2];
    MPI_Irecv(in, n, MPI_BYTE, peer, 300 + s, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out, n, MPI_BYTE, peer, 300 + s, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    verify(in, n, "exchanged message");
  }

  free(out);
  free(in);
  MPI_T_pvar_handle_free(session, &rendezvous);
  MPI_T_pvar_session_free(&session);
  MPI_T_finalize();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("%s: OK\n", TEST_NAME);
  MPI_Finalize();
  return 0;
}
