/*
 * MPI_Scan, MPI_Exscan and MPI_Reduce of more than a cell, streamed through
 * the ranks' cells (coll/shm/scan_stream.cc, reduce_stream.cc: from 2 MiB
 * and 1 MiB, or from one cell where ranks share cores): a scan's result is
 * the left fold of the operands of the ranks before it (and its own, for a
 * scan), a reduce's the left fold of every rank's at each root, bit for bit
 * for a sum of doubles of mixed magnitudes, whose result depends on the
 * order; at sizes
 * just above a cell, above four cells, 1 MiB and 3 MiB; with one derived
 * datatype of all the elements on odd ranks and the elements one by one on
 * even ranks (one signature: the cells hold the basic elements), in place,
 * with MPI_MAX on ints, and MPI_MINLOC on MPI_DOUBLE_INT (a pair with a gap:
 * not streamed, checked anyway). (Reductions take only datatypes of one
 * contiguous run, README; strided ones are refused.)
 * Small calls come between the streams, so that slots and cells pass to
 * other operations and back, and some streams come back to back. Then,
 * erroneous (Ferry only): rank 1 passes 3 MiB and the others 2 MiB, and
 * the reverse; every rank of a scan after rank 0 fails, and a reduce's root
 * 0, none hangs, and the communicator stays in step.
 */
#define TEST_NAME "shm_reductions_streamed"
#include "../mpitest.h"

static int rank, size;
static int *sbuf, *rbuf; /* for count_mismatch.h */

#include "count_mismatch.h"

/* Rank r's element i, of magnitudes 1e-8 to 1e8: sums depend on their order. */
static double operand(int r, size_t i, int round) {
  uint64_t w = mt_word(mt_seed((uint32_t)r, (uint32_t)round, 7), i);
  double mantissa = (double)(w >> 11) / 9007199254740992.0;
  int exponent = (int)(w % 17) - 8;
  double v = mantissa;
  for (int k = 0; k < (exponent < 0 ? -exponent : exponent); k++) v = exponent < 0 ? v / 10 : v * 10;
  return (w & 1) ? -v : v;
}

/* Rank `upto`'s expected element i: the left fold over ranks 0..upto. */
static double folded(int upto, size_t i, int round) {
  double acc = operand(0, i, round);
  for (int r = 1; r <= upto; r++) acc = acc + operand(r, i, round);
  return acc;
}

/* A scan or exscan of n doubles, MPI_SUM; odd ranks pass one element of
 * a contiguous type of n doubles. */
