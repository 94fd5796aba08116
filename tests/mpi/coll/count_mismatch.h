/*
 * What the tests of erroneous count mismatches (shm_count_mismatch.c,
 * zero_count_mismatch.c) share: the collectives they call with rank 0
 * passing one count of MPI_INT and the others another, the check of a
 * failed call, and the check that the communicator is still in step after
 * it. Include after mpitest.h; the test defines `rank`, `size`, `sbuf` and
 * `rbuf` (buffers of at least n x size ints for the largest n it passes).
 */
#ifndef FERRY_TESTS_MPI_COLL_COUNT_MISMATCH_H
#define FERRY_TESTS_MPI_COLL_COUNT_MISMATCH_H

#include <string.h>

enum { kBcast, kReduce, kAllreduce, kGather, kScatter, kAllgather, kAlltoall, kReduceScatterBlock, kScan, kExscan, kOps };
static const char *const names[kOps] = {"MPI_Bcast",   "MPI_Reduce",    "MPI_Allreduce", "MPI_Gather",
                                        "MPI_Scatter", "MPI_Allgather", "MPI_Alltoall",  "MPI_Reduce_scatter_block",
                                        "MPI_Scan",    "MPI_Exscan"};

/* Collective `op` on n MPI_INT (root 0). */
static int call(int op, int n, MPI_Comm comm) {
  switch (op) {
    case kBcast: return MPI_Bcast(sbuf, n, MPI_INT, 0, comm);
    case kReduce: return MPI_Reduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, 0, comm);
    case kAllreduce: return MPI_Allreduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, comm);
    case kGather: return MPI_Gather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, comm);
    case kScatter: return MPI_Scatter(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, comm);
    case kAllgather: return MPI_Allgather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, comm);
    case kAlltoall: return MPI_Alltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, comm);
    case kReduceScatterBlock: return MPI_Reduce_scatter_block(sbuf, rbuf, n, MPI_INT, MPI_SUM, comm);
    case kScan: return MPI_Scan(sbuf, rbuf, n, MPI_INT, MPI_SUM, comm);
    default: return MPI_Exscan(sbuf, rbuf, n, MPI_INT, MPI_SUM, comm);
  }
}

/* A call that failed over the mismatch: MPI_ERR_TRUNCATE (it received more
 * than it passed) or MPI_ERR_OTHER, the message naming the call and, unless
 * `words` is NULL, saying `words`. */
static void check_mismatch_error(int rc, int op, const char *words, const char *what) {
  char msg[MPI_MAX_ERROR_STRING];
  int cls = -1, len = 0;
  MPI_Error_class(rc, &cls);
  msg[0] = 0;
  MPI_Error_string(rc, msg, &len);
  CHECK(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER, "%s, %s: error class %d (\"%s\")", names[op], what, cls, msg);
  if (words != NULL)
    CHECK(strstr(msg, words) != NULL, "%s, %s: the message \"%s\" does not say \"%s\"", names[op], what, msg, words);
#ifdef FERRY_CHECK_ERROR_STRINGS
  CHECK(strstr(msg, names[op]) != NULL, "%s, %s: the message \"%s\" does not name the call", names[op], what, msg);
#endif
}

/* After the erroneous call `op`: a correct bcast and allreduce on the same
 * communicator run and give the right values. */
static void check_still_in_step(MPI_Comm comm, int op, const char *what) {
  for (int i = 0; i < 16; i++) sbuf[i] = rank == 0 ? op * 1000 + i : -1;
  CHECK(MPI_Bcast(sbuf, 16, MPI_INT, 0, comm) == MPI_SUCCESS, "%s, %s: the next bcast failed", names[op], what);
  for (int i = 0; i < 16; i++)
    CHECK(sbuf[i] == op * 1000 + i, "%s, %s: next bcast [%d] = %d", names[op], what, i, sbuf[i]);
  int one = 1, sum = 0;
  CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS && sum == size,
        "%s, %s: the next allreduce failed (sum %d)", names[op], what, sum);
}

#endif
