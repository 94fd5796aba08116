/*
 * msgrate_tags: the message rate between ranks 0 and 1 when many receives
 * with different tags are pending, with and without MPI-4.0's assertions
 * mpi_assert_no_any_source and mpi_assert_no_any_tag (§7.4.4) on the
 * communicator. Standard MPI only.
 *
 *   mpirun -n 2 msgrate_tags [--window W] [--bytes B] [--time S] [--hints]
 *
 * Rank 1 posts W (default 256) receives of B bytes (default 8), tags 0 to
 * W-1, then answers rank 0 with an empty message; rank 0 sends the window in
 * reverse tag order (tag W-1 first), so each arriving message matches the
 * newest pending receive: a matching engine that scans its queue in posting
 * order pays O(W) per message, one that keys receives by envelope O(1).
 * Windows repeat for --time seconds (default 0.5).
 *
 * Output: '#' header lines, then one line:
 *   hints window bytes  mmsgs_per_s
 */
#include "bench_common.h"

int main(int argc, char **argv) {
  int rank, window = 256, bytes = 8, hints = 0;
  double max_time = 0.5;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--window") && i + 1 < argc) window = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--bytes") && i + 1 < argc) bytes = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--time") && i + 1 < argc) max_time = atof(argv[++i]);
    else if (!strcmp(argv[i], "--hints")) hints = 1;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm comm;
  MPI_Info info;
  MPI_Info_create(&info);
  if (hints) {
    MPI_Info_set(info, "mpi_assert_no_any_source", "true");
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
  }
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
  MPI_Info_free(&info);
  char *buf = malloc((size_t)window * (size_t)(bytes > 0 ? bytes : 1));
  memset(buf, 1, (size_t)window * (size_t)(bytes > 0 ? bytes : 1));
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)window);
  long windows = 0;
  int done = 0;
  MPI_Barrier(comm);
  double start = MPI_Wtime(), elapsed = 0;
  while (!done) {
    if (rank == 1) {
      for (int t = 0; t < window; ++t)
        MPI_Irecv(buf + (size_t)t * (size_t)bytes, bytes, MPI_BYTE, 0, t, comm, &reqs[t]);
      MPI_Send(NULL, 0, MPI_BYTE, 0, window, comm);  /* ready */
      MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
      MPI_Recv(&done, 1, MPI_INT, 0, window + 1, comm, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
      MPI_Recv(NULL, 0, MPI_BYTE, 1, window, comm, MPI_STATUS_IGNORE);
      for (int t = window - 1; t >= 0; --t)
        MPI_Isend(buf + (size_t)t * (size_t)bytes, bytes, MPI_BYTE, 1, t, comm, &reqs[t]);
      MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
      elapsed = MPI_Wtime() - start;
      done = elapsed >= max_time;
      MPI_Send(&done, 1, MPI_INT, 1, window + 1, comm);
    } else {
      done = 1;
    }
    ++windows;
  }
  if (rank == 0) {
    printf("# msgrate_tags: receives pending with W tags, messages arrive newest-tag first\n");
    printf("# hints window bytes  mmsgs_per_s\n");
    printf("%d %d %d  %.3f\n", hints, window, bytes, (double)windows * window / elapsed / 1e6);
  }
  free(reqs);
  free(buf);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
