/* Shared by the GPU test programs (tests/gpu/run.sh): checks that fail the
 * whole job with a line naming the rank, and CUDA calls that must succeed. */
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                      \
  do {                                                                        \
    if (!(cond)) {                                                            \
      int r_ = -1, up_ = 0;                                                   \
      MPI_Initialized(&up_);                                                  \
      if (up_) MPI_Comm_rank(MPI_COMM_WORLD, &r_);                            \
      fprintf(stderr, "%s: rank %d: FAILED: %s:%d: ", TEST_NAME, r_, __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                           \
      fprintf(stderr, "\n");                                                  \
      if (up_) MPI_Abort(MPI_COMM_WORLD, 1);                                  \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

#define CHECK_MPI(call)                                                       \
  do {                                                                        \
    int rc_ = (call);                                                         \
    if (rc_ != MPI_SUCCESS) {                                                 \
      char t_[MPI_MAX_ERROR_STRING];                                          \
      int l_ = 0;                                                             \
      MPI_Error_string(rc_, t_, &l_);                                         \
      CHECK(0, "%s: %s", #call, t_);                                          \
    }                                                                         \
  } while (0)

#define CHECK_CUDA(call)                                                      \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    CHECK(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));        \
  } while (0)

/* Where a test buffer lives. */
enum Where { kHost, kPinned, kDevice, kManaged };
static const char* where_name(Where w) {
  switch (w) {
    case kHost: return "host";
    case kPinned: return "pinned";
    case kDevice: return "device";
    case kManaged: return "managed";
  }
  return "?";
}

static void* alloc_in(Where w, size_t n) {
  void* p = NULL;
  if (n == 0) n = 1;
  switch (w) {
    case kHost: p = malloc(n); break;
    case kPinned: CHECK_CUDA(cudaMallocHost(&p, n)); break;
    case kDevice: CHECK_CUDA(cudaMalloc(&p, n)); break;
    case kManaged: CHECK_CUDA(cudaMallocManaged(&p, n)); break;
  }
  return p;
}

static void free_in(Where w, void* p) {
  switch (w) {
    case kHost: free(p); break;
    case kPinned: cudaFreeHost(p); break;
    case kDevice:
    case kManaged: cudaFree(p); break;
  }
}

/* Byte i of pattern `seed`. */
__host__ __device__ static inline unsigned char pattern(unsigned seed, size_t i) {
  return (unsigned char)((i * 2654435761u + seed * 40503u) >> 7);
}

__global__ static void fill_kernel(unsigned char* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = pattern(seed, i);
}

/* Fills n bytes wherever they are: a kernel on the legacy default stream for
 * GPU memory, with no synchronization after it (MPI must order after it). */
static void fill(Where w, void* p, size_t n, unsigned seed) {
  if (w == kDevice || w == kManaged) {
    if (n > 0) fill_kernel<<<64, 256>>>((unsigned char*)p, n, seed);
    if (w == kManaged) CHECK_CUDA(cudaDeviceSynchronize()); /* the host may touch it next */
    return;
  }
  for (size_t i = 0; i < n; i++) ((unsigned char*)p)[i] = pattern(seed, i);
}

/* First byte that differs from the pattern, or -1. */
static long mismatch(Where w, const void* p, size_t n, unsigned seed) {
  unsigned char* h = (unsigned char*)malloc(n ? n : 1);
  if (w == kDevice || w == kManaged) CHECK_CUDA(cudaMemcpy(h, p, n, cudaMemcpyDefault));
  else memcpy(h, p, n);
  long bad = -1;
  for (size_t i = 0; i < n; i++)
    if (h[i] != pattern(seed, i)) {
      bad = (long)i;
      break;
    }
  free(h);
  return bad;
}
