#include "device/cuda_driver.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <mutex>

#include "common/debug.h"
#include "device/cuda_abi.h"

namespace ferry::device::cuda {
namespace {

using namespace cuda_abi;

struct Driver {
  cuInit_t init;
  cuDriverGetVersion_t driver_get_version;
  cuDeviceGet_t device_get;
  cuDevicePrimaryCtxRetain_t primary_ctx_retain;
  cuCtxPushCurrent_t ctx_push;
  cuCtxPopCurrent_t ctx_pop;
  cuCtxGetCurrent_t ctx_get;
  cuPointerGetAttributes_t pointer_get_attributes;
  cuPointerGetAttribute_t pointer_get_attribute;
  cuStreamCreate_t stream_create;
  cuStreamSynchronize_t stream_synchronize;
  cuStreamQuery_t stream_query;  // optional: synchronize_legacy asks it first
  cuMemcpyAsync_t memcpy_async;
  cuMemcpy2DAsync_t memcpy_2d_async;
  cuMemAlloc_t mem_alloc;
  cuMemFree_t mem_free;
  cuMemHostAlloc_t mem_host_alloc;
  cuMemFreeHost_t mem_free_host;
  cuIpcGetMemHandle_t ipc_get_mem_handle;
  cuIpcOpenMemHandle_t ipc_open_mem_handle;
  cuIpcCloseMemHandle_t ipc_close_mem_handle;
  cuGetErrorString_t get_error_string;
  cuEventCreate_t event_create;
  cuEventRecord_t event_record;
  cuEventQuery_t event_query;
  cuEventDestroy_t event_destroy;
  // Optional: without them the table has no kernel calls.
  cuModuleLoadData_t module_load_data;
  cuModuleGetFunction_t module_get_function;
  cuLaunchKernel_t launch_kernel;
};
Driver driver;

// A stream and the context it belongs to: every call on it makes that
// context current for its duration, so it works from any thread, with the
// user's own context current or none (a context created after MPI_Init,
// buffers on another GPU than the current one).
struct Stream {
  CUstream stream;
  CUcontext context;
};

// A loaded module and its context, current while a function is looked up.
struct Module {
  CUmodule module;
  CUcontext context;
};

// Makes `c` current for one scope. Usually it is already (the program's
// own context is the primary one): then asking costs less than a push and
// a pop, which every call of a message's path would otherwise pay.
class Current {
 public:
  explicit Current(CUcontext c) : pushed_(c != nullptr && !already_current(c) && driver.ctx_push(c) == CUDA_SUCCESS) {}
  ~Current() {
    CUcontext ignored;
    if (pushed_) driver.ctx_pop(&ignored);
  }

 private:
  static bool already_current(CUcontext c) {
    CUcontext now = nullptr;
    return driver.ctx_get(&now) == CUDA_SUCCESS && now == c;
  }
  bool pushed_;
};

// The primary context of GPU `device`, retained once.
CUcontext primary_context(int device) {
  static std::mutex lock;
  static CUcontext contexts[64] = {};
  if (device < 0 || device >= 64) return nullptr;
  std::lock_guard<std::mutex> hold(lock);
  if (contexts[device] == nullptr) {
    CUdevice d;
    if (driver.device_get(&d, device) != CUDA_SUCCESS) return nullptr;
    driver.primary_ctx_retain(&contexts[device], d);
  }
  return contexts[device];
}

int pointer_info(const void* p, PointerInfo* info) {
  // Unlike cuPointerGetAttribute, this does not fail on a host pointer the
  // driver does not know: it leaves the answers zero (memory type 0).
  unsigned memory_type = 0;
  uint64_t is_managed = 0;  // written as a bool or an int, read as "not zero"
  int ordinal = -1;
  unsigned long long buffer_id = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  CUcontext context = nullptr;
  int attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,  CU_POINTER_ATTRIBUTE_IS_MANAGED,
                      CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_BUFFER_ID,
                      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                      CU_POINTER_ATTRIBUTE_CONTEXT};
  void* data[] = {&memory_type, &is_managed, &ordinal, &buffer_id, &start, &size, &context};
  CUresult r = driver.pointer_get_attributes(7, attributes, data, reinterpret_cast<CUdeviceptr>(p));
  if (r != CUDA_SUCCESS) return r;
  *info = PointerInfo{};
  if (memory_type == CU_MEMORYTYPE_DEVICE || memory_type == CU_MEMORYTYPE_UNIFIED || is_managed != 0) {
    info->memory = is_managed != 0 ? Memory::kManaged : Memory::kDevice;
    info->device = ordinal;
    info->buffer_id = buffer_id;
    info->base = static_cast<uintptr_t>(start);
    info->size = size;
    info->context = context;
  }
  return CUDA_SUCCESS;
}

int buffer_id(const void* p, uint64_t* id) {
  unsigned long long value = 0;
  CUresult r = driver.pointer_get_attribute(&value, CU_POINTER_ATTRIBUTE_BUFFER_ID, reinterpret_cast<CUdeviceptr>(p));
  // A pointer the driver does not know (freed, or host memory) is no
  // allocation: id 0, which no allocation has.
  *id = r == CUDA_SUCCESS ? value : 0;
  return CUDA_SUCCESS;
}

int stream_create(void* context, int device, void** out) {
  CUcontext c = context != nullptr ? static_cast<CUcontext>(context) : primary_context(device);
  Current current(c);
  auto* s = new Stream{nullptr, c};
  // CU_STREAM_DEFAULT, not CU_STREAM_NON_BLOCKING: the copies wait for work
  // the program queued on the legacy default stream (a kernel that wrote
  // the send buffer just before MPI_Send).
  CUresult r = driver.stream_create(&s->stream, CU_STREAM_DEFAULT);
  if (r != CUDA_SUCCESS) {
    delete s;
    return r;
  }
  *out = s;
  return CUDA_SUCCESS;
}

int copy_async(void* dst, const void* src, size_t n, void* stream) {
  auto* s = static_cast<Stream*>(stream);
  Current current(s->context);
  return driver.memcpy_async(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), n, s->stream);
}

