/* A PMIx client that checks what mpirun promises its ranks (see
 * docs/architecture.md, "Launcher <-> runtime"), standing in for libmpi
 * until it exists.
 *
 *   pmix_client_probe [check]         job info, secret, put/commit/fence/get
 *   pmix_client_probe bench           PMIx_Init + fence + PMIx_Finalize only
 *   pmix_client_probe abort R CODE    rank R calls PMIx_Abort(CODE) and exits
 *                                     CODE; the others wait in a fence that
 *                                     never completes
 *   pmix_client_probe nofinalize R    rank R exits 0 without PMIx_Finalize;
 *                                     the others wait in a fence
 *   pmix_client_probe gets_at_once    every rank asks for a value of every
 *                                     other rank at once (PMIx_Get_nb), as
 *                                     libmpi reads its local peers: 20
 *                                     rounds must not take 40 ms each
 *
 * Prints "probe: rank R of N ok" and exits 0 when every check holds, else
 * names the first check that failed and exits 1. */
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;
static int failed;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "probe: rank %u: ", me.rank);       \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
      failed = 1;                                         \
    }                                                     \
  } while (0)

/* A value of the job (rank wildcard) or of one rank. */
static pmix_value_t *get(pmix_rank_t rank, const char *key) {
  pmix_proc_t proc;
  pmix_value_t *val = NULL;
  PMIX_LOAD_PROCID(&proc, me.nspace, rank);
  pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &val);
  if (rc != PMIX_SUCCESS) {
    CHECK(0, "PMIx_Get(%s) failed: %s", key, PMIx_Error_string(rc));
    return NULL;
  }
  return val;
}

static long get_number(pmix_rank_t rank, const char *key) {
  pmix_value_t *v = get(rank, key);
  long n = -1;
  if (v == NULL) return -1;
  switch (v->type) {
    case PMIX_UINT32: n = (long)v->data.uint32; break;
    case PMIX_UINT16: n = (long)v->data.uint16; break;
    case PMIX_PROC_RANK: n = (long)v->data.rank; break;
    case PMIX_INT: n = (long)v->data.integer; break;
    default: CHECK(0, "%s has unexpected type %d", key, (int)v->type);
  }
  PMIX_VALUE_RELEASE(v);
  return n;
}

static char *get_string(pmix_rank_t rank, const char *key) {
  pmix_value_t *v = get(rank, key);
  char *s = NULL;
  if (v == NULL) return NULL;
  if (v->type == PMIX_STRING && v->data.string != NULL)
    s = strdup(v->data.string);
  else
    CHECK(0, "%s is not a string (type %d)", key, (int)v->type);
  PMIX_VALUE_RELEASE(v);
  return s;
}

static long env_number(const char *name) {
  const char *v = getenv(name);
  return v == NULL ? -1 : strtol(v, NULL, 10);
}

static pmix_status_t fence_all(int collect) {
  pmix_info_t info;
  bool yes = true;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  pmix_status_t rc = PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0);
  PMIX_INFO_DESTRUCT(&info);
  return rc;
}

