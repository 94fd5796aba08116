/* A job that spawns another (MPI_Comm_spawn), for FERRY_PROFILE's report per spawned job
 * (tests/profile/check_report.py "spawn"): the parents spawn SPAWN_CHILDREN copies of this
 * program, which send SPAWN_RING messages of SPAWN_BYTES around a ring of their own world. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define SPAWN_CHILDREN 2
#define SPAWN_RING 7
#define SPAWN_BYTES 200

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent, children;
  MPI_Comm_get_parent(&parent);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (parent == MPI_COMM_NULL) {
    MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, SPAWN_CHILDREN, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children,
                   MPI_ERRCODES_IGNORE);
    MPI_Comm_disconnect(&children);
    if (rank == 0) printf("spawn_traffic: OK\n");
  } else {
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
