/*
 * Attribute caching from Fortran (MPI-4.0 §7.7, §19.3.7): keyvals whose copy and delete callbacks are
 * Fortran subroutines, attribute values that are INTEGER(KIND=MPI_ADDRESS_KIND) (or INTEGER, for
 * MPI-1's MPI_Attr_*), and the predefined attributes read as values. The predefined callbacks
 * (MPI_COMM_DUP_FN and friends) are Fortran routines of their own (predefined_callbacks.c).
 *
 * MPI-4.0 §19.3.7: a value set from Fortran is an integer, which C reads through a pointer to it; a
 * value set from C is a pointer, which Fortran reads as the integer it converts to. So the bindings
 * set and get through libmpi's MPII_*_set_attr/MPII_*_get_attr (MPICH's names and numbers), which
 * record the language of each value and answer each reader in its own (base/attribute.h, Form).
 * A Fortran callback cannot be called as a C one (everything by reference, an error argument instead
 * of a return value): the keyval is created with C trampolines, and its extra_state is a small record
 * of the Fortran callbacks and the program's own extra_state; the keyval is marked as Fortran's, so
 * that the trampolines get the values as Fortran integers. The record lives as long as the process,
 * since attributes may outlive the keyval's handle.
 *
 * MPI_Comm, MPI_Datatype and MPI_Win are all int in MPICH's ABI, so one trampoline serves the three
 * kinds of objects, and MPI-1's MPI_Keyval_create has its own pair (INTEGER values).
 */
#include <stdlib.h>

#include "fortran_binding.h"

/* libmpi's entry points for Fortran's attributes (src/api/attribute.cc): the form of a value is
 * MPICH's MPIR_Attr_type. */
enum { kFormPointer = 0, kFormAint = 1, kFormInt = 3 };
int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void *value, int form);
int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag, int as);
int MPII_Type_set_attr(MPI_Datatype datatype, int keyval, void *value, int form);
int MPII_Type_get_attr(MPI_Datatype datatype, int keyval, void *value, int *flag, int as);
int MPII_Win_set_attr(MPI_Win win, int keyval, void *value, int form);
int MPII_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag, int as);
int MPII_Keyval_set_fortran(int keyval);