int copy_2d_async(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width, size_t rows,
                  void* stream) {
  auto* s = static_cast<Stream*>(stream);
  Current current(s->context);
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  copy.srcDevice = reinterpret_cast<CUdeviceptr>(src);
  copy.srcPitch = src_pitch;
  copy.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  copy.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
  copy.dstPitch = dst_pitch;
  copy.WidthInBytes = width;
  copy.Height = rows;
  return driver.memcpy_2d_async(&copy, s->stream);
}

int stream_synchronize(void* stream) {
  auto* s = static_cast<Stream*>(stream);
  Current current(s->context);
  return driver.stream_synchronize(s->stream);
}

int pinned_alloc(void** p, size_t n) {
  // Pinned memory needs a context; the first GPU's primary one does, and
  // PORTABLE makes it pinned for every context.
  Current current(primary_context(0));
  return driver.mem_host_alloc(p, n, CU_MEMHOSTALLOC_PORTABLE);
}

int pinned_free(void* p) {
  Current current(primary_context(0));
  return driver.mem_free_host(p);
}

int device_alloc(void* context, int device, void** p, size_t n) {
  Current current(context != nullptr ? static_cast<CUcontext>(context) : primary_context(device));
  CUdeviceptr d = 0;
  CUresult r = driver.mem_alloc(&d, n);
  if (r == CUDA_SUCCESS) *p = reinterpret_cast<void*>(d);
  return r;
}

int device_free(void* context, void* p) {
  Current current(static_cast<CUcontext>(context));
  return driver.mem_free(reinterpret_cast<CUdeviceptr>(p));
}

int synchronize_legacy(void* context, int device) {
  Current current(context != nullptr ? static_cast<CUcontext>(context) : primary_context(device));
  // CUstream 0: the legacy default stream (not the _ptsz entry points).
  // Usually it is idle (a program synchronizes before MPI_Send, or its
  // kernel finished long ago): then asking answers sooner than waiting
  // (cuStreamQuery(0) 1.43 us, cuStreamSynchronize(0) 1.53 us idle, on an
  // H200 under MPS: tests/gpu/primitives.cu), and a sender pays this for
  // every GPU message it offers in place.
  if (driver.stream_query != nullptr) {
    CUresult r = driver.stream_query(nullptr);
    if (r != CUDA_ERROR_NOT_READY) return r;
  }
  return driver.stream_synchronize(nullptr);
}

// An event and the context of the stream it was made for, current for
// every call on it (progress may poll from a thread where another context,
// or none, is current).
struct Event {
  CUevent event;
  CUcontext context;
};

