/* A PMIx client that checks what mpirun's PMIx server does for dynamic
 * processes (MPI_Comm_spawn, MPI_Publish_name/MPI_Lookup_name,
 * MPI_Comm_connect/accept are built on these calls), standing in for libmpi.
 *
 *   pmix_spawn_probe parent N      rank 0 spawns N children (this program,
 *                                  "child"); parents and children connect,
 *                                  read each other's committed data, and
 *                                  meet through a published name
 *   pmix_spawn_probe errors F K    refused spawns get their error status at
 *                                  once: a missing program, the not
 *                                  executable file F, an unknown host, K
 *                                  processes (more than the free slots);
 *                                  then one that fits starts
 *   pmix_spawn_probe universe U    PMIX_UNIV_SIZE is U
 *   pmix_spawn_probe remote        on a host other than mpirun's: a spawn
 *                                  of a missing program is refused at once,
 *                                  and names publish, look up and unpublish
 *   pmix_spawn_probe spawn_run P A... rank 0 spawns one process of program P
 *                                  with arguments A..., then every rank
 *                                  sleeps until mpirun ends the job
 *
 * Prints "spawn-probe: ... ok" and exits 0 when every check holds, else
 * names the first check that failed and exits 1. An alarm ends a probe
 * that would hang. */
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;
static int failed;

#define CHECK(cond, ...)                                        \
  do {                                                          \
    if (!(cond)) {                                              \
      fprintf(stderr, "spawn-probe: %s:%u: ", me.nspace, me.rank); \
      fprintf(stderr, __VA_ARGS__);                             \
      fprintf(stderr, "\n");                                    \
      failed = 1;                                               \
    }                                                           \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static pmix_value_t *get_from(const char *nspace, pmix_rank_t rank, const char *key) {
  pmix_proc_t proc;
  pmix_value_t *val = NULL;
  PMIX_LOAD_PROCID(&proc, nspace, rank);
  pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &val);
  CHECK(rc == PMIX_SUCCESS, "PMIx_Get(%s:%u, %s) failed: %s", nspace, rank, key, PMIx_Error_string(rc));
  return rc == PMIX_SUCCESS ? val : NULL;
}

static long get_number(const char *nspace, pmix_rank_t rank, const char *key) {
  pmix_value_t *v = get_from(nspace, rank, key);
  long n = -1;
  if (v == NULL) return -1;
  if (v->type == PMIX_UINT32) n = (long)v->data.uint32;
  else if (v->type == PMIX_PROC_RANK) n = (long)v->data.rank;
  else CHECK(0, "%s has unexpected type %d", key, (int)v->type);
  PMIX_VALUE_RELEASE(v);
  return n;
}

/* Checks that `key` of nspace:rank is the string `want`. */
static void expect_string(const char *nspace, pmix_rank_t rank, const char *key, const char *want) {
  pmix_value_t *v = get_from(nspace, rank, key);
  if (v == NULL) return;
  CHECK(v->type == PMIX_STRING && strcmp(v->data.string, want) == 0, "%s of %s:%u is '%s', expected '%s'", key,
        nspace, rank, v->type == PMIX_STRING ? v->data.string : "(not a string)", want);
  PMIX_VALUE_RELEASE(v);
}

static void put_string(const char *key, const char *value) {
  pmix_value_t v;
  PMIX_VALUE_LOAD(&v, value, PMIX_STRING);
  CHECK(PMIx_Put(PMIX_GLOBAL, key, &v) == PMIX_SUCCESS, "PMIx_Put(%s) failed", key);
  PMIX_VALUE_DESTRUCT(&v);
  CHECK(PMIx_Commit() == PMIX_SUCCESS, "PMIx_Commit failed");
}

/* PMIx_Spawn of `maxprocs` processes of argv[0] (with `host` as PMIX_HOST
 * when not NULL); returns its status, the namespace in `nspace`. */
