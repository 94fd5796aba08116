/*
 * What MPI_File_set_view accepts (MPI-3.1 §13.3) and the errors it gives:
 * typemap rules (negative, decreasing, overlapping displacements: MPI_ERR_IO
 * as ROMIO reports them; overlaps are fine on a read-only file),
 * uncommitted types and filetypes that are not whole etypes (MPI_ERR_TYPE),
 * a negative displacement or MPI_DISPLACEMENT_CURRENT on a non-sequential
 * file (MPI_ERR_ARG), unknown data representations, etype sizes that differ
 * between ranks (MPI_ERR_NOT_SAME), accesses that are not whole etypes; and
 * that set_view puts the file pointer back to 0.
 */
#define TEST_NAME "io_view_rules"
#include "mpitest.h"
#include "iotest.h"

static MPI_Datatype indexed(int d0, int b0, int d1, int b1) {
  int disp[2] = {d0, d1}, blen[2] = {b0, b1};
  MPI_Datatype t;
  MPI_Type_indexed(2, blen, disp, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

static void typemap_rules(MPI_File fh, int writable) {
  struct {
    MPI_Datatype t;
    const char *what;
    int bad;
  } cases[] = {
      {indexed(-2, 1, 2, 1), "negative displacement", 1},
      {indexed(3, 1, 0, 1), "decreasing displacements", 1},
      {indexed(0, 3, 1, 1), "overlapping pieces", writable},
  };
  for (int i = 0; i < 3; i++) {
    for (int as_filetype = 0; as_filetype < 2; as_filetype++) {
      MPI_Datatype etype = as_filetype ? MPI_INT : cases[i].t;
      int rc = MPI_File_set_view(fh, 0, etype, cases[i].t, "native", MPI_INFO_NULL);
      if (cases[i].bad) EXPECT_CLASS(rc, MPI_ERR_IO, "MPI_File_set_view", as_filetype ? "filetype" : "etype");
      else CHECK(rc == MPI_SUCCESS, "%s on a read-only file: set_view failed", cases[i].what);
    }
    MPI_Type_free(&cases[i].t);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  char path[600];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  io_path("file", path, sizeof path);

  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  typemap_rules(fh, 1);

  MPI_Datatype loose, three_bytes;
  MPI_Type_contiguous(2, MPI_INT, &loose); /* never committed */
  EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, loose, "native", MPI_INFO_NULL), MPI_ERR_TYPE,
               "MPI_File_set_view", "commit");
  MPI_Type_free(&loose);
  MPI_Type_contiguous(3, MPI_BYTE, &three_bytes);
  MPI_Type_commit(&three_bytes);
  EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, three_bytes, "native", MPI_INFO_NULL), MPI_ERR_TYPE,
               "MPI_File_set_view", "etype");
  EXPECT_CLASS(MPI_File_set_view(fh, -4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_ERR_ARG,
               "MPI_File_set_view", "disp");
  EXPECT_CLASS(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL),
               MPI_ERR_ARG, "MPI_File_set_view", "MPI_DISPLACEMENT_CURRENT");
  EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP,
               "MPI_File_set_view", "no-such-rep");
  if (size > 1) {
    MPI_Datatype e = rank == 0 ? MPI_SHORT : MPI_INT;
    EXPECT_CLASS(MPI_File_set_view(fh, 0, e, e, "native", MPI_INFO_NULL), MPI_ERR_NOT_SAME, "MPI_File_set_view",
                 "etype");
  }

  /* One rank's bad handle fails the call everywhere (MPICH would hang). */
  if (size > 1 && mt_is_ferry())
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, rank == size - 1 ? MPI_DATATYPE_NULL : MPI_INT, "native",
                                   MPI_INFO_NULL),
                 MPI_ERR_TYPE, "MPI_File_set_view", "filetype");

  /* A valid view; the pointer goes back to 0 and counts etypes. */
  int data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_write_at(fh, 8 * rank, data, 8, MPI_BYTE, &st)); /* byte view still */
  CHECK_MPI(MPI_File_seek(fh, 5, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_set_view(fh, 16, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 0, "set_view left the file pointer at %lld", (long long)pos);
  CHECK_MPI(MPI_File_write(fh, data, 2, MPI_INT, &st));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 2, "two ints moved the pointer to %lld etypes", (long long)pos);
  EXPECT_CLASS(MPI_File_write(fh, data, 3, MPI_BYTE, &st), MPI_ERR_TYPE, "MPI_File_write", "etype");
  CHECK_MPI(MPI_File_close(&fh));

  /* Overlaps are allowed when the file is only read. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  typemap_rules(fh, 0);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&three_bytes);

  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
