/*
 * Files as a whole (MPI-3.1 §13.2): MPI_File_open's access-mode rules and
 * the error classes of failing opens, the same outcome on every rank,
 * MPI_MODE_CREATE/EXCL/DELETE_ON_CLOSE/APPEND/SEQUENTIAL, close, delete,
 * set_size, preallocate, get_size, get_group, get_amode, info, sync,
 * atomicity, c2f/f2c, and the access checks (read-only, write-only,
 * sequential). Files default to MPI_ERRORS_RETURN, so no handler is set.
 */
#define TEST_NAME "io_files"
#include "mpitest.h"
#include "iotest.h"

static int rank, size;

static void amode_rules(const char *path) {
  static const struct {
    int amode;
    const char *why;
  } bad[] = {
      {MPI_MODE_RDONLY | MPI_MODE_WRONLY, "RDONLY|WRONLY"},
      {MPI_MODE_RDWR | MPI_MODE_WRONLY, "RDWR|WRONLY"},
      {MPI_MODE_CREATE, "no access mode"},
      {MPI_MODE_RDONLY | MPI_MODE_CREATE, "RDONLY|CREATE"},
      {MPI_MODE_RDONLY | MPI_MODE_EXCL, "RDONLY|EXCL"},
      {MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, "RDWR|SEQUENTIAL"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    MPI_File fh = (MPI_File)0x1;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, bad[i].amode, MPI_INFO_NULL, &fh);
    EXPECT_CLASS(rc, MPI_ERR_AMODE, "MPI_File_open", NULL);
    CHECK(!mt_is_ferry() || fh == MPI_FILE_NULL, "%s: a failed open must give MPI_FILE_NULL", bad[i].why);
  }
  CHECK(!io_exists(path), "a refused open created %s", path);

  /* Different amodes on different ranks: MPI_ERR_NOT_SAME everywhere. */
  if (size > 1) {
    MPI_File fh;
    int amode = MPI_MODE_CREATE | (rank == size - 1 ? MPI_MODE_RDWR : MPI_MODE_WRONLY);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh), MPI_ERR_NOT_SAME,
                 "MPI_File_open", "amode");
  }
}

