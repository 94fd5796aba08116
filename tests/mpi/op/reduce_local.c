/*
 * Local reductions and user-defined operations (MPI-3.1 §5.9.2-5.9.7):
 * MPI_Reduce_local with predefined operations on each type group (integer
 * wrap-around, floating point, logical, bitwise, complex, MINLOC/MAXLOC
 * with ties; a contiguous derived type; MPI_REPLACE and MPI_NO_OP refused),
 * a non-commutative user operation called once with the whole count and the
 * standard's argument order, MPI_Op_commutative, MPI_Op_free, and the error
 * classes of bad calls under MPI_ERRORS_RETURN.
 *
 * With FERRY_CHECK_ERROR_STRINGS defined (Ferry's build does it), error
 * messages must also name the call that failed.
 */
#define TEST_NAME "reduce_local"
#include "../mpitest.h"

#include <complex.h>
#include <stdbool.h>

#define N 1003 /* more than a vector block, with a tail */

static void integers(void) {
  static int in[N], inout[N];
  for (int i = 0; i < N; i++) {
    in[i] = i % 7 - 3;
    inout[i] = 1000 - i;
  }
  CHECK_MPI(MPI_Reduce_local(in, inout, N, MPI_INT, MPI_SUM));
  for (int i = 0; i < N; i++)
    CHECK(inout[i] == 1000 - i + i % 7 - 3, "MPI_SUM on MPI_INT: element %d is %d", i, inout[i]);
  CHECK_MPI(MPI_Reduce_local(in, inout, N, MPI_INT, MPI_MIN));
  for (int i = 0; i < N; i++) {
    int want = i % 7 - 3 < 1000 - i + i % 7 - 3 ? i % 7 - 3 : 1000 - i + i % 7 - 3;
    CHECK(inout[i] == want, "MPI_MIN on MPI_INT: element %d is %d, expected %d", i, inout[i], want);
  }

  /* Unsigned arithmetic wraps modulo 2^n. */
  unsigned u_in[3] = {0xffffffffu, 0x80000000u, 7u}, u_inout[3] = {2u, 0x80000000u, 0xfffffff0u};
  CHECK_MPI(MPI_Reduce_local(u_in, u_inout, 3, MPI_UNSIGNED, MPI_SUM));
  CHECK(u_inout[0] == 1u && u_inout[1] == 0u && u_inout[2] == 0xfffffff7u,
        "MPI_SUM on MPI_UNSIGNED did not wrap: %u %u %u", u_inout[0], u_inout[1], u_inout[2]);
  uint64_t p_in = 0x100000001ull, p_inout = 0xffffffffull;
  CHECK_MPI(MPI_Reduce_local(&p_in, &p_inout, 1, MPI_UINT64_T, MPI_PROD));
  CHECK(p_inout == 0xffffffffull * 0x100000001ull, "MPI_PROD on MPI_UINT64_T gave %llx",
        (unsigned long long)p_inout);

  /* Bitwise on bytes, logical on C int. */
  unsigned char b_in[2] = {0xf0, 0x3c}, b_inout[2] = {0x3c, 0x3c};
  CHECK_MPI(MPI_Reduce_local(b_in, b_inout, 2, MPI_BYTE, MPI_BXOR));
  CHECK(b_inout[0] == 0xcc && b_inout[1] == 0, "MPI_BXOR on MPI_BYTE gave %x %x", b_inout[0], b_inout[1]);
  int l_in[4] = {0, 0, 5, -2}, l_inout[4] = {0, 9, 0, 1};
  CHECK_MPI(MPI_Reduce_local(l_in, l_inout, 4, MPI_INT, MPI_LXOR));
  CHECK(l_inout[0] == 0 && l_inout[1] == 1 && l_inout[2] == 1 && l_inout[3] == 0,
        "MPI_LXOR on MPI_INT gave %d %d %d %d", l_inout[0], l_inout[1], l_inout[2], l_inout[3]);
  bool c_in[3] = {true, false, true}, c_inout[3] = {true, true, false};
  CHECK_MPI(MPI_Reduce_local(c_in, c_inout, 3, MPI_C_BOOL, MPI_LAND));
  CHECK(c_inout[0] && !c_inout[1] && !c_inout[2], "MPI_LAND on MPI_C_BOOL gave %d %d %d", c_inout[0],
        c_inout[1], c_inout[2]);
}

