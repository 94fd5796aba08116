/*
 * Writing FERRY_DEBUG through MPI_T (MPI-4.0 §15.3.6) takes effect at once:
 * with the "p2p" topic written, an unexpected message prints its one-line
 * fact on stderr; with "" written back, the same event prints nothing. The
 * test catches its own stderr in a file to look.
 */
#define TEST_NAME "tool_cvar_write"
#include "mpitest.h"

#include <unistd.h>

static int debug_lines_during_unexpected_self_message(void) {
  char path[] = "/tmp/ferry_tool_cvar_write_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "mkstemp");
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  /* To itself, and left unreceived until it has arrived: unexpected. */
  int value = 5, flag = 0, got = 0;
  MPI_Request r;
  MPI_Isend(&value, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &r);
  double start = MPI_Wtime();
  while (!flag && MPI_Wtime() - start < MT_POLL_LIMIT_S) MPI_Iprobe(0, 3, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
  MPI_Recv(&got, 1, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  CHECK(flag && got == 5, "the message to itself did not arrive");
  char text[4096] = {0};
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  unlink(path);
  int lines = 0;
  for (const char *p = text; n > 0 && (p = strstr(p, "ferry INFO")) != NULL; ++p) ++lines;
  return lines;
}

int main(int argc, char **argv) {
  int provided, index = -1, count = 0;
  MPI_Init(&argc, &argv);
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
  MPI_T_cvar_handle h;
  CHECK(MPI_T_cvar_get_index("FERRY_DEBUG", &index) == MPI_SUCCESS, "cvar FERRY_DEBUG");
  CHECK(MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS && count > 8, "handle_alloc: count %d",
        count);
  char text[512];
  CHECK(MPI_T_cvar_read(h, text) == MPI_SUCCESS && text[0] == '\0', "FERRY_DEBUG starts as '%s'", text);
  CHECK(debug_lines_during_unexpected_self_message() == 0, "debug lines with FERRY_DEBUG empty");

  CHECK(MPI_T_cvar_write(h, "p2p") == MPI_SUCCESS, "writing FERRY_DEBUG=p2p");
  CHECK(MPI_T_cvar_read(h, text) == MPI_SUCCESS && strcmp(text, "p2p") == 0, "FERRY_DEBUG reads '%s'", text);
  int lines = debug_lines_during_unexpected_self_message();
  CHECK(lines >= 1, "no debug line after writing FERRY_DEBUG=p2p");

  CHECK(MPI_T_cvar_write(h, "") == MPI_SUCCESS, "writing FERRY_DEBUG back");
  CHECK(debug_lines_during_unexpected_self_message() == 0, "debug lines after FERRY_DEBUG was cleared");

  /* A string with no terminator within count is refused. */
  char *unterminated = malloc((size_t)count + 8);
  memset(unterminated, 'x', (size_t)count + 8);
  CHECK(MPI_T_cvar_write(h, unterminated) == MPI_T_ERR_INVALID, "an unterminated string was taken");
  free(unterminated);
  CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS, "handle_free");
  CHECK(MPI_T_finalize() == MPI_SUCCESS, "MPI_T_finalize");
  mt_pass();
  MPI_Finalize();
  return 0;
}
