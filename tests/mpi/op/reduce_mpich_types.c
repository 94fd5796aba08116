/*
 * The (operation, datatype) pairs MPICH accepts beyond MPI-3.1 §5.9.2 work
 * in Ferry too, since programs written against MPICH use them: MPI_CHAR as
 * an integer (MPI_MAX, MPI_SUM, MPI_BAND), the logical operations on
 * MPI_AINT, MPI_OFFSET, MPI_COUNT and MPI_SIGNED_CHAR, and MPI_LXOR on
 * MPI_DOUBLE (zero is false, the result 0 or 1). Each is an MPI_Allreduce
 * whose result every rank checks; MPI_WCHAR still refuses MPI_SUM.
 */
#define TEST_NAME "reduce_mpich_types"
#include "../mpitest.h"

static int rank, size;

static void chars(void) {
  char in[3] = {(char)('a' + rank), (char)(rank + 1), (char)(0x70 | rank)}, out[3];
  CHECK_MPI(MPI_Allreduce(in, out, 1, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD));
  CHECK(out[0] == 'a' + size - 1, "MPI_MAX on MPI_CHAR gave %d, expected %d", out[0], 'a' + size - 1);
  CHECK_MPI(MPI_Allreduce(in + 1, out + 1, 1, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
  CHECK(out[1] == size * (size + 1) / 2, "MPI_SUM on MPI_CHAR gave %d, expected %d", out[1], size * (size + 1) / 2);
  CHECK_MPI(MPI_Allreduce(in + 2, out + 2, 1, MPI_CHAR, MPI_BAND, MPI_COMM_WORLD));
  CHECK(out[2] == 0x70, "MPI_BAND on MPI_CHAR gave %#x, expected 0x70 (rank 0 has no low bits)", out[2]);
}

/* a: true on every rank; b: true on rank 0 only; c: false everywhere. Truth
 * values are compared, not 0/1: one rank's allreduce may copy its data as is. */
#define LOGICAL_CASE(ctype, mpitype)                                                                        \
  do {                                                                                                      \
    ctype in[3] = {(ctype)(rank + 1) * 3, (ctype)(rank == 0 ? -5 : 0), 0}, out[3];                          \
    CHECK_MPI(MPI_Allreduce(in, out, 3, mpitype, MPI_LAND, MPI_COMM_WORLD));                                \
    CHECK(!!out[0] == 1 && !!out[1] == (size == 1) && out[2] == 0, "MPI_LAND on " #mpitype " gave %lld %lld %lld", \
          (long long)out[0], (long long)out[1], (long long)out[2]);                                         \
    CHECK_MPI(MPI_Allreduce(in, out, 3, mpitype, MPI_LOR, MPI_COMM_WORLD));                                 \
    CHECK(!!out[0] == 1 && !!out[1] == 1 && out[2] == 0, "MPI_LOR on " #mpitype " gave %lld %lld %lld",          \
          (long long)out[0], (long long)out[1], (long long)out[2]);                                         \
    CHECK_MPI(MPI_Allreduce(in, out, 3, mpitype, MPI_LXOR, MPI_COMM_WORLD));                                \
    CHECK(!!out[0] == size % 2 && !!out[1] == 1 && out[2] == 0, "MPI_LXOR on " #mpitype " gave %lld %lld %lld",  \
          (long long)out[0], (long long)out[1], (long long)out[2]);                                         \
  } while (0)

static void logicals(void) {
  LOGICAL_CASE(MPI_Aint, MPI_AINT);
  LOGICAL_CASE(MPI_Offset, MPI_OFFSET);
  LOGICAL_CASE(MPI_Count, MPI_COUNT);
  LOGICAL_CASE(signed char, MPI_SIGNED_CHAR);
}

static void floating_xor(void) {
  double in[3] = {0.5 + rank, rank == 0 ? -2.0 : 0.0, 0.0}, out[3];
  CHECK_MPI(MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_LXOR, MPI_COMM_WORLD));
  CHECK((out[0] != 0.0) == size % 2 && out[1] != 0.0 && out[2] == 0.0, "MPI_LXOR on MPI_DOUBLE gave %g %g %g", out[0],
        out[1], out[2]);
}

static void wchar_still_refused(void) {
  wchar_t in = 1, out = 0;
  int rc = MPI_Allreduce(&in, &out, 1, MPI_WCHAR, MPI_SUM, MPI_COMM_WORLD), cls = -1;
  CHECK(rc != MPI_SUCCESS, "MPI_SUM on MPI_WCHAR was accepted");
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OP, "MPI_SUM on MPI_WCHAR gave error class %d, expected MPI_ERR_OP (%d)", cls, MPI_ERR_OP);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  chars();
  logicals();
  floating_xor();
  wchar_still_refused();
  mt_pass();
  MPI_Finalize();
  return 0;
}
