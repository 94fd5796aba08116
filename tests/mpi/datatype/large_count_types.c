/*
 * The large-count datatype, pack and reduction calls (MPI-4.0's _c forms),
 * without moving gigabytes:
 *  - types whose size or extent pass 2^31 bytes (MPI_Type_contiguous_c,
 *    MPI_Type_vector_c with a stride beyond 2^31, MPI_Type_create_hvector_c,
 *    MPI_Type_create_resized_c) report them through MPI_Type_size_c and
 *    MPI_Type_get_extent_c, and MPI_Type_size says MPI_UNDEFINED (MPI-4.0
 *    §5.1.5); a status of more than 2^31 elements gives MPI_UNDEFINED from
 *    MPI_Get_count and the count from MPI_Get_count_c;
 *  - every _c constructor builds the type its int form builds (same size,
 *    extent, and packed data) and MPI_Type_get_envelope_c/get_contents_c
 *    return its arguments as large counts, in MPI-4.0 §5.1.13's order, while
 *    the int MPI_Type_get_envelope refuses such a type;
 *  - MPI_Pack_c/MPI_Unpack_c/MPI_Pack_size_c and the external32 forms,
 *    with MPI_Pack_size saying MPI_UNDEFINED where an int cannot hold the
 *    size (as MPICH 4.0 does);
 *  - MPI_Op_create_c (an MPI_User_function_c gets the MPI_Count length)
 *    with MPI_Reduce_local_c, and MPI_Reduce_local_c with MPI_SUM;
 *  - a message whose type (MPI_Type_vector_c) spreads 3 bytes over 4 GiB
 *    (displacements beyond 2^31 and 2^32) sent and received between
 *    neighbours, with only the touched pages resident;
 *  - the large-count point-to-point calls between ranks (or to self):
 *    every send mode, persistent, matched, MPI_Sendrecv_c and
 *    MPI_Sendrecv_replace_c, MPI_Buffer_attach_c/detach_c;
 *  - bad counts: MPI_ERR_COUNT naming the _c call.
 */
#define TEST_NAME "large_count_types"
#include "mpitest.h"

#define BIG (((MPI_Count)1 << 31) + 5)

static int rank, size;

static void check_size_extent(MPI_Datatype t, MPI_Count size_want, MPI_Count lb_want, MPI_Count extent_want,
                              const char *what) {
  MPI_Count s = -1, lb = -1, extent = -1, tlb = -1, textent = -1;
  CHECK_MPI(MPI_Type_size_c(t, &s));
  CHECK(s == size_want, "%s: MPI_Type_size_c %lld, expected %lld", what, (long long)s, (long long)size_want);
  CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &extent));
  CHECK(lb == lb_want && extent == extent_want, "%s: MPI_Type_get_extent_c lb %lld extent %lld, expected %lld %lld",
        what, (long long)lb, (long long)extent, (long long)lb_want, (long long)extent_want);
  CHECK_MPI(MPI_Type_get_true_extent_c(t, &tlb, &textent));
  CHECK(textent <= extent || extent < 0, "%s: true extent %lld beyond extent %lld", what, (long long)textent,
        (long long)extent);
  int small = 0;
  CHECK_MPI(MPI_Type_size(t, &small));
  if (size_want > 2147483647)
    CHECK(small == MPI_UNDEFINED, "%s: MPI_Type_size says %d for %lld bytes, not MPI_UNDEFINED", what, small,
          (long long)size_want);
  else
    CHECK(small == size_want, "%s: MPI_Type_size says %d, expected %lld", what, small, (long long)size_want);
  MPI_Aint alb = -1, aextent = -1;
  CHECK_MPI(MPI_Type_get_extent(t, &alb, &aextent));
  CHECK(alb == lb_want && aextent == extent_want, "%s: MPI_Type_get_extent lb %ld extent %ld", what, (long)alb,
        (long)aextent);
}

