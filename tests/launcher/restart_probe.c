/* A rank for mpirun's restart and checkpoint-event cases (restart_cases.sh):
 * it reads FERRY_RESTART_COUNT (the attempt: 0, 1, ...) and PMI_RANK from
 * its environment and behaves as the case needs. Every line it prints starts
 * "restart-probe: rank R attempt A".
 *
 *   restart_probe fail-once exit|kill|hang R   in attempt 0, rank R exits 1,
 *                           kills itself with SIGKILL, or hangs with the
 *                           others; in later attempts every rank prints
 *                           "ok" and exits 0
 *   restart_probe always-fail R CODE   rank R exits CODE in every attempt
 *   restart_probe fail-then-hang R     rank R exits 1 in attempt 0; every
 *                           rank hangs in later attempts
 *   restart_probe env [fail-once]  prints FERRY_CHECKPOINT_DIR, _KEEP,
 *                           FERRY_RESTART_FROM (and rank 0 exits 1 in attempt 0)
 *   restart_probe due N     PMIx client: registers a handler for the
 *                           checkpoint-due event, prints "ready", and exits
 *                           0 once N events came ("got N due events")
 *
 * Ranks that are not told to end sleep until mpirun ends them; an alarm
 * ends a probe that would otherwise outlive a broken mpirun. Extra
 * arguments are ignored (the cases pass a mark to find leftovers by).
 * Times are printed in microseconds of CLOCK_REALTIME ("at=US") so that a
 * case can measure a restart: the failing rank's end to the next start; and
 * the host the rank runs on ("host=H"). */
#include <pmix.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* common/checkpoint_event.h: ferry::checkpoint::kDueEvent. */
#define FERRY_CHECKPOINT_DUE_EVENT (PMIX_EXTERNAL_ERR_BASE - 101)

static int rank, attempt;
static int due_pipe[2];

static long long now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static int env_int(const char *name) {
  const char *v = getenv(name);
  return v != NULL ? atoi(v) : 0;
}

static void say(const char *what) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  printf("restart-probe: rank %d attempt %d %s at=%lld host=%s\n", rank, attempt, what, now_us(), host);
  fflush(stdout);
}

static void sleep_until_ended(void) {
  for (;;) pause();
}

static void on_due(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                   pmix_info_t *results, size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                   void *cbdata) {
  (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
  if (status == FERRY_CHECKPOINT_DUE_EVENT) {
    char c = 1;
    if (write(due_pipe[1], &c, 1) != 1) abort();
  }
  if (cbfunc != NULL) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int due(int wanted) {
  pmix_proc_t me;
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "restart-probe: PMIx_Init: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  if (pipe(due_pipe) != 0) return 1;
  pmix_status_t code = FERRY_CHECKPOINT_DUE_EVENT;
  rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_due, NULL, NULL);
  if (rc < 0) {
    fprintf(stderr, "restart-probe: PMIx_Register_event_handler: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  say("ready");
  int got = 0;
  while (got < wanted) {
    struct pollfd p = {due_pipe[0], POLLIN, 0};
    if (poll(&p, 1, 20000) != 1) {
      fprintf(stderr, "restart-probe: rank %d got %d of %d due events in 20 s\n", rank, got, wanted);
      return 1;
    }
    char c;
    if (read(due_pipe[0], &c, 1) == 1) ++got;
  }
  char line[64];
  snprintf(line, sizeof line, "got %d due events", got);
  say(line);
  PMIx_Finalize(NULL, 0);
  return 0;
}

int main(int argc, char **argv) {
  rank = env_int("PMI_RANK");
  attempt = env_int("FERRY_RESTART_COUNT");
  alarm(60);
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "fail-once") == 0 && argc > 3) {
    const char *how = argv[2];
    int who = atoi(argv[3]);
    say("started");
    if (attempt > 0) {
      say("ok");
      return 0;
    }
    if (strcmp(how, "hang") == 0) sleep_until_ended();
    if (rank != who) sleep_until_ended();
    say("fails");
    if (strcmp(how, "kill") == 0) raise(SIGKILL);
    return 1;
  }
  if (strcmp(mode, "always-fail") == 0 && argc > 3) {
    say("started");
    if (rank == atoi(argv[2])) return atoi(argv[3]);
    sleep_until_ended();
  }
  if (strcmp(mode, "fail-then-hang") == 0 && argc > 2) {
    say("started");
    if (attempt == 0 && rank == atoi(argv[2])) return 1;
    sleep_until_ended();
  }
  if (strcmp(mode, "env") == 0) {
    const char *names[] = {"FERRY_CHECKPOINT_DIR", "FERRY_CHECKPOINT_KEEP", "FERRY_RESTART_FROM"};
    for (int i = 0; i < 3; ++i) {
      const char *v = getenv(names[i]);
      printf("restart-probe: rank %d attempt %d %s=%s\n", rank, attempt, names[i], v != NULL ? v : "(unset)");
    }
    return argc > 2 && strcmp(argv[2], "fail-once") == 0 && attempt == 0 && rank == 0 ? 1 : 0;
  }
  if (strcmp(mode, "due") == 0 && argc > 2) return due(atoi(argv[2]));
  fprintf(stderr,
          "usage: restart_probe fail-once exit|kill|hang R | always-fail R CODE | fail-then-hang R | env | due N\n");
  return 2;
}
