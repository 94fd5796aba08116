/*
 * Attribute caching (MPI-3.1 §6.7) with counted callbacks: copy callbacks
 * run on MPI_Comm_dup (not on split), MPI_COMM_NULL_COPY_FN attributes are
 * not copied, MPI_COMM_DUP_FN copies the value; delete callbacks run on
 * replace, delete, MPI_Comm_free and, for MPI_COMM_SELF then MPI_COMM_WORLD,
 * first thing in MPI_Finalize while MPI still works (MPI-3.1 §8.7.1). A
 * freed keyval lives on for the attributes that use it, and freeing it
 * again meanwhile (from its delete callback, or through a second copy of
 * the handle) is harmless, as in MPICH; a failing copy callback fails the
 * dup, which returns MPI_COMM_NULL; the MPI-1 names and datatype
 * attributes work the same; predefined attributes are there and read-only.
 */
#define TEST_NAME "comm_attributes"
#include "mpitest.h"

static int rank, size;

/* Callback bookkeeping. */
static int copies, deletes, last_deleted;
static int copy_fails;
/* The extra_state of the counted keyvals: callbacks must get it back. */
static int marker;

/* Values are pointers to ints we own, so the callbacks can check them. */
static int values[16];

static int counting_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  CHECK(extra == &marker, "copy callback: extra_state %p, expected %p", extra, (void *)&marker);
  if (copy_fails) return MPI_ERR_OTHER;
  copies++;
  /* The copy holds the next value: the test sees a copy happened. */
  *(int **)out = (int *)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

static int counting_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  CHECK(extra == &marker, "delete callback: extra_state %p, expected %p", extra, (void *)&marker);
  deletes++;
  last_deleted = (int)((int *)value - values);
  return MPI_SUCCESS;
}

static int *get(MPI_Comm comm, int keyval, int *flag) {
  int *v = NULL;
  CHECK_MPI(MPI_Comm_get_attr(comm, keyval, &v, flag));
  return v;
}

static void dup_and_free(void) {
  int k_counted, k_null_copy, k_dup_fn, flag;
  MPI_Comm base, copy, split;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_create_keyval(counting_copy, counting_delete, &k_counted, &marker);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, counting_delete, &k_null_copy, &marker);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k_dup_fn, NULL);
  CHECK(k_counted != k_null_copy && k_null_copy != k_dup_fn, "keyvals must differ");

  CHECK(get(base, k_counted, &flag) == NULL && flag == 0, "a keyval with no attribute must give flag 0");
  MPI_Comm_set_attr(base, k_counted, &values[1]);
  MPI_Comm_set_attr(base, k_null_copy, &values[5]);
  MPI_Comm_set_attr(base, k_dup_fn, &values[9]);
  CHECK(get(base, k_counted, &flag) == &values[1] && flag, "get returns what was set");

  /* Replacing a value deletes the old one first. */
  copies = deletes = 0;
  MPI_Comm_set_attr(base, k_counted, &values[2]);
  CHECK(deletes == 1 && last_deleted == 1, "replace: %d deletes (last value %d), expected 1 of value 1", deletes,
        last_deleted);

  /* Dup: one copy, the null-copy attribute stays behind, DUP_FN copies the value. */
  copies = deletes = 0;
  MPI_Comm_dup(base, &copy);
  CHECK(copies == 1, "MPI_Comm_dup ran the copy callback %d times, expected 1", copies);
  CHECK(get(copy, k_counted, &flag) == &values[3] && flag, "the copy callback's value must be attached to the dup");
  get(copy, k_null_copy, &flag);
  CHECK(!flag, "an MPI_COMM_NULL_COPY_FN attribute must not be copied");
  CHECK(get(copy, k_dup_fn, &flag) == &values[9] && flag, "MPI_COMM_DUP_FN copies the value");
  CHECK(get(base, k_counted, &flag) == &values[2] && flag, "the original keeps its value");

  /* A dup of the dup copies again; split copies nothing. */
  MPI_Comm copy2;
  MPI_Comm_dup(copy, &copy2);
  CHECK(copies == 2 && get(copy2, k_counted, &flag) == &values[4], "dup of a dup: %d copies", copies);
  MPI_Comm_split(base, 0, rank, &split);
  CHECK(copies == 2, "MPI_Comm_split must not copy attributes (%d copies)", copies);
  get(split, k_counted, &flag);
  CHECK(!flag, "a split communicator has no attributes");

  /* Free: the delete callback runs for the counted attribute (DUP_FN has none). */
  deletes = 0;
  MPI_Comm_free(&copy2);
  CHECK(deletes == 1 && last_deleted == 4, "free: %d deletes (last value %d), expected 1 of value 4", deletes,
        last_deleted);
  MPI_Comm_free(&split);
  CHECK(deletes == 1, "freeing a communicator without attributes ran %d deletes", deletes - 1);

  /* Delete_attr runs the callback; deleting again is harmless. */
  MPI_Comm_delete_attr(copy, k_counted);
  CHECK(deletes == 2 && last_deleted == 3, "delete_attr: %d deletes, last value %d", deletes, last_deleted);
  get(copy, k_counted, &flag);
  CHECK(!flag, "a deleted attribute is gone");

  /* A freed keyval lives while an attribute uses it. */
  int k_saved = k_counted;
  MPI_Comm_free_keyval(&k_counted);
  CHECK(k_counted == MPI_KEYVAL_INVALID, "MPI_Comm_free_keyval must set MPI_KEYVAL_INVALID");
  CHECK(get(base, k_saved, &flag) == &values[2] && flag, "attribute of a freed keyval must stay");
  deletes = 0;
  MPI_Comm_free(&base);
  CHECK(deletes == 2, "freeing the base ran %d deletes, expected 2 (freed keyval's and null-copy's)", deletes);
  MPI_Comm_free(&copy);
  MPI_Comm_free_keyval(&k_null_copy);
  MPI_Comm_free_keyval(&k_dup_fn);
}

