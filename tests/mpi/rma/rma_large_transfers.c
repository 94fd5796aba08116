/* Large transfers to a target reached by messages (another host, TCP):
 * data of 64 KiB or more travels apart from its request (rma/active_message.cc,
 * kDataApartBytes), into the window itself for a put of one run, else into
 * a buffer of the request's own. Every rank is an origin to its right
 * neighbour, at once, so each process serves one origin while it is one:
 *   - a put of 1 MiB from a dense buffer, then one of a different pattern
 *     over it after a flush (the second must win);
 *   - a put from a strided origin type (packed first, then sent apart) and
 *     one into a strided target type (several runs: received aside, then
 *     applied), and a put just under the threshold between them;
 *   - accumulates (MPI_SUM, then MPI_REPLACE) and a get_accumulate of 256 KiB,
 *     whose result must be the memory as it was before;
 *   - gets of 64 KiB and more (their answers' data apart too): four in a
 *     row from one target before one flush (each must land in its own
 *     buffer: the data messages are received in the order sent), one into
 *     a strided result type, one from a strided target type;
 *   - in a fence epoch: 8 large puts to disjoint blocks, unacknowledged;
 *   - the buffers a fence epoch's large transfers read are free after the
 *     fence: rank 0 puts 1 MiB to rank 1 and overwrites its source right
 *     after the closing fence (the put is unacknowledged: the fence must
 *     not return before the data has left the buffer); rank 0 gets 1 MiB
 *     from rank 1, which overwrites its window right after the fence (the
 *     answer must have left the window before rank 1's fence returns);
 *   - on a dynamic window, with --refused (every target reached by
 *     messages, whose service checks the range: FERRY_TRANSPORTS=tcp), a
 *     large put to an address nobody attached (MPI_ERR_RMA_RANGE at the
 *     flush, under MPI_ERRORS_RETURN); then, always, a large put to
 *     attached memory that must land: the refused request's data was taken
 *     off the wire, not left to be matched by the next one. (A same-host
 *     target's memory is written by the kernel's cross-memory copy, which
 *     cannot know what is attached.) */
#define TEST_NAME "rma_large_transfers"
#include "../mpitest.h"

enum { BIG = 1 << 20, MID = 256 << 10, UNDER = (64 << 10) - 8, BLOCKS = 8 };

static void expect_pattern(const unsigned char *p, size_t bytes, uint32_t seed, const char *what) {
  long bad = mt_find_mismatch(p, bytes, seed);
  CHECK(bad < 0, "%s: byte %ld of %zu is wrong", what, bad, bytes);
}

/* Lock the right neighbour, run `op`, unlock; then everyone checks its own
 * window, written by its left neighbour. */
