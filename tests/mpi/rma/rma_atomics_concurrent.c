/* Fetch-and-op and compare-and-swap from every rank at once on rank 0's
 * memory (MPI-4.0 §12.3.4-5: each is atomic), the calls that Ferry does on
 * one host as one CPU atomic in the entry point (rma/direct.h):
 *   - tickets: every rank takes T tickets in a tight loop with
 *     MPI_Fetch_and_op(MPI_SUM, 1) on a long, then K more on one counter of
 *     each of long, int, unsigned char (a sum on a byte wraps) and double
 *     (no CPU add: a compare-and-swap loop); each counter's old values must
 *     be 0, 1, 2, ... once each, and the counters end at their totals;
 *   - a lock made of MPI_Compare_and_swap guards an increment made of
 *     MPI_Get, MPI_Put and MPI_Win_flush: no increment is lost, so the
 *     get, the put and the flush are ordered with the atomics around them;
 *   - MPI_REPLACE and MPI_NO_OP: a swapped value comes back once.
 * Passes on MPICH too (mpicc.mpich + mpiexec.mpich). */
#define TEST_NAME "rma_atomics_concurrent"
#include "../mpitest.h"

enum { T = 10000, K = 2000 };

struct target {
  long ticket_long;
  int ticket_int;
  unsigned char ticket_byte;
  char pad[3];
  double ticket_double;
  int lock;
  int pad2;
  long guarded;
  long swapped;
};

#define AT(field) ((MPI_Aint)offsetof(struct target, field))

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct target *mem;
  MPI_Win win;
  MPI_Win_allocate(rank == 0 ? sizeof(struct target) : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  if (rank == 0) memset(mem, 0, sizeof *mem);
  MPI_Barrier(MPI_COMM_WORLD);

  long *olds = mt_malloc((T + 3 * K) * sizeof(long));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < T; ++t) {
    long one = 1;
    CHECK_MPI(MPI_Fetch_and_op(&one, &olds[3 * K + t], MPI_LONG, 0, AT(ticket_long), MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
  }
  for (int k = 0; k < K; ++k) {
    long one = 1, old = -1;
    int one_i = 1, old_i = -1;
    unsigned char one_b = 1, old_b = 0;
    double one_d = 1.0, old_d = -1.0;
    CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, AT(ticket_long), MPI_SUM, win));
    CHECK_MPI(MPI_Fetch_and_op(&one_i, &old_i, MPI_INT, 0, AT(ticket_int), MPI_SUM, win));
    CHECK_MPI(MPI_Fetch_and_op(&one_b, &old_b, MPI_UNSIGNED_CHAR, 0, AT(ticket_byte), MPI_SUM, win));
    CHECK_MPI(MPI_Fetch_and_op(&one_d, &old_d, MPI_DOUBLE, 0, AT(ticket_double), MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    olds[3 * k] = old;
    olds[3 * k + 1] = old_i;
    olds[3 * k + 2] = (long)old_d;
    CHECK(old_d == (double)(long)old_d, "a double ticket %g is not whole", old_d);

    /* The lock: 0 free, rank + 1 held. */
    int mine = rank + 1, zero = 0, found = -1;
    do {
      CHECK_MPI(MPI_Compare_and_swap(&mine, &zero, &found, MPI_INT, 0, AT(lock), win));
      CHECK_MPI(MPI_Win_flush(0, win));
      CHECK(found == 0 || (found >= 1 && found <= size && found != mine), "lock word %d", found);
    } while (found != 0);
    long value = -1;
    CHECK_MPI(MPI_Get(&value, 1, MPI_LONG, 0, AT(guarded), 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    ++value;
    CHECK_MPI(MPI_Put(&value, 1, MPI_LONG, 0, AT(guarded), 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK_MPI(MPI_Compare_and_swap(&zero, &mine, &found, MPI_INT, 0, AT(lock), win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(found == mine, "released a lock held by %d", found);
  }
  /* Each rank swaps in its own mark once; every mark but the last comes
   * back to exactly one rank. */
  long mark = rank + 1, before = -1;
  CHECK_MPI(MPI_Fetch_and_op(&mark, &before, MPI_LONG, 0, AT(swapped), MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_flush(0, win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);

  long *all = rank == 0 ? mt_malloc((size_t)size * (T + 3 * K) * sizeof(long)) : NULL;
  long *befores = rank == 0 ? mt_malloc((size_t)size * sizeof(long)) : NULL;
  MPI_Gather(olds, T + 3 * K, MPI_LONG, all, T + 3 * K, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Gather(&before, 1, MPI_LONG, befores, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    long n = (long)size * K, nt = (long)size * (T + K), per = T + 3 * K;
    for (int kind = 0; kind < 3; ++kind) {
      long count = kind == 0 ? nt : n;
      long *tickets = mt_malloc((size_t)count * sizeof(long)), at = 0;
      for (int r = 0; r < size; ++r) {
        const long *mine = all + (size_t)r * per;
        for (int k = 0; k < K; ++k) tickets[at++] = mine[3 * k + kind];
        if (kind == 0)
          for (int t = 0; t < T; ++t) tickets[at++] = mine[3 * K + t];
      }
      qsort(tickets, (size_t)count, sizeof(long), cmp_long);
      for (long i = 0; i < count; ++i)
        CHECK(tickets[i] == i, "%s tickets: sorted ticket %ld is %ld (a fetch-and-op was not atomic)",
              kind == 0 ? "long" : kind == 1 ? "int" : "double", i, tickets[i]);
      free(tickets);
    }
    long last = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    CHECK(mem->ticket_long == nt && mem->ticket_int == n && mem->ticket_double == (double)n,
          "counters %ld %d %g, expected %ld %ld %ld", mem->ticket_long, mem->ticket_int, mem->ticket_double, nt, n,
          n);
    CHECK(mem->ticket_byte == (unsigned char)n, "byte counter %u, expected %u", mem->ticket_byte,
          (unsigned)(unsigned char)n);
    CHECK(mem->guarded == n, "the guarded counter is %ld, expected %ld (an increment under the lock was lost)",
          mem->guarded, n);
    CHECK(mem->lock == 0, "the lock word is %d at the end", mem->lock);
    last = mem->swapped;
    MPI_Win_unlock(0, win);
    /* The marks seen (before values) plus the last one are 0 (the
     * initial value) and 1..size, each once. */
    int *seen = mt_malloc((size_t)(size + 1) * sizeof(int));
    for (int i = 0; i <= size; ++i) seen[i] = 0;
    for (int r = 0; r < size; ++r) {
      CHECK(befores[r] >= 0 && befores[r] <= size, "rank %d swapped out %ld", r, befores[r]);
      ++seen[befores[r]];
    }
    CHECK(last >= 1 && last <= size, "the last mark is %ld", last);
    ++seen[last];
    for (int i = 0; i <= size; ++i) CHECK(seen[i] == 1, "mark %d seen %d times", i, seen[i]);
    free(seen);
    free(all);
    free(befores);
  }
  free(olds);
  MPI_Win_free(&win);
  mt_pass();
  MPI_Finalize();
  return 0;
}