static void floating_and_complex(void) {
  static double in[N], inout[N];
  for (int i = 0; i < N; i++) {
    in[i] = (i % 9 - 4) * 0.5;
    inout[i] = (i % 5 - 2) * 0.25;
  }
  CHECK_MPI(MPI_Reduce_local(in, inout, N, MPI_DOUBLE, MPI_MAX));
  for (int i = 0; i < N; i++) {
    double a = (i % 9 - 4) * 0.5, b = (i % 5 - 2) * 0.25;
    CHECK(inout[i] == (a > b ? a : b), "MPI_MAX on MPI_DOUBLE: element %d is %g", i, inout[i]);
  }
  float f_in[3] = {1.5f, -2.0f, 0.25f}, f_inout[3] = {2.0f, 3.0f, -8.0f};
  CHECK_MPI(MPI_Reduce_local(f_in, f_inout, 3, MPI_FLOAT, MPI_PROD));
  CHECK(f_inout[0] == 3.0f && f_inout[1] == -6.0f && f_inout[2] == -2.0f, "MPI_PROD on MPI_FLOAT gave %g %g %g",
        f_inout[0], f_inout[1], f_inout[2]);
  double complex z_in = 1.0 + 2.0 * I, z_inout = 3.0 - 1.0 * I;
  CHECK_MPI(MPI_Reduce_local(&z_in, &z_inout, 1, MPI_C_DOUBLE_COMPLEX, MPI_PROD));
  CHECK(creal(z_inout) == 5.0 && cimag(z_inout) == 5.0, "MPI_PROD on MPI_C_DOUBLE_COMPLEX gave %g%+gi",
        creal(z_inout), cimag(z_inout));
}

struct double_int {
  double value;
  int index;
};

static void minloc_maxloc(void) {
  /* Equal values: the smaller index wins, from either side (MPI-3.1 §5.9.4). */
  struct double_int in[3] = {{4.0, 7}, {4.0, 1}, {-1.0, 5}}, inout[3] = {{4.0, 2}, {4.0, 6}, {3.0, 0}};
  CHECK_MPI(MPI_Reduce_local(in, inout, 3, MPI_DOUBLE_INT, MPI_MAXLOC));
  CHECK(inout[0].value == 4.0 && inout[0].index == 2, "MAXLOC tie: (%g, %d)", inout[0].value, inout[0].index);
  CHECK(inout[1].value == 4.0 && inout[1].index == 1, "MAXLOC tie: (%g, %d)", inout[1].value, inout[1].index);
  CHECK(inout[2].value == 3.0 && inout[2].index == 0, "MAXLOC: (%g, %d)", inout[2].value, inout[2].index);
  int two_in[4] = {5, 9, -3, 4}, two_inout[4] = {5, 8, 2, 1};
  CHECK_MPI(MPI_Reduce_local(two_in, two_inout, 2, MPI_2INT, MPI_MINLOC));
  CHECK(two_inout[0] == 5 && two_inout[1] == 8 && two_inout[2] == -3 && two_inout[3] == 4,
        "MINLOC on MPI_2INT gave (%d, %d) (%d, %d)", two_inout[0], two_inout[1], two_inout[2], two_inout[3]);
}

/* A contiguous derived type reduces as its basic type: 3 elements of 4 ints.
 * The standard defines predefined operations on predefined types only
 * (MPI-3.1 §5.9.2) and MPICH refuses this; Ferry takes it. */