static void failing_copy(void) {
  int k, flag;
  MPI_Comm base, copy = MPI_COMM_WORLD;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
  MPI_Comm_create_keyval(counting_copy, counting_delete, &k, &marker);
  MPI_Comm_set_attr(base, k, &values[0]);
  copy_fails = 1;
  int rc = MPI_Comm_dup(base, &copy);
  mt_expect_error(rc, MPI_ERR_OTHER, "MPI_Comm_dup", "a copy callback that fails");
  CHECK(copy == MPI_COMM_NULL, "a failed MPI_Comm_dup must set newcomm to MPI_COMM_NULL");
  copy = MPI_COMM_WORLD;
  rc = MPI_Comm_dup_with_info(base, MPI_INFO_NULL, &copy);
  copy_fails = 0;
  mt_expect_error(rc, MPI_ERR_OTHER, "MPI_Comm_dup_with_info", "a copy callback that fails");
  CHECK(copy == MPI_COMM_NULL, "a failed MPI_Comm_dup_with_info must set newcomm to MPI_COMM_NULL");
  /* The communicator still works afterwards. */
  CHECK(get(base, k, &flag) == &values[0] && flag, "the original keeps its attribute after a failed dup");
  MPI_Comm_dup(base, &copy);
  CHECK(get(copy, k, &flag) == &values[1] && flag, "a later dup copies again");
  MPI_Comm_free(&copy);
  MPI_Comm_free(&base);
  MPI_Comm_free_keyval(&k);
}

/* Frees its own keyval, once per attribute it deletes (MPICH's
 * attr/keyval_double_free does this): only the first free counts. */
static int freeing_deletes;
static int freeing_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  freeing_deletes++;
  return MPI_Comm_free_keyval(&keyval);
}

static void keyval_freed_twice(void) {
  int k, k_copy;
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, freeing_delete, &k, NULL);
  k_copy = k;
  MPI_Comm_set_attr(a, k, &values[2]);
  MPI_Comm_set_attr(b, k, &values[3]);
  CHECK_MPI(MPI_Comm_free(&a)); /* the first free, from the callback */
  CHECK_MPI(MPI_Comm_free_keyval(&k));
  CHECK(k == MPI_KEYVAL_INVALID, "MPI_Comm_free_keyval of a freed keyval must set MPI_KEYVAL_INVALID");
  CHECK_MPI(MPI_Comm_free_keyval(&k_copy));
  /* Still alive for b's attribute, whose delete callback frees it once more. */
  CHECK_MPI(MPI_Comm_free(&b));
  CHECK(freeing_deletes == 2, "the delete callback ran %d times, expected 2", freeing_deletes);
}

static void mpi1_names(void) {
  int k, flag;
  MPI_Comm base, copy;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k, NULL);
  MPI_Attr_put(base, k, &values[7]);
  int *v = NULL;
  MPI_Attr_get(base, k, &v, &flag);
  CHECK(flag && v == &values[7], "MPI_Attr_get after MPI_Attr_put");
  MPI_Comm_dup(base, &copy);
  MPI_Attr_get(copy, k, &v, &flag);
  CHECK(flag && v == &values[7], "MPI_DUP_FN through MPI_Keyval_create copies the value");
  MPI_Attr_delete(copy, k);
  MPI_Attr_get(copy, k, &v, &flag);
  CHECK(!flag, "MPI_Attr_delete removes the attribute");
  MPI_Comm_free(&copy);
  MPI_Comm_free(&base);
  MPI_Keyval_free(&k);
  CHECK(k == MPI_KEYVAL_INVALID, "MPI_Keyval_free must set MPI_KEYVAL_INVALID");
}

