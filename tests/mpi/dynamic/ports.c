/*
 * Ports (MPI-3.1 §10.4): the job splits into a server half and a client
 * half; the server opens a port and publishes it under a service name, the
 * client looks it up and connects; they talk over the intercommunicator and
 * disconnect. Then MPI_Comm_join over a TCP socket between ranks 0 and 1,
 * and the errors: unknown names and ports, a port nobody accepts on
 * (FERRY_PORT_TIMEOUT is short in this test).
 */
#define TEST_NAME "ports"
#include "../mpitest.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static int error_class_of(int err) {
  int cls = -1;
  MPI_Error_class(err, &cls);
  return cls;
}

static void check_message(int err, const char *call) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, text, &len);
  CHECK(strstr(text, call) != NULL, "the message does not name %s: %s", call, text);
}

/* Ranks 0 and 1 get a connected TCP socket between them. */
static int socket_between_0_and_1(int rank) {
  int fd = -1;
  if (rank == 0) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(listener, (struct sockaddr *)&a, sizeof a) == 0, "bind");
    CHECK(listen(listener, 1) == 0, "listen");
    socklen_t len = sizeof a;
    getsockname(listener, (struct sockaddr *)&a, &len);
    int port = ntohs(a.sin_port);
    CHECK_MPI(MPI_Send(&port, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
    fd = accept(listener, NULL, NULL);
    close(listener);
  } else {
    int port = 0;
    CHECK_MPI(MPI_Recv(&port, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((unsigned short)port);
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect");
  }
  CHECK(fd >= 0, "no socket");
  return fd;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs at least 2 ranks");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

  /* Servers: the even ranks; clients: the odd ones. */
  int server = rank % 2 == 0;
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, server, rank, &half));
  int hrank, hsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter;
  if (server) {
    if (hrank == 0) {
      CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
      CHECK_MPI(MPI_Publish_name("ferry-ports-test", MPI_INFO_NULL, port));
      /* A second publish of the same name is refused. */
      int err = MPI_Publish_name("ferry-ports-test", MPI_INFO_NULL, port);
      CHECK(err != MPI_SUCCESS, "publishing a taken name succeeded");
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* published before anyone looks */
    CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter));
  } else {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (hrank == 0) CHECK_MPI(MPI_Lookup_name("ferry-ports-test", MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter));
  }
  int remote = 0;
  MPI_Comm_remote_size(inter, &remote);
  int other_half = server ? size / 2 : (size + 1) / 2;
  CHECK(remote == other_half, "remote group of %d, expected %d", remote, other_half);
  /* Every process sends its world rank to every remote process. */
  for (int r = 0; r < remote; ++r) CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, r, 3, inter));
  int seen = 0;
  for (int r = 0; r < remote; ++r) {
    int w = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, r, 3, inter, &st));
    CHECK(w % 2 != rank % 2, "got world rank %d from the other half", w);
    seen += w;
  }
  int expect = 0;
  for (int w = 0; w < size; ++w)
    if (w % 2 != rank % 2) expect += w;
  CHECK(seen == expect, "the other half's ranks sum to %d, expected %d", seen, expect);
  CHECK_MPI(MPI_Barrier(inter));
  CHECK_MPI(MPI_Comm_disconnect(&inter));
  if (server && hrank == 0) {
    CHECK_MPI(MPI_Unpublish_name("ferry-ports-test", MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Close_port(port));
  }
  CHECK_MPI(MPI_Comm_free(&half));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* MPI_Comm_join between ranks 0 and 1. */
  if (rank < 2) {
    int fd = socket_between_0_and_1(rank);
    MPI_Comm joined;
    CHECK_MPI(MPI_Comm_join(fd, &joined));
    int other = -1, mine = rank;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 5, &other, 1, MPI_INT, 0, 5, joined, MPI_STATUS_IGNORE));
    CHECK(other == 1 - rank, "joined peer says it is rank %d", other);
    CHECK_MPI(MPI_Comm_disconnect(&joined));
    close(fd);
  }

  /* Errors, each at one process. */
  if (rank == 0) {
    int err = MPI_Lookup_name("ferry-no-such-service", MPI_INFO_NULL, port);
    CHECK(error_class_of(err) == MPI_ERR_NAME, "lookup of an unpublished name: class %d", error_class_of(err));
    check_message(err, "MPI_Lookup_name");
    err = MPI_Unpublish_name("ferry-no-such-service", MPI_INFO_NULL, "x");
    CHECK(error_class_of(err) == MPI_ERR_SERVICE, "unpublish of an unpublished name: class %d", error_class_of(err));
    MPI_Comm none = MPI_COMM_NULL;
    err = MPI_Comm_connect("not-a-port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &none);
    CHECK(error_class_of(err) == MPI_ERR_PORT, "connect to a bad port name: class %d", error_class_of(err));
    check_message(err, "MPI_Comm_connect");
    err = MPI_Comm_accept("ferry-port:00000000.0.99", MPI_INFO_NULL, 0, MPI_COMM_SELF, &none);
    CHECK(error_class_of(err) == MPI_ERR_PORT, "accept on a port not opened: class %d", error_class_of(err));
    err = MPI_Close_port("ferry-port:00000000.0.99");
    CHECK(error_class_of(err) == MPI_ERR_PORT, "closing a port not opened: class %d", error_class_of(err));
    /* Nobody accepts on this port: connect gives up (FERRY_PORT_TIMEOUT). */
    char lonely[MPI_MAX_PORT_NAME];
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, lonely));
    double start = MPI_Wtime();
    err = MPI_Comm_connect(lonely, MPI_INFO_NULL, 0, MPI_COMM_SELF, &none);
    CHECK(error_class_of(err) == MPI_ERR_PORT, "connect with nobody accepting: class %d", error_class_of(err));
    CHECK(none == MPI_COMM_NULL, "a failed connect returned a communicator");
    CHECK(MPI_Wtime() - start < 30, "connect took %.0f s to give up", MPI_Wtime() - start);
    CHECK_MPI(MPI_Close_port(lonely));
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