static int check_job(void) {
  long size = get_number(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
  CHECK(size > 0, "PMIX_JOB_SIZE is %ld", size);
  /* The allocation's slots: this host's CPUs here, never fewer than the job. */
  CHECK(get_number(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE) >= size, "PMIX_UNIV_SIZE is below the job size");
  CHECK(get_number(PMIX_RANK_WILDCARD, PMIX_APPNUM) == 0, "PMIX_APPNUM is not 0");
  CHECK(get_number(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE) == size, "PMIX_LOCAL_SIZE differs from the job size");
  CHECK(get_number(me.rank, PMIX_LOCAL_RANK) == (long)me.rank, "PMIX_LOCAL_RANK is not the rank");
  CHECK(get_number(me.rank, PMIX_NODE_RANK) == (long)me.rank, "PMIX_NODE_RANK is not the rank");

  /* PMIX_LOCAL_PEERS: "0,1,...,size-1". */
  char expected[4096] = "";
  for (long r = 0; r < size && strlen(expected) < sizeof expected - 16; ++r)
    snprintf(expected + strlen(expected), sizeof expected - strlen(expected), r ? ",%ld" : "%ld", r);
  char *peers = get_string(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
  CHECK(peers != NULL && strcmp(peers, expected) == 0, "PMIX_LOCAL_PEERS is '%s', expected '%s'",
        peers ? peers : "(none)", expected);
  free(peers);

  char host[256] = "";
  gethostname(host, sizeof host - 1);
  char *hostname = get_string(me.rank, PMIX_HOSTNAME);
  CHECK(hostname != NULL && strcmp(hostname, host) == 0, "PMIX_HOSTNAME is '%s', expected '%s'",
        hostname ? hostname : "(none)", host);
  free(hostname);

  /* The launcher's variables agree with PMIx. */
  CHECK(env_number("OMPI_COMM_WORLD_RANK") == (long)me.rank, "OMPI_COMM_WORLD_RANK is wrong");
  CHECK(env_number("OMPI_COMM_WORLD_SIZE") == size, "OMPI_COMM_WORLD_SIZE is wrong");
  CHECK(env_number("OMPI_COMM_WORLD_LOCAL_RANK") == (long)me.rank, "OMPI_COMM_WORLD_LOCAL_RANK is wrong");
  CHECK(env_number("OMPI_COMM_WORLD_LOCAL_SIZE") == size, "OMPI_COMM_WORLD_LOCAL_SIZE is wrong");
  CHECK(env_number("OMPI_COMM_WORLD_NODE_RANK") == (long)me.rank, "OMPI_COMM_WORLD_NODE_RANK is wrong");
  CHECK(env_number("PMI_RANK") == (long)me.rank, "PMI_RANK is wrong");
  CHECK(env_number("PMI_SIZE") == size, "PMI_SIZE is wrong");

  /* The job secret: 32 hex digits, the same in every rank (checked through
   * the cards below). */
  char *secret = get_string(PMIX_RANK_WILDCARD, "ferry.job.secret");
  CHECK(secret != NULL && strlen(secret) == 32 && strspn(secret, "0123456789abcdef") == 32,
        "ferry.job.secret is '%s'", secret ? secret : "(none)");

  /* Put a card, exchange through a collecting fence, read a peer's. */
  char card[128];
  snprintf(card, sizeof card, "card-%u-%s", me.rank, secret ? secret : "");
  pmix_value_t value;
  PMIX_VALUE_LOAD(&value, card, PMIX_STRING);
  CHECK(PMIx_Put(PMIX_GLOBAL, "probe.card", &value) == PMIX_SUCCESS, "PMIx_Put failed");
  PMIX_VALUE_DESTRUCT(&value);
  CHECK(PMIx_Commit() == PMIX_SUCCESS, "PMIx_Commit failed");
  pmix_status_t rc = fence_all(1);
  CHECK(rc == PMIX_SUCCESS, "PMIx_Fence failed: %s", PMIx_Error_string(rc));

  if (size > 0) {
    pmix_rank_t peer = (pmix_rank_t)((me.rank + 1) % (unsigned long)size);
    char want[128];
    snprintf(want, sizeof want, "card-%u-%s", peer, secret ? secret : "");
    char *got = get_string(peer, "probe.card");
    CHECK(got != NULL && strcmp(got, want) == 0, "rank %u's card is '%s', expected '%s'", peer,
          got ? got : "(none)", want);
    free(got);
  }
  free(secret);
  return (int)size;
}

/* gets_at_once: the replies to one rank's requests leave the server back to
 * back. A server whose sockets keep Nagle's algorithm holds each one until
 * the rank has acknowledged the previous, and the rank delays that
 * acknowledgement: 40 ms a round instead of well under one. */
static pthread_mutex_t arrived_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_arrived = PTHREAD_COND_INITIALIZER;
static int pending;

static void arrived(pmix_status_t status, pmix_value_t *value, void *cbdata) {
  (void)cbdata;
  CHECK(status == PMIX_SUCCESS && value != NULL && value->type == PMIX_STRING, "a peer's value did not arrive: %s",
        PMIx_Error_string(status));
  pthread_mutex_lock(&arrived_mutex);
  if (--pending == 0) pthread_cond_signal(&all_arrived);
  pthread_mutex_unlock(&arrived_mutex);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int gets_at_once(void) {
  long size = get_number(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
  pmix_proc_t peers[64];
  int npeers = 0;
  for (long r = 0; r < size && npeers < 64; ++r) {
    if (r == (long)me.rank) continue;
    PMIX_LOAD_PROCID(&peers[npeers], me.nspace, (pmix_rank_t)r);
    ++npeers;
  }
  double waited = 0;
  for (int round = 0; round < 20 && !failed; ++round) {
    /* A new key each round: PMIx keeps what an earlier Get brought. */
    char key[32];
    snprintf(key, sizeof key, "probe.round.%d", round);
    pmix_value_t value;
    PMIX_VALUE_LOAD(&value, "value", PMIX_STRING);
    CHECK(PMIx_Put(PMIX_GLOBAL, key, &value) == PMIX_SUCCESS, "PMIx_Put failed");
    PMIX_VALUE_DESTRUCT(&value);
    CHECK(PMIx_Commit() == PMIX_SUCCESS, "PMIx_Commit failed");
    CHECK(fence_all(1) == PMIX_SUCCESS, "PMIx_Fence failed");
    double start = now_ms();
    pending = npeers;
    for (int i = 0; i < npeers; ++i)
      if (PMIx_Get_nb(&peers[i], key, NULL, 0, arrived, NULL) != PMIX_SUCCESS) arrived(PMIX_ERROR, NULL, NULL);
    pthread_mutex_lock(&arrived_mutex);
    while (pending > 0) pthread_cond_wait(&all_arrived, &arrived_mutex);
    pthread_mutex_unlock(&arrived_mutex);
    waited += now_ms() - start;
  }
  /* 20 delayed acknowledgements would be 800 ms (the first rounds may
   * escape them); without them it is a few ms, and a busy machine does not
   * come near 300. */
  CHECK(waited < 300, "20 rounds of %d gets at once took %.0f ms: replies wait for delayed ACKs", npeers, waited);
  return (int)size;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "check";
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "probe: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
    return 1;
  }

  if (strcmp(mode, "bench") == 0) {
    rc = fence_all(1);
    if (rc != PMIX_SUCCESS) fprintf(stderr, "probe: PMIx_Fence failed: %s\n", PMIx_Error_string(rc));
    PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : 1;
  }

  if (strcmp(mode, "abort") == 0 && argc > 3) {
    if ((long)me.rank == strtol(argv[2], NULL, 10)) {
      int code = (int)strtol(argv[3], NULL, 10);
      fprintf(stderr, "probe: rank %u aborting with %d\n", me.rank, code);
      PMIx_Abort(code, "probe abort", NULL, 0);
      return code;
    }
    fence_all(0);  /* never completes: the aborting rank does not join */
    fprintf(stderr, "probe: rank %u: fence completed after an abort\n", me.rank);
    return 1;
  }

  if (strcmp(mode, "nofinalize") == 0 && argc > 2) {
    if ((long)me.rank == strtol(argv[2], NULL, 10)) return 0;  /* no PMIx_Finalize */
    rc = fence_all(0);
    fprintf(stderr, "probe: rank %u: fence ended without a peer: %s\n", me.rank, PMIx_Error_string(rc));
    return 1;
  }

  int size = strcmp(mode, "gets_at_once") == 0 ? gets_at_once() : check_job();
  PMIx_Finalize(NULL, 0);
  if (failed) return 1;
  printf("probe: rank %u of %d ok\n", me.rank, size);
  return 0;
}