static void passive(MPI_Win win, unsigned char *mem, int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char *src = mt_malloc(2 * BIG);

  /* Dense puts, the second over the first. */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
  mt_fill(src, BIG, mt_seed(1, (uint32_t)rank, 0));
  CHECK_MPI(MPI_Put(src, BIG, MPI_BYTE, right, 0, BIG, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_flush(right, win));
  mt_fill(src, BIG, mt_seed(2, (uint32_t)rank, 0));
  CHECK_MPI(MPI_Put(src, BIG, MPI_BYTE, right, 0, BIG, MPI_BYTE, win));
  MPI_Win_unlock(right, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  expect_pattern(mem, BIG, mt_seed(2, (uint32_t)left, 0), "dense put over a dense put");
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);

  /* A strided origin (every other 8 bytes of src), a put just under the
   * threshold, and a strided target (every other 8 bytes of the window). */
  MPI_Datatype every_other;
  MPI_Type_vector(MID / 8, 1, 2, MPI_UINT64_T, &every_other);
  MPI_Type_commit(&every_other);
  mt_fill(src, 2 * MID, mt_seed(3, (uint32_t)rank, 0));
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  memset(mem, 0, 2 * BIG);
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  CHECK_MPI(MPI_Put(src, 1, every_other, right, 0, MID, MPI_BYTE, win));
  CHECK_MPI(MPI_Put(src, UNDER, MPI_BYTE, right, MID, UNDER, MPI_BYTE, win));
  CHECK_MPI(MPI_Put(src, MID, MPI_BYTE, right, BIG, 1, every_other, win));
  MPI_Win_unlock(right, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  {
    unsigned char *want = mt_malloc(2 * MID);
    mt_fill(want, 2 * MID, mt_seed(3, (uint32_t)left, 0));
    for (size_t w = 0; w < MID / 8; ++w)
      CHECK(memcmp(mem + 8 * w, want + 16 * w, 8) == 0, "strided origin: word %zu is wrong", w);
    CHECK(memcmp(mem + MID, want, UNDER) == 0, "the put of %d bytes (under the threshold) is wrong", UNDER);
    for (size_t w = 0; w < MID / 8; ++w) {
      CHECK(memcmp(mem + BIG + 16 * w, want + 8 * w, 8) == 0, "strided target: word %zu is wrong", w);
      static const unsigned char zero[8];
      CHECK(memcmp(mem + BIG + 16 * w + 8, zero, 8) == 0, "strided target: the gap after word %zu was written", w);
    }
    free(want);
  }
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Type_free(&every_other);

  /* Accumulates of 256 KiB of int64: set to 3 by REPLACE, add rank+1, then
   * fetch-and-add 1 (result: 3 + left + 1), then the sum checked. */
  enum { N = MID / 8 };
  int64_t *vals = (int64_t *)src, *old = (int64_t *)(src + MID);
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  for (int i = 0; i < N; ++i) vals[i] = 3;
  CHECK_MPI(MPI_Accumulate(vals, N, MPI_INT64_T, right, 0, N, MPI_INT64_T, MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_flush(right, win));
  for (int i = 0; i < N; ++i) vals[i] = rank + 1 + i;
  CHECK_MPI(MPI_Accumulate(vals, N, MPI_INT64_T, right, 0, N, MPI_INT64_T, MPI_SUM, win));
  /* The origin buffer is the operation's until it completes (MPI-4.0 §12.3). */
  CHECK_MPI(MPI_Win_flush(right, win));
  for (int i = 0; i < N; ++i) vals[i] = 1;
  CHECK_MPI(MPI_Get_accumulate(vals, N, MPI_INT64_T, old, N, MPI_INT64_T, right, 0, N, MPI_INT64_T, MPI_SUM, win));
  MPI_Win_unlock(right, win);
  for (int i = 0; i < N; ++i)
    CHECK(old[i] == 3 + rank + 1 + i, "get_accumulate's result %d: %lld, expected %lld", i, (long long)old[i],
          (long long)(3 + rank + 1 + i));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  for (int i = 0; i < N; ++i) {
    int64_t v;
    memcpy(&v, mem + 8 * (size_t)i, 8);
    CHECK(v == 3 + left + 1 + i + 1, "accumulated int64 %d: %lld, expected %lld", i, (long long)v,
          (long long)(3 + left + 1 + i + 1));
  }
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  free(src);
}

/* Large gets from the right neighbour's window, which holds pattern
 * (6, right) in its first 2 * BIG bytes. */
static void gets(MPI_Win win, unsigned char *mem, int rank, int size) {
  int right = (rank + 1) % size;
  const uint32_t seed = mt_seed(6, (uint32_t)right, 0);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  mt_fill(mem, 2 * BIG, mt_seed(6, (uint32_t)rank, 0));
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  unsigned char *want = mt_malloc(2 * BIG), *got = mt_malloc(2 * BIG);
  mt_fill(want, 2 * BIG, seed);
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  /* Four gets in a row: block k of the window into block 3 - k of got. */
  memset(got, 0, BIG);
  for (int k = 0; k < 4; ++k)
    CHECK_MPI(MPI_Get(got + (3 - k) * MID, MID, MPI_BYTE, right, k * MID, MID, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_flush(right, win));
  for (int k = 0; k < 4; ++k)
    CHECK(memcmp(got + (3 - k) * MID, want + k * MID, MID) == 0, "get %d of four in a row landed wrong", k);
  /* Into a strided result type: word w of the window into word 2w of got. */
  MPI_Datatype every_other;
  MPI_Type_vector(MID / 8, 1, 2, MPI_UINT64_T, &every_other);
  MPI_Type_commit(&every_other);
  memset(got, 0, 2 * MID);
  CHECK_MPI(MPI_Get(got, 1, every_other, right, 0, MID, MPI_BYTE, win));
  /* From a strided target type: word 2w of the window from BIG on. */
  unsigned char *dense = mt_malloc(MID);
  CHECK_MPI(MPI_Get(dense, MID, MPI_BYTE, right, BIG, 1, every_other, win));
  MPI_Win_unlock(right, win);
  for (size_t w = 0; w < MID / 8; ++w) {
    CHECK(memcmp(got + 16 * w, want + 8 * w, 8) == 0, "get into a strided type: word %zu is wrong", w);
    CHECK(memcmp(dense + 8 * w, want + BIG + 16 * w, 8) == 0, "get from a strided type: word %zu is wrong", w);
  }
  MPI_Type_free(&every_other);
  free(dense);
  free(got);
  free(want);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A fence epoch of BLOCKS large puts to disjoint blocks. */
static void fence(MPI_Win win, unsigned char *mem, int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  const size_t block = BIG / BLOCKS;
  unsigned char *src = mt_malloc(BIG);
  for (int b = 0; b < BLOCKS; ++b) mt_fill(src + b * block, block, mt_seed(4, (uint32_t)rank, (uint32_t)b));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int b = 0; b < BLOCKS; ++b)
    CHECK_MPI(MPI_Put(src + b * block, (int)block, MPI_BYTE, right, (MPI_Aint)(b * block), (int)block, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int b = 0; b < BLOCKS; ++b) expect_pattern(mem + b * block, block, mt_seed(4, (uint32_t)left, (uint32_t)b), "fence put");
  CHECK_MPI(MPI_Win_fence(0, win));
  free(src);
}

/* One way between ranks 0 and 1, each buffer overwritten right after the
 * closing fence; checked after a barrier. */
static void fence_then_reuse(MPI_Win win, unsigned char *mem, int rank) {
  unsigned char *src = mt_malloc(BIG);
  const uint32_t put_seed = mt_seed(7, 0, 0), window_seed = mt_seed(8, 1, 0);
  if (rank == 0) mt_fill(src, BIG, put_seed);
  if (rank == 1) mt_fill(mem + BIG, BIG, window_seed);
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank == 0) CHECK_MPI(MPI_Put(src, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank == 0) memset(src, 0xEE, BIG);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) expect_pattern(mem, BIG, put_seed, "a fence epoch's put whose source was overwritten after the fence");
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank == 0) CHECK_MPI(MPI_Get(src, BIG, MPI_BYTE, 1, BIG, BIG, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank == 1) memset(mem + BIG, 0xEE, BIG);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) expect_pattern(src, BIG, window_seed, "a fence epoch's get whose target overwrote its window after the fence");
  CHECK_MPI(MPI_Win_fence(0, win));
  free(src);
}

/* A dynamic window: a large put where nothing is attached fails at the
 * flush; the next large put lands. */
static void dynamic(int rank, int size, int refused) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  /* Twice what is attached, so that a put past the end that is not
   * refused still writes this test's memory. */
  unsigned char *mine = mt_malloc(2 * MID), *src = mt_malloc(MID);
  memset(mine, 0, 2 * MID);
  CHECK_MPI(MPI_Win_attach(win, mine, MID));
  MPI_Aint addr, right_addr;
  MPI_Get_address(mine, &addr);
  MPI_Sendrecv(&addr, 1, MPI_AINT, left, 0, &right_addr, 1, MPI_AINT, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  mt_fill(src, MID, mt_seed(5, (uint32_t)rank, 0));
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  if (refused) { /* past the attached region's end: the target refuses it */
    int rc = MPI_Put(src, MID, MPI_BYTE, right, right_addr + MID, MID, MPI_BYTE, win);
    if (rc == MPI_SUCCESS) rc = MPI_Win_flush(right, win);
    mt_expect_error(rc, MPI_ERR_RMA_RANGE, "MPI_Win_flush", "a large put past the attached memory");
  }
  CHECK_MPI(MPI_Put(src, MID, MPI_BYTE, right, right_addr, MID, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_unlock(right, win));
  MPI_Barrier(MPI_COMM_WORLD);
  expect_pattern(mine, MID, mt_seed(5, (uint32_t)left, 0), "the large put after a refused one");
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_detach(win, mine));
  MPI_Win_free(&win);
  free(mine);
  free(src);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  unsigned char *mem;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(2 * BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  passive(win, mem, rank, size);
  gets(win, mem, rank, size);
  fence(win, mem, rank, size);
  fence_then_reuse(win, mem, rank);
  MPI_Win_free(&win);
  dynamic(rank, size, argc > 1 && strcmp(argv[1], "--refused") == 0);
  mt_pass();
  MPI_Finalize();
  return 0;
}
