/* Active-target RMA with MPI_Win_fence on every window flavor (MPI-4.0
 * §12.5.1): put, get and accumulate of predefined and derived datatypes,
 * checked at the target after the closing fence. */
#define TEST_NAME "rma_fence"
#include "../mpitest.h"

enum { N = 64 };

static void exercise(MPI_Win win, int *mem, int rank, int size, int dynamic, MPI_Aint *bases) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Aint disp0 = dynamic ? bases[right] : 0;
  int src[N], got[N];
  for (int i = 0; i < N; ++i) src[i] = rank * 1000 + i;
  for (int i = 0; i < N; ++i) mem[i] = -1;
  MPI_Win_fence(0, win);
  /* Put my block to the right neighbour's first half. */
  MPI_Put(src, N / 2, MPI_INT, right, disp0, N / 2, MPI_INT, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < N / 2; ++i)
    CHECK(mem[i] == left * 1000 + i, "put: mem[%d] = %d, expected %d", i, mem[i], left * 1000 + i);
  /* Get it back from the right neighbour, through a strided origin type. */
  MPI_Datatype every_other;
  MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  for (int i = 0; i < N; ++i) got[i] = -7;
  MPI_Get(got, 1, every_other, right, disp0, N / 2, MPI_INT, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < N / 2; ++i) CHECK(got[2 * i] == rank * 1000 + i, "get: got[%d] = %d", 2 * i, got[2 * i]);
  CHECK(got[1] == -7, "get: the gap was written");
  /* Everybody adds into rank 0's second half, with a strided target type. */
  int ones[N];
  for (int i = 0; i < N; ++i) ones[i] = i;
  MPI_Aint disp_half = (dynamic ? bases[0] : 0) + (N / 2) * (dynamic ? (MPI_Aint)sizeof(int) : 1);
  if (rank == 0) for (int i = N / 2; i < N; ++i) mem[i] = 0;
  MPI_Win_fence(0, win);
  MPI_Datatype quarter;
  MPI_Type_vector(N / 4, 1, 2, MPI_INT, &quarter);
  MPI_Type_commit(&quarter);
  MPI_Accumulate(ones, N / 4, MPI_INT, 0, disp_half, 1, quarter, MPI_SUM, win);
  MPI_Type_free(&quarter);
  MPI_Win_fence(0, win);
  if (rank == 0)
    for (int i = 0; i < N / 4; ++i) {
      CHECK(mem[N / 2 + 2 * i] == size * i, "accumulate: mem[%d] = %d, expected %d", N / 2 + 2 * i,
            mem[N / 2 + 2 * i], size * i);
      CHECK(mem[N / 2 + 2 * i + 1] == 0, "accumulate: the gap mem[%d] = %d", N / 2 + 2 * i + 1,
            mem[N / 2 + 2 * i + 1]);
    }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  MPI_Type_free(&every_other);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Aint bases[64];

  /* MPI_Win_create over user memory: displacement unit sizeof(int). */
  int *user = mt_malloc(N * sizeof(int));
  MPI_Win win;
  MPI_Win_create(user, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  exercise(win, user, rank, size, 0, bases);
  MPI_Win_free(&win);
  CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set MPI_WIN_NULL");

  int *mem;
  MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  exercise(win, mem, rank, size, 0, bases);
  MPI_Win_free(&win);

  /* Ranks that RMA treats as on different hosts cannot share memory. */
  const char *fake_hosts = getenv("FERRY_RMA_TEST_RANKS_PER_HOST");
  if (fake_hosts == NULL || atoi(fake_hosts) == 0 || atoi(fake_hosts) >= size) {
    MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    exercise(win, mem, rank, size, 0, bases);
    MPI_Win_free(&win);
  }

  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_attach(win, user, N * sizeof(int));
  MPI_Aint mine;
  MPI_Get_address(user, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
  exercise(win, user, rank, size, 1, bases);
  MPI_Win_detach(win, user);
  MPI_Win_free(&win);
  free(user);
  mt_pass();
  MPI_Finalize();
  return 0;
}