static void derived_types(void) {
  MPI_Datatype four_ints;
  int in[12], inout[12];
  if (!mt_is_ferry()) return;
  CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &four_ints));
  CHECK_MPI(MPI_Type_commit(&four_ints));
  for (int i = 0; i < 12; i++) {
    in[i] = i - 6;
    inout[i] = 3 * i;
  }
  CHECK_MPI(MPI_Reduce_local(in, inout, 3, four_ints, MPI_SUM));
  for (int i = 0; i < 12; i++) CHECK(inout[i] == 4 * i - 6, "MPI_SUM on contiguous(4, MPI_INT): element %d is %d", i,
                                     inout[i]);
  CHECK_MPI(MPI_Type_free(&four_ints));
}

/* MPI_REPLACE and MPI_NO_OP are for one-sided accumulate only (MPI-3.1 §11.3.4). */
static void replace_and_no_op(void) {
  long in[2] = {-5, 6}, inout[2] = {1, 2};
  mt_expect_error(MPI_Reduce_local(in, inout, 2, MPI_LONG, MPI_NO_OP), MPI_ERR_OP, "MPI_Reduce_local", "MPI_NO_OP");
  mt_expect_error(MPI_Reduce_local(in, inout, 2, MPI_LONG, MPI_REPLACE), MPI_ERR_OP, "MPI_Reduce_local",
               "MPI_REPLACE");
  CHECK(inout[0] == 1 && inout[1] == 2, "a refused reduction changed inoutbuf to %ld %ld", inout[0], inout[1]);
}

/* A non-commutative operation: inout = 10 * in + inout shows which argument was which. */
static int user_calls, user_len;
static void *user_in, *user_inout;
static MPI_Datatype user_type;

static void shift_and_add(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype) {
  user_calls++;
  user_in = invec;
  user_inout = inoutvec;
  user_len = *len;
  user_type = *datatype;
  for (int i = 0; i < *len; i++) ((int *)inoutvec)[i] += 10 * ((int *)invec)[i];
}

static void user_operations(void) {
  MPI_Op op = MPI_OP_NULL, commutative_op = MPI_OP_NULL;
  int commute = -1;
  CHECK_MPI(MPI_Op_create(shift_and_add, 0, &op));
  CHECK_MPI(MPI_Op_create(shift_and_add, 1, &commutative_op));
  CHECK(op != MPI_OP_NULL && op != commutative_op, "MPI_Op_create gave handles %#x and %#x", (unsigned)op,
        (unsigned)commutative_op);
  CHECK_MPI(MPI_Op_commutative(op, &commute));
  CHECK(commute == 0, "MPI_Op_commutative says %d for a non-commutative op", commute);
  CHECK_MPI(MPI_Op_commutative(commutative_op, &commute));
  CHECK(commute == 1, "MPI_Op_commutative says %d for a commutative op", commute);
  CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1, "MPI_Op_commutative says %d for MPI_SUM", commute);

  static int in[N], inout[N];
  for (int i = 0; i < N; i++) {
    in[i] = i;
    inout[i] = 3;
  }
  user_calls = 0;
  CHECK_MPI(MPI_Reduce_local(in, inout, N, MPI_INT, op));
  CHECK(user_calls == 1 && user_len == N, "the user function ran %d times, last with len %d (expected once, %d)",
        user_calls, user_len, N);
  CHECK(user_in == (void *)in && user_inout == (void *)inout,
        "the user function got invec %p, inoutvec %p; expected inbuf %p, inoutbuf %p", user_in, user_inout,
        (void *)in, (void *)inout);
  CHECK(user_type == MPI_INT, "the user function got datatype %#x, expected MPI_INT", (unsigned)user_type);
  for (int i = 0; i < N; i++) CHECK(inout[i] == 10 * i + 3, "user op: element %d is %d", i, inout[i]);

  CHECK_MPI(MPI_Op_free(&op));
  CHECK(op == MPI_OP_NULL, "MPI_Op_free left the handle as %#x", (unsigned)op);
  CHECK_MPI(MPI_Op_free(&commutative_op));
  CHECK(commutative_op == MPI_OP_NULL, "MPI_Op_free left the handle as %#x", (unsigned)commutative_op);
}