static void one_sum(MPI_Comm comm, size_t n, int exclusive, int in_place, int round) {
  const int derived = rank % 2;
  MPI_Datatype t = MPI_DOUBLE;
  int count = (int)n;
  if (derived) {
    MPI_Type_contiguous((int)n, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    count = 1;
  }
  double *in = mt_malloc(sizeof(double) * n);
  double *out = mt_malloc(sizeof(double) * n + MT_GUARD);
  memset((char *)out + sizeof(double) * n, 0xA5, MT_GUARD);
  for (size_t i = 0; i < n; i++) {
    in[i] = operand(rank, i, round);
    out[i] = in_place ? in[i] : -7.25;
  }
  const char *what = exclusive ? "MPI_Exscan" : "MPI_Scan";
  int rc = exclusive ? MPI_Exscan(in_place ? MPI_IN_PLACE : in, out, count, t, MPI_SUM, comm)
                     : MPI_Scan(in_place ? MPI_IN_PLACE : in, out, count, t, MPI_SUM, comm);
  CHECK(rc == MPI_SUCCESS, "%s of %zu doubles%s, round %d: error %d", what, n, in_place ? " in place" : "", round, rc);
  const int upto = exclusive ? rank - 1 : rank;
  if (upto >= 0)
    for (size_t i = 0; i < n; i++) {
      double want = folded(upto, i, round);
      if (memcmp(&out[i], &want, sizeof want) != 0) {
        CHECK(0, "%s of %zu doubles%s, round %d: [%zu] = %.17g, want %.17g", what, n, in_place ? " in place" : "",
              round, i, out[i], want);
        break;
      }
    }
  for (int i = 0; i < MT_GUARD; i++)
    CHECK(((unsigned char *)out)[sizeof(double) * n + i] == 0xA5, "%s of %zu doubles: written past the end", what, n);
  if (!in_place)
    for (size_t i = 0; i < n; i++)
      CHECK(in[i] == operand(rank, i, round), "%s: the send buffer changed at [%zu]", what, i);
  if (derived) MPI_Type_free(&t);
  free(in);
  free(out);
}

/* A reduce of n doubles to `root`, MPI_SUM; odd ranks pass one element of
 * a contiguous type of n doubles; the root in place if asked. */
static void one_reduce(MPI_Comm comm, size_t n, int root, int in_place, int round) {
  MPI_Datatype t = MPI_DOUBLE;
  int count = (int)n;
  if (rank % 2) {
    MPI_Type_contiguous((int)n, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    count = 1;
  }
  double *in = mt_malloc(sizeof(double) * n);
  double *out = mt_malloc(sizeof(double) * n + MT_GUARD);
  memset((char *)out + sizeof(double) * n, 0xA5, MT_GUARD);
  for (size_t i = 0; i < n; i++) {
    in[i] = operand(rank, i, round);
    out[i] = rank == root && in_place ? in[i] : -7.25;
  }
  const int here = rank == root && in_place;
  CHECK_MPI(MPI_Reduce(here ? MPI_IN_PLACE : in, out, count, t, MPI_SUM, root, comm));
  if (rank == root)
    for (size_t i = 0; i < n; i++) {
      double want = folded(size - 1, i, round);
      if (memcmp(&out[i], &want, sizeof want) != 0) {
        CHECK(0, "MPI_Reduce of %zu doubles to %d%s, round %d: [%zu] = %.17g, want %.17g", n, root,
              here ? " in place" : "", round, i, out[i], want);
        break;
      }
    }
  for (int i = 0; i < MT_GUARD; i++)
    CHECK(((unsigned char *)out)[sizeof(double) * n + i] == 0xA5, "MPI_Reduce of %zu doubles: written past the end", n);
  if (rank % 2) MPI_Type_free(&t);
  free(in);
  free(out);
}

/* A scan and an exscan of n ints, MPI_MAX. */
static void one_max(MPI_Comm comm, size_t n, int round) {
  int *in = mt_malloc(sizeof(int) * n), *out = mt_malloc(sizeof(int) * n);
  for (size_t i = 0; i < n; i++) in[i] = (int)((i * 2654435761u) ^ (uint32_t)(rank * 7919 + round)) >> 1;
  for (int exclusive = 0; exclusive < 2; exclusive++) {
    CHECK_MPI(exclusive ? MPI_Exscan(in, out, (int)n, MPI_INT, MPI_MAX, comm)
                        : MPI_Scan(in, out, (int)n, MPI_INT, MPI_MAX, comm));
    const int upto = exclusive ? rank - 1 : rank;
    if (upto < 0) continue;
    for (size_t i = 0; i < n; i++) {
      int want = INT32_MIN;
      for (int r = 0; r <= upto; r++) {
        int v = (int)((i * 2654435761u) ^ (uint32_t)(r * 7919 + round)) >> 1;
        if (v > want) want = v;
      }
      if (out[i] != want) {
        CHECK(0, "%s MAX of %zu ints: [%zu] = %d, want %d", exclusive ? "MPI_Exscan" : "MPI_Scan", n, i, out[i],
              want);
        break;
      }
    }
  }
  free(in);
  free(out);
}

/* A scan of n MPI_DOUBLE_INT pairs, MPI_MINLOC: a pair type with a gap
 * (12 bytes packed, 16 in memory), whose packed form the kernel cannot
 * read, so it must not stream (it goes by messages); the result is checked
 * either way. */
static void one_minloc(MPI_Comm comm, size_t n, int round) {
  struct pair {
    double value;
    int index;
  } *in = mt_malloc(sizeof(struct pair) * n), *out = mt_malloc(sizeof(struct pair) * n);
  for (size_t i = 0; i < n; i++) {
    in[i].value = (double)((i * 7 + (size_t)rank * 13 + (size_t)round) % 11);
    in[i].index = rank;
  }
  CHECK_MPI(MPI_Scan(in, out, (int)n, MPI_DOUBLE_INT, MPI_MINLOC, comm));
  for (size_t i = 0; i < n; i++) {
    double least = 1e300;
    int at = -1;
    for (int r = 0; r <= rank; r++) {
      double v = (double)((i * 7 + (size_t)r * 13 + (size_t)round) % 11);
      if (v < least) least = v, at = r;
    }
    if (out[i].value != least || out[i].index != at) {
      CHECK(0, "MPI_Scan MINLOC of %zu MPI_DOUBLE_INT: [%zu] = (%g, %d), want (%g, %d)", n, i, out[i].value,
            out[i].index, least, at);
      break;
    }
  }
  free(in);
  free(out);
}

static void small_calls(MPI_Comm comm, int round) {
  for (int i = 0; i < 16; i++) {
    long long ones = -1 - rank, least = 0;
    CHECK_MPI(MPI_Allreduce(&ones, &least, 1, MPI_LONG_LONG, MPI_MIN, comm));
    CHECK(least == -size, "allreduce after a chain: %lld, want %d", least, -size);
  }
  int v = rank + round, sum = 0;
  CHECK_MPI(MPI_Scan(&v, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == (rank + 1) * round + rank * (rank + 1) / 2, "small scan after a chain: %d", sum);
}

/* Rank 1 passes `mine` ints and the others `others` (erroneous): every
 * rank of a scan from 1 on must fail (rank 0 reads nobody's data), and a
 * reduce's root, 0. */
static void disagree(MPI_Comm comm, int op, int mine, int others, const char *what) {
  const int n = rank == 1 ? mine : others;
  int rc = call(op, n, comm);
  if (op == kReduce ? rank == 0 : rank >= 1) CHECK(rc != MPI_SUCCESS, "%s, %s: rank %d passed %d ints and did not fail", names[op], what, rank, n);
  if (rc != MPI_SUCCESS) check_mismatch_error(rc, op, NULL, what);
  check_still_in_step(comm, op, what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t mib = 1 << 18; /* ints */
  sbuf = mt_malloc(sizeof(int) * 3 * mib);
  rbuf = mt_malloc(sizeof(int) * 3 * mib);
  for (size_t i = 0; i < 3 * mib; i++) sbuf[i] = 1;
  /* Doubles: above one cell and four (16 KiB cells), 1 MiB, just above and 3 MiB. */
  static const size_t counts[] = {2049, 8193, 32769, 1 << 17, (1 << 17) + 1, 3 << 17};
  int round = 0;
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
    for (int form = 0; form < 4; form++, round++) {
      one_sum(comm, counts[k], form & 1, form >> 1, round);
      if (round % 3 == 0) small_calls(comm, round);
    }
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
    for (int root = 0; root < size; root++, round++) {
      one_reduce(comm, counts[k], root, (int)(k + (size_t)root) % 2, round);
      if (round % 3 == 0) small_calls(comm, round);
    }
  for (int i = 0; i < 12; i++, round++) one_reduce(comm, 8193 + (size_t)i * 1000, i % size, 0, round);
  one_max(comm, 16385, round++);
  one_max(comm, 3 << 18, round++);
  one_minloc(comm, 20000, round++);
  /* Back to back: a rank's cells still being read by its successor. */
  for (int i = 0; i < 12; i++, round++) one_sum(comm, 8193 + (size_t)i * 1000, i % 2, 0, round);
  if (size >= 2 && mt_is_ferry())
    for (int op = kReduce; op <= kExscan; op++) {
      if (op != kReduce && op != kScan && op != kExscan) continue;
      disagree(comm, op, 3 * (int)mib, 2 * (int)mib, "rank 1 passes 3 MiB, the others 2 MiB");
      disagree(comm, op, 2 * (int)mib, 3 * (int)mib, "rank 1 passes 2 MiB, the others 3 MiB");
    }
  MPI_Comm_free(&comm);
  free(sbuf);
  free(rbuf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