static int type_deletes;
static int type_delete(MPI_Datatype type, int keyval, void *value, void *extra) {
  type_deletes++;
  return MPI_SUCCESS;
}

static void datatype_attributes(void) {
  int k, flag;
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete, &k, NULL);
  MPI_Type_set_attr(MPI_INT, k, &values[3]);
  int *v = NULL;
  MPI_Type_get_attr(MPI_INT, k, &v, &flag);
  CHECK(flag && v == &values[3], "MPI_Type_get_attr on MPI_INT");
  MPI_Type_get_attr(MPI_DOUBLE, k, &v, &flag);
  CHECK(!flag, "an attribute of MPI_INT must not show on MPI_DOUBLE");
  /* A datatype keyval is not a communicator keyval. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mt_expect_error(MPI_Comm_set_attr(MPI_COMM_WORLD, k, &values[0]), MPI_ERR_KEYVAL, "MPI_Comm_set_attr",
               "datatype keyval on a communicator");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_delete_attr(MPI_INT, k);
  CHECK(type_deletes == 1, "MPI_Type_delete_attr ran %d delete callbacks", type_deletes);
  MPI_Type_free_keyval(&k);
}

static void predefined_and_errors(void) {
  int flag = 0, *v = NULL, k;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
  CHECK(flag && *v >= 32767, "MPI_TAG_UB: flag %d value %d", flag, flag ? *v : 0);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_attr(dup, MPI_TAG_UB, &v, &flag);
  CHECK(flag && *v >= 32767, "MPI_TAG_UB on a dup");
  MPI_Attr_get(dup, MPI_WTIME_IS_GLOBAL, &v, &flag);
  CHECK(flag && (*v == 0 || *v == 1), "MPI_WTIME_IS_GLOBAL");
  MPI_Comm_free(&dup);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mt_expect_error(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &values[0]), MPI_ERR_KEYVAL, "MPI_Comm_set_attr",
               "setting MPI_TAG_UB");
  mt_expect_error(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB), MPI_ERR_KEYVAL, "MPI_Comm_delete_attr",
               "deleting MPI_TAG_UB");
  mt_expect_error(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL,
               "MPI_Comm_get_attr", "MPI_KEYVAL_INVALID");
  k = MPI_TAG_UB;
  mt_expect_error(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL, "MPI_Comm_free_keyval", "freeing MPI_TAG_UB");
  mt_expect_error(MPI_Comm_set_attr(MPI_COMM_NULL, MPI_TAG_UB, &values[0]), MPI_ERR_COMM, "MPI_Comm_set_attr",
               "MPI_COMM_NULL");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* MPI_Finalize: SELF's attributes go first, then WORLD's, while MPI works. */
static int finalize_order[2], finalize_calls;
static int at_finalize(MPI_Comm comm, int keyval, void *value, void *extra) {
  if (finalize_calls < 2) finalize_order[finalize_calls] = comm == MPI_COMM_SELF ? 1 : comm == MPI_COMM_WORLD ? 2 : -1;
  finalize_calls++;
  if (comm == MPI_COMM_WORLD) {
    /* Libraries communicate from here (e.g. to flush): it must work. */
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size) return MPI_ERR_OTHER;
  }
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  dup_and_free();
  failing_copy();
  keyval_freed_twice();
  mpi1_names();
  datatype_attributes();
  predefined_and_errors();

  int k_world, k_self;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &k_world, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &k_self, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, k_world, &values[0]);
  MPI_Comm_set_attr(MPI_COMM_SELF, k_self, &values[0]);
  mt_pass();
  int rc = MPI_Finalize();
  if (rc != MPI_SUCCESS || finalize_calls != 2 || finalize_order[0] != 1 || finalize_order[1] != 2) {
    fprintf(stderr,
            "%s: rank %d: FAILED: MPI_Finalize returned %d and ran %d delete callbacks (order %d %d), expected "
            "MPI_COMM_SELF's then MPI_COMM_WORLD's\n",
            TEST_NAME, rank, rc, finalize_calls, finalize_order[0], finalize_order[1]);
    return 1;
  }
  return 0;
}
