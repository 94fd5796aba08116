/*
 * File error handlers (MPI-3.1 §13.7, §8.3.3): files default to
 * MPI_ERRORS_RETURN; MPI_FILE_NULL's handler is the one failing opens use
 * and the one new files start with; a user's handler gets the file (or
 * MPI_FILE_NULL) and the code, and the call still returns the code;
 * MPI_File_call_errhandler calls it; set/get_errhandler; a communicator's
 * handler does not fit a file (and the reverse).
 */
#define TEST_NAME "io_errhandler"
#include "mpitest.h"
#include "iotest.h"

static int calls, last_class;
static MPI_File last_file;

static void on_file_error(MPI_File *fh, int *code, ...) {
  calls++;
  last_file = *fh;
  MPI_Error_class(*code, &last_class);
}

static void on_comm_error(MPI_Comm *comm, int *code, ...) { (void)comm, (void)code; }

int main(int argc, char **argv) {
  int rank;
  char path[600], missing[600], buf[8];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  io_make_dir();
  io_path("file", path, sizeof path);
  io_path("missing", missing, sizeof missing);

  MPI_Errhandler h, mine, comm_handler;
  MPI_File fh;
  MPI_Status st;

  /* The defaults: MPI_ERRORS_RETURN for MPI_FILE_NULL and for new files. */
  CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &h));
  CHECK(h == MPI_ERRORS_RETURN, "MPI_FILE_NULL's handler is not MPI_ERRORS_RETURN");
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_errhandler(fh, &h));
  CHECK(h == MPI_ERRORS_RETURN, "a new file's handler is not MPI_ERRORS_RETURN");
  EXPECT_CLASS(MPI_File_read(fh, buf, 1, MPI_CHAR, &st), MPI_ERR_ACCESS, "MPI_File_read", NULL);
  CHECK_MPI(MPI_File_close(&fh));

  /* A user's handler on MPI_FILE_NULL: failing opens call it. */
  CHECK_MPI(MPI_File_create_errhandler(on_file_error, &mine));
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
  int rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  EXPECT_CLASS(rc, MPI_ERR_NO_SUCH_FILE, "MPI_File_open", NULL);
  CHECK(calls == 1 && last_class == MPI_ERR_NO_SUCH_FILE && last_file == MPI_FILE_NULL,
        "a failing open called the handler %d times (class %d)", calls, last_class);

  /* ...and new files start with it. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_errhandler(fh, &h));
  CHECK(h == mine, "a new file did not get MPI_FILE_NULL's handler");
  /* get_errhandler's result is the caller's reference to free (§8.3.4);
   * ROMIO takes none, and MPICH 4.0 asserts on the extra free. */
  if (mt_is_ferry()) MPI_Errhandler_free(&h);
  EXPECT_CLASS(MPI_File_read(fh, buf, 1, MPI_CHAR, &st), MPI_ERR_ACCESS, "MPI_File_read", NULL);
  CHECK(calls == 2 && last_class == MPI_ERR_ACCESS && last_file == fh,
        "an error on the file called the handler %d times (class %d)", calls, last_class);

  /* MPI_File_call_errhandler. */
  CHECK_MPI(MPI_File_call_errhandler(fh, MPI_ERR_IO));
  CHECK(calls == 3 && last_class == MPI_ERR_IO, "MPI_File_call_errhandler did not call the handler");

  /* Back to MPI_ERRORS_RETURN on this file: no more calls. */
  CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
  EXPECT_CLASS(MPI_File_read(fh, buf, 1, MPI_CHAR, &st), MPI_ERR_ACCESS, "MPI_File_read", NULL);
  CHECK(calls == 3, "MPI_ERRORS_RETURN still called the user's handler");

  /* A communicator's handler is not a file's, and the reverse. */
  if (mt_is_ferry()) {
    MPI_Comm_create_errhandler(on_comm_error, &comm_handler);
    EXPECT_CLASS(MPI_File_set_errhandler(fh, comm_handler), MPI_ERR_ARG, "MPI_File_set_errhandler", NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine), MPI_ERR_ARG, "MPI_Comm_set_errhandler", NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&comm_handler);
  }
  CHECK_MPI(MPI_File_close(&fh));

  /* An invalid handle's error goes to MPI_FILE_NULL's handler. */
  int before = calls;
  EXPECT_CLASS(MPI_File_get_amode(MPI_FILE_NULL, (int *)buf), MPI_ERR_FILE, "MPI_File_get_amode", NULL);
  CHECK(calls == before + 1 && last_file == MPI_FILE_NULL, "MPI_FILE_NULL's handler was not called for a bad file");

  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  MPI_Errhandler_free(&mine);
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
