/*
 * A library that uses only sessions, opened and finalized again and again
 * (MPI-4.0 §11.4.1 allows it once all are finalized), then the
 * application's MPI_Init after them.
 */
#define TEST_NAME "sessions_reinit"
#include "../mpitest.h"

int main(int argc, char **argv) {
  int size = 0;
  for (int round = 0; round < 3; ++round) {
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    int rank, sum = 0;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    CHECK_MPI(MPI_Comm_create_from_group(g, "org.ferry.test.reinit", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_Group_free(&g);
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    int mine = rank + round;
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2 + round * size, "round %d: allreduce gave %d", round, sum);
    MPI_Comm_free(&c);
    CHECK_MPI(MPI_Session_finalize(&s));
    int initialized = 1;
    MPI_Initialized(&initialized);
    CHECK(!initialized, "MPI_Initialized is true with only sessions");
  }
  MPI_Init(&argc, &argv);
  int wsize;
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(wsize == size, "MPI_COMM_WORLD has %d ranks, the sessions' world %d", wsize, size);
  mt_pass();
  MPI_Finalize();
  return 0;
}
