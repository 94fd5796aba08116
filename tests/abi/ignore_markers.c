/*
 * The ignore markers in the calls users write them in, compiled with optimisation (the test adds
 * -O2 -Wall -Wextra -Werror): GCC's -Wstringop-overflow (on by default since GCC 11) reads a
 * parameter declared as an array, `MPI_Status array_of_statuses[]`, as memory the call accesses,
 * and warns that MPI_STATUSES_IGNORE ((MPI_Status *)1) points to "a region of size 0". mpi.h
 * declares those parameters as pointers (the same C type), so a -Werror build stays clean.
 */
#include <mpi.h>

int ignore_markers(MPI_Request *requests, int *indices);

int ignore_markers(MPI_Request *requests, int *indices) {
  int flag = 0, outcount = 0;
  int err = MPI_Waitall(64, requests, MPI_STATUSES_IGNORE);
  err |= MPI_Testall(64, requests, &flag, MPI_STATUSES_IGNORE);
  err |= MPI_Waitsome(64, requests, &outcount, indices, MPI_STATUSES_IGNORE);
  err |= MPI_Testsome(64, requests, &outcount, indices, MPI_STATUSES_IGNORE);
  err |= MPI_Wait(requests, MPI_STATUS_IGNORE);
  err |= MPI_Recv(indices, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return err | flag | outcount;
}
