/* Point-to-point with GPU buffers on either or both sides (README "GPU
 * buffers"): every size class (eager, one chunk, many chunks, 16 MiB), both
 * directions, every pairing of host, pinned, device and managed memory; a
 * device buffer allocated before MPI_Init; a send buffer written by a kernel
 * on the legacy default stream just before MPI_Send, without a
 * synchronization; a buffer on another GPU than the current one (when there
 * are two); a strided vector type on device memory; an indexed type on
 * device memory, many chunks, packed by the GPU pack kernels (issue 33); and
 * MPI_Pack_external from and into device memory. Run at 2 ranks. */
#define TEST_NAME "gpu_p2p"
#include "gpu_test.h"

static const size_t kSizes[] = {0, 1, 8, 1000, 4096, 65536, 65537, 262144, 1 << 20, 16 << 20};
static const Where kWheres[] = {kHost, kPinned, kDevice, kManaged};

int main(int argc, char** argv) {
  /* Allocated before MPI_Init: the memory-type cache must still know it. */
  void* early = NULL;
  CHECK_CUDA(cudaMalloc(&early, 1 << 20));
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "run at 2 ranks");
  CHECK(MPIX_Query_cuda_support() == 1, "MPIX_Query_cuda_support() is 0: the CUDA driver was not loaded");
  int peer = 1 - rank;
  int cases = 0;

  for (Where sw : kWheres)
    for (Where rw : kWheres)
      for (size_t n : kSizes)
        for (int sender = 0; sender < 2; sender++) {
          unsigned seed = (unsigned)(n * 7 + sw * 3 + rw + sender);
          if (rank == sender) {
            void* b = alloc_in(sw, n);
            fill(sw, b, n, seed); /* no sync: MPI_Send orders after the kernel */
            CHECK_MPI(MPI_Send(b, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
            free_in(sw, b);
          } else {
            void* b = alloc_in(rw, n);
            MPI_Status st;
            CHECK_MPI(MPI_Recv(b, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
            int got = -1;
            MPI_Get_count(&st, MPI_BYTE, &got);
            CHECK(got == (int)n, "%s->%s %zu bytes: got %d", where_name(sw), where_name(rw), n, got);
            long bad = mismatch(rw, b, n, seed);
            CHECK(bad < 0, "%s->%s %zu bytes from rank %d: byte %ld differs", where_name(sw), where_name(rw), n, sender,
                  bad);
            free_in(rw, b);
          }
          cases++;
        }

  /* The buffer allocated before MPI_Init, both ways, and reused (cached). */
  for (int round = 0; round < 3; round++) {
    unsigned seed = 99 + round;
    if (rank == 0) fill(kDevice, early, 1 << 20, seed);
    CHECK_MPI(MPI_Sendrecv_replace(early, 1 << 20, MPI_BYTE, peer, 2, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (rank == 1) CHECK(mismatch(kDevice, early, 1 << 20, seed) < 0, "early buffer, round %d", round);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  /* Nonblocking, both directions at once, device to device. */
  {
    size_t n = 4 << 20;
    void *s = alloc_in(kDevice, n), *r = alloc_in(kDevice, n);
    fill(kDevice, s, n, 1234 + rank);
    MPI_Request q[2];
    CHECK_MPI(MPI_Irecv(r, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &q[0]));
    CHECK_MPI(MPI_Isend(s, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &q[1]));
    CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    CHECK(mismatch(kDevice, r, n, 1234 + peer) < 0, "isend/irecv exchange");
    free_in(kDevice, s);
    free_in(kDevice, r);
  }

  /* A strided vector on device memory: every other double of 100000. */
  {
    const int n = 100000;
    MPI_Datatype vec;
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    double* h = (double*)malloc(sizeof(double) * 2 * n);
    double* d = NULL;
    CHECK_CUDA(cudaMalloc(&d, sizeof(double) * 2 * n));
    for (int i = 0; i < 2 * n; i++) h[i] = rank == 0 ? i * 0.5 : -1.0;
    CHECK_CUDA(cudaMemcpy(d, h, sizeof(double) * 2 * n, cudaMemcpyHostToDevice));
    if (rank == 0) CHECK_MPI(MPI_Send(d, 1, vec, 1, 4, MPI_COMM_WORLD));
    else CHECK_MPI(MPI_Recv(d, 1, vec, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (rank == 1) {
      CHECK_CUDA(cudaMemcpy(h, d, sizeof(double) * 2 * n, cudaMemcpyDeviceToHost));
      for (int i = 0; i < 2 * n; i++)
        CHECK(h[i] == (i % 2 == 0 ? i * 0.5 : -1.0), "vector on device: double %d is %g", i, h[i]);
    }
    cudaFree(d);
    free(h);
    MPI_Type_free(&vec);
  }

  /* An indexed type on device memory (blocks of 3, 1, 7 and 2 doubles in
   * every 16), 4 MiB of data: the pack kernels, one launch per chunk. */
  {
    const int blocks = 4 * 16384;
    int* lengths = (int*)malloc(sizeof(int) * blocks);
    int* displs = (int*)malloc(sizeof(int) * blocks);
    static const int kLengths[] = {3, 1, 7, 2};
    for (int b = 0; b < blocks; b++) lengths[b] = kLengths[b % 4], displs[b] = 16 * b;
    MPI_Datatype indexed;
    MPI_Type_indexed(blocks, lengths, displs, MPI_DOUBLE, &indexed);
    MPI_Type_commit(&indexed);
    const int span = 16 * blocks;
    double* h = (double*)malloc(sizeof(double) * span);
    double* d = NULL;
    CHECK_CUDA(cudaMalloc(&d, sizeof(double) * span));
    for (int i = 0; i < span; i++) h[i] = rank == 0 ? i + 0.5 : -1.0;
    CHECK_CUDA(cudaMemcpy(d, h, sizeof(double) * span, cudaMemcpyHostToDevice));
    if (rank == 0) CHECK_MPI(MPI_Send(d, 1, indexed, 1, 5, MPI_COMM_WORLD));
    else CHECK_MPI(MPI_Recv(d, 1, indexed, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (rank == 1) {
      CHECK_CUDA(cudaMemcpy(h, d, sizeof(double) * span, cudaMemcpyDeviceToHost));
      for (int i = 0; i < span; i++) {
        int b = i / 16, in_block = i % 16 < kLengths[b % 4];
        CHECK(h[i] == (in_block ? i + 0.5 : -1.0), "indexed on device: double %d is %g", i, h[i]);
      }
    }
    cudaFree(d);
    free(h);
    free(lengths);
    free(displs);
    MPI_Type_free(&indexed);
  }

  /* MPI_Pack_external of device ints into device memory, and back. */
  {
    const int n = 1000;
    int* h = (int*)malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) h[i] = i * 65537;
    int *d = NULL, *back = NULL;
    unsigned char* packed = NULL;
    CHECK_CUDA(cudaMalloc(&d, sizeof(int) * n));
    CHECK_CUDA(cudaMalloc(&back, sizeof(int) * n));
    CHECK_CUDA(cudaMalloc(&packed, 4 * n));
    CHECK_CUDA(cudaMemcpy(d, h, sizeof(int) * n, cudaMemcpyHostToDevice));
    MPI_Aint position = 0;
    CHECK_MPI(MPI_Pack_external("external32", d, n, MPI_INT, packed, 4 * n, &position));
    CHECK(position == 4 * n, "MPI_Pack_external position %ld", (long)position);
    unsigned char* bytes = (unsigned char*)malloc(4 * n);
    CHECK_CUDA(cudaMemcpy(bytes, packed, 4 * n, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
      unsigned v = (unsigned)h[i];
      CHECK(bytes[4 * i] == (v >> 24) && bytes[4 * i + 3] == (v & 0xff), "MPI_Pack_external: int %d not big-endian", i);
    }
    position = 0;
    CHECK_MPI(MPI_Unpack_external("external32", packed, 4 * n, &position, back, n, MPI_INT));
    CHECK_CUDA(cudaMemcpy(h, back, sizeof(int) * n, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) CHECK(h[i] == i * 65537, "MPI_Unpack_external into device memory: int %d is %d", i, h[i]);
    cudaFree(d);
    cudaFree(back);
    cudaFree(packed);
    free(bytes);
    free(h);
  }

  /* MPI_Pack and MPI_Unpack of a vector on the GPU into a GPU buffer. */
  {
    const int n = 1000;
    MPI_Datatype vec;
    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int* h = (int*)malloc(sizeof(int) * 2 * n);
    for (int i = 0; i < 2 * n; i++) h[i] = i;
    int *d = NULL, *packed = NULL;
    CHECK_CUDA(cudaMalloc(&d, sizeof(int) * 2 * n));
    CHECK_CUDA(cudaMalloc(&packed, sizeof(int) * n));
    CHECK_CUDA(cudaMemcpy(d, h, sizeof(int) * 2 * n, cudaMemcpyHostToDevice));
    int position = 0;
    CHECK_MPI(MPI_Pack(d, 1, vec, packed, (int)sizeof(int) * n, &position, MPI_COMM_WORLD));
    CHECK(position == (int)sizeof(int) * n, "MPI_Pack position %d", position);
    CHECK_CUDA(cudaMemcpy(h, packed, sizeof(int) * n, cudaMemcpyDeviceToHost));
    for (int k = 0; k < n; k++) CHECK(h[k] == 2 * k, "MPI_Pack on the GPU: int %d is %d", k, h[k]);
    CHECK_CUDA(cudaMemset(d, 0, sizeof(int) * 2 * n));
    position = 0;
    CHECK_MPI(MPI_Unpack(packed, (int)sizeof(int) * n, &position, d, 1, vec, MPI_COMM_WORLD));
    CHECK_CUDA(cudaMemcpy(h, d, sizeof(int) * 2 * n, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 2 * n; i++) CHECK(h[i] == (i % 2 == 0 ? i : 0), "MPI_Unpack on the GPU: int %d is %d", i, h[i]);
    cudaFree(d);
    cudaFree(packed);
    free(h);
    MPI_Type_free(&vec);
  }

  /* A buffer on another GPU than the current one. */
  int gpus = 0;
  cudaGetDeviceCount(&gpus);
  if (gpus > 1) {
    size_t n = 1 << 20;
    CHECK_CUDA(cudaSetDevice(1));
    void* b = alloc_in(kDevice, n);
    if (rank == 0) fill(kDevice, b, n, 77);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaSetDevice(0));
    if (rank == 0) CHECK_MPI(MPI_Send(b, (int)n, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
    else CHECK_MPI(MPI_Recv(b, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (rank == 1) CHECK(mismatch(kDevice, b, n, 77) < 0, "buffer on GPU 1 while GPU 0 is current");
    cudaFree(b);
  }

  cudaFree(early);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("gpu_p2p: OK (%d cases, %d GPUs)\n", cases, gpus);
  MPI_Finalize();
  return 0;
}
