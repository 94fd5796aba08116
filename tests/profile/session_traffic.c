/* A program that uses MPI sessions only (MPI-4.0 §11.3), never MPI_Init, for FERRY_PROFILE's
 * report (tests/profile/check_report.py "sessions"): a communicator from the "mpi://WORLD"
 * process set, SESSION_RING messages of SESSION_BYTES to the right on it, then
 * MPI_Session_finalize. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define SESSION_RING 9
#define SESSION_BYTES 300

static int fail(const char* what) {
  printf("session_traffic: FAILED: %s\n", what);
  fflush(stdout);
  return 1;
}

int main(void) {
  MPI_Session session;
  MPI_Group group;
  MPI_Comm comm;
  if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) != MPI_SUCCESS) return fail("MPI_Session_init");
  if (MPI_Group_from_session_pset(session, "mpi://WORLD", &group) != MPI_SUCCESS) return fail("the WORLD pset");
  if (MPI_Comm_create_from_group(group, "ferry.profile.sessions", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm) !=
      MPI_SUCCESS)
    return fail("MPI_Comm_create_from_group");
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char out[SESSION_BYTES], in[SESSION_BYTES];
  memset(out, rank, sizeof out);
  for (int i = 0; i < SESSION_RING; ++i) {
    MPI_Sendrecv(out, SESSION_BYTES, MPI_BYTE, (rank + 1) % size, i, in, SESSION_BYTES, MPI_BYTE,
                 (rank + size - 1) % size, i, comm, MPI_STATUS_IGNORE);
    if (in[0] != (char)((rank + size - 1) % size)) return fail("a ring message has the wrong contents");
  }
  MPI_Comm_free(&comm);
  MPI_Group_free(&group);
  if (MPI_Session_finalize(&session) != MPI_SUCCESS) return fail("MPI_Session_finalize");
  if (rank == 0) printf("session_traffic: OK\n");
  return 0;
}
