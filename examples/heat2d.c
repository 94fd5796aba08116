/*
 * A restartable MPI program: the 2-D heat equation, explicit (Jacobi) steps
 * on a square plate whose top edge is held hot, rows split among the ranks.
 *
 * Restartable in a few lines (Ferry's MPIX_ checkpoint extension, mpix.h):
 *   - save_grid/restore_grid write and read this rank's rows in `dir`;
 *   - MPIX_Checkpoint_hook registers them once after MPI_Init;
 *   - MPIX_Restore at start picks up the latest complete checkpoint, if any;
 *   - MPIX_Checkpoint every CHECKPOINT_EVERY steps, and whenever the launcher
 *     asks (MPIX_Checkpoint_due: mpirun --checkpoint-interval, or SIGUSR1).
 * Run it with `mpirun --checkpoint-dir DIR --max-restarts 2 -n 4 ./heat2d`;
 * without --checkpoint-dir it runs the same and saves nothing.
 *
 * It prints a checksum of the final plate; a run that was killed and
 * restarted prints the same one as a run that never stopped.
 * --kill-at STEP makes rank 0 die (SIGKILL) after that step in the first
 * attempt (not in a restarted one), for tests.
 * --hold-at STEP makes rank 0 print "heat2d: holding at step STEP" after that
 * step in the first attempt and sleep 60 s, so that a test can kill a node
 * daemon while the job is known to be mid-run.
 */
#include <mpi.h>
#include <mpix.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 96 /* the plate is N x N points */
#define STEPS 300
#define CHECKPOINT_EVERY 50

struct plate {
  int step;      /* steps done */
  int rows;      /* rows of this rank, without the two halo rows */
  double *cells; /* (rows + 2) x N, row 0 and row rows+1 are halos */
};

static int save_grid(MPI_Comm comm, const char *dir, void *state) {
  struct plate *p = state;
  char path[4096];
  snprintf(path, sizeof path, "%s/plate.bin", dir);
  FILE *f = fopen(path, "wb");
  if (f == NULL) return 1;
  size_t ok = fwrite(&p->step, sizeof p->step, 1, f);
  ok += fwrite(p->cells + N, sizeof(double), (size_t)p->rows * N, f);
  return fclose(f) == 0 && ok == 1 + (size_t)p->rows * N ? MPI_SUCCESS : 1;
}

static int restore_grid(MPI_Comm comm, const char *dir, void *state) {
  struct plate *p = state;
  char path[4096];
  snprintf(path, sizeof path, "%s/plate.bin", dir);
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 1;
  size_t ok = fread(&p->step, sizeof p->step, 1, f);
  ok += fread(p->cells + N, sizeof(double), (size_t)p->rows * N, f);
  fclose(f);
  return ok == 1 + (size_t)p->rows * N ? MPI_SUCCESS : 1;
}

/* One Jacobi step: exchange halo rows with the neighbours, then average. */
static void step(struct plate *p, double *next, int rank, int size) {
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double *c = p->cells;
  MPI_Sendrecv(c + N, N, MPI_DOUBLE, up, 0, c + (size_t)(p->rows + 1) * N, N, MPI_DOUBLE, down, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(c + (size_t)p->rows * N, N, MPI_DOUBLE, down, 1, c, N, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int i = 1; i <= p->rows; ++i)
    for (int j = 0; j < N; ++j) {
      double *x = &c[(size_t)i * N + j];
      int edge = j == 0 || j == N - 1 || (rank == 0 && i == 1) || (rank == size - 1 && i == p->rows);
      next[(size_t)i * N + j] = edge ? *x : 0.25 * (x[-N] + x[N] + x[-1] + x[1]);
    }
  memcpy(c + N, next + N, sizeof(double) * (size_t)p->rows * N);
  p->step++;
}

/* FNV-1a over the bytes of the whole plate, in rank order: equal only if
 * every bit of every cell is. */
static uint64_t checksum(const struct plate *p, int rank, int size) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char *b = (const unsigned char *)(p->cells + N);
  for (size_t i = 0; i < sizeof(double) * (size_t)p->rows * N; ++i) h = (h ^ b[i]) * 1099511628211ull;
  uint64_t *all = rank == 0 ? malloc(sizeof(uint64_t) * (size_t)size) : NULL;
  MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  uint64_t total = 0;
  if (rank == 0)
    for (int r = 0; r < size; ++r) total = (total ^ all[r]) * 1099511628211ull;
  free(all);
  return total;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, kill_at = -1, hold_at = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc == 3 && strcmp(argv[1], "--kill-at") == 0) kill_at = atoi(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--hold-at") == 0) hold_at = atoi(argv[2]);

  struct plate p = {0, N / size + (rank < N % size), NULL};
  p.cells = calloc((size_t)(p.rows + 2) * N, sizeof(double));
  double *next = calloc((size_t)(p.rows + 2) * N, sizeof(double));
  if (rank == 0)
    for (int j = 0; j < N; ++j) p.cells[N + j] = 100.0; /* the hot edge */

  /* Restartable: register the hooks, then pick up the latest checkpoint. */
  MPIX_Checkpoint_hook(save_grid, restore_grid, &p);
  int epoch = -1, restarts = 0;
  MPIX_Restart_count(&restarts);
  MPIX_Restore(MPI_COMM_WORLD, &epoch);
  if (epoch >= 0 && rank == 0)
    printf("heat2d: restart %d, restored epoch %d at step %d\n", restarts, epoch, p.step);

  while (p.step < STEPS) {
    step(&p, next, rank, size);
    int due = 0;
    MPIX_Checkpoint_due(MPI_COMM_WORLD, &due);
    if (p.step % CHECKPOINT_EVERY == 0 || due) MPIX_Checkpoint(MPI_COMM_WORLD, &epoch);
    if (p.step == kill_at && rank == 0 && restarts == 0) raise(SIGKILL);
    if (p.step == hold_at && rank == 0 && restarts == 0) {
      printf("heat2d: holding at step %d\n", p.step);
      fflush(stdout);
      sleep(60); /* the other ranks wait in the next step's exchange */
    }
  }

  uint64_t sum = checksum(&p, rank, size);
  if (rank == 0) printf("heat2d: checksum %016llx after %d steps\n", (unsigned long long)sum, p.step);
  free(next);
  free(p.cells);
  MPI_Finalize();
  return 0;
}
