/* What the GPU path of a small message is made of: the latency of each CUDA
 * driver call Ferry makes for one (README "GPU buffers"), measured at 2 ranks
 * sharing the GPU, as the gpu_bench rows are, so that the cost of a message
 * can be read as a sum (docs/performance.md). Rank 0 measures; rank 1 holds
 * its own context (and, under MPS, shares the server) and exports the buffer
 * rank 0 reads over CUDA IPC. Prints "gpu-primitive <what> <us per call>". */
#define TEST_NAME "gpu_primitives"
#include "gpu_test.h"

#include <cuda.h>

#define CHECK_CU(call)                                                        \
  do {                                                                        \
    CUresult r_ = (call);                                                     \
    const char* s_ = NULL;                                                    \
    cuGetErrorString(r_, &s_);                                                \
    CHECK(r_ == CUDA_SUCCESS, "%s: %s", #call, s_ ? s_ : "?");              \
  } while (0)

__global__ static void empty_kernel() {}

/* An 8-byte copy by one thread: what a kernel in place of the copy engine
 * would cost a tiny message. */
__global__ static void copy8_kernel(unsigned long long* dst, const unsigned long long* src) { *dst = *src; }

static double now_us() { return MPI_Wtime() * 1e6; }

/* The best of 5 means over `iters` calls of `body`. */
template <typename F>
static double per_call(int iters, F body) {
  double best = 1e30;
  for (int rep = 0; rep < 5; rep++) {
    double t = now_us();
    for (int i = 0; i < iters; i++) body();
    t = (now_us() - t) / iters;
    if (t < best) best = t;
  }
  return best;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "run at 2 ranks");
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaFree(0)); /* the primary context, current */
  char *mine = NULL, *peer = NULL;
  CHECK_CUDA(cudaMalloc(&mine, 1 << 20));
  CHECK_CUDA(cudaMemset(mine, rank, 1 << 20));
  CUipcMemHandle handle;
  CHECK_CU(cuIpcGetMemHandle(&handle, (CUdeviceptr)mine));
  CUipcMemHandle theirs;
  MPI_Sendrecv(&handle, sizeof handle, MPI_BYTE, 1 - rank, 0, &theirs, sizeof theirs, MPI_BYTE, 1 - rank, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CUdeviceptr mapped = 0;
  CHECK_CU(cuIpcOpenMemHandle(&mapped, theirs, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  peer = (char*)mapped;
  /* 64 MiB each, for the latency a large copy adds to its bytes. */
  const size_t big_bytes = 64u << 20;
  char* big = NULL;
  CHECK_CUDA(cudaMalloc(&big, big_bytes));
  CUipcMemHandle big_handle, big_theirs;
  CHECK_CU(cuIpcGetMemHandle(&big_handle, (CUdeviceptr)big));
  MPI_Sendrecv(&big_handle, sizeof big_handle, MPI_BYTE, 1 - rank, 1, &big_theirs, sizeof big_theirs, MPI_BYTE,
               1 - rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CUdeviceptr big_peer = 0;
  CHECK_CU(cuIpcOpenMemHandle(&big_peer, big_theirs, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  CUcontext ctx;
  CHECK_CU(cuCtxGetCurrent(&ctx));
  CUstream blocking, nonblocking;
  CHECK_CU(cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
  CHECK_CU(cuStreamCreate(&nonblocking, CU_STREAM_NON_BLOCKING));
  CUevent event;
  CHECK_CU(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  char host[8];
  char* pinned = NULL;
  CHECK_CUDA(cudaMallocHost(&pinned, 8));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    struct Row {
      const char* what;
      double us;
    };
    Row rows[48];
    int n = 0;
    auto row = [&](const char* what, double us) { rows[n++] = Row{what, us}; };
    row("cuCtxGetCurrent", per_call(100000, [&] {
          CUcontext c;
          cuCtxGetCurrent(&c);
        }));
    row("cuCtxPushCurrent+Pop", per_call(100000, [&] {
          CUcontext c;
          cuCtxPushCurrent(ctx);
          cuCtxPopCurrent(&c);
        }));
    row("cuPointerGetAttribute(buffer id)", per_call(100000, [&] {
          unsigned long long id;
          cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, (CUdeviceptr)mine);
        }));
    row("cuPointerGetAttribute(buffer id) of an IPC mapping", per_call(100000, [&] {
          unsigned long long id;
          cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, (CUdeviceptr)peer);
        }));
    row("cuStreamSynchronize(0), idle", per_call(100000, [&] { cuStreamSynchronize(0); }));
    row("cuStreamQuery(0), idle", per_call(100000, [&] { cuStreamQuery(0); }));
    row("cuStreamSynchronize(blocking stream), idle", per_call(100000, [&] { cuStreamSynchronize(blocking); }));
    row("cuMemcpyAsync d2d 8 B, blocking stream + sync", per_call(2000, [&] {
          cuMemcpyAsync((CUdeviceptr)mine, (CUdeviceptr)(mine + 4096), 8, blocking);
          cuStreamSynchronize(blocking);
        }));
    row("cuMemcpyAsync d2d 8 B, non-blocking stream + sync", per_call(2000, [&] {
          cuMemcpyAsync((CUdeviceptr)mine, (CUdeviceptr)(mine + 4096), 8, nonblocking);
          cuStreamSynchronize(nonblocking);
        }));
    row("cuMemcpyAsync d2d 8 B, legacy stream + sync", per_call(2000, [&] {
          cuMemcpyAsync((CUdeviceptr)mine, (CUdeviceptr)(mine + 4096), 8, 0);
          cuStreamSynchronize(0);
        }));
    row("cuMemcpyAsync d2d 8 B from an IPC mapping, blocking stream + sync", per_call(2000, [&] {
          cuMemcpyAsync((CUdeviceptr)mine, (CUdeviceptr)peer, 8, blocking);
          cuStreamSynchronize(blocking);
        }));
    row("cuMemcpyAsync d2d 8 B from an IPC mapping, + event record + event sync", per_call(2000, [&] {
          cuMemcpyAsync((CUdeviceptr)mine, (CUdeviceptr)peer, 8, blocking);
          cuEventRecord(event, blocking);
          cuEventSynchronize(event);
        }));
    row("cuMemcpyAsync d2d 8 B from an IPC mapping, + event record, cuEventQuery until done", per_call(2000, [&] {
          cuMemcpyAsync((CUdeviceptr)mine, (CUdeviceptr)peer, 8, blocking);
          cuEventRecord(event, blocking);
          while (cuEventQuery(event) == CUDA_ERROR_NOT_READY) {
          }
        }));
    row("cuMemcpyAsync d2d 8 B from an IPC mapping, cuStreamQuery until done (no event)", per_call(2000, [&] {
          cuMemcpyAsync((CUdeviceptr)mine, (CUdeviceptr)peer, 8, blocking);
          while (cuStreamQuery(blocking) == CUDA_ERROR_NOT_READY) {
          }
        }));
    row("8 B copy kernel from an IPC mapping, + event record, cuEventQuery until done", per_call(2000, [&] {
          copy8_kernel<<<1, 1, 0, (cudaStream_t)blocking>>>((unsigned long long*)mine, (const unsigned long long*)peer);
          cuEventRecord(event, blocking);
          while (cuEventQuery(event) == CUDA_ERROR_NOT_READY) {
          }
        }));
    row("cuStreamQuery(0) then cuMemcpyAsync d2d 8 B from an IPC mapping, + event, query until done", per_call(2000, [&] {
          cuStreamQuery(0);
          cuMemcpyAsync((CUdeviceptr)mine, (CUdeviceptr)peer, 8, blocking);
          cuEventRecord(event, blocking);
          while (cuEventQuery(event) == CUDA_ERROR_NOT_READY) {
          }
        }));
    {
      /* Completion seen in host memory: the stream writes a flag after the
       * copy, the host spins on it (no driver call while waiting). */
      unsigned* flag = NULL;
      CUdeviceptr flag_on_gpu = 0;
      int can = 0;
      CUdevice dev;
      cuCtxGetDevice(&dev);
      cuDeviceGetAttribute(&can, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, dev);
      printf("gpu-primitive-note stream memory operations supported: %d\n", can);
      CHECK_CU(cuMemHostAlloc((void**)&flag, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
      CHECK_CU(cuMemHostGetDevicePointer(&flag_on_gpu, flag, 0));
      unsigned value = 0;
      CUresult probe = cuStreamWriteValue32(blocking, flag_on_gpu, ++value, 0);
      cuStreamSynchronize(blocking);
      printf("gpu-primitive-note cuStreamWriteValue32: %d, flag %u\n", (int)probe, *(volatile unsigned*)flag);
      if (probe == CUDA_SUCCESS) {
        row("cuMemcpyAsync d2d 8 B from an IPC mapping, + cuStreamWriteValue32 to pinned flag, spin", per_call(2000, [&] {
              cuMemcpyAsync((CUdeviceptr)mine, (CUdeviceptr)peer, 8, blocking);
              cuStreamWriteValue32(blocking, flag_on_gpu, ++value, 0);
              while (*(volatile unsigned*)flag != value) {
              }
            }));
        row("cuMemcpyAsync d2d 64 MiB from an IPC mapping, + cuStreamWriteValue32, spin", per_call(20, [&] {
              cuMemcpyAsync((CUdeviceptr)big, big_peer, big_bytes, blocking);
              cuStreamWriteValue32(blocking, flag_on_gpu, ++value, 0);
              while (*(volatile unsigned*)flag != value) {
              }
            }));
        row("cuStreamWriteValue32 alone, spin", per_call(2000, [&] {
              cuStreamWriteValue32(blocking, flag_on_gpu, ++value, 0);
              while (*(volatile unsigned*)flag != value) {
              }
            }));
      }
      cuMemFreeHost(flag);
    }
    row("cuMemcpyAsync d2d 64 MiB from an IPC mapping + sync", per_call(20, [&] {
          cuMemcpyAsync((CUdeviceptr)big, big_peer, big_bytes, blocking);
          cuStreamSynchronize(blocking);
        }));
    row("cuMemcpyAsync d2d 64 MiB from an IPC mapping, 8 back to back, then sync (per copy)", per_call(20, [&] {
          for (int k = 0; k < 8; k++) cuMemcpyAsync((CUdeviceptr)big, big_peer, big_bytes, blocking);
          cuStreamSynchronize(blocking);
        }) / 8);
    row("cuEventRecord alone", per_call(2000, [&] { cuEventRecord(event, blocking); }));
    cuStreamSynchronize(blocking);
    row("cuEventQuery of a done event", per_call(100000, [&] { cuEventQuery(event); }));
    row("cuMemcpyAsync d2d 8 B, enqueue only (async)", per_call(2000, [&] {
          cuMemcpyAsync((CUdeviceptr)mine, (CUdeviceptr)(mine + 4096), 8, blocking);
        }));
    cuStreamSynchronize(blocking);
    row("cuMemcpyDtoH 8 B (pageable)", per_call(2000, [&] { cuMemcpyDtoH(host, (CUdeviceptr)peer, 8); }));
    row("cuMemcpyDtoH 8 B (pinned)", per_call(2000, [&] { cuMemcpyDtoH(pinned, (CUdeviceptr)peer, 8); }));
    row("cuMemcpyHtoD 8 B (pageable)", per_call(2000, [&] { cuMemcpyHtoD((CUdeviceptr)mine, host, 8); }));
    row("cuMemcpyHtoD 8 B (pinned)", per_call(2000, [&] { cuMemcpyHtoD((CUdeviceptr)mine, pinned, 8); }));
    row("empty kernel, legacy stream + sync", per_call(2000, [&] {
          empty_kernel<<<1, 1>>>();
          cuStreamSynchronize(0);
        }));
    for (int i = 0; i < n; i++) printf("gpu-primitive %-72s %8.3f us\n", rows[i].what, rows[i].us);
    fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_CU(cuIpcCloseMemHandle(mapped));
  CHECK_CU(cuIpcCloseMemHandle(big_peer));
  CHECK_CUDA(cudaFree(big));
  CHECK_CUDA(cudaFree(mine));
  CHECK_CUDA(cudaFreeHost(pinned));
  MPI_Finalize();
  return 0;
}