static void failing_opens(const char *dir_path) {
  char missing[600], nested[600], exists[600];
  MPI_File fh;
  snprintf(missing, sizeof missing, "%s/missing", dir_path);
  snprintf(nested, sizeof nested, "%s/no/such/dir/f", dir_path);
  snprintf(exists, sizeof exists, "%s/exists", dir_path);

  EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
               MPI_ERR_NO_SUCH_FILE, "MPI_File_open", missing);
  EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, nested, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
               MPI_ERR_NO_SUCH_FILE, "MPI_File_open", NULL);

  /* EXCL: created once, by one process; a second exclusive create fails
   * with MPI_ERR_FILE_EXISTS on every rank. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, exists, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "close must set the handle to MPI_FILE_NULL");
  EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, exists, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                             MPI_INFO_NULL, &fh),
               MPI_ERR_FILE_EXISTS, "MPI_File_open", exists);

  /* A directory is not a file (MPICH opens it). */
  if (mt_is_ferry())
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, dir_path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                 MPI_ERR_BAD_FILE, "MPI_File_open", NULL);

  /* Permission denied (root may read anything: only check as a user). */
  if (geteuid() != 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) chmod(exists, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, exists, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_ACCESS,
                 "MPI_File_open", exists);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) chmod(exists, 0644);
  }

  /* Only the last rank's file name is wrong: every rank fails alike (with
   * the failing rank's class in Ferry; MPICH's others say MPI_ERR_IO). */
  if (size > 1) {
    int rc = MPI_File_open(MPI_COMM_WORLD, rank == size - 1 ? missing : exists, MPI_MODE_RDONLY, MPI_INFO_NULL,
                           &fh);
    EXPECT_CLASS(rc, mt_is_ferry() || rank == size - 1 ? MPI_ERR_NO_SUCH_FILE : MPI_ERR_IO, "MPI_File_open", NULL);
    CHECK(!mt_is_ferry() || fh == MPI_FILE_NULL, "a failed collective open must give MPI_FILE_NULL on every rank");
  }

  /* One rank's bad argument (an empty name) fails the open everywhere:
   * nobody is left waiting for it (MPICH would hang here). */
  if (size > 1 && mt_is_ferry()) {
    int rc = MPI_File_open(MPI_COMM_WORLD, rank == 0 ? "" : exists, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    EXPECT_CLASS(rc, MPI_ERR_BAD_FILE, "MPI_File_open", "filename");
  }

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK_MPI(MPI_File_delete(exists, MPI_INFO_NULL));
    CHECK(!io_exists(exists), "MPI_File_delete left %s", exists);
    EXPECT_CLASS(MPI_File_delete(exists, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE, "MPI_File_delete", exists);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void file_queries(const char *path) {
  MPI_File fh;
  MPI_Offset sz = -1;
  MPI_Info info, used;
  char value[64];
  int flag = 0, amode = 0, result = 0;

  MPI_Info_create(&info);
  MPI_Info_set(info, "access_style", "write_once");
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_UNIQUE_OPEN, info, &fh));
  MPI_Info_free(&info);

  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_UNIQUE_OPEN), "get_amode gave 0x%x", amode);

  MPI_Group g, world;
  CHECK_MPI(MPI_File_get_group(fh, &g));
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_compare(g, world, &result);
  CHECK(result == MPI_IDENT, "get_group: the group is not MPI_COMM_WORLD's (%d)", result);
  MPI_Group_free(&g);
  MPI_Group_free(&world);

  CHECK_MPI(MPI_File_get_info(fh, &used));
  MPI_Info_get(used, "access_style", sizeof value - 1, value, &flag);
  /* Ferry keeps every hint it was given; ROMIO only those it knows. */
  CHECK(!mt_is_ferry() || (flag && strcmp(value, "write_once") == 0), "get_info lost the open's hint (flag %d)",
        flag);
  MPI_Info_free(&used);
  MPI_Info_create(&info);
  MPI_Info_set(info, "access_style", "read_once");
  CHECK_MPI(MPI_File_set_info(fh, info));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_File_get_info(fh, &used));
  MPI_Info_get(used, "access_style", sizeof value - 1, value, &flag);
  CHECK(!mt_is_ferry() || (flag && strcmp(value, "read_once") == 0), "get_info after set_info gave \"%s\"",
        flag ? value : "");
  MPI_Info_free(&used);

  /* Sizes: set_size grows and shrinks, preallocate never shrinks. */
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 0, "a new file has size %lld", (long long)sz);
  CHECK_MPI(MPI_File_set_size(fh, 12345));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 12345, "set_size(12345) gave %lld", (long long)sz);
  CHECK_MPI(MPI_File_preallocate(fh, 100));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 12345, "preallocate(100) changed the size to %lld", (long long)sz);
  CHECK_MPI(MPI_File_preallocate(fh, 20000));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 20000, "preallocate(20000) gave size %lld", (long long)sz);
  CHECK_MPI(MPI_File_set_size(fh, 10));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 10, "set_size(10) gave %lld", (long long)sz);
  EXPECT_CLASS(MPI_File_set_size(fh, -1), MPI_ERR_ARG, "MPI_File_set_size", NULL);
  if (size > 1)
    /* MPICH says MPI_ERR_ARG */
    EXPECT_CLASS(MPI_File_set_size(fh, 100 + rank), mt_is_ferry() ? MPI_ERR_NOT_SAME : MPI_ERR_ARG,
                 "MPI_File_set_size", "size");

  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0, "files start in nonatomic mode");
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 1, "set_atomicity(1) did not stick");
  CHECK_MPI(MPI_File_sync(fh));

  MPI_Fint f = MPI_File_c2f(fh);
  CHECK(MPI_File_f2c(f) == fh, "f2c(c2f(fh)) is not fh");
  CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL, "c2f/f2c of MPI_FILE_NULL");

  CHECK_MPI(MPI_File_close(&fh));
  EXPECT_CLASS(MPI_File_get_size(fh, &sz), MPI_ERR_FILE, "MPI_File_get_size", NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
}

