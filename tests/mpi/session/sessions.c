/*
 * Sessions (MPI-4.0 §11.3) beside the world model in one process: two
 * sessions and MPI_Init, psets, communicators from groups with string tags,
 * MPI_Finalize while a session is open, and the errors of bad arguments.
 */
#define TEST_NAME "sessions"
#include "../mpitest.h"

#include <unistd.h>

static int world_size_of(MPI_Session s) {
  MPI_Info info;
  char value[32];
  int flag = 0;
  CHECK_MPI(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
  CHECK_MPI(MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag));
  CHECK(flag, "mpi://WORLD has no mpi_size");
  MPI_Info_free(&info);
  return atoi(value);
}

/* A communicator over pset `pset` of session `s`, checked with an allreduce. */
static MPI_Comm comm_of(MPI_Session s, const char *pset, const char *tag) {
  MPI_Group g;
  MPI_Comm c;
  int size, rank, gsize, sum = 0, expected;
  CHECK_MPI(MPI_Group_from_session_pset(s, pset, &g));
  CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  CHECK(c != MPI_COMM_NULL, "MPI_Comm_create_from_group(%s) gave MPI_COMM_NULL", pset);
  MPI_Group_size(g, &gsize);
  MPI_Group_free(&g);
  MPI_Comm_size(c, &size);
  MPI_Comm_rank(c, &rank);
  CHECK(size == gsize, "communicator of %s has %d ranks, its group %d", pset, size, gsize);
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
  expected = size * (size - 1) / 2;
  CHECK(sum == expected, "allreduce over %s gave %d, expected %d", pset, sum, expected);
  return c;
}

static void check_error(int rc, int expected_class, const char *needle) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0, cls = 0;
  CHECK(rc != MPI_SUCCESS, "expected an error naming %s, got success", needle);
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, text, &len);
  CHECK(cls == expected_class, "error class %d, expected %d (%s)", cls, expected_class, text);
  if (mt_is_ferry()) CHECK(strstr(text, needle) != NULL, "error text \"%s\" does not name %s", text, needle);
}

static int errhandler_calls = 0;
static void on_session_error(MPI_Session *s, int *code, ...) {
  (void)s;
  (void)code;
  ++errhandler_calls;
}

