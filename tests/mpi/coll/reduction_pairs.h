/*
 * Every predefined (datatype, operation) pair that MPI_Reduce_local may
 * take, with inputs whose rank-order fold is exact in every type, and the
 * one loop over the pairs it accepts (rp_for_each_pair), for the tests that
 * reduce each pair through a collective (reduce_algorithms.c,
 * shm_collectives.c, shm_scan_pairs.c; nbc_shm.c keeps a type's pairs in
 * flight together). Include after mpitest.h.
 */
#ifndef FERRY_TESTS_MPI_COLL_REDUCTION_PAIRS_H
#define FERRY_TESTS_MPI_COLL_REDUCTION_PAIRS_H

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "reduction_check.h" /* rc_alloc */

typedef struct { float v; int k; } float_int;
typedef struct { double v; int k; } double_int;
typedef struct { long v; int k; } long_int;
typedef struct { short v; int k; } short_int;
typedef struct { long double v; int k; } long_double_int;
typedef struct { int v; int k; } two_int;

enum kind { SINT, UINT, FLT, DBL, LDBL, BOOL, CFLT, CDBL, PAIR };
struct type_info { MPI_Datatype type; const char *name; enum kind kind; size_t size; int pair; };

#define T(t, k, c) {t, #t, k, sizeof(c), 0}
static struct type_info types[] = {
    T(MPI_SIGNED_CHAR, SINT, signed char), T(MPI_UNSIGNED_CHAR, UINT, unsigned char), T(MPI_SHORT, SINT, short),
    T(MPI_UNSIGNED_SHORT, UINT, unsigned short), T(MPI_INT, SINT, int), T(MPI_UNSIGNED, UINT, unsigned),
    T(MPI_LONG, SINT, long), T(MPI_UNSIGNED_LONG, UINT, unsigned long), T(MPI_LONG_LONG, SINT, long long),
    T(MPI_UNSIGNED_LONG_LONG, UINT, unsigned long long), T(MPI_INT8_T, SINT, int8_t), T(MPI_INT16_T, SINT, int16_t),
    T(MPI_INT32_T, SINT, int32_t), T(MPI_INT64_T, SINT, int64_t), T(MPI_UINT8_T, UINT, uint8_t),
    T(MPI_UINT16_T, UINT, uint16_t), T(MPI_UINT32_T, UINT, uint32_t), T(MPI_UINT64_T, UINT, uint64_t),
    T(MPI_AINT, SINT, MPI_Aint), T(MPI_OFFSET, SINT, MPI_Offset), T(MPI_COUNT, SINT, MPI_Count),
    T(MPI_FLOAT, FLT, float), T(MPI_DOUBLE, DBL, double), T(MPI_LONG_DOUBLE, LDBL, long double),
    T(MPI_C_BOOL, BOOL, bool), T(MPI_BYTE, UINT, unsigned char),
    T(MPI_C_FLOAT_COMPLEX, CFLT, float _Complex), T(MPI_C_DOUBLE_COMPLEX, CDBL, double _Complex),
    {MPI_2INT, "MPI_2INT", PAIR, sizeof(two_int), 1}, {MPI_FLOAT_INT, "MPI_FLOAT_INT", PAIR, sizeof(float_int), 2},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", PAIR, sizeof(double_int), 3}, {MPI_LONG_INT, "MPI_LONG_INT", PAIR, sizeof(long_int), 4},
    {MPI_SHORT_INT, "MPI_SHORT_INT", PAIR, sizeof(short_int), 5},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", PAIR, sizeof(long_double_int), 6},
};
static struct { MPI_Op op; const char *name; } ops[] = {
    {MPI_SUM, "MPI_SUM"}, {MPI_PROD, "MPI_PROD"}, {MPI_MIN, "MPI_MIN"}, {MPI_MAX, "MPI_MAX"},
    {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"}, {MPI_LXOR, "MPI_LXOR"}, {MPI_BAND, "MPI_BAND"},
    {MPI_BOR, "MPI_BOR"}, {MPI_BXOR, "MPI_BXOR"}, {MPI_MINLOC, "MPI_MINLOC"}, {MPI_MAXLOC, "MPI_MAXLOC"},
};

/* Small values (1..3) so that sums and products over 8 ranks are exact in
 * every type; location pairs carry the rank as their index. */
static void fill_input(const struct type_info *t, void *buf, int count, int rank) {
  for (int i = 0; i < count; i++) {
    int v = 1 + (rank * 5 + i) % 3;
    char *e = (char *)buf + (size_t)i * t->size;
    switch (t->kind) {
      case SINT: case UINT:
        memset(e, 0, t->size);
        if (t->size == 1) *(unsigned char *)e = (unsigned char)v;
        else if (t->size == 2) *(uint16_t *)e = (uint16_t)v;
        else if (t->size == 4) *(uint32_t *)e = (uint32_t)v;
        else *(uint64_t *)e = (uint64_t)v;
        if (t->type == MPI_BYTE) *(unsigned char *)e = (unsigned char)(v << (rank % 6));
        break;
      case FLT: *(float *)e = (float)v; break;
      case DBL: *(double *)e = v; break;
      case LDBL: memset(e, 0, t->size); *(long double *)e = v; break;
      case BOOL: *(bool *)e = (v + rank) % 2; break;
      case CFLT: *(float _Complex *)e = (float)v + (float)((rank + i) % 2) * I; break;
      case CDBL: *(double _Complex *)e = v + ((rank + i) % 2) * I; break;
      case PAIR:
        memset(e, 0, t->size);
        switch (t->pair) {
          case 1: ((two_int *)e)->v = v; ((two_int *)e)->k = rank; break;
          case 2: ((float_int *)e)->v = (float)v; ((float_int *)e)->k = rank; break;
          case 3: ((double_int *)e)->v = v; ((double_int *)e)->k = rank; break;
          case 4: ((long_int *)e)->v = v; ((long_int *)e)->k = rank; break;
          case 5: ((short_int *)e)->v = (short)v; ((short_int *)e)->k = rank; break;
          default: ((long_double_int *)e)->v = v; ((long_double_int *)e)->k = rank; break;
        }
        break;
    }
  }
}

/* Packed bytes (the data without padding), to compare two buffers. */
static int same_data(const void *a, const void *b, int count, MPI_Datatype type, char *pa, char *pb, int cap) {
  int pos = 0;
  MPI_Pack(a, count, type, pa, cap, &pos, MPI_COMM_SELF);
  int pos2 = 0;
  MPI_Pack(b, count, type, pb, cap, &pos2, MPI_COMM_SELF);
  return pos == pos2 && memcmp(pa, pb, (size_t)pos) == 0;
}

/* The rank-order fold x0 op (x1 op (... op x(size-1))) of every rank's
 * input into ref (tmp: scratch of the same size); 0 where MPI_Reduce_local
 * refuses the pair (the caller's errors must return). */
static int rp_reference(const struct type_info *t, MPI_Op op, int count, int size, void *ref, void *tmp) {
  fill_input(t, ref, count, size - 1);
  for (int r = size - 2; r >= 0; r--) {
    fill_input(t, tmp, count, r);
    if (MPI_Reduce_local(tmp, ref, count, t->type, op) != MPI_SUCCESS) return 0;
  }
  if (size == 1) {
    fill_input(t, tmp, count, 0);
    return MPI_Reduce_local(tmp, tmp, count, t->type, op) == MPI_SUCCESS;
  }
  return 1;
}

/* One pair MPI_Reduce_local accepts, as rp_for_each_pair hands it to a
 * test's check: `in` holds rank `rank`'s input, `ref` the rank-order fold
 * of `size` ranks' inputs; `out` and `tmp` are the check's to use (`bytes`
 * each) and rp_out_is_ref compares `out` with `ref`. ti and oi index types[]
 * and ops[], so that a test can rotate roots and in-place calls with them. */
struct rp_pair {
  size_t ti, oi;
  const struct type_info *t;
  MPI_Op op;
  const char *op_name;
  int count, rank, size;
  size_t bytes;
  char *in, *out, *ref, *tmp, *pa, *pb;
};

/* Whether `out` holds the data of `ref` (packed: padding aside). */
static inline int rp_out_is_ref(const struct rp_pair *p) {
  return same_data(p->out, p->ref, p->count, p->t->type, p->pa, p->pb, (int)p->bytes * 2);
}

/* Calls check(pair, context) for every (datatype, op) pair MPI_Reduce_local
 * accepts at `count` elements, and checks that there are at least 100 (a
 * Reduce_local that refused most pairs would leave little tested); returns
 * how many. Every rank folds all `size` ranks' inputs itself, so all skip
 * the same pairs and the collectives in `check` match. Meanwhile
 * MPI_COMM_WORLD's errors return (a refusal is an answer, not an abort), so
 * the checks' CHECK_MPI report a collective's error as a failure. */
static inline int rp_for_each_pair(int count, int rank, int size, void (*check)(const struct rp_pair *, void *),
                                   void *context) {
  /* 32 bytes an element: the largest type, MPI_LONG_DOUBLE_INT. */
  struct rp_pair p = {.count = count, .rank = rank, .size = size, .bytes = (size_t)count * 32};
  p.in = rc_alloc(p.bytes), p.out = rc_alloc(p.bytes), p.ref = rc_alloc(p.bytes), p.tmp = rc_alloc(p.bytes);
  p.pa = rc_alloc(p.bytes * 2), p.pb = rc_alloc(p.bytes * 2);
  int accepted = 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (p.ti = 0; p.ti < sizeof types / sizeof types[0]; p.ti++) {
    for (p.oi = 0; p.oi < sizeof ops / sizeof ops[0]; p.oi++) {
      p.t = &types[p.ti], p.op = ops[p.oi].op, p.op_name = ops[p.oi].name;
      if (!rp_reference(p.t, p.op, count, size, p.ref, p.tmp)) continue;
      accepted++;
      fill_input(p.t, p.in, count, rank);
      check(&p, context);
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK(accepted >= 100, "only %d (datatype, op) pairs accepted", accepted);
  free(p.in); free(p.out); free(p.ref); free(p.tmp); free(p.pa); free(p.pb);
  return accepted;
}

#endif
