/*
 * Ferry's launcher exports, for tools and scripts that look before (or
 * without) MPI_Init, the variables other launchers made customary:
 * OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE and PMI_RANK/PMI_SIZE.
 * They must agree with MPI_Comm_rank/size, and the local ones must number
 * the ranks of each host 0..n-1 with n the count of ranks on that host.
 *
 * Ferry-only: under another library (MPI_Get_library_version does not say
 * "Ferry") the test reports SKIPPED, unless built with
 * ENV_VARS_CHECK_ANY_LIBRARY (to validate the test itself elsewhere).
 */
#define TEST_NAME "env_vars"
#include "mpitest.h"

#include <ctype.h>
#include <unistd.h>

#define HOST_LEN 256

static int rank, size;

/* The variable as a non-negative integer; fails if unset or not a number. */
static int env_int(const char *name) {
  const char *s = getenv(name);
  CHECK(s != NULL, "%s is not set", name);
  CHECK(*s != '\0', "%s is empty", name);
  long v = 0;
  for (const char *p = s; *p; p++) {
    CHECK(isdigit((unsigned char)*p), "%s=\"%s\" is not a non-negative integer", name, s);
    v = v * 10 + (*p - '0');
    CHECK(v <= 1 << 30, "%s=\"%s\" is out of range", name, s);
  }
  return (int)v;
}

struct local_info {
  char host[HOST_LEN];
  int local_rank, local_size;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

#ifndef ENV_VARS_CHECK_ANY_LIBRARY
  if (!mt_is_ferry()) {
    if (rank == 0) printf("%s: SKIPPED (the library is not Ferry)\n", TEST_NAME);
    MPI_Finalize();
    return 0;
  }
#endif

  const int world_rank = env_int("OMPI_COMM_WORLD_RANK");
  const int world_size = env_int("OMPI_COMM_WORLD_SIZE");
  const int pmi_rank = env_int("PMI_RANK"), pmi_size = env_int("PMI_SIZE");
  struct local_info me;
  me.local_rank = env_int("OMPI_COMM_WORLD_LOCAL_RANK");
  me.local_size = env_int("OMPI_COMM_WORLD_LOCAL_SIZE");
  CHECK(world_rank == rank && pmi_rank == rank,
        "OMPI_COMM_WORLD_RANK=%d PMI_RANK=%d but MPI_Comm_rank gives %d", world_rank, pmi_rank,
        rank);
  CHECK(world_size == size && pmi_size == size,
        "OMPI_COMM_WORLD_SIZE=%d PMI_SIZE=%d but MPI_Comm_size gives %d", world_size, pmi_size,
        size);
  CHECK(me.local_size >= 1 && me.local_size <= size && me.local_rank < me.local_size,
        "OMPI_COMM_WORLD_LOCAL_RANK=%d, OMPI_COMM_WORLD_LOCAL_SIZE=%d (world size %d)",
        me.local_rank, me.local_size, size);
  memset(me.host, 0, sizeof me.host);
  CHECK(gethostname(me.host, sizeof me.host - 1) == 0, "gethostname failed");

  /* Rank 0 groups the ranks by host and checks each group's numbering. */
  if (rank == 0) {
    struct local_info *all = mt_malloc(sizeof *all * (size_t)size);
    all[0] = me;
    for (int r = 1; r < size; r++)
      MPI_Recv(&all[r], (int)sizeof all[r], MPI_BYTE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int r = 0; r < size; r++) {
      int on_host = 0, same_local_rank = 0;
      for (int q = 0; q < size; q++) {
        if (strcmp(all[q].host, all[r].host) != 0) continue;
        on_host++;
        if (all[q].local_rank == all[r].local_rank) same_local_rank++;
        CHECK(all[q].local_size == all[r].local_size,
              "ranks %d and %d on host %s have OMPI_COMM_WORLD_LOCAL_SIZE %d and %d", r, q,
              all[r].host, all[r].local_size, all[q].local_size);
      }
      CHECK(on_host == all[r].local_size,
            "host %s runs %d ranks but rank %d has OMPI_COMM_WORLD_LOCAL_SIZE=%d", all[r].host,
            on_host, r, all[r].local_size);
      CHECK(same_local_rank == 1, "%d ranks on host %s have OMPI_COMM_WORLD_LOCAL_RANK=%d",
            same_local_rank, all[r].host, all[r].local_rank);
    }
    free(all);
  } else {
    MPI_Send(&me, (int)sizeof me, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
  }

  mt_pass();
  MPI_Finalize();
  return 0;
}
