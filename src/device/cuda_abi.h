// The few CUDA driver API types and constants Ferry uses, declared here with
// the values and layouts that NVIDIA documents for the driver API (cuda.h,
// stable since CUDA 4.0, cuLaunchKernel included; cuPointerGetAttributes since 7.0).
//
// Why not include cuda.h: the CUDA path must build on every machine (CI has
// no toolkit), and libmpi must not link libcuda: the driver is opened with
// dlopen at run time (device/cuda_driver.cc). Only cuda_driver.cc includes
// this file; the rest of Ferry sees device/device.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::device::cuda_abi {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // 64-bit since CUDA 3.2 (the _v2 entry points)
using CUcontext = void*;
using CUstream = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUevent = void*;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_INVALID_IMAGE = 200;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;

// CUpointer_attribute
constexpr int CU_POINTER_ATTRIBUTE_CONTEXT = 1;
constexpr int CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
constexpr int CU_POINTER_ATTRIBUTE_BUFFER_ID = 7;
constexpr int CU_POINTER_ATTRIBUTE_IS_MANAGED = 8;
constexpr int CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
constexpr int CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11;
constexpr int CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12;

// CUmemorytype
constexpr unsigned CU_MEMORYTYPE_HOST = 1;
constexpr unsigned CU_MEMORYTYPE_DEVICE = 2;
constexpr unsigned CU_MEMORYTYPE_UNIFIED = 4;

constexpr unsigned CU_STREAM_DEFAULT = 0;  // synchronizes with the legacy default stream
constexpr unsigned CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1;
constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;  // no timestamp: the cheapest event to record and query

struct CUipcMemHandle {
  char reserved[64];
};

// cuMemcpy2DAsync's description of a copy (CUDA_MEMCPY2D_v2). With
// CU_MEMORYTYPE_UNIFIED, srcDevice/dstDevice hold any unified address, host
// or device.
struct CUDA_MEMCPY2D {
  size_t srcXInBytes;
  size_t srcY;
  unsigned srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  void* srcArray;
  size_t srcPitch;
  size_t dstXInBytes;
  size_t dstY;
  unsigned dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  void* dstArray;
  size_t dstPitch;
  size_t WidthInBytes;
  size_t Height;
};

// The entry points, as cuda.h declares them (with the _v2 names that its
// macros select where there are two).
using cuInit_t = CUresult (*)(unsigned flags);
using cuDriverGetVersion_t = CUresult (*)(int* version);
using cuDeviceGetCount_t = CUresult (*)(int* count);
using cuDeviceGet_t = CUresult (*)(CUdevice* device, int ordinal);
using cuDevicePrimaryCtxRetain_t = CUresult (*)(CUcontext* context, CUdevice device);
using cuCtxPushCurrent_t = CUresult (*)(CUcontext context);
using cuCtxPopCurrent_t = CUresult (*)(CUcontext* context);
using cuCtxGetCurrent_t = CUresult (*)(CUcontext* context);
using cuEventCreate_t = CUresult (*)(CUevent* event, unsigned flags);
using cuEventRecord_t = CUresult (*)(CUevent event, CUstream stream);
using cuEventQuery_t = CUresult (*)(CUevent event);
using cuEventDestroy_t = CUresult (*)(CUevent event);
using cuPointerGetAttribute_t = CUresult (*)(void* data, int attribute, CUdeviceptr ptr);
using cuPointerGetAttributes_t = CUresult (*)(unsigned n, int* attributes, void** data, CUdeviceptr ptr);
using cuStreamCreate_t = CUresult (*)(CUstream* stream, unsigned flags);
using cuStreamSynchronize_t = CUresult (*)(CUstream stream);
using cuStreamQuery_t = CUresult (*)(CUstream stream);
using cuMemcpyAsync_t = CUresult (*)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
using cuMemcpy2DAsync_t = CUresult (*)(const CUDA_MEMCPY2D* copy, CUstream stream);
using cuMemAlloc_t = CUresult (*)(CUdeviceptr* p, size_t bytes);
using cuMemFree_t = CUresult (*)(CUdeviceptr p);
using cuMemHostAlloc_t = CUresult (*)(void** p, size_t bytes, unsigned flags);
using cuMemFreeHost_t = CUresult (*)(void* p);
using cuIpcGetMemHandle_t = CUresult (*)(CUipcMemHandle* handle, CUdeviceptr ptr);
using cuIpcOpenMemHandle_t = CUresult (*)(CUdeviceptr* ptr, CUipcMemHandle handle, unsigned flags);
using cuIpcCloseMemHandle_t = CUresult (*)(CUdeviceptr ptr);
using cuModuleLoadData_t = CUresult (*)(CUmodule* module, const void* image);
using cuModuleGetFunction_t = CUresult (*)(CUfunction* function, CUmodule module, const char* name);
using cuLaunchKernel_t = CUresult (*)(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                                      unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,
                                      CUstream stream, void** params, void** extra);
using cuGetErrorString_t = CUresult (*)(CUresult error, const char** text);

}  // namespace ferry::device::cuda_abi
