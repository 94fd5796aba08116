/*
 * What can be asked of a datatype: size, bounds and true bounds of derived
 * types (the values MPICH computes: struct padding, negative strides,
 * resized, subarray, darray), MPI_Type_get_envelope / get_contents for
 * every combiner, names, MPI_Get_elements on partial messages, and the
 * MPI-1 forms removed in MPI-3.0. Local calls only; every rank checks.
 */
#define TEST_NAME "type_queries"
#include "mpitest.h"

static void bounds(const char *what, MPI_Datatype t, int size, long lb, long extent, long tlb, long textent) {
  int s;
  MPI_Aint l, e, tl, te;
  MPI_Type_size(t, &s);
  MPI_Type_get_extent(t, &l, &e);
  MPI_Type_get_true_extent(t, &tl, &te);
  CHECK(s == size && l == lb && e == extent && tl == tlb && te == textent,
        "%s: size %d lb %ld extent %ld true lb %ld true extent %ld; expected %d %ld %ld %ld %ld", what, s, (long)l,
        (long)e, (long)tl, (long)te, size, lb, extent, tlb, textent);
  MPI_Count sx, lx, ex, tlx, tex;
  MPI_Type_size_x(t, &sx);
  MPI_Type_get_extent_x(t, &lx, &ex);
  MPI_Type_get_true_extent_x(t, &tlx, &tex);
  CHECK(sx == size && lx == lb && ex == extent && tlx == tlb && tex == textent, "%s: the _x queries differ", what);
}

static void check_bounds(void) {
  MPI_Datatype t, u, r;
  int one[3] = {1, 1, 1};

  MPI_Type_create_struct(2, one, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_DOUBLE, MPI_INT}, &t);
  bounds("struct {double@0, int@8}", t, 12, 0, 16, 0, 12);
  MPI_Type_vector(2, 1, 2, t, &u);
  bounds("vector(2, 1, 2) of it", u, 24, 0, 48, 0, 44);
  MPI_Type_free(&u);
  MPI_Type_free(&t);

  MPI_Type_create_struct(2, one, (MPI_Aint[]){0, 4}, (MPI_Datatype[]){MPI_INT, MPI_CHAR}, &t);
  bounds("struct {int@0, char@4}", t, 5, 0, 8, 0, 5);
  MPI_Type_free(&t);
  MPI_Type_create_struct(2, one, (MPI_Aint[]){0, 16}, (MPI_Datatype[]){MPI_LONG_DOUBLE, MPI_CHAR}, &t);
  bounds("struct {long double@0, char@16}", t, 17, 0, 32, 0, 17);
  MPI_Type_free(&t);
  MPI_Type_create_struct(2, one, (MPI_Aint[]){-3, 5}, (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE}, &t);
  bounds("struct {char@-3, double@5}", t, 9, -3, 16, -3, 16);
  MPI_Type_free(&t);

  MPI_Type_create_resized(MPI_DOUBLE, 0, 12, &r);
  bounds("resized(double, 0, 12)", r, 8, 0, 12, 0, 8);
  MPI_Type_create_struct(2, one, (MPI_Aint[]){0, 12}, (MPI_Datatype[]){r, MPI_CHAR}, &t);
  bounds("struct {resized@0, char@12}", t, 9, 0, 16, 0, 13);
  MPI_Type_free(&t);
  MPI_Type_free(&r);
  MPI_Type_create_resized(MPI_INT, -4, 16, &r);
  MPI_Type_contiguous(2, r, &t);
  bounds("contiguous(2, resized(int, -4, 16))", t, 8, -4, 32, 0, 20);
  MPI_Type_free(&t);
  MPI_Type_free(&r);

  MPI_Type_create_hvector(2, 1, -8, MPI_INT, &t);
  bounds("hvector(2, 1, -8, int)", t, 8, -8, 12, -8, 12);
  MPI_Type_free(&t);
  MPI_Type_create_hindexed(2, one, (MPI_Aint[]){0, -100}, MPI_INT, &t);
  bounds("hindexed {0, -100} of int", t, 8, -100, 104, -100, 104);
  MPI_Type_free(&t);
  MPI_Type_indexed(0, NULL, NULL, MPI_INT, &t);
  bounds("indexed with no blocks", t, 0, 0, 0, 0, 0);
  MPI_Type_free(&t);

  MPI_Type_create_subarray(2, (int[]){4, 4}, (int[]){2, 2}, (int[]){1, 1}, MPI_ORDER_C, MPI_INT, &t);
  bounds("subarray 2x2 at (1,1) of 4x4", t, 16, 0, 64, 20, 24);
  MPI_Type_free(&t);
  MPI_Type_create_darray(4, 1, 2, (int[]){8, 8}, (int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
                         (int[]){MPI_DISTRIBUTE_DFLT_DARG, 2}, (int[]){2, 2}, MPI_ORDER_C, MPI_INT, &t);
  bounds("darray 8x8 block x cyclic(2), rank 1 of 2x2", t, 64, 0, 256, 8, 120);
  MPI_Type_free(&t);

  /* More than an int of data: MPI_Type_size says MPI_UNDEFINED, _x the size. */
  MPI_Type_contiguous(1 << 12, MPI_DOUBLE, &r);
  MPI_Type_contiguous(1 << 20, r, &t);
  int s;
  MPI_Count sx;
  MPI_Type_size(t, &s);
  MPI_Type_size_x(t, &sx);
  CHECK(s == MPI_UNDEFINED && sx == ((MPI_Count)8 << 32), "32 GiB type: MPI_Type_size %d, _x %lld", s,
        (long long)sx);
  MPI_Type_free(&t);
  MPI_Type_free(&r);
}