int main(int argc, char **argv) {
  MPI_Session s1, s2;
  MPI_Info info, got;
  char value[64], name[MPI_MAX_PSET_NAME_LEN], host[256] = {0}, host_pset[300];
  int flag = 0, n = 0, len = 0, world_size, found_world = 0, found_self = 0, found_host = 0;

  /* The library's session, asking for MPI_THREAD_MULTIPLE. */
  MPI_Info_create(&info);
  MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
  CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s1));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_Session_get_info(s1, &got));
  CHECK_MPI(MPI_Info_get(got, "thread_level", sizeof value - 1, value, &flag));
  CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0, "session thread_level is \"%s\"", flag ? value : "");
  MPI_Info_free(&got);

  /* A bad thread_level: MPI_ERR_ARG on the handler given to MPI_Session_init. */
  {
    MPI_Session bad = MPI_SESSION_NULL;
    MPI_Errhandler counting;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_BOGUS");
    check_error(MPI_Session_init(info, MPI_ERRORS_RETURN, &bad), MPI_ERR_ARG, "thread_level");
    CHECK(bad == MPI_SESSION_NULL, "a failed MPI_Session_init set the handle");
    CHECK_MPI(MPI_Session_create_errhandler(on_session_error, &counting));
    (void)MPI_Session_init(info, counting, &bad);
    CHECK(errhandler_calls == 1, "MPI_Session_init's handler ran %d times", errhandler_calls);
    errhandler_calls = 0;
    MPI_Errhandler_free(&counting);
    MPI_Info_free(&info);
  }

  /* Psets: WORLD, SELF and this host's. */
  gethostname(host, sizeof host - 1);
  snprintf(host_pset, sizeof host_pset, "ferry://host/%s", host);
  CHECK_MPI(MPI_Session_get_num_psets(s1, MPI_INFO_NULL, &n));
  CHECK(n >= 2, "%d psets", n);
  for (int i = 0; i < n; ++i) {
    len = 0;
    CHECK_MPI(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, NULL));
    CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d: length %d", i, len);
    int full = len;
    CHECK_MPI(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, name));
    CHECK((int)strlen(name) + 1 == full, "pset %d: \"%s\" but length %d", i, name, full);
    /* A short buffer gets a truncated, terminated name and the full length. */
    len = 4;
    char small[4];
    CHECK_MPI(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, small));
    CHECK(len == full && small[3] == '\0' && strncmp(small, name, 3) == 0, "pset %d truncated to \"%s\" (len %d)",
          i, small, len);
    found_world |= strcmp(name, "mpi://WORLD") == 0;
    found_self |= strcmp(name, "mpi://SELF") == 0;
    found_host |= strcmp(name, host_pset) == 0;
  }
  CHECK(found_world && found_self, "mpi://WORLD or mpi://SELF missing");
  if (mt_is_ferry()) CHECK(found_host, "pset %s missing", host_pset);
  world_size = world_size_of(s1);

  /* Errors go to the session's handler. */
  MPI_Group g = MPI_GROUP_NULL;
  check_error(MPI_Group_from_session_pset(s1, "mpi://NO_SUCH_PSET", &g), MPI_ERR_ARG, "mpi://NO_SUCH_PSET");
  check_error(MPI_Session_get_pset_info(s1, "mpi://NO_SUCH_PSET", &got), MPI_ERR_ARG, "mpi://NO_SUCH_PSET");
  check_error(MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, n, &len, name), MPI_ERR_ARG, "MPI_Session_get_nth_pset");
  MPI_Errhandler eh, current;
  CHECK_MPI(MPI_Session_create_errhandler(on_session_error, &eh));
  CHECK_MPI(MPI_Session_set_errhandler(s1, eh));
  CHECK_MPI(MPI_Session_get_errhandler(s1, &current));
  CHECK(current == eh, "MPI_Session_get_errhandler gave another handler");
  MPI_Errhandler_free(&current);
  (void)MPI_Group_from_session_pset(s1, "mpi://NO_SUCH_PSET", &g);
  CHECK(errhandler_calls == 1, "the session's handler ran %d times", errhandler_calls);
  CHECK_MPI(MPI_Session_call_errhandler(s1, MPI_ERR_OTHER));
  CHECK(errhandler_calls == 2, "MPI_Session_call_errhandler: handler ran %d times", errhandler_calls);
  CHECK_MPI(MPI_Session_set_errhandler(s1, MPI_ERRORS_RETURN));
  MPI_Errhandler_free(&eh);

  /* A second session (another library) and communicators from both. */
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
  MPI_Comm a = comm_of(s1, "mpi://WORLD", "org.ferry.test.a");
  MPI_Comm b = comm_of(s2, "mpi://WORLD", "org.ferry.test.b");
  MPI_Comm self = comm_of(s2, "mpi://SELF", "org.ferry.test.self");
  MPI_Comm hostc = mt_is_ferry() ? comm_of(s1, host_pset, "org.ferry.test.host") : MPI_COMM_NULL;
  CHECK(world_size >= 1, "mpi_size %d", world_size);
  int asize;
  MPI_Comm_size(a, &asize);
  CHECK(asize == world_size, "mpi://WORLD communicator has %d ranks, mpi_size says %d", asize, world_size);

  /* Traffic on a and b stays apart: each rank sends to its right on both,
   * b first, and receives a first. */
  int arank, right, left, va = -1, vb = -1, sa, sb;
  MPI_Comm_rank(a, &arank);
  right = (arank + 1) % asize;
  left = (arank + asize - 1) % asize;
  sa = 1000 + arank;
  sb = 2000 + arank;
  MPI_Request reqs[4];
  CHECK_MPI(MPI_Isend(&sb, 1, MPI_INT, right, 7, b, &reqs[0]));
  CHECK_MPI(MPI_Isend(&sa, 1, MPI_INT, right, 7, a, &reqs[1]));
  CHECK_MPI(MPI_Irecv(&va, 1, MPI_INT, left, 7, a, &reqs[2]));
  CHECK_MPI(MPI_Irecv(&vb, 1, MPI_INT, left, 7, b, &reqs[3]));
  CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
  CHECK(va == 1000 + left && vb == 2000 + left, "got %d on a and %d on b from rank %d", va, vb, left);

  /* Bad arguments of MPI_Comm_create_from_group, raised on its handler. */
  {
    MPI_Group wg, first;
    MPI_Comm none = MPI_COMM_NULL;
    int zero = 0;
    char long_tag[MPI_MAX_STRINGTAG_LEN + 8];
    memset(long_tag, 'x', sizeof long_tag - 1);
    long_tag[sizeof long_tag - 1] = '\0';
    CHECK_MPI(MPI_Group_from_session_pset(s1, "mpi://WORLD", &wg));
    check_error(MPI_Comm_create_from_group(wg, long_tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &none), MPI_ERR_ARG,
                "stringtag");
    check_error(MPI_Comm_create_from_group(wg, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &none), MPI_ERR_ARG,
                "stringtag");
    check_error(MPI_Comm_create_from_group(MPI_GROUP_NULL, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &none),
                MPI_ERR_GROUP, "group");
    MPI_Group_incl(wg, 1, &zero, &first);
    int grank;
    MPI_Group_rank(wg, &grank);
    if (grank != 0)
      check_error(MPI_Comm_create_from_group(first, "org.ferry.test.not-a-member", MPI_INFO_NULL,
                                             MPI_ERRORS_RETURN, &none),
                  MPI_ERR_GROUP, "not a member");
    MPI_Group_free(&first);
    MPI_Group_free(&wg);
  }

  /* The application's MPI_Init, with the sessions open. */
  int provided, wsize;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(wsize == world_size, "MPI_COMM_WORLD has %d ranks, mpi://WORLD %d", wsize, world_size);
  check_error(MPI_Session_get_info(MPI_SESSION_NULL, &got), MPI_ERR_SESSION, "MPI_Session_get_info");
  MPI_Comm w = comm_of(s1, "mpi://WORLD", "org.ferry.test.after-init");
  MPI_Comm_free(&w);
  MPI_Barrier(MPI_COMM_WORLD);
  int rank0 = mt_world_rank();
  CHECK_MPI(MPI_Finalize());

  /* Session s2 still works after MPI_Finalize (MPI-4.0 §11.4.1). */
  int sum = 0, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, b));
  CHECK(sum == world_size, "allreduce on b after MPI_Finalize gave %d", sum);

  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_free(&self);
  if (hostc != MPI_COMM_NULL) MPI_Comm_free(&hostc);
  CHECK_MPI(MPI_Session_finalize(&s1));
  CHECK(s1 == MPI_SESSION_NULL, "MPI_Session_finalize did not reset the handle");
  CHECK_MPI(MPI_Session_finalize(&s2));
  if (rank0 == 0) {
    printf("%s: OK\n", TEST_NAME);
    fflush(stdout);
  }
  return 0;
}
