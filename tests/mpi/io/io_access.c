/*
 * Every data access routine at explicit offsets and with the individual
 * file pointer (MPI-3.1 §13.4), blocking, nonblocking and split collective,
 * judged against plain POSIX reads and writes of the file: each rank writes
 * its own region with a pattern that names the routine and the rank, then
 * every rank preads the whole file and checks every byte. Half the
 * routines take a contiguous buffer, half a strided one (packed through the
 * datatype engine). Status counts, file pointer movement, reads past the
 * end of file (short counts, not errors) and an offset beyond 2 GiB.
 */
#define TEST_NAME "io_access"
#include "mpitest.h"
#include "iotest.h"

#define N 1531 /* ints per rank and routine: odd, so nothing is aligned to much */

static int rank, size;
static MPI_Datatype strided; /* one int every two */

enum { AT, AT_ALL, IAT, IAT_ALL, AT_SPLIT, PTR, PTR_ALL, IPTR, IPTR_ALL, PTR_SPLIT, FORMS };
static const char *const form_names[FORMS] = {"_at", "_at_all", "i_at", "i_at_all", "_at_all_begin/end",
                                              "", "_all", "i", "i_all", "_all_begin/end"};

/* Accesses N ints of `buf` (contiguous, or every other int of a 2N buffer)
 * at int offset `at`, with form `form`; returns the status. */
static MPI_Status do_access(MPI_File fh, int write, int form, MPI_Offset at, void *buf, int use_strided) {
  MPI_Status st;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Datatype t = use_strided ? strided : MPI_INT;
  memset(&st, 0, sizeof st);
  if (form >= PTR) CHECK_MPI(MPI_File_seek(fh, at, MPI_SEEK_SET));
  if (write) {
    switch (form) {
      case AT: CHECK_MPI(MPI_File_write_at(fh, at, buf, N, t, &st)); break;
      case AT_ALL: CHECK_MPI(MPI_File_write_at_all(fh, at, buf, N, t, &st)); break;
      case IAT: CHECK_MPI(MPI_File_iwrite_at(fh, at, buf, N, t, &req)); break;
      case IAT_ALL: CHECK_MPI(MPI_File_iwrite_at_all(fh, at, buf, N, t, &req)); break;
      case AT_SPLIT:
        CHECK_MPI(MPI_File_write_at_all_begin(fh, at, buf, N, t));
        CHECK_MPI(MPI_File_write_at_all_end(fh, buf, &st));
        break;
      case PTR: CHECK_MPI(MPI_File_write(fh, buf, N, t, &st)); break;
      case PTR_ALL: CHECK_MPI(MPI_File_write_all(fh, buf, N, t, &st)); break;
      case IPTR: CHECK_MPI(MPI_File_iwrite(fh, buf, N, t, &req)); break;
      case IPTR_ALL: CHECK_MPI(MPI_File_iwrite_all(fh, buf, N, t, &req)); break;
      case PTR_SPLIT:
        CHECK_MPI(MPI_File_write_all_begin(fh, buf, N, t));
        CHECK_MPI(MPI_File_write_all_end(fh, buf, &st));
        break;
    }
  } else {
    switch (form) {
      case AT: CHECK_MPI(MPI_File_read_at(fh, at, buf, N, t, &st)); break;
      case AT_ALL: CHECK_MPI(MPI_File_read_at_all(fh, at, buf, N, t, &st)); break;
      case IAT: CHECK_MPI(MPI_File_iread_at(fh, at, buf, N, t, &req)); break;
      case IAT_ALL: CHECK_MPI(MPI_File_iread_at_all(fh, at, buf, N, t, &req)); break;
      case AT_SPLIT:
        CHECK_MPI(MPI_File_read_at_all_begin(fh, at, buf, N, t));
        CHECK_MPI(MPI_File_read_at_all_end(fh, buf, &st));
        break;
      case PTR: CHECK_MPI(MPI_File_read(fh, buf, N, t, &st)); break;
      case PTR_ALL: CHECK_MPI(MPI_File_read_all(fh, buf, N, t, &st)); break;
      case IPTR: CHECK_MPI(MPI_File_iread(fh, buf, N, t, &req)); break;
      case IPTR_ALL: CHECK_MPI(MPI_File_iread_all(fh, buf, N, t, &req)); break;
      case PTR_SPLIT:
        CHECK_MPI(MPI_File_read_all_begin(fh, buf, N, t));
        CHECK_MPI(MPI_File_read_all_end(fh, buf, &st));
        break;
    }
  }
  if (req != MPI_REQUEST_NULL) CHECK_MPI(MPI_Wait(&req, &st));
  if (form >= PTR) {
    MPI_Offset pos = -1;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == at + N, "%s%s: the file pointer is at %lld, expected %lld", write ? "write" : "read",
          form_names[form], (long long)pos, (long long)(at + N));
  }
  int count = -1;
  MPI_Get_count(&st, t, &count);
  CHECK(count == N, "%s%s: status count %d, expected %d", write ? "write" : "read", form_names[form], count, N);
  return st;
}

