/*
 * Nonblocking independent file access (MPI-3.1 §13.4.1) progresses in the
 * background, while the caller stays out of MPI:
 *  - after MPI_File_iwrite_at returns, the data reaches the file (seen by
 *    POSIX pread) before the caller calls MPI again; likewise MPI_File_iread
 *    fills the buffer before any MPI_Wait/MPI_Test;
 *  - many requests in flight complete with the right counts (Waitall), in
 *    any order; the individual pointer moves at the call; a datatype freed
 *    and a request freed (MPI_Request_free) while pending are harmless;
 *    close waits for what is still running;
 *  - errors are the call's (MPI_ERR_READ_ONLY at once, request null);
 *  - ROMIO's names from mpio.h (MPIO_Request, MPIO_Wait, MPIO_Test) work.
 */
#define TEST_NAME "io_nonblocking"
#include "mpitest.h"
#include "iotest.h"
#include <mpio.h>
#include <time.h>

#ifndef MPIO_USES_MPI_REQUEST
#error "mpio.h must say that MPIO_Request is MPI_Request"
#endif

#define BIG (8 << 20) /* bytes per background write */
#define MANY 16

static int rank, size;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void nap(void) {
  struct timespec t = {0, 1000000};
  nanosleep(&t, NULL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  char path[600];
  io_path("nonblocking", path, sizeof path);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0, "open(%s): %s", path, strerror(errno));

  /* 1. A write lands while the caller is outside MPI. */
  unsigned char *big = mt_malloc(BIG);
  uint32_t seed = mt_seed(1, (uint32_t)rank, 0);
  mt_fill(big, BIG, seed);
  MPI_Offset base = (MPI_Offset)rank * BIG;
  MPIO_Request req;
  CHECK_MPI(MPI_File_iwrite_at(fh, base, big, BIG, MPI_BYTE, &req));
  unsigned char last = 0;
  double start = now_s();
  int landed = 0;
  while (now_s() - start < 30.0) {
    if (pread(fd, &last, 1, base + BIG - 1) == 1 && last == big[BIG - 1]) {
      landed = 1;
      break;
    }
    nap();
  }
  CHECK(landed, "the iwrite_at's last byte did not reach the file in 30 s without an MPI call: the access does not "
                "progress in the background");
  MPI_Status st;
  CHECK_MPI(MPIO_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL, "MPIO_Wait left the request");
  CHECK(io_status_bytes(&st) == BIG, "iwrite_at reported %lld bytes", (long long)io_status_bytes(&st));
  MPI_Barrier(MPI_COMM_WORLD);

  /* 2. A read fills the buffer while the caller is outside MPI. */
  unsigned char *back = mt_malloc(BIG);
  memset(back, 0, BIG);
  int peer = (rank + 1) % size;
  uint32_t peer_seed = mt_seed(1, (uint32_t)peer, 0);
  unsigned char want_last = mt_byte(peer_seed, BIG - 1);
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)peer * BIG, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iread(fh, back, BIG, MPI_BYTE, &req));
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == (MPI_Offset)(peer + 1) * BIG, "the pointer is at %lld right after iread, expected %lld",
        (long long)pos, (long long)(peer + 1) * BIG);
  start = now_s();
  landed = 0;
  while (now_s() - start < 30.0) {
    if (((volatile unsigned char *)back)[BIG - 1] == want_last && want_last != 0) {
      landed = 1;
      break;
    }
    nap();
  }
  if (want_last != 0)
    CHECK(landed, "the iread did not fill the buffer in 30 s without an MPI call: no background progress");
  int flag = 0;
  start = now_s();
  while (!flag) {
    CHECK_MPI(MPIO_Test(&req, &flag, &st));
    CHECK(now_s() - start < 30.0, "MPIO_Test never reported the iread complete");
  }
  CHECK(io_status_bytes(&st) == BIG, "iread reported %lld bytes", (long long)io_status_bytes(&st));
  CHECK_PATTERN(back, BIG, peer_seed, "iread of rank %d's block", peer);
  MPI_Barrier(MPI_COMM_WORLD);

  /* 3. Many in flight, strided memory with the type freed at once, one
   * request freed, and a read past the end that comes back short. */
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(256, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  int src[MANY][512];
  MPI_Request reqs[MANY];
  MPI_Offset region = (MPI_Offset)size * BIG + (MPI_Offset)rank * MANY * 1024;
  for (int i = 0; i < MANY; ++i) {
    for (int j = 0; j < 512; ++j) src[i][j] = (j % 2 == 0) ? rank * 1000000 + i * 1000 + j : -1;
    CHECK_MPI(MPI_File_iwrite_at(fh, region + i * 1024, src[i], 1, every_other, &reqs[i]));
  }
  CHECK_MPI(MPI_Type_free(&every_other));
  MPI_Status sts[MANY];
  CHECK_MPI(MPI_Waitall(MANY, reqs, sts));
  for (int i = 0; i < MANY; ++i)
    CHECK(io_status_bytes(&sts[i]) == 1024, "request %d reported %lld bytes", i, (long long)io_status_bytes(&sts[i]));
  int got[256];
  for (int i = 0; i < MANY; ++i) {
    CHECK(pread(fd, got, sizeof got, region + i * 1024) == (ssize_t)sizeof got, "pread: %s", strerror(errno));
    for (int j = 0; j < 256; ++j)
      CHECK(got[j] == rank * 1000000 + i * 1000 + 2 * j, "request %d: int %d is %d", i, j, got[j]);
  }
  MPI_Request freed;
  int tail = 0x5eed0000 + rank;
  MPI_Offset tail_at = (MPI_Offset)size * BIG + (MPI_Offset)size * MANY * 1024 + rank * 4;
  CHECK_MPI(MPI_File_iwrite_at(fh, tail_at, &tail, 1, MPI_INT, &freed));
  CHECK_MPI(MPI_Request_free(&freed));
  CHECK(freed == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
  CHECK_MPI(MPI_File_sync(fh)); /* the sync waits for nothing; the close below drains */
  MPI_Barrier(MPI_COMM_WORLD);

  /* 4. Errors are the call's. */
  MPI_File ro;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &ro));
  req = (MPI_Request)0x1234;
  EXPECT_CLASS(MPI_File_iwrite_at(ro, 0, &tail, 1, MPI_INT, &req), MPI_ERR_READ_ONLY, "MPI_File_iwrite_at", NULL);
  CHECK(req == MPI_REQUEST_NULL, "a failed iwrite_at left a request");
  CHECK_MPI(MPI_File_iread_at(ro, (MPI_Offset)1 << 40, got, 4, MPI_INT, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(io_status_bytes(&st) == 0, "iread_at past the end reported %lld bytes", (long long)io_status_bytes(&st));
  CHECK_MPI(MPI_File_close(&ro));

  CHECK_MPI(MPI_File_close(&fh));
  int word = 0;
  CHECK(pread(fd, &word, 4, tail_at) == 4 && word == tail, "the freed request's int is %#x, expected %#x", word,
        tail);
  close(fd);
  free(big);
  free(back);
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