static pmix_status_t spawn(char **argv, int maxprocs, const char *host, const char *env, pmix_nspace_t nspace) {
  pmix_app_t app;
  PMIX_APP_CONSTRUCT(&app);
  app.cmd = strdup(argv[0]);
  int argc = 0;
  while (argv[argc] != NULL) ++argc;
  app.argv = calloc((size_t)argc + 1, sizeof(char *));
  for (int i = 0; i < argc; ++i) app.argv[i] = strdup(argv[i]);
  if (env != NULL) {
    app.env = calloc(2, sizeof(char *));
    app.env[0] = strdup(env);
  }
  app.maxprocs = maxprocs;
  if (host != NULL) {
    PMIX_INFO_CREATE(app.info, 1);
    app.ninfo = 1;
    PMIX_INFO_LOAD(&app.info[0], PMIX_HOST, host, PMIX_STRING);
  }
  nspace[0] = '\0';
  pmix_status_t rc = PMIx_Spawn(NULL, 0, &app, 1, nspace);
  PMIX_APP_DESTRUCT(&app);
  return rc;
}

static pmix_status_t connect_jobs(const char *a, const char *b, int disconnect) {
  pmix_proc_t procs[2];
  PMIX_LOAD_PROCID(&procs[0], a, PMIX_RANK_WILDCARD);
  PMIX_LOAD_PROCID(&procs[1], b, PMIX_RANK_WILDCARD);
  return disconnect ? PMIx_Disconnect(procs, 2, NULL, 0) : PMIx_Connect(procs, 2, NULL, 0);
}

static pmix_status_t fence_collect(void) {
  pmix_info_t info;
  bool yes = true;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  return rc;
}

/* PMIx_Lookup of one key; `wait`: PMIX_WAIT. Returns the status; on
 * success the value in `value` (caller frees) and its publisher. */
static pmix_status_t lookup(const char *key, int wait, char **value, pmix_proc_t *publisher) {
  pmix_pdata_t pdata;
  PMIX_PDATA_CONSTRUCT(&pdata);
  PMIX_LOAD_KEY(pdata.key, key);
  pmix_info_t info;
  bool yes = true;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, PMIX_WAIT, &yes, PMIX_BOOL);
  pmix_status_t rc = PMIx_Lookup(&pdata, 1, wait ? &info : NULL, wait ? 1 : 0);
  if (rc == PMIX_SUCCESS && value != NULL)
    *value = pdata.value.type == PMIX_STRING ? strdup(pdata.value.data.string) : NULL;
  if (rc == PMIX_SUCCESS && publisher != NULL) *publisher = pdata.proc;
  PMIX_INFO_DESTRUCT(&info);
  PMIX_PDATA_DESTRUCT(&pdata);
  return rc;
}

/* A waiting lookup of a name nobody publishes ends at its PMIX_TIMEOUT. */
static void expect_lookup_times_out(void) {
  pmix_pdata_t pdata;
  PMIX_PDATA_CONSTRUCT(&pdata);
  PMIX_LOAD_KEY(pdata.key, "spawn.never-published");
  pmix_info_t info[2];
  bool yes = true;
  int seconds = 1;
  PMIX_INFO_CONSTRUCT(&info[0]);
  PMIX_INFO_CONSTRUCT(&info[1]);
  PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &yes, PMIX_BOOL);
  PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &seconds, PMIX_INT);
  double t0 = now_ms();
  pmix_status_t rc = PMIx_Lookup(&pdata, 1, info, 2);
  double took = now_ms() - t0;
  CHECK(rc == PMIX_ERR_TIMEOUT, "a waiting lookup of a name never published: %s, expected TIMEOUT",
        PMIx_Error_string(rc));
  CHECK(took >= 800 && took < 5000, "a lookup with a 1 s timeout took %.0f ms", took);
  PMIX_INFO_DESTRUCT(&info[0]);
  PMIX_INFO_DESTRUCT(&info[1]);
  PMIX_PDATA_DESTRUCT(&pdata);
}

static pmix_status_t publish(const char *key, const char *value) {
  pmix_info_t info;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, key, value, PMIX_STRING);
  pmix_status_t rc = PMIx_Publish(&info, 1);
  PMIX_INFO_DESTRUCT(&info);
  return rc;
}

static pmix_status_t unpublish(const char *key) {
  char *keys[2] = {(char *)key, NULL};
  return PMIx_Unpublish(keys, NULL, 0);
}

static char self_path[4096];

/* ---- parent ---------------------------------------------------------- */

