/*
 * Helpers for the MPI-IO tests: a scratch directory per run (made by rank 0,
 * named to every rank, removed at the end with whatever is left in it),
 * plain POSIX reads of a file to judge what MPI wrote, and error-class
 * checks. Include after mpitest.h.
 */
#ifndef FERRY_TESTS_MPI_IO_IOTEST_H
#define FERRY_TESTS_MPI_IO_IOTEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char io_dir[512];

/* Makes the scratch directory (under $TMPDIR or /tmp) and tells every rank. */
static inline void io_make_dir(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const char *base = getenv("TMPDIR");
    snprintf(io_dir, sizeof io_dir, "%s/ferry-%s-XXXXXX", base && *base ? base : "/tmp", TEST_NAME);
    CHECK(mkdtemp(io_dir) != NULL, "mkdtemp(%s): %s", io_dir, strerror(errno));
  }
  MPI_Bcast(io_dir, sizeof io_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* The path of `name` in the scratch directory (a static buffer per call site
 * is enough: callers copy it or use it at once). */
static inline const char *io_path(const char *name, char *out, size_t n) {
  snprintf(out, n, "%s/%s", io_dir, name);
  return out;
}

static inline void io_remove_dir(void) {
  int rank;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  DIR *d = opendir(io_dir);
  if (d != NULL) {
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d)) != NULL)
      if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
        snprintf(p, sizeof p, "%s/%s", io_dir, e->d_name);
        unlink(p);
      }
    closedir(d);
  }
  CHECK(rmdir(io_dir) == 0, "rmdir(%s): %s", io_dir, strerror(errno));
}

/* The whole file as POSIX sees it; *bytes is its size. Caller frees. */
static inline unsigned char *io_slurp(const char *path, size_t *bytes) {
  struct stat st;
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0, "open(%s): %s", path, strerror(errno));
  CHECK(fstat(fd, &st) == 0, "fstat(%s): %s", path, strerror(errno));
  *bytes = (size_t)st.st_size;
  unsigned char *data = (unsigned char *)mt_malloc(*bytes);
  size_t got = 0;
  while (got < *bytes) {
    ssize_t n = pread(fd, data + got, *bytes - got, (off_t)got);
    CHECK(n > 0, "pread(%s) at %zu: %s", path, got, n < 0 ? strerror(errno) : "early end");
    got += (size_t)n;
  }
  close(fd);
  return data;
}

static inline int io_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* `rc` must be an error of class `want`, whose message names `call` (and,
 * when `also` is not NULL, contains `also`, e.g. the file's name). */
static inline void io_expect_class(int rc, int want, const char *call, const char *also, const char *expr,
                                   const char *file, int line) {
  int cls = -1, len = 0;
  char msg[MPI_MAX_ERROR_STRING] = "";
  if (rc == MPI_SUCCESS) mt_fail(file, line, "%s returned MPI_SUCCESS, expected class %d", expr, want);
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, msg, &len);
  if (cls != want) mt_fail(file, line, "%s: error class %d (\"%s\"), expected %d", expr, cls, msg, want);
  if (!mt_is_ferry()) return;
  if (strstr(msg, call) == NULL) mt_fail(file, line, "%s: the message \"%s\" does not name %s", expr, msg, call);
  if (also != NULL && strstr(msg, also) == NULL)
    mt_fail(file, line, "%s: the message \"%s\" does not mention \"%s\"", expr, msg, also);
}
#define EXPECT_CLASS(rc, want, call, also) io_expect_class((rc), (want), (call), (also), #rc, __FILE__, __LINE__)

/* The byte count a status reports. */
static inline MPI_Count io_status_bytes(const MPI_Status *st) {
  MPI_Count n = -1;
  MPI_Get_elements_x(st, MPI_BYTE, &n);
  return n;
}

#endif
