/* GPU bench rows (README "GPU buffers"): ping-pong latency and one-way
 * bandwidth between 2 ranks, host-host and device-device buffers, and an
 * allreduce of floats, each the best of a few repetitions. Prints one line
 * per row: "gpu-bench <what> <bytes> <us per op> <GB/s>". */
#define TEST_NAME "gpu_bench"
#include "gpu_test.h"

static int rank, size;

static double pingpong(void* b, size_t n, int iters) {
  int peer = 1 - rank;
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
      if (rank == 0) {
        MPI_Send(b, (int)n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(b, (int)n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(b, (int)n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(b, (int)n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      }
    }
    t = (MPI_Wtime() - t) / iters / 2;
    if (t < best) best = t;
  }
  return best;
}

static double allreduce(void* s, void* r, size_t n, int iters) {
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) MPI_Allreduce(s, r, (int)(n / sizeof(float)), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    t = (MPI_Wtime() - t) / iters;
    if (t < best) best = t;
  }
  return best;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "run at 2 ranks");
  const size_t sizes[] = {8, 4096, 65536, 1 << 20, 16 << 20};
  const Where wheres[] = {kHost, kDevice};
  for (Where w : wheres)
    for (size_t n : sizes) {
      void* b = alloc_in(w, n);
      fill(w, b, n, 1);
      CHECK_CUDA(cudaDeviceSynchronize());
      int iters = n <= 65536 ? 1000 : n <= (1 << 20) ? 100 : 10;
      double t = pingpong(b, n, iters);
      if (rank == 0)
        printf("gpu-bench pingpong-%s %zu %.2f %.2f\n", where_name(w), n, t * 1e6, n / t / 1e9);
      void* r = alloc_in(w, n);
      t = allreduce(b, r, n, iters);
      if (rank == 0) printf("gpu-bench allreduce-%s %zu %.2f %.2f\n", where_name(w), n, t * 1e6, n / t / 1e9);
      free_in(w, b);
      free_in(w, r);
    }
  MPI_Finalize();
  return 0;
}
