/*
 * An aggregator's failure in a collective write is every rank's error
 * (MPI-3.1 §13.7): the ranks that sent it their data return an error of
 * the same class as the aggregator, and nobody hangs waiting for a round
 * that will not come.
 *
 *   /dev/full: every write fails with ENOSPC -> MPI_ERR_NO_SPACE everywhere.
 *   RLIMIT_FSIZE on rank 0 alone (the only aggregator, cb_nodes=1): its
 *   writes past 64 KiB fail with EFBIG; every rank gets rank 0's class.
 * Afterwards the file still works: a collective write within the limit
 * succeeds. Last, one rank passes a bad argument (count -1) to a collective
 * write: it gets MPI_ERR_COUNT, and the others an error too, not a hang.
 *
 * cb_buffer_size 64 KiB: the writes take several rounds, double-buffered (the
 * default: a round's block is written on the I/O worker while the next is
 * exchanged, so the failure is found rounds later); with the argument
 * "single", ferry_cb_double_buffer=disable (one block at a time).
 */
#define TEST_NAME "io_collective_errors"
#include "mpitest.h"
#include "iotest.h"

#include <signal.h>
#include <sys/resource.h>

static int rank, size;

/* An interleaved view: rank r owns 512-byte stripe r of every tile. */
static void interleave(MPI_File fh, MPI_Datatype *filetype) {
  MPI_Datatype stripe;
  MPI_Type_contiguous(512, MPI_BYTE, &stripe);
  MPI_Type_create_resized(stripe, 0, 512L * size, filetype);
  MPI_Type_commit(filetype);
  MPI_Type_free(&stripe);
  CHECK_MPI(MPI_File_set_view(fh, 512L * rank, MPI_BYTE, *filetype, "native", MPI_INFO_NULL));
}

/* Every rank's error class is `want` (or, with want < 0, rank 0's). */
static void same_class_everywhere(int rc, int want, const char *what) {
  int cls = MPI_SUCCESS;
  CHECK(rc != MPI_SUCCESS, "%s: succeeded on rank %d", what, rank);
  MPI_Error_class(rc, &cls);
  int *all = (int *)mt_malloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&cls, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  if (want < 0) want = all[0];
  for (int r = 0; r < size; r++)
    CHECK(all[r] == want, "%s: rank %d got error class %d, expected %d", what, r, all[r], want);
  free(all);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { BYTES = 256 * 1024 };
  unsigned char *data = (unsigned char *)mt_malloc(BYTES);
  mt_fill(data, BYTES, mt_seed(rank, 1, 2));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "cb_nodes", "1");
  MPI_Info_set(info, "cb_buffer_size", "65536");
  if (argc > 1 && strcmp(argv[1], "single") == 0) MPI_Info_set(info, "ferry_cb_double_buffer", "disable");
  MPI_Status st;
  MPI_Datatype filetype;

  /* 1. A full device. */
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, info, &fh));
  interleave(fh, &filetype);
  int rc = MPI_File_write_all(fh, data, BYTES, MPI_BYTE, &st);
  if (mt_is_ferry()) EXPECT_CLASS(rc, MPI_ERR_NO_SPACE, "MPI_File_write_all", NULL);
  same_class_everywhere(rc, MPI_ERR_NO_SPACE, "write_all to /dev/full");
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&filetype);

  /* 2. A file-size limit on the aggregator alone. */
  io_make_dir();
  char path[600];
  io_path("limited", path, sizeof path);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  interleave(fh, &filetype);
  struct rlimit old;
  if (rank == 0) {
    signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of the signal */
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit: %s", strerror(errno));
    struct rlimit small = old;
    small.rlim_cur = 64 * 1024;
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0, "setrlimit: %s", strerror(errno));
  }
  rc = MPI_File_write_all(fh, data, BYTES, MPI_BYTE, &st);
  same_class_everywhere(rc, -1, "write_all past RLIMIT_FSIZE on the aggregator");
  if (rank == 0) CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0, "setrlimit: %s", strerror(errno));

  /* The file still works. */
  CHECK_MPI(MPI_File_write_at_all(fh, 0, data, 4096, MPI_BYTE, &st));
  CHECK(io_status_bytes(&st) == 4096, "write_at_all after the failure: %lld bytes", (long long)io_status_bytes(&st));

  /* 3. A bad argument on the last rank alone. */
  if (mt_is_ferry()) {
    rc = MPI_File_write_at_all(fh, 0, data, rank == size - 1 ? -1 : 4096, MPI_BYTE, &st);
    if (rank == size - 1) EXPECT_CLASS(rc, MPI_ERR_COUNT, "MPI_File_write_at_all", "count");
    same_class_everywhere(rc, MPI_ERR_COUNT, "write_at_all with count -1 on one rank");
  }
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&filetype);
  MPI_Info_free(&info);
  free(data);
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
