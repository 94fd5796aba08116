/*
 * MPI_Comm_create_from_group's string tag keeps concurrent creations apart
 * (MPI-4.0 §7.4.2): two threads each build a communicator from the same
 * group with their own tag, in opposite order on odd ranks, and use it.
 */
#define TEST_NAME "sessions_tags"
#include "../mpitest.h"

#include <pthread.h>

static MPI_Session session;
static MPI_Group world;

struct job {
  const char *tag;
  int offset;
  int result;
};

static void *create_and_use(void *arg) {
  struct job *j = arg;
  MPI_Comm c;
  int rank, size;
  CHECK_MPI(MPI_Comm_create_from_group(world, j->tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  int mine = rank + j->offset;
  CHECK_MPI(MPI_Allreduce(&mine, &j->result, 1, MPI_INT, MPI_SUM, c));
  CHECK(j->result == size * (size - 1) / 2 + size * j->offset, "tag %s: allreduce gave %d", j->tag, j->result);
  MPI_Comm_free(&c);
  return NULL;
}

int main(void) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
  CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &session));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://WORLD", &world));
  int grank;
  MPI_Group_rank(world, &grank);
  for (int round = 0; round < 5; ++round) {
    struct job jobs[2] = {{"org.ferry.test.first", 10, 0}, {"org.ferry.test.second", 1000, 0}};
    pthread_t threads[2];
    /* Odd ranks start the second creation first. */
    int first = grank % 2;
    pthread_create(&threads[first], NULL, create_and_use, &jobs[first]);
    pthread_create(&threads[1 - first], NULL, create_and_use, &jobs[1 - first]);
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
  }
  MPI_Group_free(&world);
  CHECK_MPI(MPI_Session_finalize(&session));
  if (grank == 0) printf("%s: OK\n", TEST_NAME);
  return 0;
}
