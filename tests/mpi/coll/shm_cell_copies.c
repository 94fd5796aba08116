/*
 * Data written into shared memory (coll/shm, cells.h: above 512 bytes, a
 * string copy whose destination is first aligned to a cache line; a slot
 * holds 48 bytes beside its record or 1,024 on the lines after it) arrives
 * whole: bcast, gather, scatter, allgather, alltoall, reduce and allreduce,
 * blocking and nonblocking, with sizes either side of those borders
 * (47-49, 511-513, 1,023-1,025 bytes) and the slot's old one (1,072), blocks that do not start on a line in a
 * sender's cell (1,100 bytes: the second block of a scatter or alltoall at
 * 3 ranks and more), either side of glibc's own string-copy threshold
 * (2,111-2,113) and a few KiB, from user buffers on and off alignment, in
 * MPI_BYTE, MPI_INT and a contiguous derived type, in place where allowed.
 * Every byte is a function of (sender, receiver, index), so a byte copied
 * from the wrong place, or left out, is seen.
 */
#define TEST_NAME "shm_cell_copies"
#include "../mpitest.h"

static int rank, size;

static unsigned char pattern(int from, int to, size_t i) { return (unsigned char)(from * 37 + to * 11 + i * 7 + i / 251); }

/* Allgather (alltoall 0: one block, pattern(rank, 0, i), for every rank)
 * or alltoall (a block for each rank t, pattern(rank, t, i)), blocking or
 * nonblocking (nb): block f of r then holds what rank f sent here. */