typedef void FortranCopy(MPI_Fint *oldobj, MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Aint *value_in,
                         MPI_Aint *value_out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void FortranDelete(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value, MPI_Aint *extra_state, MPI_Fint *ierr);
/* MPI-1 (MPI_Keyval_create): the same with default INTEGERs. */
typedef void FortranCopy1(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state, MPI_Fint *value_in,
                          MPI_Fint *value_out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void FortranDelete1(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *extra_state, MPI_Fint *ierr);

/* The names a program passes (mpif.h's EXTERNALs), declared for the comparisons below. Both spellings
 * count: a program names mpi_x_, a profiling layer may pass pmpi_x_. */
extern FortranCopy mpi_comm_null_copy_fn_, mpi_comm_dup_fn_, mpi_type_null_copy_fn_, mpi_type_dup_fn_,
    mpi_win_null_copy_fn_, mpi_win_dup_fn_, pmpi_comm_null_copy_fn_, pmpi_comm_dup_fn_, pmpi_type_null_copy_fn_,
    pmpi_type_dup_fn_, pmpi_win_null_copy_fn_, pmpi_win_dup_fn_;
extern FortranDelete mpi_comm_null_delete_fn_, mpi_type_null_delete_fn_, mpi_win_null_delete_fn_,
    pmpi_comm_null_delete_fn_, pmpi_type_null_delete_fn_, pmpi_win_null_delete_fn_;
extern FortranCopy1 mpi_null_copy_fn_, mpi_dup_fn_, pmpi_null_copy_fn_, pmpi_dup_fn_;
extern FortranDelete1 mpi_null_delete_fn_, pmpi_null_delete_fn_;

/* ------------------------------------------------------------------------------------------------
 * Keyvals with Fortran callbacks.
 * ---------------------------------------------------------------------------------------------- */
struct FortranCallbacks {
  FortranCopy *copy;
  FortranDelete *delete_fn;
  MPI_Aint extra_state;
};

static int copy_trampoline(int oldobj, int keyval, void *extra_state, void *value_in, void *value_out, int *flag) {
  struct FortranCallbacks *f = extra_state;
  MPI_Fint f_oldobj = oldobj, f_keyval = keyval, f_flag = FERRY_FORTRAN_FALSE, ierr = MPI_SUCCESS;
  MPI_Aint f_in = (MPI_Aint)value_in, f_out = 0;
  f->copy(&f_oldobj, &f_keyval, &f->extra_state, &f_in, &f_out, &f_flag, &ierr);
  *flag = 0;
  if (ierr == MPI_SUCCESS && f_flag) {
    *flag = 1;
    *(void **)value_out = (void *)f_out;
  }
  return ierr;
}

static int delete_trampoline(int obj, int keyval, void *value, void *extra_state) {
  struct FortranCallbacks *f = extra_state;
  MPI_Fint f_obj = obj, f_keyval = keyval, ierr = MPI_SUCCESS;
  MPI_Aint f_value = (MPI_Aint)value;
  f->delete_fn(&f_obj, &f_keyval, &f_value, &f->extra_state, &ierr);
  return ierr;
}

/* The C callbacks for a pair of Fortran ones: the predefined ones map to C's own, anything else to a
 * trampoline. Returns the extra_state to give the C library (NULL when memory runs out). */
static void *c_callbacks(FortranCopy *copy, FortranDelete *delete_fn, MPI_Aint extra_state, FortranCopy *null_copy,
                         FortranCopy *pnull_copy, FortranCopy *dup, FortranCopy *pdup, FortranDelete *null_delete,
                         FortranDelete *pnull_delete, MPI_Comm_copy_attr_function **c_copy,
                         MPI_Comm_delete_attr_function **c_delete) {
  if (copy == null_copy || copy == pnull_copy) *c_copy = MPI_COMM_NULL_COPY_FN;
  else if (copy == dup || copy == pdup) *c_copy = MPI_COMM_DUP_FN;
  else *c_copy = copy_trampoline;
  if (delete_fn == null_delete || delete_fn == pnull_delete) *c_delete = MPI_COMM_NULL_DELETE_FN;
  else *c_delete = delete_trampoline;
  struct FortranCallbacks *f = malloc(sizeof *f);
  if (f != NULL) *f = (struct FortranCallbacks){copy, delete_fn, extra_state};
  return f;
}

#define FERRY_CREATE_KEYVAL(lower, UPPER, call, object)                                                           \
  void pmpi_##lower##_(FortranCopy *copy_fn, FortranDelete *delete_fn, MPI_Fint *keyval, MPI_Aint *extra_state,  \
                       MPI_Fint *ierr) {                                                                          \
    MPI_Comm_copy_attr_function *c_copy;                                                                          \
    MPI_Comm_delete_attr_function *c_delete;                                                                      \
    void *state = c_callbacks(copy_fn, delete_fn, *extra_state, mpi_##object##_null_copy_fn_,                     \
                              pmpi_##object##_null_copy_fn_, mpi_##object##_dup_fn_, pmpi_##object##_dup_fn_,     \
                              mpi_##object##_null_delete_fn_, pmpi_##object##_null_delete_fn_, &c_copy,           \
                              &c_delete);                                                                         \
    *ierr = state == NULL ? MPI_ERR_NO_MEM : call(c_copy, c_delete, keyval, state);                               \
    if (*ierr == MPI_SUCCESS) *ierr = MPII_Keyval_set_fortran(*keyval);                                         \
  }                                                                                                               \
  FERRY_FORTRAN_ALIASES(lower, UPPER)

FERRY_CREATE_KEYVAL(comm_create_keyval, COMM_CREATE_KEYVAL, MPI_Comm_create_keyval, comm)
FERRY_CREATE_KEYVAL(type_create_keyval, TYPE_CREATE_KEYVAL, MPI_Type_create_keyval, type)
FERRY_CREATE_KEYVAL(win_create_keyval, WIN_CREATE_KEYVAL, MPI_Win_create_keyval, win)

/* MPI-1's keyvals: INTEGER extra_state and values. */
struct FortranCallbacks1 {
  FortranCopy1 *copy;
  FortranDelete1 *delete_fn;
  MPI_Fint extra_state;
};

static int copy_trampoline1(MPI_Comm oldcomm, int keyval, void *extra_state, void *value_in, void *value_out,
                            int *flag) {
  struct FortranCallbacks1 *f = extra_state;
  MPI_Fint f_oldcomm = oldcomm, f_keyval = keyval, f_flag = FERRY_FORTRAN_FALSE, ierr = MPI_SUCCESS;
  MPI_Fint f_in = (MPI_Fint)(MPI_Aint)value_in, f_out = 0;
  f->copy(&f_oldcomm, &f_keyval, &f->extra_state, &f_in, &f_out, &f_flag, &ierr);
  *flag = 0;
  if (ierr == MPI_SUCCESS && f_flag) {
    *flag = 1;
    *(void **)value_out = (void *)(MPI_Aint)f_out;
  }
  return ierr;
}

static int delete_trampoline1(MPI_Comm comm, int keyval, void *value, void *extra_state) {
  struct FortranCallbacks1 *f = extra_state;
  MPI_Fint f_comm = comm, f_keyval = keyval, ierr = MPI_SUCCESS;
  MPI_Fint f_value = (MPI_Fint)(MPI_Aint)value;
  f->delete_fn(&f_comm, &f_keyval, &f_value, &f->extra_state, &ierr);
  return ierr;
}

void pmpi_keyval_create_(FortranCopy1 *copy_fn, FortranDelete1 *delete_fn, MPI_Fint *keyval, MPI_Fint *extra_state,
                         MPI_Fint *ierr) {
  MPI_Copy_function *c_copy = copy_trampoline1;
  MPI_Delete_function *c_delete = delete_trampoline1;
  if (copy_fn == mpi_null_copy_fn_ || copy_fn == pmpi_null_copy_fn_) c_copy = MPI_NULL_COPY_FN;
  else if (copy_fn == mpi_dup_fn_ || copy_fn == pmpi_dup_fn_) c_copy = MPI_DUP_FN;
  if (delete_fn == mpi_null_delete_fn_ || delete_fn == pmpi_null_delete_fn_) c_delete = MPI_NULL_DELETE_FN;
  struct FortranCallbacks1 *f = malloc(sizeof *f);
  if (f == NULL) {
    *ierr = MPI_ERR_NO_MEM;
    return;
  }
  *f = (struct FortranCallbacks1){copy_fn, delete_fn, *extra_state};
  *ierr = MPI_Keyval_create(c_copy, c_delete, keyval, f);
  if (*ierr == MPI_SUCCESS) *ierr = MPII_Keyval_set_fortran(*keyval);
}
FERRY_FORTRAN_ALIASES(keyval_create, KEYVAL_CREATE)

/* ------------------------------------------------------------------------------------------------
 * Reading attributes.
 * ---------------------------------------------------------------------------------------------- */

/* Fortran's predefined keyvals are C's plus one (mpi_api.txt's constants); C's attribute is a pointer
 * to the value, except MPI_WIN_BASE, which is the base address itself (MPI-4.0 §12.2.6). */
enum Predefined { kNotPredefined, kInt, kAint, kAddress };

static int c_keyval(int keyval, enum Predefined *how) {
  static const struct {
    int c_keyval;
    enum Predefined how;
  } predefined[] = {
      {MPI_TAG_UB, kInt},           {MPI_HOST, kInt},         {MPI_IO, kInt},
      {MPI_WTIME_IS_GLOBAL, kInt},  {MPI_UNIVERSE_SIZE, kInt}, {MPI_LASTUSEDCODE, kInt},
      {MPI_APPNUM, kInt},           {MPI_WIN_BASE, kAddress},  {MPI_WIN_SIZE, kAint},
      {MPI_WIN_DISP_UNIT, kInt},    {MPI_WIN_CREATE_FLAVOR, kInt}, {MPI_WIN_MODEL, kInt},
  };
  for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
    if (keyval == predefined[i].c_keyval + 1) {
      *how = predefined[i].how;
      return predefined[i].c_keyval;
    }
  }
  *how = kNotPredefined;
  return keyval;
}

