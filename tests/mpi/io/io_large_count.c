/*
 * MPI-IO's large-count calls (MPI-4.0 §14.4): one MPI_File_write_at_c of
 * 2^31 + 4097 bytes (a count that does not fit an int) to a file in
 * $TMPDIR or /tmp, then MPI_File_read_at_c of the same into a cleared
 * buffer; every byte comes back, the status counts them all, and
 * MPI_File_get_type_extent_c agrees with MPI_Type_get_extent. The file is
 * deleted at the end. Needs 2 GiB of memory and disk; skips with a message
 * if the buffer cannot be allocated.
 */
#define TEST_NAME "io_large_count"
#include "mpitest.h"
#include "iotest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const MPI_Count n = ((MPI_Count)1 << 31) + 4097;
  io_make_dir();
  char path[600];
  io_path("large_count", path, sizeof path);
  unsigned char *buf = malloc((size_t)n);
  if (buf == NULL) {
    printf("%s: SKIP: cannot allocate %lld bytes\n", TEST_NAME, (long long)n);
    mt_pass();
    MPI_Finalize();
    return 0;
  }
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  mt_fill(buf, (size_t)n, 77);
  CHECK_MPI(MPI_File_write_at_c(fh, 4096, buf, n, MPI_BYTE, &st));
  MPI_Count got = -1;
  CHECK_MPI(MPI_Get_elements_x(&st, MPI_BYTE, &got));
  CHECK(got == n, "write_at_c: status counts %lld bytes, want %lld", (long long)got, (long long)n);
  MPI_Offset fsize = 0;
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == 4096 + n, "file size %lld, want %lld", (long long)fsize, (long long)(4096 + n));
  memset(buf, 0, (size_t)n);
  CHECK_MPI(MPI_File_read_at_c(fh, 4096, buf, n, MPI_BYTE, &st));
  CHECK_MPI(MPI_Get_elements_x(&st, MPI_BYTE, &got));
  CHECK(got == n, "read_at_c: status counts %lld bytes, want %lld", (long long)got, (long long)n);
  CHECK_PATTERN(buf, (size_t)n, 77, "read_at_c of %lld bytes", (long long)n);

  MPI_Count extent = -1;
  MPI_Aint lb, want;
  CHECK_MPI(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &extent));
  MPI_Type_get_extent(MPI_DOUBLE, &lb, &want);
  CHECK(extent == want, "get_type_extent_c: %lld, want %ld", (long long)extent, (long)want);

  /* A negative count is MPI_ERR_COUNT, on the file's handler. */
  MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  int cls = -1, err = MPI_File_read_at_c(fh, 0, buf, -1, MPI_BYTE, &st);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_COUNT, "read_at_c count -1: class %d, want MPI_ERR_COUNT", cls);
  CHECK_MPI(MPI_File_close(&fh)); /* MPI_MODE_DELETE_ON_CLOSE removes it */
  free(buf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