static void to_everyone(int alltoall, int nb, unsigned char *s, unsigned char *r, size_t bytes, int count,
                        MPI_Datatype type, const char *tname) {
  int to_here = alltoall ? rank : 0;
  for (int t = 0; t < (alltoall ? size : 1); t++)
    for (size_t i = 0; i < bytes; i++) s[(size_t)t * bytes + i] = pattern(rank, t, i);
  memset(r, 0, bytes * (size_t)size);
  if (nb) {
    MPI_Request req;
    (alltoall ? MPI_Ialltoall : MPI_Iallgather)(s, count, type, r, count, type, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    (alltoall ? MPI_Alltoall : MPI_Allgather)(s, count, type, r, count, type, MPI_COMM_WORLD);
  }
  for (int f = 0; f < size; f++)
    for (size_t i = 0; i < bytes; i++)
      CHECK(r[(size_t)f * bytes + i] == pattern(f, to_here, i), "%s%s %zu B of %s: block %d byte %zu on %d",
            alltoall ? "alltoall" : "allgather", nb ? " (nonblocking)" : "", bytes, tname, f, i, rank);
}

/* `bytes` per block as `count` elements of `type` (bytes a multiple of its size). */
static void one_size(size_t bytes, size_t skew, MPI_Datatype type, size_t elem, const char *tname) {
  int count = (int)(bytes / elem);
  size_t all = bytes * (size_t)size;
  unsigned char *sraw = malloc(all + 128), *rraw = malloc(all + 128);
  CHECK(sraw && rraw, "malloc");
  unsigned char *s = sraw + skew, *r = rraw + (skew * 3) % 64;
  for (int root = 0; root < size; root++) {
    /* bcast */
    for (size_t i = 0; i < bytes; i++) s[i] = rank == root ? pattern(root, 0, i) : 0;
    MPI_Bcast(s, count, type, root, MPI_COMM_WORLD);
    for (size_t i = 0; i < bytes; i++)
      CHECK(s[i] == pattern(root, 0, i), "bcast %zu B of %s from %d: byte %zu on %d", bytes, tname, root, i, rank);
    /* gather, then in place at the root */
    for (int in_place = 0; in_place < 2; in_place++) {
      for (size_t i = 0; i < bytes; i++) s[i] = pattern(rank, root, i);
      memset(r, 0, all);
      if (rank == root && in_place) memcpy(r + (size_t)root * bytes, s, bytes);
      MPI_Gather(rank == root && in_place ? MPI_IN_PLACE : s, count, type, r, count, type, root, MPI_COMM_WORLD);
      if (rank == root)
        for (int f = 0; f < size; f++)
          for (size_t i = 0; i < bytes; i++)
            CHECK(r[(size_t)f * bytes + i] == pattern(f, root, i), "gather%s %zu B of %s to %d: block %d byte %zu",
                  in_place ? " in place" : "", bytes, tname, root, f, i);
    }
    /* scatter, then in place at the root */
    for (int in_place = 0; in_place < 2; in_place++) {
      for (int t = 0; t < size; t++)
        for (size_t i = 0; i < bytes; i++) s[(size_t)t * bytes + i] = pattern(root, t, i);
      memset(r, 0, bytes);
      void *recv = rank == root && in_place ? MPI_IN_PLACE : r;
      MPI_Scatter(s, count, type, recv, count, type, root, MPI_COMM_WORLD);
      const unsigned char *got = recv == MPI_IN_PLACE ? s + (size_t)root * bytes : r;
      for (size_t i = 0; i < bytes; i++)
        CHECK(got[i] == pattern(root, rank, i), "scatter%s %zu B of %s from %d: byte %zu on %d",
              in_place ? " in place" : "", bytes, tname, root, i, rank);
    }
  }
  /* allgather and alltoall, blocking and nonblocking */
  for (int nb = 0; nb < 2; nb++) {
    to_everyone(0, nb, s, r, bytes, count, type, tname);
    to_everyone(1, nb, s, r, bytes, count, type, tname);
  }
  free(sraw);
  free(rraw);
}

/* Reduce and allreduce of `n` ints (a BXOR of the patterns: exact), blocking,
 * nonblocking and in place, from user buffers `skew` bytes off alignment. */
static void reductions(int n, size_t skew) {
  size_t bytes = (size_t)n * sizeof(int);
  char *sraw = malloc(bytes + 64), *rraw = malloc(bytes + 64);
  CHECK(sraw && rraw, "malloc");
  int *s = (int *)(void *)(sraw + skew), *r = (int *)(void *)(rraw + (skew * 3) % 64);
  for (int mode = 0; mode < 3; mode++) {
    for (int i = 0; i < n; i++) s[i] = (int)pattern(rank, 1, (size_t)i) << (rank % 24);
    if (mode == 2) memcpy(r, s, bytes);
    else memset(r, 0, bytes);
    MPI_Request req;
    const void *send = mode == 2 ? MPI_IN_PLACE : s;
    if (mode == 1) {
      MPI_Iallreduce(send, r, n, MPI_INT, MPI_BXOR, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
      MPI_Allreduce(send, r, n, MPI_INT, MPI_BXOR, MPI_COMM_WORLD);
    }
    for (int i = 0; i < n; i++) {
      int want = 0;
      for (int f = 0; f < size; f++) want ^= (int)pattern(f, 1, (size_t)i) << (f % 24);
      CHECK(r[i] == want, "allreduce mode %d of %d ints: [%d] on %d", mode, n, i, rank);
    }
    int root = (n + mode) % size;
    for (int i = 0; i < n; i++) s[i] = (int)pattern(rank, 1, (size_t)i) << (rank % 24);
    if (mode == 2 && rank == root) memcpy(r, s, bytes);
    else memset(r, 0, bytes);
    send = mode == 2 && rank == root ? MPI_IN_PLACE : s;
    if (mode == 1) {
      MPI_Ireduce(send, r, n, MPI_INT, MPI_BXOR, root, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
      MPI_Reduce(send, r, n, MPI_INT, MPI_BXOR, root, MPI_COMM_WORLD);
    }
    if (rank == root)
      for (int i = 0; i < n; i++) {
        int want = 0;
        for (int f = 0; f < size; f++) want ^= (int)pattern(f, 1, (size_t)i) << (f % 24);
        CHECK(r[i] == want, "reduce mode %d of %d ints to %d: [%d]", mode, n, root, i);
      }
  }
  free(sraw);
  free(rraw);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype three;
  MPI_Type_contiguous(3, MPI_CHAR, &three);
  MPI_Type_commit(&three);
  static const size_t sizes[] = {47, 48, 49, 511, 512, 513, 1023, 1024, 1025, 1072, 1100, 2111, 2112, 2113, 4097, 8191};
  static const size_t skews[] = {0, 1, 13, 48};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t b = sizes[k], skew = skews[k % 4];
    one_size(b, skew, MPI_BYTE, 1, "MPI_BYTE");
    if (b % 3 == 0) one_size(b, skew, three, 3, "3 chars");
    else one_size(b - b % 3, skew, three, 3, "3 chars");
    one_size(b - b % 4, skew, MPI_INT, 4, "MPI_INT");
    reductions((int)(b / 4), skew);
    reductions((int)(b / 4) + 1, (skew + 4) % 64);
  }
  MPI_Type_free(&three);
  mt_pass();
  MPI_Finalize();
  return 0;
}