/* Types beyond 2^31 bytes: built and asked, never moved. */
static void huge_types(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_contiguous_c(BIG, MPI_BYTE, &t));
  check_size_extent(t, BIG, 0, BIG, "MPI_Type_contiguous_c(2^31 + 5 bytes)");
  MPI_Count sz = -1;
  CHECK_MPI(MPI_Type_commit(&t));
  CHECK_MPI(MPI_Pack_size_c(1, t, MPI_COMM_WORLD, &sz));
  CHECK(sz == BIG, "MPI_Pack_size_c of 2^31 + 5 bytes says %lld", (long long)sz);
  int small = 0;
  CHECK_MPI(MPI_Pack_size(1, t, MPI_COMM_WORLD, &small));
  CHECK(small == MPI_UNDEFINED, "MPI_Pack_size of 2^31 + 5 bytes says %d, not MPI_UNDEFINED", small);
  MPI_Type_free(&t);

  /* 3 bytes, 2^31 + 1 bytes apart: an extent of 2^32 + 3 bytes. */
  MPI_Count stride = ((MPI_Count)1 << 31) + 1;
  CHECK_MPI(MPI_Type_vector_c(3, 1, stride, MPI_BYTE, &t));
  check_size_extent(t, 3, 0, 2 * stride + 1, "MPI_Type_vector_c(stride 2^31 + 1)");
  MPI_Type_free(&t);
  CHECK_MPI(MPI_Type_create_hvector_c(2, 2, 3 * stride, MPI_INT, &t));
  check_size_extent(t, 16, 0, 3 * stride + 8, "MPI_Type_create_hvector_c(stride 3 (2^31 + 1))");
  MPI_Type_free(&t);
  CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, -BIG, 2 * BIG, &t));
  check_size_extent(t, 4, -BIG, 2 * BIG, "MPI_Type_create_resized_c");
  MPI_Type_free(&t);

  /* A status of more than 2^31 elements. */
  MPI_Status st;
  MPI_Count c = -1;
  CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_INT, BIG));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &c));
  CHECK(c == BIG, "MPI_Get_count_c of a status of 2^31 + 5 ints says %lld", (long long)c);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &small));
  CHECK(small == MPI_UNDEFINED, "MPI_Get_count of 2^31 + 5 ints says %d, not MPI_UNDEFINED", small);
  CHECK_MPI(MPI_Get_elements_c(&st, MPI_INT, &c));
  CHECK(c == BIG, "MPI_Get_elements_c says %lld", (long long)c);
}

/* The contents of a type made by a _c constructor. */
static void check_contents(MPI_Datatype t, int combiner, int ni, const int *ints, int nc, const MPI_Count *counts,
                           int nd, const char *what) {
  MPI_Count gi = -1, ga = -1, gc = -1, gd = -1;
  int comb = -1;
  CHECK_MPI(MPI_Type_get_envelope_c(t, &gi, &ga, &gc, &gd, &comb));
  CHECK(comb == combiner && gi == ni && ga == 0 && gc == nc && gd == nd,
        "%s: envelope_c combiner %d ints %lld addresses %lld large counts %lld types %lld, expected %d %d 0 %d %d",
        what, comb, (long long)gi, (long long)ga, (long long)gc, (long long)gd, combiner, ni, nc, nd);
  int got_ints[32];
  MPI_Aint got_aints[1];
  MPI_Count got_counts[32];
  MPI_Datatype got_types[8];
  CHECK_MPI(MPI_Type_get_contents_c(t, gi, ga, gc, gd, got_ints, got_aints, got_counts, got_types));
  for (int i = 0; i < ni; i++)
    CHECK(got_ints[i] == ints[i], "%s: integers[%d] is %d, expected %d", what, i, got_ints[i], ints[i]);
  for (int i = 0; i < nc; i++)
    CHECK(got_counts[i] == counts[i], "%s: large_counts[%d] is %lld, expected %lld", what, i,
          (long long)got_counts[i], (long long)counts[i]);
  for (int i = 0; i < nd; i++) {
    int n, a, d, c;
    MPI_Type_get_envelope(got_types[i], &n, &a, &d, &c);
    if (c != MPI_COMBINER_NAMED) MPI_Type_free(&got_types[i]);
  }
  int n, a, d, c;
  mt_expect_error(MPI_Type_get_envelope(t, &n, &a, &d, &c), MPI_ERR_OTHER, "MPI_Type_get_envelope", what);
}