/* The envelope and contents of `t` must be what built it. */
static void contents(const char *what, MPI_Datatype t, int combiner, int ni, const int *ints, int na,
                     const MPI_Aint *aints, int nd, const MPI_Datatype *types) {
  int gi, ga, gd, gc;
  MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc);
  CHECK(gc == combiner && gi == ni && ga == na && gd == nd, "%s: envelope (%d ints, %d addresses, %d types, "
        "combiner %d), expected (%d, %d, %d, %d)", what, gi, ga, gd, gc, ni, na, nd, combiner);
  int ri[32];
  MPI_Aint ra[8];
  MPI_Datatype rt[8];
  MPI_Type_get_contents(t, 32, 8, 8, ri, ra, rt);
  for (int k = 0; k < ni; k++) CHECK(ri[k] == ints[k], "%s: integer %d is %d, expected %d", what, k, ri[k], ints[k]);
  for (int k = 0; k < na; k++)
    CHECK(ra[k] == aints[k], "%s: address %d is %ld, expected %ld", what, k, (long)ra[k], (long)aints[k]);
  for (int k = 0; k < nd; k++) {
    int ki, ka, kd, kc;
    MPI_Type_get_envelope(rt[k], &ki, &ka, &kd, &kc);
    if (kc == MPI_COMBINER_NAMED) {
      CHECK(rt[k] == types[k], "%s: datatype %d is 0x%x, expected 0x%x", what, k, (unsigned)rt[k],
            (unsigned)types[k]);
    } else {
      /* A derived type comes back as a handle the caller frees (MPI-3.1 §4.1.13). */
      int s1, s2;
      MPI_Type_size(rt[k], &s1);
      MPI_Type_size(types[k], &s2);
      CHECK(s1 == s2, "%s: datatype %d has size %d, expected %d", what, k, s1, s2);
      MPI_Type_free(&rt[k]);
    }
  }
}

