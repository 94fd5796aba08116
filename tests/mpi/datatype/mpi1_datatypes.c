/*
 * What MPICH 4.0 still does for MPI-1 programs, which Ferry matches:
 * - MPI_LB and MPI_UB in MPI_Type_struct / MPI_Type_create_struct mark the
 *   type's lower and upper bounds (MPI-1 §3.12.3; removed in MPI-3.0): the
 *   markers carry no data, a bound without a marker is the struct's own,
 *   and a struct of markers alone has no data and the markers' bounds
 *   (extent ub - lb, negative if they say so). The envelope and contents
 *   are the call's, markers included.
 * - MPI_LB and MPI_UB are types of size and extent 0, named "MPI_LB" and
 *   "MPI_UB"; MPI_C_COMPLEX (the same handle as MPI_C_FLOAT_COMPLEX) is
 *   named "MPI_C_COMPLEX".
 * - MPI_Type_match_size (MPI-3.1 §17.2.5) finds the predefined type of a
 *   type class and size, Fortran's sized types first.
 */
#define TEST_NAME "mpi1_datatypes"
#include "mpitest.h"

static void bounds_of(MPI_Datatype t, MPI_Aint want_lb, MPI_Aint want_extent, int want_size, const char *what) {
  MPI_Aint lb = -1, extent = -1, old_lb = -1, old_ub = -1, old_extent = -1;
  int size = -1;
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK(lb == want_lb && extent == want_extent && size == want_size,
        "%s: lb %ld, extent %ld, size %d; expected %ld, %ld, %d", what, (long)lb, (long)extent, size,
        (long)want_lb, (long)want_extent, want_size);
  CHECK_MPI(MPI_Type_lb(t, &old_lb));
  CHECK_MPI(MPI_Type_ub(t, &old_ub));
  CHECK_MPI(MPI_Type_extent(t, &old_extent));
  CHECK(old_lb == lb && old_ub == lb + extent && old_extent == extent,
        "%s: MPI_Type_lb/ub/extent say %ld/%ld/%ld", what, (long)old_lb, (long)old_ub, (long)old_extent);
}

static void markers(void) {
  /* { (LB, -4), (int, 0), (int, 8), (UB, 20) }: lb -4, ub 20, 8 bytes of data. */
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_struct(4, (int[]){1, 1, 1, 1}, (MPI_Aint[]){-4, 0, 8, 20},
                            (MPI_Datatype[]){MPI_LB, MPI_INT, MPI_INT, MPI_UB}, &t));
  bounds_of(t, -4, 24, 8, "struct {LB -4, int 0, int 8, UB 20}");
  MPI_Aint true_lb = -1, true_extent = -1;
  CHECK_MPI(MPI_Type_get_true_extent(t, &true_lb, &true_extent));
  CHECK(true_lb == 0 && true_extent == 12, "true lb %ld, true extent %ld; expected 0, 12", (long)true_lb,
        (long)true_extent);

  /* The bounds set the stride of consecutive elements: 3 of them are 24 bytes apart. */
  CHECK_MPI(MPI_Type_commit(&t));
  int in[18], out[18];
  for (int i = 0; i < 18; i++) in[i] = i + 1, out[i] = -1;
  /* Element k's ints lie 24k and 24k + 8 bytes from the buffer's start. */
  MPI_Sendrecv(in + 1, 3, t, 0, 0, out + 1, 3, t, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  for (int i = 1; i < 18; i++) {
    int in_type = (i - 1) % 6 == 0 || (i - 1) % 6 == 2;
    CHECK(out[i] == (in_type ? in[i] : -1), "3 elements sent to self: int %d is %d", i, out[i]);
  }
  /* The envelope and contents are the call's, markers included. */
  int ni, na, nt, combiner, ints[5];
  MPI_Aint addrs[4];
  MPI_Datatype types[4];
  CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner));
  CHECK(combiner == MPI_COMBINER_STRUCT && ni == 5 && na == 4 && nt == 4,
        "the envelope is combiner %d with %d ints, %d addresses and %d types", combiner, ni, na, nt);
  CHECK_MPI(MPI_Type_get_contents(t, 5, 4, 4, ints, addrs, types));
  CHECK(types[0] == MPI_LB && types[1] == MPI_INT && types[3] == MPI_UB && addrs[0] == -4 && addrs[3] == 20,
        "the contents are types 0x%x 0x%x .. 0x%x at %ld .. %ld", (unsigned)types[0], (unsigned)types[1],
        (unsigned)types[3], (long)addrs[0], (long)addrs[3]);
  MPI_Type_free(&t);

  /* Only an upper bound: the lower bound is the data's. MPI_Type_create_struct too. */
  CHECK_MPI(MPI_Type_create_struct(2, (int[]){2, 1}, (MPI_Aint[]){8, 32}, (MPI_Datatype[]){MPI_DOUBLE, MPI_UB}, &t));
  bounds_of(t, 8, 24, 16, "struct {2 doubles at 8, UB 32}");
  MPI_Type_free(&t);

  /* Only a lower bound: the upper bound is the struct's, padding included. */
  CHECK_MPI(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_LB, MPI_DOUBLE}, &t));
  bounds_of(t, 0, 16, 8, "struct {LB 0, double at 8}");
  MPI_Type_free(&t);

  /* No real types (MPICH's struct_no_real_types): { (LB, 10) } has ub 0. */
  CHECK_MPI(MPI_Type_create_struct(1, (int[]){1}, (MPI_Aint[]){10}, (MPI_Datatype[]){MPI_LB}, &t));
  bounds_of(t, 10, -10, 0, "struct {LB 10}");
  MPI_Type_free(&t);

  /* A marker type in a later constructor keeps its bounds. */
  MPI_Datatype inner, outer;
  CHECK_MPI(MPI_Type_struct(3, (int[]){1, 1, 1}, (MPI_Aint[]){0, 0, 16},
                            (MPI_Datatype[]){MPI_LB, MPI_SHORT, MPI_UB}, &inner));
  CHECK_MPI(MPI_Type_contiguous(4, inner, &outer));
  bounds_of(outer, 0, 64, 8, "4 x struct {LB 0, short, UB 16}");
  MPI_Type_free(&inner);
  MPI_Type_free(&outer);

  if (mt_is_ferry()) {
    /* Several markers of a kind: the least lower and the greatest upper bound, as
     * MPI-1 defined them (MPICH 4.0 takes the last marker of each kind). */
    CHECK_MPI(MPI_Type_struct(5, (int[]){1, 1, 1, 1, 1}, (MPI_Aint[]){-8, -16, 0, 40, 24},
                              (MPI_Datatype[]){MPI_LB, MPI_LB, MPI_INT, MPI_UB, MPI_UB}, &t));
    bounds_of(t, -16, 56, 4, "struct {LB -8, LB -16, int, UB 40, UB 24}");
    MPI_Type_free(&t);
  }
}

