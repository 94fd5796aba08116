/*
 * Shared-memory collectives (coll/shm) and the sizes ranks pass.
 *
 * Part 1, legal programs: the choice between shared memory and messages
 * must rest on what MPI requires every rank to agree on, the bytes of the
 * type signature (MPI-4.0 §6.1), not on counts or extents. The root of a
 * bcast (and the root of a gather) uses one element of a contiguous type of
 * n ints, or a strided vector of n ints, while the others use n MPI_INT
 * (reductions need the same count and datatype everywhere, MPI-4.0 §6.9.1),
 * for n just below, at and just above the cell (FERRY_COLL_SHM_CELL, 16 KiB
 * = 4096 ints): every call must succeed with the right data.
 *
 * Part 2, erroneous programs: ranks pass counts that disagree (rank 0 one
 * count, the others another), both below the cell, both above it, and one
 * on each side of it, so that some ranks' data fits a cell and others' does
 * not. Each of bcast, reduce, allreduce, gather, scatter, allgather and
 * alltoall must then fail on at least one rank with MPI_ERR_TRUNCATE or
 * MPI_ERR_OTHER (under MPI_ERRORS_RETURN, the message naming the call),
 * succeed or fail alike on the others, never hang, and leave the
 * communicator usable: its next collective runs in step. Before the fix,
 * ranks on either side of the cell took different paths (shared memory,
 * messages) and waited for each other forever. Ferry only (MPI leaves
 * erroneous programs undefined; MPICH may hang or abort).
 */
#define TEST_NAME "shm_count_mismatch"
#include "../mpitest.h"

#define SMALL 100
#define SMALL2 200
#define BIG 5000
#define BIG2 6000
#define MAXCOUNT BIG2

static int rank, size;
static int *sbuf, *rbuf;

#include "count_mismatch.h"

static int val(int r, int i) { return r * 100003 + i * 7 + 1; }

/* --- Part 1 ---------------------------------------------------------------- */
static void same_signature(MPI_Comm comm, int n) {
  MPI_Datatype contig, strided;
  MPI_Type_contiguous(n, MPI_INT, &contig);
  MPI_Type_commit(&contig);
  MPI_Type_vector(n, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  for (int form = 0; form < 2; form++) {
    const MPI_Datatype roottype = form == 0 ? contig : strided;
    /* bcast from 0: one element of roottype at the root, n MPI_INT elsewhere. */
    for (int i = 0; i < 2 * n; i++) sbuf[i] = form == 0 ? val(0, i) : (i % 2 ? -1 : val(0, i / 2));
    for (int i = 0; i < n; i++) rbuf[i] = -7;
    int rc = rank == 0 ? MPI_Bcast(sbuf, 1, roottype, 0, comm) : MPI_Bcast(rbuf, n, MPI_INT, 0, comm);
    CHECK(rc == MPI_SUCCESS, "bcast of %d ints (root: %s) failed", n, form == 0 ? "contiguous" : "vector");
    if (rank != 0)
      for (int i = 0; i < n; i++)
        CHECK(rbuf[i] == val(0, i), "bcast of %d ints (root: %s): [%d] = %d", n, form == 0 ? "contiguous" : "vector",
              i, rbuf[i]);
  }
  /* gather to 0: everyone sends n MPI_INT, the root receives one contiguous(n) per rank. */
  for (int i = 0; i < n; i++) sbuf[i] = val(rank, i);
  for (int i = 0; i < n * size; i++) rbuf[i] = -7;
  CHECK(MPI_Gather(sbuf, n, MPI_INT, rbuf, 1, contig, 0, comm) == MPI_SUCCESS, "gather of %d ints failed", n);
  if (rank == 0)
    for (int r = 0; r < size; r++)
      for (int i = 0; i < n; i++)
        CHECK(rbuf[r * n + i] == val(r, i), "gather of %d ints: block %d [%d] = %d", n, r, i, rbuf[r * n + i]);
  MPI_Type_free(&contig);
  MPI_Type_free(&strided);
}

/* --- Part 2 ---------------------------------------------------------------- */
static void disagree(MPI_Comm comm, int op, int mine, int others, const char *what) {
  const int n = rank == 0 ? mine : others;
  int rc = call(op, n, comm);
  int failed = rc != MPI_SUCCESS;
  if (failed) check_mismatch_error(rc, op, NULL, what);
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(any, "%s, %s: no rank reported the mismatch", names[op], what);
  check_still_in_step(comm, op, what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sbuf = mt_malloc(sizeof(int) * (size_t)MAXCOUNT * 2 * (size_t)size);
  rbuf = mt_malloc(sizeof(int) * (size_t)MAXCOUNT * 2 * (size_t)size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

  const int around_cell[] = {1000, 4095, 4096, 4097, BIG};
  for (size_t k = 0; k < sizeof around_cell / sizeof around_cell[0]; k++) same_signature(comm, around_cell[k]);

  if (size >= 2 && mt_is_ferry()) {
    for (int op = 0; op <= kAlltoall; op++) { /* bcast to alltoall: the calls with shm cells to straddle */
      for (int i = 0; i < MAXCOUNT * size; i++) sbuf[i] = i;
      disagree(comm, op, SMALL, SMALL2, "counts 100 and 200 (both fit a cell)");
      disagree(comm, op, BIG, BIG2, "counts 5000 and 6000 (neither fits)");
      disagree(comm, op, BIG, SMALL, "rank 0 above the cell, the others below");
      disagree(comm, op, SMALL, BIG, "rank 0 below the cell, the others above");
    }
  }
  MPI_Comm_free(&comm);
  free(sbuf);
  free(rbuf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