int event_create(void* stream, void** out) {
  auto* s = static_cast<Stream*>(stream);
  Current current(s->context);
  auto* e = new Event{nullptr, s->context};
  CUresult r = driver.event_create(&e->event, CU_EVENT_DISABLE_TIMING);
  if (r != CUDA_SUCCESS) {
    delete e;
    return r;
  }
  *out = e;
  return CUDA_SUCCESS;
}

int event_record(void* event, void* stream) {
  auto* s = static_cast<Stream*>(stream);
  Current current(s->context);
  return driver.event_record(static_cast<Event*>(event)->event, s->stream);
}

int event_query(void* event) {
  auto* e = static_cast<Event*>(event);
  Current current(e->context);
  CUresult r = driver.event_query(e->event);
  return r == CUDA_ERROR_NOT_READY ? kNotReady : r;
}

int event_destroy(void* event) {
  auto* e = static_cast<Event*>(event);
  CUresult r;
  {
    Current current(e->context);
    r = driver.event_destroy(e->event);
  }
  delete e;
  return r;
}

int ipc_get_handle(const void* base, IpcHandle* handle) {
  static_assert(sizeof(IpcHandle) == sizeof(CUipcMemHandle));
  CUipcMemHandle h;
  CUresult r = driver.ipc_get_mem_handle(&h, reinterpret_cast<CUdeviceptr>(base));
  if (r == CUDA_SUCCESS) std::memcpy(handle->bytes, h.reserved, sizeof h.reserved);
  return r;
}

int ipc_open_handle(const IpcHandle& handle, int device, void** mapped) {
  Current current(primary_context(device < 0 ? 0 : device));
  CUipcMemHandle h;
  std::memcpy(h.reserved, handle.bytes, sizeof h.reserved);
  CUdeviceptr p = 0;
  CUresult r = driver.ipc_open_mem_handle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  if (r == CUDA_SUCCESS) *mapped = reinterpret_cast<void*>(p);
  return r;
}

int ipc_close_handle(void* mapped) { return driver.ipc_close_mem_handle(reinterpret_cast<CUdeviceptr>(mapped)); }

const char* error_string(int code) {
  const char* text = nullptr;
  if (driver.get_error_string != nullptr && driver.get_error_string(code, &text) == CUDA_SUCCESS && text != nullptr)
    return text;
  return "unknown CUDA error";
}

int module_load(void* context, int device, const void* image, void** out) {
  // libmpi built without kernels: nothing to load, whatever the driver.
  if (image == nullptr) return CUDA_ERROR_INVALID_IMAGE;
  CUcontext c = context != nullptr ? static_cast<CUcontext>(context) : primary_context(device);
  Current current(c);
  auto* m = new Module{nullptr, c};
  CUresult r = driver.module_load_data(&m->module, image);
  if (r != CUDA_SUCCESS) {
    delete m;
    return r;
  }
  *out = m;
  return CUDA_SUCCESS;
}

int module_function(void* module, const char* name, void** function) {
  auto* m = static_cast<Module*>(module);
  Current current(m->context);
  CUfunction f = nullptr;
  CUresult r = driver.module_get_function(&f, m->module, name);
  if (r == CUDA_SUCCESS) *function = f;
  return r;
}

int launch(void* function, unsigned grid, unsigned block, void** args, void* stream) {
  auto* s = static_cast<Stream*>(stream);
  Current current(s->context);
  return driver.launch_kernel(static_cast<CUfunction>(function), grid, 1, 1, block, 1, 1, 0, s->stream, args,
                              nullptr);
}

const Ops kOps = {"cuda",          pointer_info,   buffer_id,        stream_create,    copy_async,
                  copy_2d_async,   stream_synchronize, pinned_alloc, pinned_free,      ipc_get_handle,
                  ipc_open_handle, ipc_close_handle, error_string,   module_load,      module_function,
                  launch,          device_alloc,   device_free,      synchronize_legacy,
                  event_create,    event_record,   event_query,      event_destroy};
// The same without the kernel calls, for a driver that lacks them.
const Ops kOpsWithoutKernels = [] {
  Ops ops = kOps;
  ops.module_load = nullptr;
  ops.module_function = nullptr;
  ops.launch = nullptr;
  return ops;
}();

// dlsym of the first of `names` the library has.
template <typename F>
bool resolve(void* library, F* slot, std::initializer_list<const char*> names, std::string* missing) {
  for (const char* name : names)
    if (void* f = dlsym(library, name)) {
      *slot = reinterpret_cast<F>(f);
      return true;
    }
  *missing = *names.begin();
  return false;
}

}  // namespace

