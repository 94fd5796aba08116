// Whether GPU buffers can be passed (MPICH's MPIX_GPU_query_support and
// MPIX_Query_cuda_support, which Open MPI has too; both are exported by
// libmpich.so.12). CUDA is supported when the driver was loaded at MPI_Init
// (FERRY_CUDA, device/device.h); ZE and HIP never are.
#include "api/api.h"
#include "device/device.h"

using namespace ferry;


extern "C" int PMPIX_GPU_query_support(int gpu_type, int* is_supported) {
  api::Call call("MPIX_GPU_query_support");
  call.not_null(is_supported, "is_supported");
  if (!call.ok()) return call.raise();
  if (gpu_type != MPIX_GPU_SUPPORT_CUDA && gpu_type != MPIX_GPU_SUPPORT_ZE && gpu_type != MPIX_GPU_SUPPORT_HIP) {
    call.fail(MPI_ERR_ARG,
              "invalid gpu_type %d (MPIX_GPU_SUPPORT_CUDA 0, MPIX_GPU_SUPPORT_ZE 1 or MPIX_GPU_SUPPORT_HIP 2)",
              gpu_type);
    return call.raise();
  }
  *is_supported = gpu_type == MPIX_GPU_SUPPORT_CUDA && device::enabled() ? 1 : 0;
  return MPI_SUCCESS;
}
FERRY_ENTRY_X(GPU_query_support)

// MPICH: no error checking; it answers 0 or 1.
extern "C" int PMPIX_Query_cuda_support(void) { return device::enabled() ? 1 : 0; }
FERRY_ENTRY_X(Query_cuda_support)