static void marker_types_and_names(void) {
  int size = -1;
  MPI_Aint lb = -1, extent = -1;
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  const struct {
    MPI_Datatype type;
    const char *name;
  } names[] = {
      {MPI_LB, "MPI_LB"},
      {MPI_UB, "MPI_UB"},
      {MPI_C_COMPLEX, "MPI_C_COMPLEX"},
      {MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX"}, /* the same handle in MPICH's header */
      {MPI_LONG_LONG, "MPI_LONG_LONG_INT"},   /* likewise */
      {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    name[0] = '\0';
    CHECK_MPI(MPI_Type_get_name(names[i].type, name, &len));
    CHECK(strcmp(name, names[i].name) == 0 && len == (int)strlen(names[i].name), "type %zu is named \"%s\" (%d), "
          "expected \"%s\"", i, name, len, names[i].name);
  }
  CHECK_MPI(MPI_Type_size(MPI_LB, &size));
  CHECK_MPI(MPI_Type_get_extent(MPI_UB, &lb, &extent));
  CHECK(size == 0 && lb == 0 && extent == 0, "MPI_LB has size %d, MPI_UB lb %ld and extent %ld", size, (long)lb,
        (long)extent);
}

static void match_size(void) {
  const struct {
    int typeclass, size;
    MPI_Datatype want;
    const char *what;
  } cases[] = {
      {MPI_TYPECLASS_REAL, 4, MPI_REAL4, "4-byte real"},
      {MPI_TYPECLASS_REAL, 8, MPI_REAL8, "8-byte real"},
      {MPI_TYPECLASS_REAL, (int)sizeof(long double), MPI_REAL16, "long double"},
      {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1, "1-byte integer"},
      {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2, "2-byte integer"},
      {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4, "4-byte integer"},
      {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8, "8-byte integer"},
      {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8, "8-byte complex"},
      {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16, "16-byte complex"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int size = -1;
    CHECK_MPI(MPI_Type_match_size(cases[i].typeclass, cases[i].size, &t));
    CHECK_MPI(MPI_Type_size(t, &size));
    CHECK(size == cases[i].size, "%s: MPI_Type_match_size gave a type of %d bytes", cases[i].what, size);
    CHECK(t == cases[i].want, "%s: MPI_Type_match_size gave 0x%x, expected 0x%x", cases[i].what, (unsigned)t,
          (unsigned)cases[i].want);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype t = MPI_DATATYPE_NULL;
  int cls = -1;
  int rc = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "a 3-byte integer: class %d, expected MPI_ERR_ARG", cls);
  rc = MPI_Type_match_size(99, 4, &t);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "type class 99: class %d, expected MPI_ERR_ARG", cls);
  CHECK(t == MPI_DATATYPE_NULL, "a failed MPI_Type_match_size wrote its result");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  markers();
  marker_types_and_names();
  match_size();
  mt_pass();
  MPI_Finalize();
  return 0;
}
