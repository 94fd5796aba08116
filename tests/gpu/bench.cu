/* GPU bench rows (README "GPU buffers"): ping-pong latency and one-way
 * bandwidth between 2 ranks, host-host and device-device buffers, and an
 * allreduce of floats, each the best of a few repetitions; and the yardstick
 * issue 16 measures them against, cudaMemcpy device to device of the same
 * bytes in the same run. At more than 2 ranks, only the allreduce rows.
 * allreduce-floor is the least an allreduce of those bytes can take on this
 * GPU (issue 33): every rank sharing the GPU reads its input once and
 * writes its result once, so that many cudaMemcpy times of the same bytes.
 * Prints one line per row:
 * "gpu-bench <what> <bytes> <us per op> <GB/s>". Device rows are left out
 * when Ferry's CUDA path is off (FERRY_CUDA=off), which run.sh uses to time
 * the host rows without it. With --quick, only the device rows at 8 B and
 * 64 MiB and their yardsticks: to compare settings (FERRY_* variables) in
 * one short run. */
#define TEST_NAME "gpu_bench"
#include "gpu_test.h"

#include <cuda.h>

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

/* Bandwidth as osu_bw measures it: a window of messages in flight from
 * rank 0 to rank 1, then a zero-byte reply; per message, best of 3. This is
 * the figure to set against cudaMemcpy's, which is also back-to-back copies
 * (ping-pong adds each message's completion latency to its bytes). */
static double bandwidth(void* b, size_t n, int iters, int window) {
  double best = 1e30;
  MPI_Request req[64];
  for (int rep = 0; rep < 3; rep++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
      for (int w = 0; w < window; w++) {
        if (rank == 0) MPI_Isend(b, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[w]);
        else MPI_Irecv(b, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[w]);
      }
      MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
      if (rank == 0) MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    }
    t = (MPI_Wtime() - t) / iters / window;
    if (t < best) best = t;
  }
  return best;
}

/* The other collectives the one pass runs (issue 33), on device buffers of
 * n bytes in all: reduce_scatter_block of n bytes (blocks of n / size),
 * allgather into n bytes, bcast of n bytes from rank 0. */
enum Coll { kReduceScatterBlock, kAllgather, kBcast };
static const char* coll_name(Coll c) {
  return c == kReduceScatterBlock ? "reduce_scatter_block" : c == kAllgather ? "allgather" : "bcast";
}
static double collective(Coll c, void* s, void* r, size_t n, int iters) {
  double best = 1e30;
  int block = (int)(n / size / sizeof(float));
  for (int rep = 0; rep < 3; rep++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
      if (c == kReduceScatterBlock) MPI_Reduce_scatter_block(s, r, block, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      else if (c == kAllgather) MPI_Allgather(s, block, MPI_FLOAT, r, block, MPI_FLOAT, MPI_COMM_WORLD);
      else MPI_Bcast(r, (int)(n / sizeof(float)), MPI_FLOAT, 0, MPI_COMM_WORLD);
    }
    t = (MPI_Wtime() - t) / iters;
    if (t < best) best = t;
  }
  return best;
}
/* The least each can take with `sharing` ranks on one GPU, in cudaMemcpy
 * times of n bytes (a copy reads n and writes n): reduce_scatter_block
 * reads n and writes n / size per rank; allgather reads and writes n per
 * rank; bcast: every rank but the root reads and writes n. */