const Ops* open_driver(std::string* error) {
  // Never closed: the program's own CUDA calls share the same library.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (library == nullptr) {
    *error = std::string("cannot open the CUDA driver library libcuda.so.1 (") + dlerror() + ")";
    return nullptr;
  }
  std::string missing;
  bool ok = resolve(library, &driver.init, {"cuInit"}, &missing) &&
            resolve(library, &driver.driver_get_version, {"cuDriverGetVersion"}, &missing) &&
            resolve(library, &driver.device_get, {"cuDeviceGet"}, &missing) &&
            resolve(library, &driver.primary_ctx_retain, {"cuDevicePrimaryCtxRetain"}, &missing) &&
            resolve(library, &driver.ctx_push, {"cuCtxPushCurrent_v2", "cuCtxPushCurrent"}, &missing) &&
            resolve(library, &driver.ctx_pop, {"cuCtxPopCurrent_v2", "cuCtxPopCurrent"}, &missing) &&
            resolve(library, &driver.ctx_get, {"cuCtxGetCurrent"}, &missing) &&
            resolve(library, &driver.pointer_get_attributes, {"cuPointerGetAttributes"}, &missing) &&
            resolve(library, &driver.pointer_get_attribute, {"cuPointerGetAttribute"}, &missing) &&
            resolve(library, &driver.stream_create, {"cuStreamCreate"}, &missing) &&
            resolve(library, &driver.stream_synchronize, {"cuStreamSynchronize"}, &missing) &&
            resolve(library, &driver.memcpy_async, {"cuMemcpyAsync"}, &missing) &&
            resolve(library, &driver.memcpy_2d_async, {"cuMemcpy2DAsync_v2", "cuMemcpy2DAsync"}, &missing) &&
            resolve(library, &driver.mem_alloc, {"cuMemAlloc_v2"}, &missing) &&
            resolve(library, &driver.mem_free, {"cuMemFree_v2"}, &missing) &&
            resolve(library, &driver.mem_host_alloc, {"cuMemHostAlloc"}, &missing) &&
            resolve(library, &driver.mem_free_host, {"cuMemFreeHost"}, &missing) &&
            resolve(library, &driver.ipc_get_mem_handle, {"cuIpcGetMemHandle"}, &missing) &&
            resolve(library, &driver.ipc_open_mem_handle, {"cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle"}, &missing) &&
            resolve(library, &driver.ipc_close_mem_handle, {"cuIpcCloseMemHandle"}, &missing) &&
            resolve(library, &driver.get_error_string, {"cuGetErrorString"}, &missing) &&
            resolve(library, &driver.event_create, {"cuEventCreate"}, &missing) &&
            resolve(library, &driver.event_record, {"cuEventRecord"}, &missing) &&
            resolve(library, &driver.event_query, {"cuEventQuery"}, &missing) &&
            resolve(library, &driver.event_destroy, {"cuEventDestroy_v2", "cuEventDestroy"}, &missing);
  if (!ok) {
    *error = "the CUDA driver libcuda.so.1 lacks " + missing + " (a driver older than CUDA 7.0?)";
    return nullptr;
  }
  CUresult r = driver.init(0);
  if (r != CUDA_SUCCESS) {
    *error = std::string("cuInit failed: ") + error_string(r) + " (no GPU, or the kernel module is not loaded)";
    return nullptr;
  }
  std::string optional;
  if (!resolve(library, &driver.stream_query, {"cuStreamQuery"}, &optional)) driver.stream_query = nullptr;
  int version = 0;
  driver.driver_get_version(&version);
  (void)version;
  // Kernels are optional: every driver since CUDA 4.0 has these, but a
  // missing one costs only the GPU reductions (they stage through the host).
  std::string lacking;
  bool kernels = resolve(library, &driver.module_load_data, {"cuModuleLoadData"}, &lacking) &&
                 resolve(library, &driver.module_get_function, {"cuModuleGetFunction"}, &lacking) &&
                 resolve(library, &driver.launch_kernel, {"cuLaunchKernel"}, &lacking);
  if (!kernels) {
    FERRY_DEBUG(kCuda, "the CUDA driver lacks %s: no GPU reduction kernels", lacking.c_str());
    return &kOpsWithoutKernels;
  }
  return &kOps;
}

}  // namespace ferry::device::cuda
