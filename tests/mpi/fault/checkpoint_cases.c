/*
 * MPIX_Checkpoint/MPIX_Restore through real files, one behaviour per mode;
 * checkpoint_cases.sh runs the modes in sequence (a job that dies, then one
 * that restores) and damages files between them.
 *
 * The state of rank r after step s is a function of (r, s), so any restore
 * can be checked without knowing how the checkpoint was written:
 *   value[i] = r * 1000 + i + s * 0.5
 * Epoch e holds step e + 1 (one checkpoint per step from a fresh directory).
 *
 * Modes (argv[1]):
 *   steps N          fresh start: restore gives -1; N steps, a checkpoint each; then
 *                    restore gives epoch N-1 with step N's state; keep=2 leaves 2 epochs
 *   hook_fails       epoch 0 commits; then the last rank's hook fails: every rank gets an
 *                    error naming it, and restore still gives epoch 0
 *   outstanding      a pending receive makes the checkpoint fail on every rank, naming it
 *   kill_in_hook E   checkpoints until epoch E, where rank 1 dies (SIGKILL) half-way
 *                    through writing its file
 *   kill_before_publish E   ... where every rank has written and rank 0 dies before
 *                    the manifest is published
 *   expect E         restore must give epoch E (-1: none), with its state
 *   expect_error TEXT   restore must fail on every rank with TEXT in the message
 *   nested           a hook that calls MPIX_Checkpoint or MPIX_Restore gets an error, and the
 *                    checkpoint around it still commits
 *   nodir            no FERRY_CHECKPOINT_DIR: checkpoint and restore give -1, no hook runs
 *   memory_commit M  (partner copies) a checkpoint of M MiB per rank more grows no rank's peak
 *                    memory (VmHWM) by more than M/4 MiB: the copies are streamed in pieces
 *   memory_restore M restore of that checkpoint, with one host's files lost, likewise
 */
#define TEST_NAME "checkpoint_cases"
#include "mpitest.h"

#include <mpix.h>
#include <signal.h>
#include <unistd.h>

#define N_VALUES 4096

static double values[N_VALUES];
static int step;
static int rank, size;
static int fail_save_on = -1; /* rank whose save hook returns an error */
static int kill_at_epoch = -1, kill_mode = 0; /* 1: in hook (rank 1), 2: before publish (rank 0) */
static int epoch_being_written = -1;
static int saves, restores;
static long big_mib; /* memory_*: a file of this many MiB more, written from a small block */
static char big_block[1 << 20];

static void fill(int s) {
  step = s;
  for (int i = 0; i < N_VALUES; ++i) values[i] = rank * 1000 + i + s * 0.5;
}

static int save(MPI_Comm comm, const char *dir, void *state) {
  (void)state;
  ++saves;
  char path[4096];
  snprintf(path, sizeof path, "%s/state.bin", dir);
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  if (rank == fail_save_on) {
    fclose(f);
    return 17;
  }
  int killing = epoch_being_written == kill_at_epoch;
  fwrite(&step, sizeof step, 1, f);
  if (killing && kill_mode == 1 && rank == 1) {
    fwrite(values, sizeof(double), N_VALUES / 2, f);
    fflush(f);
    raise(SIGKILL); /* a rank dies half-way through its checkpoint */
  }
  fwrite(values, sizeof(double), N_VALUES, f);
  fclose(f);
  if (big_mib > 0) {
    snprintf(path, sizeof path, "%s/big.bin", dir);
    f = fopen(path, "wb");
    if (!f) return 1;
    for (long i = 0; i < big_mib; ++i) {
      memset(big_block, (int)(rank + i), sizeof big_block);
      if (fwrite(big_block, 1, sizeof big_block, f) != sizeof big_block) return fclose(f), 1;
    }
    if (fclose(f) != 0) return 1;
  }
  if (killing && kill_mode == 2) {
    /* Every rank's files are written; the job dies before the publish. */
    MPI_Barrier(comm);
    if (rank == 0) raise(SIGKILL);
    MPI_Barrier(comm); /* the others wait here until mpirun ends them */
  }
  return MPI_SUCCESS;
}