static void check_contents(void) {
  MPI_Datatype t, v;
  MPI_Type_vector(3, 2, 5, MPI_INT, &v);
  contents("vector", v, MPI_COMBINER_VECTOR, 3, (int[]){3, 2, 5}, 0, NULL, 1, (MPI_Datatype[]){MPI_INT});

  MPI_Type_contiguous(4, v, &t);
  contents("contiguous of a vector", t, MPI_COMBINER_CONTIGUOUS, 1, (int[]){4}, 0, NULL, 1, (MPI_Datatype[]){v});
  MPI_Type_free(&t);
  MPI_Type_create_hvector(2, 3, -40, MPI_DOUBLE, &t);
  contents("hvector", t, MPI_COMBINER_HVECTOR, 2, (int[]){2, 3}, 1, (MPI_Aint[]){-40}, 1,
           (MPI_Datatype[]){MPI_DOUBLE});
  MPI_Type_free(&t);
  MPI_Type_indexed(2, (int[]){1, 3}, (int[]){4, 0}, MPI_SHORT, &t);
  contents("indexed", t, MPI_COMBINER_INDEXED, 5, (int[]){2, 1, 3, 4, 0}, 0, NULL, 1, (MPI_Datatype[]){MPI_SHORT});
  MPI_Type_free(&t);
  MPI_Type_create_hindexed(2, (int[]){2, 1}, (MPI_Aint[]){16, 0}, MPI_INT, &t);
  contents("hindexed", t, MPI_COMBINER_HINDEXED, 3, (int[]){2, 2, 1}, 2, (MPI_Aint[]){16, 0}, 1,
           (MPI_Datatype[]){MPI_INT});
  MPI_Type_free(&t);
  MPI_Type_create_indexed_block(3, 2, (int[]){0, 5, 9}, MPI_CHAR, &t);
  contents("indexed_block", t, MPI_COMBINER_INDEXED_BLOCK, 5, (int[]){3, 2, 0, 5, 9}, 0, NULL, 1,
           (MPI_Datatype[]){MPI_CHAR});
  MPI_Type_free(&t);
  MPI_Type_create_hindexed_block(2, 4, (MPI_Aint[]){8, 64}, MPI_FLOAT, &t);
  contents("hindexed_block", t, MPI_COMBINER_HINDEXED_BLOCK, 2, (int[]){2, 4}, 2, (MPI_Aint[]){8, 64}, 1,
           (MPI_Datatype[]){MPI_FLOAT});
  MPI_Type_free(&t);
  MPI_Type_create_struct(2, (int[]){1, 2}, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_DOUBLE, v}, &t);
  contents("struct", t, MPI_COMBINER_STRUCT, 3, (int[]){2, 1, 2}, 2, (MPI_Aint[]){0, 8}, 2,
           (MPI_Datatype[]){MPI_DOUBLE, v});
  MPI_Type_free(&t);
  MPI_Type_create_subarray(2, (int[]){6, 5}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_FORTRAN, MPI_INT, &t);
  contents("subarray", t, MPI_COMBINER_SUBARRAY, 8, (int[]){2, 6, 5, 2, 3, 1, 2, MPI_ORDER_FORTRAN}, 0, NULL, 1,
           (MPI_Datatype[]){MPI_INT});
  MPI_Type_free(&t);
  MPI_Type_create_darray(2, 1, 1, (int[]){10}, (int[]){MPI_DISTRIBUTE_CYCLIC}, (int[]){3}, (int[]){2}, MPI_ORDER_C,
                         MPI_INT, &t);
  contents("darray", t, MPI_COMBINER_DARRAY, 8,
           (int[]){2, 1, 1, 10, MPI_DISTRIBUTE_CYCLIC, 3, 2, MPI_ORDER_C}, 0, NULL, 1, (MPI_Datatype[]){MPI_INT});
  MPI_Type_free(&t);
  MPI_Type_create_resized(v, -8, 100, &t);
  contents("resized", t, MPI_COMBINER_RESIZED, 0, NULL, 2, (MPI_Aint[]){-8, 100}, 1, (MPI_Datatype[]){v});
  MPI_Type_free(&t);
  MPI_Type_dup(v, &t);
  contents("dup", t, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, (MPI_Datatype[]){v});
  MPI_Type_free(&t);

  /* The contents hold the vector after the user frees it. */
  MPI_Type_contiguous(2, v, &t);
  MPI_Type_free(&v);
  int ni, na, nd, c, ints[1];
  MPI_Datatype inner;
  MPI_Type_get_contents(t, 1, 0, 1, ints, NULL, &inner);
  MPI_Type_get_envelope(inner, &ni, &na, &nd, &c);
  CHECK(c == MPI_COMBINER_VECTOR, "a freed vector's contents: combiner %d", c);
  MPI_Type_free(&inner);
  MPI_Type_free(&t);

  MPI_Type_get_envelope(MPI_DOUBLE_INT, &ni, &na, &nd, &c);
  CHECK(c == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "MPI_DOUBLE_INT: combiner %d", c);
  MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &c);
  CHECK(c == MPI_COMBINER_NAMED, "MPI_INT: combiner %d", c);
}

