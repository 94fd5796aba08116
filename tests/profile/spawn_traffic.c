/* A job that spawns another (MPI_Comm_spawn), for FERRY_PROFILE's report per spawned job
 * (tests/profile/check_report.py "spawn", and "spawn_hosts" on tests/multihost's bed): the parents
 * spawn SPAWN_CHILDREN copies of this program, which send SPAWN_RING messages of SPAWN_BYTES
 * around a ring of their own world.
 *
 *   spawn_traffic [HOSTS]
 *
 * With HOSTS, the spawn has info host=HOSTS, and every process, parent or child, first prints
 * where it counts: "spawn_traffic: parent|child R on HOST counts in DIR" (FERRY_PROFILE_DIR as
 * its launcher or node daemon set it). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPAWN_CHILDREN 2
#define SPAWN_RING 7
#define SPAWN_BYTES 200

static void show_dir(const char* who, int rank) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  const char* dir = getenv("FERRY_PROFILE_DIR");
  printf("spawn_traffic: %s %d on %s counts in %s\n", who, rank, host, dir != NULL ? dir : "(unset)");
  fflush(stdout);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent, children;
  MPI_Comm_get_parent(&parent);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (parent == MPI_COMM_NULL) {
    MPI_Info info = MPI_INFO_NULL;
    char* child_args[] = {"show-dir", NULL};
    if (argc > 1) {
      show_dir("parent", rank);
      MPI_Info_create(&info);
      MPI_Info_set(info, "host", argv[1]);
    }
    MPI_Comm_spawn(argv[0], argc > 1 ? child_args : MPI_ARGV_NULL, SPAWN_CHILDREN, info, 0, MPI_COMM_WORLD,
                   &children, MPI_ERRCODES_IGNORE);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    MPI_Comm_disconnect(&children);
    if (rank == 0) printf("spawn_traffic: OK\n");
  } else {
    if (argc > 1 && strcmp(argv[1], "show-dir") == 0) show_dir("child", rank);
    char out[SPAWN_BYTES], in[SPAWN_BYTES];
    memset(out, rank, sizeof out);
    for (int i = 0; i < SPAWN_RING; ++i)
      MPI_Sendrecv(out, SPAWN_BYTES, MPI_BYTE, (rank + 1) % size, i, in, SPAWN_BYTES, MPI_BYTE,
                   (rank + size - 1) % size, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in[0] != (char)((rank + size - 1) % size)) {
      printf("spawn_traffic: FAILED: a child's ring message has the wrong contents\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_disconnect(&parent);
  }
  MPI_Finalize();
  return 0;
}