/* The file's contents where rank r's region for `form` lies. */
static MPI_Offset region(int form, int r) { return ((MPI_Offset)form * size + r) * N; }

static void strided_from(const int *packed, int *wide) {
  for (int i = 0; i < 2 * N; i++) wide[i] = -1;
  for (int i = 0; i < N; i++) wide[2 * i] = packed[i];
}

static void writes(const char *path) {
  MPI_File fh;
  int *data = (int *)mt_malloc(N * sizeof(int)), *wide = (int *)mt_malloc(2 * N * sizeof(int));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL)); /* offsets count ints */
  for (int form = 0; form < FORMS; form++) {
    int use_strided = form % 2;
    mt_fill(data, N * sizeof(int), mt_seed(1, (uint32_t)form, (uint32_t)rank));
    strided_from(data, wide);
    do_access(fh, 1, form, region(form, rank), use_strided ? (void *)wide : (void *)data, use_strided);
  }
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);

  size_t bytes = 0;
  unsigned char *file = io_slurp(path, &bytes);
  CHECK(bytes == (size_t)region(FORMS, 0) * sizeof(int), "the file has %zu bytes, expected %zu", bytes,
        (size_t)region(FORMS, 0) * sizeof(int));
  for (int form = 0; form < FORMS; form++)
    for (int r = 0; r < size; r++)
      CHECK_PATTERN(file + region(form, r) * sizeof(int), N * sizeof(int), mt_seed(1, (uint32_t)form, (uint32_t)r),
                    "write%s by rank %d", form_names[form], r);
  free(file);
  free(data);
  free(wide);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void reads(const char *path) {
  MPI_File fh;
  int *data = (int *)mt_malloc(N * sizeof(int)), *wide = (int *)mt_malloc(2 * N * sizeof(int));
  /* The file, written with plain pwrite by rank 0. */
  if (rank == 0) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0, "open(%s): %s", path, strerror(errno));
    for (int form = 0; form < FORMS; form++)
      for (int r = 0; r < size; r++) {
        mt_fill(data, N * sizeof(int), mt_seed(2, (uint32_t)form, (uint32_t)r));
        CHECK(pwrite(fd, data, N * sizeof(int), region(form, r) * (off_t)sizeof(int)) == (ssize_t)(N * sizeof(int)),
              "pwrite: %s", strerror(errno));
      }
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  for (int form = 0; form < FORMS; form++) {
    int use_strided = form % 2;
    memset(data, 0, N * sizeof(int));
    for (int i = 0; i < 2 * N; i++) wide[i] = -1;
    do_access(fh, 0, form, region(form, rank), use_strided ? (void *)wide : (void *)data, use_strided);
    if (use_strided) {
      for (int i = 0; i < N; i++) {
        data[i] = wide[2 * i];
        CHECK(wide[2 * i + 1] == -1, "read%s into a strided buffer wrote into its gap at int %d", form_names[form],
              2 * i + 1);
      }
    }
    CHECK_PATTERN(data, N * sizeof(int), mt_seed(2, (uint32_t)form, (uint32_t)rank), "read%s", form_names[form]);
  }

  /* Past the end of the file: a short count, not an error (offsets in
   * bytes again). */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  MPI_Offset end = 0;
  MPI_Status st;
  CHECK_MPI(MPI_File_get_size(fh, &end));
  CHECK_MPI(MPI_File_read_at(fh, end - 10, data, 100, MPI_BYTE, &st));
  CHECK(io_status_bytes(&st) == 10, "read_at 10 bytes before the end: count %lld", (long long)io_status_bytes(&st));
  CHECK_MPI(MPI_File_read_at(fh, end + 1000, data, 100, MPI_BYTE, &st));
  CHECK(io_status_bytes(&st) == 0, "read_at past the end: count %lld", (long long)io_status_bytes(&st));
  int count = -1;
  CHECK_MPI(MPI_File_seek(fh, end - 6, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read(fh, data, 4, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == MPI_UNDEFINED && io_status_bytes(&st) == 6,
        "read of 4 ints 6 bytes before the end: count %d, %lld bytes", count, (long long)io_status_bytes(&st));
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == end, "the pointer moved to %lld after a short read that reached the end (%lld)", (long long)pos,
        (long long)end);
  CHECK_MPI(MPI_File_seek(fh, -8, MPI_SEEK_END));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == end - 8, "seek(-8, MPI_SEEK_END) gave %lld", (long long)pos);
  CHECK_MPI(MPI_File_seek(fh, 3, MPI_SEEK_CUR));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == end - 5, "seek(3, MPI_SEEK_CUR) gave %lld", (long long)pos);
  EXPECT_CLASS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG, "MPI_File_seek", NULL);
  EXPECT_CLASS(MPI_File_read_at(fh, -1, data, 1, MPI_INT, &st), MPI_ERR_ARG, "MPI_File_read_at", NULL);
  CHECK_MPI(MPI_File_close(&fh));
  free(data);
  free(wide);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Offsets beyond 2 GiB (and 4 GiB) go through 64-bit arithmetic: a sparse
 * file with data at 5 GiB + a few bytes. */