/* Packs `t` (count 1) over 0..255 and compares with the int form's packing. */
static void same_packing(MPI_Datatype large, MPI_Datatype small, const char *what) {
  MPI_Type_commit(&large);
  MPI_Type_commit(&small);
  MPI_Count ls = -1, ss = -1, le = -1, se = -1, lb = 0;
  MPI_Type_size_c(large, &ls);
  MPI_Type_size_c(small, &ss);
  MPI_Type_get_extent_c(large, &lb, &le);
  MPI_Type_get_extent_c(small, &lb, &se);
  CHECK(ls == ss && le == se, "%s: size %lld extent %lld, the int form's %lld %lld", what, (long long)ls,
        (long long)le, (long long)ss, (long long)se);
  int src[256];
  for (int i = 0; i < 256; i++) src[i] = i * 7 + 1;
  int a[256], b[256];
  MPI_Count pa = 0;
  int pb = 0;
  CHECK_MPI(MPI_Pack_c(src, 1, large, a, sizeof a, &pa, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack(src, 1, small, b, sizeof b, &pb, MPI_COMM_WORLD));
  CHECK(pa == pb && pa == ls, "%s: MPI_Pack_c position %lld, MPI_Pack %d, size %lld", what, (long long)pa, pb,
        (long long)ls);
  CHECK(memcmp(a, b, (size_t)pa) == 0, "%s: MPI_Pack_c packed other data than MPI_Pack", what);
  int back[256];
  memset(back, 0, sizeof back);
  MPI_Count pos = 0;
  CHECK_MPI(MPI_Unpack_c(a, pa, &pos, back, 1, large, MPI_COMM_WORLD));
  CHECK(pos == pa, "%s: MPI_Unpack_c position %lld of %lld", what, (long long)pos, (long long)pa);
  int again[256];
  memset(again, 0, sizeof again);
  pb = 0;
  MPI_Unpack(b, (int)pa, &pb, again, 1, small, MPI_COMM_WORLD);
  CHECK(memcmp(back, again, sizeof back) == 0, "%s: MPI_Unpack_c placed the data elsewhere than MPI_Unpack", what);
  MPI_Type_free(&large);
  MPI_Type_free(&small);
}

static void constructors(void) {
  MPI_Datatype l, s;
  CHECK_MPI(MPI_Type_contiguous_c(5, MPI_INT, &l));
  check_contents(l, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, (MPI_Count[]){5}, 1, "MPI_Type_contiguous_c");
  MPI_Type_contiguous(5, MPI_INT, &s);
  same_packing(l, s, "MPI_Type_contiguous_c");

  CHECK_MPI(MPI_Type_vector_c(4, 3, 5, MPI_INT, &l));
  check_contents(l, MPI_COMBINER_VECTOR, 0, NULL, 3, (MPI_Count[]){4, 3, 5}, 1, "MPI_Type_vector_c");
  MPI_Type_vector(4, 3, 5, MPI_INT, &s);
  same_packing(l, s, "MPI_Type_vector_c");

  CHECK_MPI(MPI_Type_create_hvector_c(3, 2, 40, MPI_INT, &l));
  check_contents(l, MPI_COMBINER_HVECTOR, 0, NULL, 3, (MPI_Count[]){3, 2, 40}, 1, "MPI_Type_create_hvector_c");
  MPI_Type_create_hvector(3, 2, 40, MPI_INT, &s);
  same_packing(l, s, "MPI_Type_create_hvector_c");

  CHECK_MPI(MPI_Type_indexed_c(3, (MPI_Count[]){2, 1, 4}, (MPI_Count[]){0, 10, 20}, MPI_INT, &l));
  check_contents(l, MPI_COMBINER_INDEXED, 0, NULL, 7, (MPI_Count[]){3, 2, 1, 4, 0, 10, 20}, 1, "MPI_Type_indexed_c");
  MPI_Type_indexed(3, (int[]){2, 1, 4}, (int[]){0, 10, 20}, MPI_INT, &s);
  same_packing(l, s, "MPI_Type_indexed_c");

  CHECK_MPI(MPI_Type_create_hindexed_c(2, (MPI_Count[]){3, 2}, (MPI_Count[]){8, 100}, MPI_INT, &l));
  check_contents(l, MPI_COMBINER_HINDEXED, 0, NULL, 5, (MPI_Count[]){2, 3, 2, 8, 100}, 1,
                 "MPI_Type_create_hindexed_c");
  MPI_Type_create_hindexed(2, (int[]){3, 2}, (MPI_Aint[]){8, 100}, MPI_INT, &s);
  same_packing(l, s, "MPI_Type_create_hindexed_c");

  CHECK_MPI(MPI_Type_create_indexed_block_c(3, 2, (MPI_Count[]){1, 7, 30}, MPI_INT, &l));
  check_contents(l, MPI_COMBINER_INDEXED_BLOCK, 0, NULL, 5, (MPI_Count[]){3, 2, 1, 7, 30}, 1,
                 "MPI_Type_create_indexed_block_c");
  MPI_Type_create_indexed_block(3, 2, (int[]){1, 7, 30}, MPI_INT, &s);
  same_packing(l, s, "MPI_Type_create_indexed_block_c");

  CHECK_MPI(MPI_Type_create_hindexed_block_c(2, 3, (MPI_Count[]){4, 200}, MPI_INT, &l));
  check_contents(l, MPI_COMBINER_HINDEXED_BLOCK, 0, NULL, 4, (MPI_Count[]){2, 3, 4, 200}, 1,
                 "MPI_Type_create_hindexed_block_c");
  MPI_Type_create_hindexed_block(2, 3, (MPI_Aint[]){4, 200}, MPI_INT, &s);
  same_packing(l, s, "MPI_Type_create_hindexed_block_c");

  CHECK_MPI(MPI_Type_create_struct_c(2, (MPI_Count[]){1, 3}, (MPI_Count[]){0, 16}, (MPI_Datatype[]){MPI_INT, MPI_INT},
                                     &l));
  check_contents(l, MPI_COMBINER_STRUCT, 0, NULL, 5, (MPI_Count[]){2, 1, 3, 0, 16}, 2, "MPI_Type_create_struct_c");
  MPI_Type_create_struct(2, (int[]){1, 3}, (MPI_Aint[]){0, 16}, (MPI_Datatype[]){MPI_INT, MPI_INT}, &s);
  same_packing(l, s, "MPI_Type_create_struct_c");

  CHECK_MPI(MPI_Type_create_subarray_c(2, (MPI_Count[]){8, 6}, (MPI_Count[]){3, 2}, (MPI_Count[]){1, 4}, MPI_ORDER_C,
                                       MPI_INT, &l));
  check_contents(l, MPI_COMBINER_SUBARRAY, 2, (int[]){2, MPI_ORDER_C}, 6, (MPI_Count[]){8, 6, 3, 2, 1, 4}, 1,
                 "MPI_Type_create_subarray_c");
  MPI_Type_create_subarray(2, (int[]){8, 6}, (int[]){3, 2}, (int[]){1, 4}, MPI_ORDER_C, MPI_INT, &s);
  same_packing(l, s, "MPI_Type_create_subarray_c");

  CHECK_MPI(MPI_Type_create_darray_c(4, 1, 2, (MPI_Count[]){8, 6}, (int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
                                     (int[]){MPI_DISTRIBUTE_DFLT_DARG, 2}, (int[]){2, 2}, MPI_ORDER_C, MPI_INT, &l));
  check_contents(l, MPI_COMBINER_DARRAY, 10,
                 (int[]){4, 1, 2, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 2,
                         MPI_ORDER_C},
                 2, (MPI_Count[]){8, 6}, 1, "MPI_Type_create_darray_c");
  MPI_Type_create_darray(4, 1, 2, (int[]){8, 6}, (int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
                         (int[]){MPI_DISTRIBUTE_DFLT_DARG, 2}, (int[]){2, 2}, MPI_ORDER_C, MPI_INT, &s);
  same_packing(l, s, "MPI_Type_create_darray_c");

  CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, -4, 16, &l));
  check_contents(l, MPI_COMBINER_RESIZED, 0, NULL, 2, (MPI_Count[]){-4, 16}, 1, "MPI_Type_create_resized_c");
  MPI_Type_free(&l);

  /* The int forms keep reporting integers and addresses. */
  int ni, na, nd, comb;
  MPI_Count ci, ca, cc, cd;
  MPI_Type_create_hvector(3, 2, 40, MPI_INT, &s);
  CHECK_MPI(MPI_Type_get_envelope(s, &ni, &na, &nd, &comb));
  CHECK(ni == 2 && na == 1 && nd == 1, "MPI_Type_create_hvector envelope %d %d %d, expected 2 1 1", ni, na, nd);
  CHECK_MPI(MPI_Type_get_envelope_c(s, &ci, &ca, &cc, &cd, &comb));
  CHECK(ci == 2 && ca == 1 && cc == 0 && cd == 1, "MPI_Type_create_hvector envelope_c %lld %lld %lld %lld",
        (long long)ci, (long long)ca, (long long)cc, (long long)cd);
  MPI_Type_free(&s);
}

static void packing(void) {
  double in[10], out[10];
  for (int i = 0; i < 10; i++) in[i] = i + 0.25;
  char buf[200];
  MPI_Count pos = 3, size = -1;
  CHECK_MPI(MPI_Pack_external_size_c("external32", 10, MPI_DOUBLE, &size));
  CHECK(size == 80, "MPI_Pack_external_size_c says %lld for 10 doubles", (long long)size);
  CHECK_MPI(MPI_Pack_external_c("external32", in, 10, MPI_DOUBLE, buf, sizeof buf, &pos));
  CHECK(pos == 83, "MPI_Pack_external_c position %lld, expected 83", (long long)pos);
  /* external32 is big-endian: 0.25 is 3f d0 00 ... */
  CHECK((unsigned char)buf[3] == 0x3f && (unsigned char)buf[4] == 0xd0, "external32 0.25 starts %02x %02x",
        (unsigned char)buf[3], (unsigned char)buf[4]);
  MPI_Count at = 3;
  CHECK_MPI(MPI_Unpack_external_c("external32", buf, pos, &at, out, 10, MPI_DOUBLE));
  CHECK(at == 83 && memcmp(in, out, sizeof in) == 0, "MPI_Unpack_external_c position %lld or data differ",
        (long long)at);
  pos = 0;
  /* Ferry-only: MPICH 4.0 does not check outsize. */
  if (mt_is_ferry())
    mt_expect_error(MPI_Pack_c(in, 10, MPI_DOUBLE, buf, 40, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "MPI_Pack_c",
                 "80 bytes into 40");
  mt_expect_error(MPI_Pack_c(in, -1, MPI_DOUBLE, buf, 40, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Pack_c",
               "incount -1");
}

static MPI_Count seen_len = -1;

/* inout[i] = in[i] * 10 + inout[i] for longs: not commutative. */
static void shift_add(void *in, void *inout, MPI_Count *len, MPI_Datatype *type) {
  (void)type;
  seen_len = *len;
  for (MPI_Count i = 0; i < *len; i++) ((long *)inout)[i] = ((long *)in)[i] * 10 + ((long *)inout)[i];
}

static void reductions(void) {
  MPI_Op op;
  long in[100], inout[100];
  for (int i = 0; i < 100; i++) {
    in[i] = i;
    inout[i] = 1000 + i;
  }
  /* MPICH 4.0.2, the reference, crashes in MPI_Reduce_local_c (with
   * MPI_SUM too): this part is Ferry-only. */
  if (!mt_is_ferry()) return;
  CHECK_MPI(MPI_Op_create_c(shift_add, 0, &op));
  int commute = -1;
  CHECK_MPI(MPI_Op_commutative(op, &commute));
  CHECK(commute == 0, "MPI_Op_create_c(commute 0): MPI_Op_commutative says %d", commute);
  CHECK_MPI(MPI_Reduce_local_c(in, inout, 100, MPI_LONG, op));
  CHECK(seen_len == 100, "the MPI_User_function_c got length %lld, expected 100", (long long)seen_len);
  for (int i = 0; i < 100; i++)
    CHECK(inout[i] == i * 10 + 1000 + i, "MPI_Reduce_local_c with a user op: inout[%d] is %ld", i, inout[i]);
  /* The int-length MPI_Reduce_local on the same operation. */
  CHECK_MPI(MPI_Reduce_local(in, inout, 3, MPI_LONG, op));
  CHECK(seen_len == 3 && inout[2] == 20 + (20 + 1002), "MPI_Reduce_local with an MPI_Op_create_c op: length %lld",
        (long long)seen_len);
  MPI_Op_free(&op);
  for (int i = 0; i < 100; i++) inout[i] = 1000 + i;
  CHECK_MPI(MPI_Reduce_local_c(in, inout, 100, MPI_LONG, MPI_SUM));
  CHECK(inout[50] == 50 + 1050, "MPI_Reduce_local_c with MPI_SUM: inout[50] is %ld", inout[50]);
  mt_expect_error(MPI_Reduce_local_c(in, inout, -3, MPI_LONG, MPI_SUM), MPI_ERR_COUNT, "MPI_Reduce_local_c", "count -3");
  mt_expect_error(MPI_Op_create_c(NULL, 1, &op), MPI_ERR_ARG, "MPI_Op_create_c", "user_fn NULL");
}

/* Each large-count point-to-point call once, between neighbours. */
static void point_to_point(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[64], in[64];
  MPI_Status st;
  MPI_Request r[2];
  MPI_Count n = -1;
  for (int i = 0; i < 64; i++) out[i] = rank * 1000 + i;
  int tag = 0;
#define EXPECT_FROM_LEFT(what)                                                                               \
  do {                                                                                                       \
    for (int i_ = 0; i_ < 64; i_++)                                                                          \
      CHECK(in[i_] == left * 1000 + i_, "%s: in[%d] is %d, expected %d", what, i_, in[i_], left * 1000 + i_); \
  } while (0)

  const char *modes[] = {"MPI_Isend_c", "MPI_Issend_c", "MPI_Irsend_c"};
  for (int m = 0; m < 3; m++) {
    memset(in, 0, sizeof in);
    CHECK_MPI(MPI_Irecv_c(in, 64, MPI_INT, left, ++tag, MPI_COMM_WORLD, &r[0]));
    MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: the ready send is correct */
    if (m == 0) CHECK_MPI(MPI_Isend_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD, &r[1]));
    if (m == 1) CHECK_MPI(MPI_Issend_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD, &r[1]));
    if (m == 2) CHECK_MPI(MPI_Irsend_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD, &r[1]));
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    EXPECT_FROM_LEFT(modes[m]);
  }
  memset(in, 0, sizeof in);
  ++tag;
  CHECK_MPI(MPI_Sendrecv_c(out, 64, MPI_INT, right, tag, in, 64, MPI_INT, left, tag, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
  CHECK(n == 64, "MPI_Sendrecv_c: MPI_Get_count_c %lld", (long long)n);
  EXPECT_FROM_LEFT("MPI_Sendrecv_c");
  memcpy(in, out, sizeof in);
  ++tag;
  CHECK_MPI(MPI_Sendrecv_replace_c(in, 64, MPI_INT, right, tag, left, tag, MPI_COMM_WORLD, &st));
  EXPECT_FROM_LEFT("MPI_Sendrecv_replace_c");

  /* Blocking modes: the receive is posted first, so none can block. */
  const char *blocking[] = {"MPI_Send_c", "MPI_Ssend_c", "MPI_Rsend_c", "MPI_Bsend_c"};
  int bsize = (int)(64 * sizeof(int)) + MPI_BSEND_OVERHEAD;
  void *attached = malloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach_c(attached, bsize));
  for (int m = 0; m < 4; m++) {
    memset(in, 0, sizeof in);
    CHECK_MPI(MPI_Irecv(in, 64, MPI_INT, left, ++tag, MPI_COMM_WORLD, &r[0]));
    MPI_Barrier(MPI_COMM_WORLD);
    if (m == 0) CHECK_MPI(MPI_Send_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD));
    if (m == 1) CHECK_MPI(MPI_Ssend_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD));
    if (m == 2) CHECK_MPI(MPI_Rsend_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD));
    if (m == 3) CHECK_MPI(MPI_Bsend_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD));
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    EXPECT_FROM_LEFT(blocking[m]);
  }
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Ibsend_c(out, 64, MPI_INT, right, ++tag, MPI_COMM_WORLD, &r[1]));
  CHECK_MPI(MPI_Recv_c(in, 64, MPI_INT, left, tag, MPI_COMM_WORLD, &st));
  MPI_Wait(&r[1], MPI_STATUS_IGNORE);
  EXPECT_FROM_LEFT("MPI_Ibsend_c");
  void *detached = NULL;
  MPI_Count dsize = -1;
  CHECK_MPI(MPI_Buffer_detach_c(&detached, &dsize));
  CHECK(detached == attached && dsize == bsize, "MPI_Buffer_detach_c gave %p, %lld; attached %p, %d", detached,
        (long long)dsize, attached, bsize);
  free(attached);

  /* Persistent, all four send modes' _c init calls and MPI_Recv_init_c. */
  const char *inits[] = {"MPI_Send_init_c", "MPI_Ssend_init_c", "MPI_Rsend_init_c", "MPI_Bsend_init_c"};
  attached = malloc((size_t)bsize);
  MPI_Buffer_attach(attached, bsize);
  for (int m = 0; m < 4; m++) {
    memset(in, 0, sizeof in);
    CHECK_MPI(MPI_Recv_init_c(in, 64, MPI_INT, left, ++tag, MPI_COMM_WORLD, &r[0]));
    if (m == 0) CHECK_MPI(MPI_Send_init_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD, &r[1]));
    if (m == 1) CHECK_MPI(MPI_Ssend_init_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD, &r[1]));
    if (m == 2) CHECK_MPI(MPI_Rsend_init_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD, &r[1]));
    if (m == 3) CHECK_MPI(MPI_Bsend_init_c(out, 64, MPI_INT, right, tag, MPI_COMM_WORLD, &r[1]));
    MPI_Start(&r[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Start(&r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    EXPECT_FROM_LEFT(inits[m]);
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
  }
  int unused;
  MPI_Buffer_detach(&detached, &unused);
  free(attached);

  /* Matched receives. */
  MPI_Message msg;
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Isend(out, 64, MPI_INT, right, ++tag, MPI_COMM_WORLD, &r[1]));
  CHECK_MPI(MPI_Mprobe(left, tag, MPI_COMM_WORLD, &msg, &st));
  CHECK_MPI(MPI_Mrecv_c(in, 64, MPI_INT, &msg, &st));
  MPI_Wait(&r[1], MPI_STATUS_IGNORE);
  EXPECT_FROM_LEFT("MPI_Mrecv_c");
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Isend(out, 64, MPI_INT, right, ++tag, MPI_COMM_WORLD, &r[1]));
  CHECK_MPI(MPI_Mprobe(left, tag, MPI_COMM_WORLD, &msg, &st));
  CHECK_MPI(MPI_Imrecv_c(in, 64, MPI_INT, &msg, &r[0]));
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  EXPECT_FROM_LEFT("MPI_Imrecv_c");

  /* Bad counts name the _c call. */
  mt_expect_error(MPI_Send_c(out, -1, MPI_INT, right, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send_c", "count -1");
  mt_expect_error(MPI_Irecv_c(in, -5, MPI_INT, left, 0, MPI_COMM_WORLD, &r[0]), MPI_ERR_COUNT, "MPI_Irecv_c",
               "count -5");
  /* A count whose bytes pass 2^63 cannot be sent (Ferry-only: MPICH does not check). */
  if (mt_is_ferry())
    mt_expect_error(MPI_Send_c(out, (MPI_Count)1 << 62, MPI_INT, right, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send_c",
                 "2^62 ints");
  mt_expect_error(MPI_Type_contiguous_c(-1, MPI_INT, &(MPI_Datatype){0}), MPI_ERR_COUNT, "MPI_Type_contiguous_c",
               "count -1");
  mt_expect_error(MPI_Type_vector_c(2, -1, 1, MPI_INT, &(MPI_Datatype){0}), MPI_ERR_COUNT, "MPI_Type_vector_c",
               "blocklength -1");
}

/* A message whose type's displacements pass 2^31 and 2^32 bytes, through
 * point-to-point both ways: 3 bytes of a vector with a stride of 2^31 + 1
 * to 3 contiguous bytes of the left neighbour, and back into the vector.
 * The 4 GiB buffer is virtual: only the pages holding the 3 bytes are
 * touched. A rank that cannot reserve it skips, saying so. */
static void huge_stride_transfer(void) {
  const MPI_Count stride = ((MPI_Count)1 << 31) + 1;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char *far = calloc((size_t)(2 * stride + 1), 1);
  int have = far != NULL, all = 0;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all) {
    if (!have) printf("%s: rank %d: SKIPPED huge_stride_transfer: no 4 GiB of address space\n", TEST_NAME, rank);
    free(far);
    return;
  }
  MPI_Datatype spread;
  CHECK_MPI(MPI_Type_vector_c(3, 1, stride, MPI_BYTE, &spread));
  CHECK_MPI(MPI_Type_commit(&spread));
  for (int k = 0; k < 3; k++) far[k * stride] = (unsigned char)(rank * 16 + k + 1);
  unsigned char near[3] = {0, 0, 0};
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv_c(far, 1, spread, right, 99, near, 3, MPI_BYTE, left, 99, MPI_COMM_WORLD, &st));
  for (int k = 0; k < 3; k++)
    CHECK(near[k] == left * 16 + k + 1, "vector_c(stride 2^31 + 1) to contiguous: byte %d is %d, expected %d", k,
          near[k], left * 16 + k + 1);
  /* Back: contiguous into the vector, over what was there. */
  near[0] = 0xa1, near[1] = 0xb2, near[2] = 0xc3;
  CHECK_MPI(MPI_Sendrecv_c(near, 3, MPI_BYTE, right, 98, far, 1, spread, left, 98, MPI_COMM_WORLD, &st));
  MPI_Count n = -1;
  CHECK_MPI(MPI_Get_count_c(&st, spread, &n));
  CHECK(n == 1, "contiguous to vector_c: MPI_Get_count_c %lld, expected 1", (long long)n);
  for (int k = 0; k < 3; k++)
    CHECK(far[k * stride] == 0xa1 + 0x11 * k, "contiguous to vector_c: byte at %lld is 0x%02x", (long long)(k * stride),
          far[k * stride]);
  CHECK(far[1] == 0 && far[stride + 1] == 0 && far[stride - 1] == 0, "contiguous to vector_c wrote between its bytes");
  MPI_Type_free(&spread);
  free(far);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  huge_types();
  constructors();
  packing();
  reductions();
  point_to_point();
  huge_stride_transfer();
  mt_pass();
  MPI_Finalize();
  return 0;
}
