/* Dynamic processes across hosts (MPI-3.1 §10), run by mpirun_cases.sh on
 * the test bed's hosts, where mpirun's own host runs no rank: every request
 * goes through a node daemon to mpirun.
 *
 *   spawn_hosts spawn HOST WHERE N  the last rank spawns N children of this
 *                                   program with info host=HOST ("-": none);
 *                                   child k checks it runs on the k-th host
 *                                   of the list WHERE (the last for the rest),
 *                                   parents and children exchange messages
 *                                   both ways and allreduce over the merged
 *                                   communicator
 *   spawn_hosts multiple H1 H2      the last rank spawns two apps of one
 *                                   child each, with info host=H1 and H2:
 *                                   each child runs on its app's host
 *   spawn_hosts names               rank 0 publishes a port name and accepts;
 *                                   the last rank looks it up and connects a
 *                                   second later (the accept's lookup waits);
 *                                   after unpublishing, the name is gone
 *   spawn_hosts refused HOST OTHER  spawning a missing program on HOST, and
 *                                   anything on OTHER (no rank of the job
 *                                   there), fails at every rank with
 *                                   MPI_ERR_SPAWN, at once
 * Rank 0 prints "spawn_hosts: OK" when every check held. */
#define TEST_NAME "spawn_hosts"
#include <string.h>
#include <unistd.h>

#include "../mpi/mpitest.h"

static const char *self; /* this program, as mpirun was given it */

static void child(MPI_Comm parent, const char *where) {
  int rank, remote;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_remote_size(parent, &remote);
  char host[256] = "", expected[256] = "";
  gethostname(host, sizeof host - 1);
  /* WHERE lists each child's host by rank, the last one for the rest. */
  const char *entry = where;
  for (int k = 0; k < rank && strchr(entry, ',') != NULL; ++k) entry = strchr(entry, ',') + 1;
  snprintf(expected, sizeof expected, "%.*s", (int)strcspn(entry, ","), entry);
  CHECK(strcmp(host, expected) == 0, "child %d runs on %s, expected %s", rank, host, expected);
  int value = -1;
  CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, remote - 1, 7, parent, MPI_STATUS_IGNORE));
  CHECK(value == rank * 10, "child %d got %d from the spawning rank", rank, value);
  for (int p = 0; p < remote; ++p) {
    int answer = 1000 + rank;
    CHECK_MPI(MPI_Send(&answer, 1, MPI_INT, p, 8, parent));
  }
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(parent, 1, &merged));
  int size = 0, total = 0, one = 1;
  MPI_Comm_size(merged, &size);
  CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged));
  CHECK(total == size, "allreduce over the merged communicator gave %d of %d", total, size);
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Comm_disconnect(&parent));
}

static void exchange(MPI_Comm children, int n);

static void spawn(const char *host, const char *where, int n) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = size - 1;
  MPI_Info info = MPI_INFO_NULL;
  if (strcmp(host, "-") != 0) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", host);
  }
  char *args[] = {"child", (char *)where, NULL};
  MPI_Comm children;
  int codes[16];
  CHECK_MPI(MPI_Comm_spawn(self, args, n, info, root, MPI_COMM_WORLD, &children, codes));
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  exchange(children, n);
}

/* MPI_Comm_spawn_multiple: one child on HOST1 (first app), one on HOST2. */
static void spawn_multiple(const char *host1, const char *host2) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char where[256];
  snprintf(where, sizeof where, "%s,%s", host1, host2);
  char *commands[2] = {(char *)self, (char *)self};
  char *args0[] = {"child", where, NULL};
  char *args1[] = {"child", where, NULL};
  char **argvs[2] = {args0, args1};
  int maxprocs[2] = {1, 1};
  MPI_Info infos[2];
  MPI_Info_create(&infos[0]);
  MPI_Info_set(infos[0], "host", host1);
  MPI_Info_create(&infos[1]);
  MPI_Info_set(infos[1], "host", host2);
  MPI_Comm children;
  int codes[2];
  CHECK_MPI(MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, size - 1, MPI_COMM_WORLD, &children, codes));
  MPI_Info_free(&infos[0]);
  MPI_Info_free(&infos[1]);
  exchange(children, 2);
}

static void exchange(MPI_Comm children, int n) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = size - 1;
  int remote = 0;
  MPI_Comm_remote_size(children, &remote);
  CHECK(remote == n, "%d children, expected %d", remote, n);
  if (rank == root)
    for (int c = 0; c < n; ++c) {
      int value = c * 10;
      CHECK_MPI(MPI_Send(&value, 1, MPI_INT, c, 7, children));
    }
  for (int c = 0; c < n; ++c) {
    int answer = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&answer, 1, MPI_INT, MPI_ANY_SOURCE, 8, children, &st));
    CHECK(answer == 1000 + st.MPI_SOURCE, "child %d answered %d", st.MPI_SOURCE, answer);
  }
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(children, 0, &merged));
  int msize = 0, total = 0, one = 1;
  MPI_Comm_size(merged, &msize);
  CHECK(msize == size + n, "merged size %d", msize);
  CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged));
  CHECK(total == msize, "allreduce over the merged communicator gave %d of %d", total, msize);
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Comm_disconnect(&children));
}

static void names(void) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *service = "ferry-multihost-service";
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm other;
  int value = 0;
  if (rank == 0) {
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &other));
    value = 77;
    CHECK_MPI(MPI_Send(&value, 1, MPI_INT, 0, 3, other));
    CHECK_MPI(MPI_Comm_disconnect(&other));
    CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Close_port(port));
  } else if (rank == size - 1) {
    CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, port));
    sleep(1); /* the acceptor's lookup of the request waits for it */
    CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &other));
    CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, 0, 3, other, MPI_STATUS_IGNORE));
    CHECK(value == 77, "got %d over the connection", value);
    CHECK_MPI(MPI_Comm_disconnect(&other));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1) {
    int err = MPI_Lookup_name(service, MPI_INFO_NULL, port);
    int cls = -1;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_NAME, "a lookup after unpublishing gave class %d, expected MPI_ERR_NAME", cls);
  }
}

static void expect_refused(const char *program, const char *host) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "host", host);
  MPI_Comm none = MPI_COMM_NULL;
  int codes[4] = {-1, -1, -1, -1};
  int err = MPI_Comm_spawn(program, MPI_ARGV_NULL, 1, info, size - 1, MPI_COMM_WORLD, &none, codes);
  MPI_Info_free(&info);
  int cls = -1;
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_SPAWN, "spawning %s on %s gave class %d, expected MPI_ERR_SPAWN", program, host, cls);
  CHECK(none == MPI_COMM_NULL, "a failed spawn returned a communicator");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  self = argv[0];
  MPI_Comm parent;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  if (parent != MPI_COMM_NULL) {
    child(parent, argc > 2 ? argv[2] : "");
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "spawn") == 0 && argc > 4) {
    spawn(argv[2], argv[3], atoi(argv[4]));
  } else if (strcmp(mode, "multiple") == 0 && argc > 3) {
    spawn_multiple(argv[2], argv[3]);
  } else if (strcmp(mode, "names") == 0) {
    names();
  } else if (strcmp(mode, "refused") == 0 && argc > 3) {
    expect_refused("/nonexistent/ferry-multihost-missing", argv[2]);
    expect_refused("/bin/true", argv[3]);
  } else {
    CHECK(0, "unknown mode '%s'", mode);
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