static MPI_Aint fortran_value(void *value, enum Predefined how) {
  switch (how) {
    case kInt: return *(int *)value;
    case kAint: return *(MPI_Aint *)value;
    case kAddress:
    case kNotPredefined: break;
  }
  return (MPI_Aint)value;
}

typedef int GetAttr(int obj, int keyval, void *value, int *flag, int as);

/* `as`: the form the reader wants, an integer either way (a predefined attribute is C's, so its pointer
 * comes back and is read here). */
static void get_attr(GetAttr *get, MPI_Fint obj, MPI_Fint keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr,
                     int as) {
  enum Predefined how;
  int c_key = c_keyval(keyval, &how);
  void *c_value = NULL;
  int c_flag = 0;
  *ierr = get(obj, c_key, &c_value, &c_flag, as);
  if (*ierr == MPI_SUCCESS && c_flag) *value = fortran_value(c_value, how);
  *flag = c_flag ? FERRY_FORTRAN_TRUE : FERRY_FORTRAN_FALSE;
}

void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr) {
  get_attr(MPII_Comm_get_attr, *comm, *keyval, value, flag, ierr, kFormAint);
}
FERRY_FORTRAN_ALIASES(comm_get_attr, COMM_GET_ATTR)

void pmpi_type_get_attr_(MPI_Fint *datatype, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr) {
  get_attr(MPII_Type_get_attr, *datatype, *keyval, value, flag, ierr, kFormAint);
}
FERRY_FORTRAN_ALIASES(type_get_attr, TYPE_GET_ATTR)

void pmpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr) {
  get_attr(MPII_Win_get_attr, *win, *keyval, value, flag, ierr, kFormAint);
}
FERRY_FORTRAN_ALIASES(win_get_attr, WIN_GET_ATTR)

/* MPI-1's MPI_ATTR_GET and MPI_ATTR_PUT: INTEGER values. */
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag, MPI_Fint *ierr) {
  MPI_Aint v = 0;
  get_attr(MPII_Comm_get_attr, *comm, *keyval, &v, flag, ierr, kFormInt);
  if (*ierr == MPI_SUCCESS && *flag) *value = (MPI_Fint)v;
}
FERRY_FORTRAN_ALIASES(attr_get, ATTR_GET)

void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierr) {
  *ierr = MPII_Comm_set_attr((MPI_Comm)*comm, *keyval, (void *)(MPI_Aint)*value, kFormInt);
}
FERRY_FORTRAN_ALIASES(attr_put, ATTR_PUT)

/* ------------------------------------------------------------------------------------------------
 * Setting attributes: the value is a Fortran integer (C reads it through a pointer). MPI-1's INTEGER
 * value is kept sign-extended to an address-sized word; C's pointer to it reads the INTEGER on a
 * little-endian machine, the only kind Ferry builds for.
 * ---------------------------------------------------------------------------------------------- */
void pmpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr) {
  *ierr = MPII_Comm_set_attr((MPI_Comm)*comm, *keyval, (void *)*value, kFormAint);
}
FERRY_FORTRAN_ALIASES(comm_set_attr, COMM_SET_ATTR)

void pmpi_type_set_attr_(MPI_Fint *datatype, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr) {
  *ierr = MPII_Type_set_attr((MPI_Datatype)*datatype, *keyval, (void *)*value, kFormAint);
}
FERRY_FORTRAN_ALIASES(type_set_attr, TYPE_SET_ATTR)

void pmpi_win_set_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr) {
  *ierr = MPII_Win_set_attr((MPI_Win)*win, *keyval, (void *)*value, kFormAint);
}
FERRY_FORTRAN_ALIASES(win_set_attr, WIN_SET_ATTR)
