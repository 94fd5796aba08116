/*
 * A file system without working fcntl locks (NFS mounted with nolock or
 * without its lock manager, Lustre without flock) cannot keep a shared file
 * pointer: MPI_File_write_shared says so with MPI_ERR_UNSUPPORTED_OPERATION,
 * naming the call, the data file and the hidden file of the pointer; so
 * does an ordered write after it, on every process (only process 0 reads
 * the pointer there); the other access routines and MPI_File_close still
 * work, and an ordered write before any write_shared (the pointer not yet
 * in a file) too. The missing locks are played by this program's own fcntl, which the
 * library's calls reach first (an executable's symbols come before libc's):
 * a lock on a file named ".*.shfp.*" fails with ENOLCK, as NFS's does.
 */
#define _GNU_SOURCE
#define TEST_NAME "io_shared_pointer_nolock"
#include <dlfcn.h>
#include <stdarg.h>

#include "mpitest.h"
#include "iotest.h"

static int is_shared_pointer_lock(int fd, int cmd) {
  if (cmd != F_SETLK && cmd != F_SETLKW) return 0;
  char link[64], target[1024];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return 0;
  target[n] = '\0';
  return strstr(target, ".shfp.") != NULL;
}

static int fcntl_without_locks(const char *name, int fd, int cmd, void *arg) {
  if (is_shared_pointer_lock(fd, cmd)) {
    errno = ENOLCK;
    return -1;
  }
  int (*real)(int, int, ...) = (int (*)(int, int, ...))dlsym(RTLD_NEXT, name);
  return real(fd, cmd, arg);
}

int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return fcntl_without_locks("fcntl", fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return fcntl_without_locks("fcntl64", fd, cmd, arg);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  char path[600];
  io_path("nolocks", path, sizeof path);

  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  int word = rank + 1;
  MPI_Status st;
  CHECK_MPI(MPI_File_write_ordered(fh, &word, 1, MPI_INT, &st));
  EXPECT_CLASS(MPI_File_write_shared(fh, &word, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_write_shared", "nolocks");
  EXPECT_CLASS(MPI_File_write_shared(fh, &word, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_write_shared", ".shfp.");
  EXPECT_CLASS(MPI_File_write_ordered(fh, &word, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_write_ordered", "nolocks");
  /* What needs no lock still works. */
  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)(size + rank) * 4, &word, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    size_t bytes = 0;
    int *data = (int *)io_slurp(path, &bytes);
    CHECK(bytes == (size_t)size * 2 * sizeof(int), "the file has %zu bytes", bytes);
    for (int r = 0; r < size; ++r) CHECK(data[r] == r + 1 && data[size + r] == r + 1, "int %d is wrong", r);
    free(data);
  }
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