static void large_offsets(const char *path) {
  MPI_File fh;
  MPI_Status st;
  const MPI_Offset far = ((MPI_Offset)5 << 30) + 12345 + 64 * rank;
  char out[64], in[64];
  mt_fill(out, sizeof out, mt_seed(3, (uint32_t)rank, 0));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_write_at(fh, far, out, sizeof out, MPI_BYTE, &st));
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_sync(fh));
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0 && pread(fd, in, sizeof in, (off_t)far) == (ssize_t)sizeof in, "pread at %lld failed",
        (long long)far);
  close(fd);
  CHECK_PATTERN(in, sizeof in, mt_seed(3, (uint32_t)rank, 0), "write_at at offset %lld", (long long)far);
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_seek(fh, far, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read(fh, in, sizeof in, MPI_BYTE, &st));
  CHECK_PATTERN(in, sizeof in, mt_seed(3, (uint32_t)rank, 0), "read at offset %lld", (long long)far);
  MPI_Offset sz = 0;
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == ((MPI_Offset)5 << 30) + 12345 + 64 * size, "get_size gave %lld", (long long)sz);
  CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
  char path[600];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Type_vector(N, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  /* The strided type's count is 1 per N ints: the routines get N elements
   * of it, i.e. N strided blocks; a resized type of one int per element. */
  MPI_Datatype one;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &one);
  MPI_Type_free(&strided);
  strided = one;
  MPI_Type_commit(&strided);
  io_make_dir();

  writes(io_path("writes", path, sizeof path));
  reads(io_path("reads", path, sizeof path));
  large_offsets(io_path("large", path, sizeof path));

  MPI_Type_free(&strided);
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