static void bad_calls(void) {
  float f[2] = {0, 0};
  int i2[4] = {0, 0, 0, 0};
  struct {
    float value;
    int index;
  } fi = {0, 0}, fi2 = {0, 0};
  mt_expect_error(MPI_Reduce_local(&fi, &fi2, 1, MPI_FLOAT_INT, MPI_SUM), MPI_ERR_OP, "MPI_Reduce_local",
               "MPI_SUM on MPI_FLOAT_INT");
  mt_expect_error(MPI_Reduce_local(i2, i2 + 2, 2, MPI_INT, MPI_MAXLOC), MPI_ERR_OP, "MPI_Reduce_local",
               "MPI_MAXLOC on MPI_INT");
  mt_expect_error(MPI_Reduce_local(f, f + 1, 1, MPI_FLOAT, MPI_BAND), MPI_ERR_OP, "MPI_Reduce_local",
               "MPI_BAND on MPI_FLOAT");
  mt_expect_error(MPI_Reduce_local(f, f + 1, 1, MPI_FLOAT, MPI_OP_NULL), MPI_ERR_OP, "MPI_Reduce_local",
               "MPI_OP_NULL");

  MPI_Op sum = MPI_SUM;
  mt_expect_error(MPI_Op_free(&sum), MPI_ERR_OP, "MPI_Op_free", "freeing MPI_SUM");
  MPI_Op op = MPI_OP_NULL;
  CHECK_MPI(MPI_Op_create(shift_and_add, 1, &op));
  MPI_Op stale = op;
  CHECK_MPI(MPI_Op_free(&op));
  if (mt_is_ferry()) {
    /* Checks MPICH 4.0 lacks or classes otherwise (it crashes on a negative
     * count, calls MPI_DATATYPE_NULL an op error, does not check freed
     * handles); Ferry reports them. */
    int commute = -1;
    mt_expect_error(MPI_Reduce_local(f, f + 1, -1, MPI_FLOAT, MPI_SUM), MPI_ERR_COUNT, "MPI_Reduce_local",
                 "count -1");
    mt_expect_error(MPI_Reduce_local(f, f + 1, 1, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE, "MPI_Reduce_local",
                 "MPI_DATATYPE_NULL");
    MPI_Datatype uncommitted;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_FLOAT, &uncommitted));
    mt_expect_error(MPI_Reduce_local(f, f, 1, uncommitted, MPI_SUM), MPI_ERR_TYPE, "MPI_Reduce_local",
                 "an uncommitted datatype");
    CHECK_MPI(MPI_Type_free(&uncommitted));
    mt_expect_error(MPI_Op_free(&stale), MPI_ERR_OP, "MPI_Op_free", "freeing a freed op");
    mt_expect_error(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP, "MPI_Op_commutative", "MPI_OP_NULL");
    mt_expect_error(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG, "MPI_Op_create", "a NULL function");
    mt_expect_error(MPI_Reduce_local(MPI_IN_PLACE, f, 1, MPI_FLOAT, MPI_SUM), MPI_ERR_BUFFER, "MPI_Reduce_local",
                 "MPI_IN_PLACE");
  }
  /* The library still works after the errors. */
  CHECK_MPI(MPI_Reduce_local(f, f + 1, 1, MPI_FLOAT, MPI_SUM));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  integers();
  floating_and_complex();
  minloc_maxloc();
  derived_types();
  replace_and_no_op();
  user_operations();
  bad_calls();
  mt_pass();
  MPI_Finalize();
  return 0;
}