static double floor_copies(Coll c, int sharing) {
  if (c == kReduceScatterBlock) return sharing * (1.0 + 1.0 / size) / 2;
  if (c == kAllgather) return sharing;
  return sharing - 1;
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
  CHECK(size >= 2, "run at 2 ranks or more");
  const bool pair = size == 2; /* the ping-pong rows */
  /* How many ranks share this rank's GPU (run.sh puts them all on one). */
  int gpus = 0, my_gpu = 0, sharing = 0;
  cudaGetDeviceCount(&gpus);
  cudaSetDevice(rank % (gpus ? gpus : 1));
  cudaGetDevice(&my_gpu);
  {
    int* all = (int*)malloc(size * sizeof(int));
    MPI_Allgather(&my_gpu, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) sharing += all[r] == my_gpu;
    free(all);
  }
  const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  /* --host: only the host rows at 8 B and 4 KiB, for comparing
   * FERRY_CUDA=auto with off several times over in one short run. */
  const bool host_only = argc > 1 && strcmp(argv[1], "--host") == 0;
  const size_t all_sizes[] = {8, 4096, 65536, 1 << 20, 16 << 20, 64 << 20};
  const size_t quick_sizes[] = {8, 64 << 20};
  const size_t host_sizes[] = {8, 4096};
  const size_t* sizes = quick ? quick_sizes : host_only ? host_sizes : all_sizes;
  const size_t n_sizes = quick || host_only ? 2 : 6;
  const Where wheres[] = {kHost, kDevice};
  const bool cuda = MPIX_Query_cuda_support() == 1;
  double memcpy_us[8] = {0};
  if (cuda && rank == 0 && !host_only)
    for (size_t k = 0; k < n_sizes; k++) {
      size_t n = sizes[k];
      void *a = alloc_in(kDevice, n), *b = alloc_in(kDevice, n);
      double best = 1e30;
      for (int rep = 0; rep < 5; rep++) {
        CHECK_CUDA(cudaDeviceSynchronize());
        int iters = n <= (1 << 20) ? 100 : 10;
        double t = MPI_Wtime();
        for (int i = 0; i < iters; i++) CHECK_CUDA(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice));
        CHECK_CUDA(cudaDeviceSynchronize());
        t = (MPI_Wtime() - t) / iters;
        if (t < best) best = t;
      }
      memcpy_us[k] = best * 1e6;
      printf("gpu-bench cudaMemcpy-d2d %zu %.2f %.2f\n", n, best * 1e6, n / best / 1e9);
      printf("gpu-bench allreduce-floor-np%d %zu %.2f %.2f\n", size, n, sharing * best * 1e6,
             n / (sharing * best) / 1e9);
      free_in(kDevice, a);
      free_in(kDevice, b);
    }
  if (cuda && !quick && !host_only && pair) {
    /* What one small GPU copy costs when the two processes take turns on
     * the GPU (each turn a switch between their contexts, unless MPS runs
     * them in one) against one process doing both copies: the floor under
     * any small device-to-device message between ranks sharing a GPU. */
    void* d = alloc_in(kDevice, 8);
    char h[8];
    for (int alternate = 0; alternate < 2; alternate++) {
      double best = 1e30;
      for (int rep = 0; rep < 3; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (int i = 0; i < 1000; i++) {
          if (rank == 0) {
            CHECK_CUDA(cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost));
            if (!alternate) CHECK_CUDA(cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost));
            MPI_Send(h, 0, MPI_BYTE, 1, 9, MPI_COMM_WORLD);
            MPI_Recv(h, 0, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          } else {
            MPI_Recv(h, 0, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (alternate) CHECK_CUDA(cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost));
            MPI_Send(h, 0, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
          }
        }
        t = (MPI_Wtime() - t) / 1000 / 2;
        if (t < best) best = t;
      }
      if (rank == 0)
        printf("gpu-bench %s 8 %.2f 0\n", alternate ? "d2h-copy-ranks-alternating" : "d2h-copy-one-rank", best * 1e6);
    }
    /* The memory-type cache confirms a known GPU allocation with one
     * attribute query: its cost. */
    if (rank == 0) {
      unsigned long long id = 0;
      double t = MPI_Wtime();
      for (int i = 0; i < 100000; i++) cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, (CUdeviceptr)d);
      printf("gpu-bench cuPointerGetAttribute-buffer-id 0 %.3f 0\n", (MPI_Wtime() - t) / 100000 * 1e6);
    }
    free_in(kDevice, d);
  }
  for (Where w : wheres)
    for (size_t k = 0; k < n_sizes; k++) {
      size_t n = sizes[k];
      if (w == kDevice && (!cuda || host_only)) continue;
      if (w == kHost && quick) continue;
      void* b = alloc_in(w, n);
      fill(w, b, n, 1);
      CHECK_CUDA(cudaDeviceSynchronize());
      int iters = n <= 65536 ? 1000 : n <= (1 << 20) ? 100 : n <= (16 << 20) ? 10 : 4;
      double t = 0;
      if (pair) {
        t = pingpong(b, n, iters);
        if (rank == 0) printf("gpu-bench pingpong-%s %zu %.2f %.2f\n", where_name(w), n, t * 1e6, n / t / 1e9);
      }
      if (pair && n >= (1 << 20)) {
        t = bandwidth(b, n, n >= (16 << 20) ? 2 : 10, 8);
        if (rank == 0) printf("gpu-bench bw-%s %zu %.2f %.2f\n", where_name(w), n, t * 1e6, n / t / 1e9);
      }
      void* r = alloc_in(w, n);
      t = allreduce(b, r, n, iters);
      if (rank == 0)
        printf("gpu-bench allreduce-%s-np%d %zu %.2f %.2f\n", where_name(w), size, n, t * 1e6, n / t / 1e9);
      if (w == kDevice && n >= (16 << 20))
        for (Coll c : {kReduceScatterBlock, kAllgather, kBcast}) {
          t = collective(c, b, r, n, iters);
          if (rank == 0) {
            printf("gpu-bench %s-device-np%d %zu %.2f %.2f\n", coll_name(c), size, n, t * 1e6, n / t / 1e9);
            printf("gpu-bench %s-floor-np%d %zu %.2f 0\n", coll_name(c), size, n,
                   floor_copies(c, sharing) * memcpy_us[k]);
          }
        }
      free_in(w, b);
      free_in(w, r);
    }
  MPI_Finalize();
  return 0;
}
