/*
 * Language interoperability as a C program sees it (MPI-3.1 §17.2): statuses
 * converted to Fortran's and F08's form and back, and Fortran 90's
 * parameterized types (MPI_Type_create_f90_*, §17.2.5) -- chosen by precision
 * and range as gfortran's kinds, predefined (one handle per request, not
 * freeable, committed), described by their envelope, and moving and reducing
 * as the sized Fortran type they stand for. mpi4py's test_fortran,
 * test_datatype and test_util_dtlib rely on all of it.
 */
#define TEST_NAME "fortran_interop"
#include "mpitest.h"

static void check_status_conversions(void) {
  MPI_Status c, back;
  MPI_Fint f[MPI_F_STATUS_SIZE];
  MPI_F08_status f08;
  memset(&c, 0, sizeof c);
  c.MPI_SOURCE = 3;
  c.MPI_TAG = 77;
  c.MPI_ERROR = MPI_ERR_OTHER;
  MPI_Status_set_elements(&c, MPI_INT, 5);
  MPI_Status_set_cancelled(&c, 1);

  CHECK(MPI_Status_c2f(&c, f) == MPI_SUCCESS, "MPI_Status_c2f failed");
  /* Fortran reads the fields at MPI_SOURCE, MPI_TAG, MPI_ERROR: C at MPI_F_*. */
  CHECK(f[MPI_F_SOURCE] == 3 && f[MPI_F_TAG] == 77 && f[MPI_F_ERROR] == MPI_ERR_OTHER,
        "Fortran status has source %d tag %d error %d", (int)f[MPI_F_SOURCE], (int)f[MPI_F_TAG], (int)f[MPI_F_ERROR]);
  memset(&back, 0xff, sizeof back);
  CHECK(MPI_Status_f2c(f, &back) == MPI_SUCCESS, "MPI_Status_f2c failed");
  int count = -1, cancelled = -1;
  MPI_Get_count(&back, MPI_INT, &count);
  MPI_Test_cancelled(&back, &cancelled);
  CHECK(back.MPI_SOURCE == 3 && back.MPI_TAG == 77 && back.MPI_ERROR == MPI_ERR_OTHER && count == 5 && cancelled,
        "round trip through Fortran: source %d tag %d error %d count %d cancelled %d", back.MPI_SOURCE,
        back.MPI_TAG, back.MPI_ERROR, count, cancelled);

  CHECK(MPI_Status_c2f08(&c, &f08) == MPI_SUCCESS, "MPI_Status_c2f08 failed");
  CHECK(f08.MPI_SOURCE == 3 && f08.MPI_TAG == 77 && f08.MPI_ERROR == MPI_ERR_OTHER, "F08 status fields wrong");
  memset(&back, 0, sizeof back);
  CHECK(MPI_Status_f082c(&f08, &back) == MPI_SUCCESS, "MPI_Status_f082c failed");
  MPI_Get_count(&back, MPI_INT, &count);
  CHECK(back.MPI_SOURCE == 3 && back.MPI_TAG == 77 && count == 5, "round trip through F08 lost fields");

  /* Between the two Fortran forms (MPI-4.0 §19.3.5). */
  MPI_Fint f_again[MPI_F_STATUS_SIZE];
  MPI_F08_status f08_again;
  memset(&f08_again, 0, sizeof f08_again);
  CHECK(MPI_Status_f2f08(f, &f08_again) == MPI_SUCCESS, "MPI_Status_f2f08 failed");
  CHECK(f08_again.MPI_SOURCE == 3 && f08_again.MPI_TAG == 77, "MPI_Status_f2f08 fields wrong");
  memset(f_again, 0, sizeof f_again);
  CHECK(MPI_Status_f082f(&f08_again, f_again) == MPI_SUCCESS, "MPI_Status_f082f failed");
  CHECK(memcmp(f_again, f, sizeof f_again) == 0, "MPI_Status_f082f did not give back the Fortran status");

  /* The ignore markers are no statuses (with errors returned). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Status_c2f(MPI_STATUS_IGNORE, f) != MPI_SUCCESS, "MPI_Status_c2f accepted MPI_STATUS_IGNORE");
  CHECK(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back) != MPI_SUCCESS, "MPI_Status_f2c accepted MPI_F_STATUS_IGNORE");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* What MPI_Type_create_f90_* returned: its size and envelope. */
static void check_f90(const char *what, MPI_Datatype t, int size, int combiner, int ni, int i0, int i1) {
  int s = -1, nints, naddrs, ntypes, comb;
  MPI_Type_size(t, &s);
  CHECK(s == size, "%s: size %d, expected %d", what, s, size);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(t, &lb, &extent);
  CHECK(lb == 0 && extent == size, "%s: lb %ld extent %ld", what, (long)lb, (long)extent);
  MPI_Type_get_envelope(t, &nints, &naddrs, &ntypes, &comb);
  CHECK(comb == combiner && nints == ni && naddrs == 0 && ntypes == 0,
        "%s: envelope combiner %d ints %d addresses %d types %d", what, comb, nints, naddrs, ntypes);
  int ints[2] = {-1, -1};
  MPI_Aint addrs[1];
  MPI_Datatype types[1];
  MPI_Type_get_contents(t, 2, 0, 0, ints, addrs, types);
  CHECK(ints[0] == i0 && (ni < 2 || ints[1] == i1), "%s: contents %d %d, expected %d %d", what, ints[0], ints[1], i0,
        i1);
}

static void check_f90_types(int rank, int size) {
  MPI_Datatype t, again;
  /* SELECTED_INT_KIND(r): 1, 2, 4 and 8 bytes for up to 2, 4, 9 and 18 digits. */
  int ranges[] = {1, 2, 3, 4, 5, 9, 10, 18};
  int sizes[] = {1, 1, 2, 2, 4, 4, 8, 8};
  for (int i = 0; i < 8; ++i) {
    char what[64];
    snprintf(what, sizeof what, "f90_integer(%d)", ranges[i]);
    MPI_Type_create_f90_integer(ranges[i], &t);
    check_f90(what, t, sizes[i], MPI_COMBINER_F90_INTEGER, 1, ranges[i], 0);
    MPI_Type_create_f90_integer(ranges[i], &again);
    CHECK(again == t, "%s: asked twice, two handles", what);
  }
  MPI_Type_create_f90_real(6, 30, &t);
  check_f90("f90_real(6, 30)", t, 4, MPI_COMBINER_F90_REAL, 2, 6, 30);
  MPI_Type_create_f90_real(7, MPI_UNDEFINED, &t);
  check_f90("f90_real(7, UNDEFINED)", t, 8, MPI_COMBINER_F90_REAL, 2, 7, MPI_UNDEFINED);
  MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &t);
  check_f90("f90_real(UNDEFINED, 300)", t, 8, MPI_COMBINER_F90_REAL, 2, MPI_UNDEFINED, 300);
  MPI_Type_create_f90_complex(15, 300, &t);
  check_f90("f90_complex(15, 300)", t, 16, MPI_COMBINER_F90_COMPLEX, 2, 15, 300);
  MPI_Type_create_f90_complex(6, MPI_UNDEFINED, &t);
  check_f90("f90_complex(6, UNDEFINED)", t, 8, MPI_COMBINER_F90_COMPLEX, 2, 6, MPI_UNDEFINED);

  /* Predefined: committing is allowed, freeing is not; beyond every kind is an error. */
  MPI_Datatype dbl;
  MPI_Type_create_f90_real(15, MPI_UNDEFINED, &dbl);
  CHECK(MPI_Type_commit(&dbl) == MPI_SUCCESS, "MPI_Type_commit of an f90 type failed");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc, cls = -1;
  if (mt_is_ferry()) {
    /* MPICH 4.0 frees it, and hands out the dangling handle at the next
     * request (a crash); Ferry refuses, as Open MPI does. */
    MPI_Datatype copy = dbl;
    rc = MPI_Type_free(&copy);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE && copy == dbl, "MPI_Type_free of an f90 type: class %d", cls);
  }
  /* No kind satisfies these: an error (MPI_ERR_ARG from Ferry; MPICH says MPI_ERR_OTHER). */
  int want = mt_is_ferry() ? MPI_ERR_ARG : -1;
  rc = MPI_Type_create_f90_integer(19, &t);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && (want < 0 || cls == want), "f90_integer(19): class %d", cls);
  rc = MPI_Type_create_f90_real(16, MPI_UNDEFINED, &t);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && (want < 0 || cls == want), "f90_real(16): class %d", cls);
  rc = MPI_Type_create_f90_complex(6, 400, &t);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && (want < 0 || cls == want), "f90_complex(6, 400): class %d", cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  /* It moves as MPI_DOUBLE_PRECISION and reduces as one. */
  double mine[3] = {rank + 0.5, 2.0 * rank, -1.0 * rank}, sum[3];
  MPI_Allreduce(mine, sum, 3, dbl, MPI_SUM, MPI_COMM_WORLD);
  double n = size;
  CHECK(sum[0] == n * (n - 1) / 2 + 0.5 * n && sum[1] == n * (n - 1) && sum[2] == -n * (n - 1) / 2,
        "Allreduce(SUM) of f90_real(15): %g %g %g", sum[0], sum[1], sum[2]);
  MPI_Datatype i8;
  MPI_Type_create_f90_integer(18, &i8);
  long long big = (long long)rank << 40, max = 0;
  MPI_Allreduce(&big, &max, 1, i8, MPI_MAX, MPI_COMM_WORLD);
  CHECK(max == (long long)(size - 1) << 40, "Allreduce(MAX) of f90_integer(18): %lld", max);
  if (size > 1) {
    /* A message of the f90 type matches receives of the sized type it stands for. */
    double v[2] = {rank == 0 ? 1.25 : 0, rank == 0 ? -7.5 : 0};
    if (rank == 0) MPI_Send(v, 2, dbl, 1, 5, MPI_COMM_WORLD);
    if (rank == 1) {
      MPI_Status st;
      MPI_Recv(v, 2, MPI_REAL8, 0, 5, MPI_COMM_WORLD, &st);
      int count = -1;
      MPI_Get_count(&st, dbl, &count);
      CHECK(v[0] == 1.25 && v[1] == -7.5 && count == 2, "received %g %g count %d", v[0], v[1], count);
    }
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_status_conversions();
  check_f90_types(rank, size);
  mt_pass();
  MPI_Finalize();
  return 0;
}