static int restore(MPI_Comm comm, const char *dir, void *state) {
  (void)comm;
  (void)state;
  ++restores;
  char path[4096];
  snprintf(path, sizeof path, "%s/state.bin", dir);
  FILE *f = fopen(path, "rb");
  if (!f) return 1;
  size_t got = fread(&step, sizeof step, 1, f);
  got += fread(values, sizeof(double), N_VALUES, f);
  fclose(f);
  return got == 1 + N_VALUES ? MPI_SUCCESS : 2;
}

/* The process's peak resident memory so far, in KiB (Linux VmHWM). */
static long peak_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib;
}

/* For memory_*: how much one call grew the peak; at most a quarter of the
 * big file (two pieces of a few MiB per stream, not the whole copy). */
static void check_growth(const char *call, long before_kib, long after_kib) {
  long grew_kib = after_kib - before_kib, limit_kib = big_mib * 1024 / 4;
  if (rank == 0) printf("%s of %ld MiB per rank: peak memory grew %ld KiB on rank 0\n", call, big_mib, grew_kib);
  CHECK(before_kib > 0 && grew_kib <= limit_kib, "%s of %ld MiB per rank grew the peak memory by %ld KiB (limit %ld)",
        call, big_mib, grew_kib, limit_kib);
}

/* For "nested": the errors the calls from inside a hook returned. */
static int nested_checkpoint_rc = -1, nested_restore_rc = -1;
static int nesting(MPI_Comm comm, const char *dir, void *state) {
  int e;
  (void)dir;
  (void)state;
  nested_checkpoint_rc = MPIX_Checkpoint(comm, &e);
  nested_restore_rc = MPIX_Restore(comm, &e);
  return MPI_SUCCESS;
}

static void check_state(int s) {
  CHECK(step == s, "restored step %d, expected %d", step, s);
  for (int i = 0; i < N_VALUES; ++i)
    CHECK(values[i] == rank * 1000 + i + s * 0.5, "value %d is %g after restoring step %d", i, values[i], s);
}

static int checkpoint(int *epoch) {
  int next = -1;
  /* The epoch a checkpoint will get is not known before; kill modes only
   * need "the E-th checkpoint from a fresh directory". */
  static int taken = 0;
  epoch_being_written = taken;
  int rc = MPIX_Checkpoint(MPI_COMM_WORLD, &next);
  if (rc == MPI_SUCCESS) ++taken;
  *epoch = next;
  return rc;
}

static void run_steps(int n) {
  int epoch = 0;
  for (int s = 1; s <= n; ++s) {
    fill(s);
    CHECK_MPI(checkpoint(&epoch));
    CHECK(epoch == s - 1, "checkpoint after step %d is epoch %d", s, epoch);
  }
}