static void check_names(void) {
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Type_get_name(MPI_DOUBLE_INT, name, &len);
  CHECK(strcmp(name, "MPI_DOUBLE_INT") == 0 && len == 14, "MPI_DOUBLE_INT is named '%s' (%d)", name, len);
  MPI_Type_get_name(MPI_INT, name, &len);
  CHECK(strcmp(name, "MPI_INT") == 0, "MPI_INT is named '%s'", name);
  MPI_Datatype t;
  MPI_Type_contiguous(3, MPI_INT, &t);
  MPI_Type_get_name(t, name, &len);
  CHECK(len == 0 && name[0] == '\0', "a new type is named '%s'", name);
  MPI_Type_set_name(t, "triple");
  MPI_Type_get_name(t, name, &len);
  CHECK(strcmp(name, "triple") == 0 && len == 6, "after MPI_Type_set_name: '%s' (%d)", name, len);
  MPI_Type_free(&t);
}

static void check_elements(void) {
  MPI_Datatype pair;
  MPI_Status st;
  int n;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Status_set_elements(&st, MPI_BYTE, 10);
  MPI_Get_elements(&st, pair, &n);
  CHECK(n == 2, "10 bytes of contiguous(2, int): MPI_Get_elements gave %d, expected 2", n);
  MPI_Get_count(&st, pair, &n);
  CHECK(n == MPI_UNDEFINED, "10 bytes of contiguous(2, int): MPI_Get_count gave %d", n);
  MPI_Status_set_elements(&st, MPI_BYTE, 6);
  MPI_Get_elements(&st, MPI_INT, &n);
  CHECK(n == MPI_UNDEFINED, "6 bytes of MPI_INT: MPI_Get_elements gave %d", n);
  MPI_Type_free(&pair);

  MPI_Datatype mixed;
  MPI_Type_create_struct(2, (int[]){2, 1}, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_INT, MPI_DOUBLE}, &mixed);
  MPI_Type_commit(&mixed);
  static const int want[] = {0, 1, 2, 2, 3, 4, 5, 5, 6, 7, 8}; /* every 4 bytes, as MPICH counts */
  for (int b = 0; b <= 40; b += 4) {
    MPI_Status_set_elements(&st, MPI_BYTE, b);
    MPI_Get_elements(&st, mixed, &n);
    CHECK(n == want[b / 4], "%d bytes of struct {2 int, double}: %d elements, expected %d", b, n, want[b / 4]);
  }
  MPI_Type_free(&mixed);
}

static void check_mpi1(void) {
  MPI_Datatype t;
  MPI_Aint extent, lb, ub, a1, a2;
  int x[4];
  MPI_Type_hvector(3, 1, 16, MPI_INT, &t);
  MPI_Type_extent(t, &extent);
  MPI_Type_lb(t, &lb);
  MPI_Type_ub(t, &ub);
  CHECK(extent == 36 && lb == 0 && ub == 36, "MPI_Type_hvector: extent %ld lb %ld ub %ld", (long)extent, (long)lb,
        (long)ub);
  MPI_Type_free(&t);
  MPI_Type_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){8, -8}, MPI_INT, &t);
  MPI_Type_lb(t, &lb);
  MPI_Type_ub(t, &ub);
  CHECK(lb == -8 && ub == 12, "MPI_Type_hindexed: lb %ld ub %ld", (long)lb, (long)ub);
  MPI_Type_free(&t);
  MPI_Type_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_DOUBLE, MPI_CHAR}, &t);
  MPI_Type_extent(t, &extent);
  CHECK(extent == 16, "MPI_Type_struct {double, char}: extent %ld", (long)extent);
  MPI_Type_free(&t);
  MPI_Address(&x[2], &a1);
  MPI_Get_address(&x[2], &a2);
  CHECK(a1 == a2 && a1 == (MPI_Aint)&x[2], "MPI_Address %ld, MPI_Get_address %ld", (long)a1, (long)a2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  check_bounds();
  check_contents();
  check_names();
  check_elements();
  check_mpi1();
  mt_pass();
  MPI_Finalize();
  return 0;
}