static void modes(const char *path) {
  MPI_File fh;
  MPI_Offset pos = -1;
  MPI_Status st;
  char buf[16] = "0123456789abcdef";

  /* DELETE_ON_CLOSE: the file is gone after close. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  CHECK(io_exists(path), "the file does not exist while open");
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(!io_exists(path), "MPI_MODE_DELETE_ON_CLOSE left the file");

  /* APPEND: the file pointer starts at the end. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_size(fh, 777));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 777, "MPI_MODE_APPEND: the pointer starts at %lld, not 777", (long long)pos);
  /* Write-only: reading is MPI_ERR_ACCESS. */
  EXPECT_CLASS(MPI_File_read_at(fh, 0, buf, 4, MPI_CHAR, &st), MPI_ERR_ACCESS, "MPI_File_read_at", NULL);
  CHECK_MPI(MPI_File_close(&fh));

  /* Read-only: writing and resizing are MPI_ERR_READ_ONLY. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  EXPECT_CLASS(MPI_File_write_at(fh, 0, buf, 4, MPI_CHAR, &st), MPI_ERR_READ_ONLY, "MPI_File_write_at", NULL);
  EXPECT_CLASS(MPI_File_write(fh, buf, 4, MPI_CHAR, &st), MPI_ERR_READ_ONLY, "MPI_File_write", NULL);
  EXPECT_CLASS(MPI_File_set_size(fh, 0), MPI_ERR_READ_ONLY, "MPI_File_set_size", NULL);
  CHECK_MPI(MPI_File_close(&fh));

  /* SEQUENTIAL: no explicit offsets, no seeking. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh));
  EXPECT_CLASS(MPI_File_read_at(fh, 0, buf, 4, MPI_CHAR, &st), MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_read_at",
               NULL);
  EXPECT_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_seek", NULL);
  CHECK_MPI(MPI_File_close(&fh));

  /* A second close of the same handle, and bad handles. */
  EXPECT_CLASS(MPI_File_close(&fh), MPI_ERR_FILE, "MPI_File_close", NULL);
  if (mt_is_ferry()) { /* MPICH reads through any pointer it is given */
    int amode = 0;
    EXPECT_CLASS(MPI_File_get_amode((MPI_File)0x1234, &amode), MPI_ERR_FILE, "MPI_File_get_amode", NULL);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A full device: every write fails with MPI_ERR_NO_SPACE, naming the call
 * and the file (/dev/full answers every write with ENOSPC). */
static void full_device(void) {
  MPI_File fh;
  MPI_Status st;
  MPI_Request req = MPI_REQUEST_NULL;
  char buf[300] = {0};
  /* MPICH reports these as MPI_ERR_IO. */
  const int no_space = mt_is_ferry() ? MPI_ERR_NO_SPACE : MPI_ERR_IO;
  if (!io_exists("/dev/full")) return;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  EXPECT_CLASS(MPI_File_write_at(fh, 0, buf, 300, MPI_CHAR, &st), no_space, "MPI_File_write_at",
               "/dev/full");
  EXPECT_CLASS(MPI_File_write_all(fh, buf, 300, MPI_CHAR, &st), no_space, "MPI_File_write_all",
               "/dev/full");
  if (mt_is_ferry()) { /* MPICH 4.0.2 never completes this request */
    int rc = MPI_File_iwrite(fh, buf, 300, MPI_CHAR, &req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, &st); /* the error may come at either */
    EXPECT_CLASS(rc, no_space, "MPI_File_iwrite", NULL);
  }
  CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
  char path[600];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();

  amode_rules(io_path("amode", path, sizeof path));
  failing_opens(io_dir);
  file_queries(io_path("queries", path, sizeof path));
  modes(io_path("modes", path, sizeof path));
  full_device();

  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
