/*
 * The C half of f_attr_languages (f_attr_languages.f90): reads and sets attributes in C, and C copy and
 * delete callbacks, for the Fortran half to check against (MPI-4.0 §19.3.7). Handles come in as
 * Fortran INTEGERs; every check counts into `errors`, which the Fortran program reads.
 */
#include <mpi.h>
#include <stdio.h>

static int errors;
static int c_attribute = 17;             /* what C sets: its address is the attribute */
static MPI_Aint copy_saw, delete_saw;   /* the value a C callback found behind its pointer */
static MPI_Aint copy_target;            /* where the C copy callback's copy points */

static void check(int ok, const char *what) {
  if (!ok) {
    printf("f_attr_languages: C: %s\n", what);
    errors++;
  }
}

int c_errors(void) { return errors; }
MPI_Aint c_attribute_address(void) { return (MPI_Aint)&c_attribute; }
MPI_Aint c_copy_target_address(void) { return (MPI_Aint)&copy_target; }
MPI_Aint c_copy_saw(void) { return copy_saw; }
MPI_Aint c_delete_saw(void) { return delete_saw; }

/* C set, read back in C and (by the Fortran half) in Fortran. */
void c_set_comm(MPI_Fint *comm, MPI_Fint *keyval) {
  check(MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *keyval, &c_attribute) == MPI_SUCCESS, "MPI_Comm_set_attr");
}

/* A Fortran-set attribute read in C: a pointer to the address-sized integer Fortran stored. */
void c_expect_comm_aint(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *expected, const char *what) {
  MPI_Aint *value = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *keyval, &value, &flag);
  check(flag && value != NULL && *value == *expected, what);
}

/* An attribute C set, read in C: the pointer itself. */
void c_expect_comm_pointer(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *expected, const char *what) {
  void *value = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *keyval, &value, &flag);
  check(flag && (MPI_Aint)value == *expected, what);
}

/* MPI-1: an INTEGER set with MPI_ATTR_PUT, read with MPI_Attr_get through a pointer to an int. */
void c_expect_comm_int(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *expected, const char *what) {
  int *value = NULL;
  int flag = 0;
  MPI_Attr_get(MPI_Comm_f2c(*comm), *keyval, &value, &flag);
  check(flag && value != NULL && *value == *expected, what);
}

void c_expect_type_aint(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *expected) {
  MPI_Aint *value = NULL;
  int flag = 0;
  MPI_Type_get_attr(MPI_Type_f2c(*type), *keyval, &value, &flag);
  check(flag && value != NULL && *value == *expected, "Fortran-set datatype attribute read in C");
}

void c_expect_win_aint(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *expected) {
  MPI_Aint *value = NULL;
  int flag = 0;
  MPI_Win_get_attr(MPI_Win_f2c(*win), *keyval, &value, &flag);
  check(flag && value != NULL && *value == *expected, "Fortran-set window attribute read in C");
}

/* The predefined MPI_TAG_UB in C: a pointer to an int. Returns it for Fortran to compare. */
MPI_Fint c_tag_ub(void) {
  int *value = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
  check(flag && value != NULL, "MPI_TAG_UB in C");
  return flag && value != NULL ? *value : -1;
}

/* C callbacks on a Fortran-set value get a pointer to it; the copy is a C pointer. */
static int copy_fn(MPI_Comm comm, int keyval, void *extra_state, void *in, void *out, int *flag) {
  copy_saw = *(MPI_Aint *)in;
  copy_target = copy_saw + 1;
  *(void **)out = &copy_target;
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *value, void *extra_state) {
  /* The C-set copy points at copy_target, the Fortran-set original at Fortran's integer: both hold an
   * MPI_Aint. */
  delete_saw = *(MPI_Aint *)value;
  return MPI_SUCCESS;
}

MPI_Fint c_keyval(void) {
  int keyval = MPI_KEYVAL_INVALID;
  check(MPI_Comm_create_keyval(copy_fn, delete_fn, &keyval, NULL) == MPI_SUCCESS, "MPI_Comm_create_keyval");
  return keyval;
}