static void expect_error(int rc, const char *call, const char *text) {
  CHECK(rc != MPI_SUCCESS, "%s succeeded; expected an error with '%s'", call, text);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  CHECK(strstr(msg, call) != NULL && strstr(msg, text) != NULL, "%s error '%s' does not say '%s'", call, msg,
           text);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(argc >= 2, "usage: checkpoint_cases MODE [ARG]");
  const char *mode = argv[1];
  int arg = argc >= 3 ? atoi(argv[2]) : 0;
  CHECK_MPI(MPIX_Checkpoint_hook(save, restore, NULL));
  int epoch = -2;

  if (strcmp(mode, "steps") == 0) {
    CHECK_MPI(MPIX_Restore(MPI_COMM_WORLD, &epoch));
    CHECK(epoch == -1, "restore in an empty directory gave epoch %d", epoch);
    CHECK(restores == 0, "a restore hook ran without a checkpoint");
    run_steps(arg);
    fill(0); /* forget */
    CHECK_MPI(MPIX_Restore(MPI_COMM_WORLD, &epoch));
    CHECK(epoch == arg - 1, "restore gave epoch %d, expected %d", epoch, arg - 1);
    check_state(arg);
  } else if (strcmp(mode, "hook_fails") == 0) {
    run_steps(1);
    fill(2);
    fail_save_on = size - 1;
    int rc = checkpoint(&epoch);
    char text[64];
    snprintf(text, sizeof text, "save hook 1 of 1 returned 17");
    expect_error(rc, "MPIX_Checkpoint", text);
    fail_save_on = -1;
    fill(0);
    CHECK_MPI(MPIX_Restore(MPI_COMM_WORLD, &epoch));
    CHECK(epoch == 0, "after a failed commit restore gave epoch %d, expected 0", epoch);
    check_state(1);
  } else if (strcmp(mode, "outstanding") == 0) {
    int buf = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    if (rank == 0) MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &r);
    expect_error(checkpoint(&epoch), "MPIX_Checkpoint", "outstanding");
    CHECK(saves == 0, "a save hook ran although the checkpoint could not start");
    if (rank == 0) {
      MPI_Cancel(&r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    fill(1);
    CHECK_MPI(checkpoint(&epoch));
  } else if (strcmp(mode, "kill_in_hook") == 0 || strcmp(mode, "kill_before_publish") == 0) {
    kill_at_epoch = arg;
    kill_mode = strcmp(mode, "kill_in_hook") == 0 ? 1 : 2;
    run_steps(arg + 1);
    CHECK(0, "the job should have died at epoch %d", arg);
  } else if (strcmp(mode, "expect") == 0) {
    fill(0);
    CHECK_MPI(MPIX_Restore(MPI_COMM_WORLD, &epoch));
    CHECK(epoch == arg, "restore gave epoch %d, expected %d", epoch, arg);
    if (arg >= 0) check_state(arg + 1);
    /* The next checkpoint goes past every epoch directory, torn ones too. */
    CHECK_MPI(checkpoint(&epoch));
    CHECK(epoch > arg, "the checkpoint after restoring epoch %d is epoch %d", arg, epoch);
  } else if (strcmp(mode, "expect_error") == 0) {
    CHECK(argc >= 3, "expect_error needs the text");
    expect_error(MPIX_Restore(MPI_COMM_WORLD, &epoch), "MPIX_Restore", argv[2]);
    CHECK(restores == 0, "a restore hook ran although the restore failed");
  } else if (strcmp(mode, "nested") == 0) {
    CHECK_MPI(MPIX_Checkpoint_hook(nesting, nesting, NULL));
    fill(1);
    CHECK_MPI(checkpoint(&epoch));
    CHECK(epoch == 0, "the checkpoint around the nested calls gave epoch %d", epoch);
    expect_error(nested_checkpoint_rc, "MPIX_Checkpoint", "inside a checkpoint hook");
    nested_checkpoint_rc = -1;
    CHECK_MPI(MPIX_Restore(MPI_COMM_WORLD, &epoch));
    expect_error(nested_restore_rc, "MPIX_Restore", "inside a checkpoint hook");
  } else if (strcmp(mode, "memory_commit") == 0) {
    fill(1);
    CHECK_MPI(checkpoint(&epoch)); /* warm: the commit's own allocations and the transports' buffers */
    memset(big_block, 1, sizeof big_block);
    big_mib = arg;
    fill(2);
    long before = peak_kib();
    CHECK_MPI(checkpoint(&epoch));
    check_growth("MPIX_Checkpoint", before, peak_kib());
  } else if (strcmp(mode, "memory_restore") == 0) {
    memset(big_block, 1, sizeof big_block);
    big_mib = arg;
    fill(0);
    long before = peak_kib();
    CHECK_MPI(MPIX_Restore(MPI_COMM_WORLD, &epoch));
    check_growth("MPIX_Restore", before, peak_kib());
    check_state(2);
  } else if (strcmp(mode, "nodir") == 0) {
    fill(1);
    CHECK_MPI(checkpoint(&epoch));
    CHECK(epoch == -1, "without a directory the checkpoint gave epoch %d", epoch);
    CHECK_MPI(MPIX_Restore(MPI_COMM_WORLD, &epoch));
    CHECK(epoch == -1, "without a directory restore gave epoch %d", epoch);
    CHECK(saves == 0 && restores == 0, "hooks ran without a directory (%d saves, %d restores)", saves, restores);
    int flag = -1, count = -1;
    CHECK_MPI(MPIX_Checkpoint_due(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0, "a checkpoint is due without a launcher asking (%d)", flag);
    CHECK_MPI(MPIX_Restart_count(&count));
    CHECK(count == 0, "restart count %d in a first run", count);
  } else {
    CHECK(0, "unknown mode %s", mode);
  }
  MPI_Finalize();
  if (rank == 0) printf("%s: OK\n", TEST_NAME);
  return 0;
}