static int parent(int nchildren) {
  char value[64];
  snprintf(value, sizeof value, "parent-%u", me.rank);
  put_string("spawn.parent.card", value);

  pmix_nspace_t children = "";
  if (me.rank == 0) {
    char count[16];
    snprintf(count, sizeof count, "%d", nchildren);
    char *argv[] = {self_path, "child", count, NULL};
    double t0 = now_ms();
    pmix_status_t rc = spawn(argv, nchildren, NULL, "SPAWN_PROBE_VAR=from-parent", children);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Spawn failed: %s", PMIx_Error_string(rc));
    CHECK(strlen(children) > 0 && strcmp(children, me.nspace) != 0, "PMIx_Spawn gave namespace '%s'", children);
    fprintf(stderr, "spawn-probe: spawned %s in %.0f ms\n", children, now_ms() - t0);
    put_string("spawn.children", children);
  }
  /* The other parents learn the children's namespace from rank 0. */
  pmix_status_t rc = fence_collect();
  CHECK(rc == PMIX_SUCCESS, "PMIx_Fence failed: %s", PMIx_Error_string(rc));
  pmix_value_t *v = get_from(me.nspace, 0, "spawn.children");
  if (v == NULL || v->type != PMIX_STRING) return 1;
  PMIX_LOAD_NSPACE(children, v->data.string);
  PMIX_VALUE_RELEASE(v);

  /* The last child waits 500 ms before it connects: the connect must wait
   * for it. */
  double t0 = now_ms();
  rc = connect_jobs(me.nspace, children, 0);
  double waited = now_ms() - t0;
  CHECK(rc == PMIX_SUCCESS, "PMIx_Connect failed: %s", PMIx_Error_string(rc));
  CHECK(waited >= 300, "PMIx_Connect returned after %.0f ms, before the last child called it", waited);
  CHECK(get_number(children, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE) == nchildren, "the children's job size is wrong");
  for (int k = 0; k < nchildren; ++k) {
    snprintf(value, sizeof value, "child-%d", k);
    expect_string(children, (pmix_rank_t)k, "spawn.child.card", value);
  }

  if (me.rank == 0) {
    /* Child 0 publishes this name after the connect; waiting finds it. */
    char key[PMIX_MAX_KEYLEN + 1], *found = NULL;
    snprintf(key, sizeof key, "spawn.service.%s", me.nspace);
    pmix_proc_t publisher;
    rc = lookup(key, 1, &found, &publisher);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Lookup(%s, wait) failed: %s", key, PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS) {
      CHECK(found != NULL && strcmp(found, "port-of-child-0") == 0, "looked up '%s'", found ? found : "(none)");
      CHECK(PMIX_CHECK_NSPACE(publisher.nspace, children) && publisher.rank == 0,
            "the name's publisher is %s:%u, not child 0", publisher.nspace, publisher.rank);
    }
    free(found);
    rc = lookup("spawn.no-such-name", 0, NULL, NULL);
    CHECK(rc == PMIX_ERR_NOT_FOUND, "looking up an unpublished name: %s, expected NOT-FOUND", PMIx_Error_string(rc));
    rc = publish(key, "port-of-parent");
    CHECK(rc == PMIX_ERR_DUPLICATE_KEY, "publishing a taken name: %s, expected DUPLICATE-KEY", PMIx_Error_string(rc));
    rc = unpublish(key);
    CHECK(rc != PMIX_SUCCESS, "unpublishing another process's name succeeded");
    rc = publish("spawn.parent.name", "mine");
    CHECK(rc == PMIX_SUCCESS, "PMIx_Publish failed: %s", PMIx_Error_string(rc));
    rc = unpublish("spawn.parent.name");
    CHECK(rc == PMIX_SUCCESS, "PMIx_Unpublish of its own name failed: %s", PMIx_Error_string(rc));
    rc = lookup("spawn.parent.name", 0, NULL, NULL);
    CHECK(rc == PMIX_ERR_NOT_FOUND, "an unpublished name is still found: %s", PMIx_Error_string(rc));
    expect_lookup_times_out();
  }
  rc = connect_jobs(me.nspace, children, 1);
  CHECK(rc == PMIX_SUCCESS, "PMIx_Disconnect failed: %s", PMIx_Error_string(rc));
  if (!failed) printf("spawn-probe: parent %u ok\n", me.rank);
  return failed;
}

/* ---- child ----------------------------------------------------------- */

static int child(int expected_size) {
  pmix_value_t *v = get_from(me.nspace, PMIX_RANK_WILDCARD, PMIX_SPAWNED);
  CHECK(v != NULL && v->type == PMIX_BOOL && v->data.flag, "PMIX_SPAWNED is not true");
  if (v != NULL) PMIX_VALUE_RELEASE(v);
  v = get_from(me.nspace, PMIX_RANK_WILDCARD, PMIX_PARENT_ID);
  if (v == NULL || v->type != PMIX_PROC || v->data.proc == NULL) {
    CHECK(0, "PMIX_PARENT_ID is missing or not a proc");
    return 1;
  }
  pmix_proc_t parent_id = *v->data.proc;
  PMIX_VALUE_RELEASE(v);
  CHECK(parent_id.rank == 0 && !PMIX_CHECK_NSPACE(parent_id.nspace, me.nspace), "PMIX_PARENT_ID is %s:%u",
        parent_id.nspace, parent_id.rank);
  long size = get_number(me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
  CHECK(size == expected_size, "PMIX_JOB_SIZE is %ld, expected %d", size, expected_size);
  CHECK(get_number(me.nspace, me.rank, PMIX_APPNUM) == 0, "PMIX_APPNUM is not 0");
  const char *var = getenv("SPAWN_PROBE_VAR");
  CHECK(var != NULL && strcmp(var, "from-parent") == 0, "the app's environment did not arrive");
  const char *world_rank = getenv("OMPI_COMM_WORLD_RANK");
  CHECK(world_rank != NULL && atol(world_rank) == (long)me.rank, "OMPI_COMM_WORLD_RANK is wrong");

  char value[64];
  snprintf(value, sizeof value, "child-%u", me.rank);
  put_string("spawn.child.card", value);
  if ((long)me.rank == size - 1) usleep(500 * 1000);
  pmix_status_t rc = connect_jobs(parent_id.nspace, me.nspace, 0);
  CHECK(rc == PMIX_SUCCESS, "PMIx_Connect failed: %s", PMIx_Error_string(rc));
  long parents = get_number(parent_id.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
  CHECK(parents >= 1, "the parents' job size is %ld", parents);
  for (long r = 0; r < parents; ++r) {
    snprintf(value, sizeof value, "parent-%ld", r);
    expect_string(parent_id.nspace, (pmix_rank_t)r, "spawn.parent.card", value);
  }

  char key[PMIX_MAX_KEYLEN + 1];
  snprintf(key, sizeof key, "spawn.service.%s", parent_id.nspace);
  if (me.rank == 0) {
    rc = publish(key, "port-of-child-0");
    CHECK(rc == PMIX_SUCCESS, "PMIx_Publish(%s) failed: %s", key, PMIx_Error_string(rc));
  }
  rc = connect_jobs(parent_id.nspace, me.nspace, 1);
  CHECK(rc == PMIX_SUCCESS, "PMIx_Disconnect failed: %s", PMIx_Error_string(rc));
  if (me.rank == 0) {
    rc = unpublish(key);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Unpublish(%s) failed: %s", key, PMIx_Error_string(rc));
    rc = lookup(key, 0, NULL, NULL);
    CHECK(rc == PMIX_ERR_NOT_FOUND, "an unpublished name is still found: %s", PMIx_Error_string(rc));
  }
  if (!failed) printf("spawn-probe: child %u of %ld ok\n", me.rank, size);
  return failed;
}

/* ---- refused spawns -------------------------------------------------- */

static void expect_refused(char **argv, int maxprocs, const char *host, pmix_status_t expected, const char *what) {
  pmix_nspace_t ns;
  double t0 = now_ms();
  pmix_status_t rc = spawn(argv, maxprocs, host, NULL, ns);
  double took = now_ms() - t0;
  CHECK(rc == expected, "spawning %s: %s, expected %s", what, PMIx_Error_string(rc), PMIx_Error_string(expected));
  CHECK(took < 3000, "spawning %s took %.0f ms to be refused", what, took);
}

static int errors(const char *not_executable, int too_many) {
  char *missing[] = {"/nonexistent/spawn-probe-missing", NULL};
  expect_refused(missing, 1, NULL, PMIX_ERR_JOB_EXE_NOT_FOUND, "a missing program");
  char *by_name[] = {"spawn-probe-no-such-program", NULL};
  expect_refused(by_name, 1, NULL, PMIX_ERR_JOB_EXE_NOT_FOUND, "a program not in PATH");
  char *cannot_run[] = {(char *)not_executable, NULL};
  expect_refused(cannot_run, 1, NULL, PMIX_ERR_JOB_APP_NOT_EXECUTABLE, "a file that is not executable");
  char *true_argv[] = {"/bin/true", NULL};
  expect_refused(true_argv, 1, "no-such-host.invalid", PMIX_ERR_JOB_FAILED_TO_MAP, "onto an unknown host");
  expect_refused(true_argv, too_many, NULL, PMIX_ERR_JOB_INSUFFICIENT_RESOURCES, "more processes than slots");
  /* What fits still starts. */
  pmix_nspace_t ns;
  pmix_status_t rc = spawn(true_argv, 1, NULL, NULL, ns);
  CHECK(rc == PMIX_SUCCESS, "spawning what fits failed: %s", PMIx_Error_string(rc));
  if (!failed) printf("spawn-probe: errors ok\n");
  return failed;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  alarm(20); /* a hang is a failure, with a core of evidence */
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
  if (n > 0) self_path[n] = '\0';
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "spawn-probe: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  int status = 1;
  if (strcmp(mode, "parent") == 0 && argc > 2) {
    status = parent(atoi(argv[2]));
  } else if (strcmp(mode, "child") == 0 && argc > 2) {
    status = child(atoi(argv[2]));
  } else if (strcmp(mode, "errors") == 0 && argc > 3) {
    status = me.rank == 0 ? errors(argv[2], atoi(argv[3])) : 0;
  } else if (strcmp(mode, "universe") == 0 && argc > 2) {
    long size = get_number(me.nspace, PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE);
    CHECK(size == atol(argv[2]), "PMIX_UNIV_SIZE is %ld, expected %s", size, argv[2]);
    if (!failed) printf("spawn-probe: universe %ld ok\n", size);
    status = failed;
  } else if (strcmp(mode, "remote") == 0) {
    /* mpirun answers through the node daemon: the daemon's host looks for
     * the program, names are mpirun's. */
    char *missing[] = {"/nonexistent/spawn-probe-missing", NULL};
    expect_refused(missing, 1, NULL, PMIX_ERR_JOB_EXE_NOT_FOUND, "a missing program, from another host");
    char key[64], value[64];
    snprintf(key, sizeof key, "spawn.remote.%u", me.rank);
    snprintf(value, sizeof value, "value of rank %u", me.rank);
    rc = publish(key, value);
    CHECK(rc == PMIX_SUCCESS, "publish from another host: %s", PMIx_Error_string(rc));
    char *found = NULL;
    pmix_proc_t publisher;
    rc = lookup(key, 1, &found, &publisher);
    CHECK(rc == PMIX_SUCCESS && found != NULL && strcmp(found, value) == 0 && publisher.rank == me.rank,
          "lookup of %s from another host: %s, '%s'", key, PMIx_Error_string(rc), found ? found : "(none)");
    free(found);
    rc = lookup("spawn.any-name", 0, NULL, NULL);
    CHECK(rc == PMIX_ERR_NOT_FOUND, "a lookup of a name nobody published: %s", PMIx_Error_string(rc));
    rc = unpublish(key);
    CHECK(rc == PMIX_SUCCESS, "unpublish from another host: %s", PMIx_Error_string(rc));
    rc = lookup(key, 0, NULL, NULL);
    CHECK(rc == PMIX_ERR_NOT_FOUND, "a lookup after unpublishing: %s", PMIx_Error_string(rc));
    if (!failed) printf("spawn-probe: remote %u ok\n", me.rank);
    status = failed;
  } else if (strcmp(mode, "spawn_run") == 0 && argc > 2) {
    if (me.rank == 0) {
      pmix_nspace_t ns;
      rc = spawn(argv + 2, 1, NULL, NULL, ns);
      CHECK(rc == PMIX_SUCCESS, "PMIx_Spawn failed: %s", PMIx_Error_string(rc));
      if (rc == PMIX_SUCCESS) printf("spawn-probe: spawned %s\n", ns);
      fflush(stdout);
    }
    alarm(0);
    if (!failed) pause(); /* until mpirun ends the job */
    status = 1;
  } else {
    fprintf(stderr, "spawn-probe: unknown mode '%s'\n", mode);
  }
  PMIx_Finalize(NULL, 0);
  return status;
}
