// GPU memory behind one small table of calls (shared/STYLE.md: a plug-in
// you can count, like NCCL's ncclNet_t).
//
// Everything Ferry does with GPU memory (telling device from host pointers,
// copying, pinned staging buffers, CUDA IPC) goes through an `Ops` table.
// Two implement it: the CUDA driver, opened with dlopen at run time
// (device/cuda_driver.cc; libmpi has no link-time dependency on libcuda or
// libcudart, so a CUDA-enabled libmpi runs where there is no driver), and a
// host-memory model for the unit tests (tests/unit/device_model.h), whose
// "device" memory the host cannot touch except through the table.
//
// FERRY_CUDA=auto (default) loads the driver at MPI_Init if libcuda.so.1 can
// be opened and initialised, and otherwise runs host-only; on makes a missing
// or unusable driver a start-up error; off never loads it. While no table is
// installed, every buffer is host memory and asking costs one load and a
// branch (device::enabled()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ferry::device {

enum class Memory : uint8_t {
  kHost,     // ordinary or pinned (page-locked) host memory: the host touches it
  kDevice,   // GPU memory: only copies through the table reach it
  kManaged,  // CUDA managed memory: the host may touch it (so it is moved as host memory)
};

// What the driver says about a pointer (cuPointerGetAttributes).
struct PointerInfo {
  Memory memory = Memory::kHost;
  int device = -1;            // GPU ordinal (device and managed memory)
  uint64_t buffer_id = 0;     // unique per allocation, never reused by the driver
  uintptr_t base = 0;         // the allocation it lies in: [base, base + size)
  size_t size = 0;
  void* context = nullptr;    // the CUDA context it was allocated in
};

// A CUDA IPC memory handle (cuIpcGetMemHandle): 64 opaque bytes.
struct IpcHandle {
  unsigned char bytes[64];
};

// The calls. Each returns 0 or the implementation's error code, which
// error_string() names ("CUDA_ERROR_INVALID_VALUE: invalid argument").
// A stream is the implementation's handle; streams are made once per
// context and copies on them are ordered after work on the legacy default
// stream (CU_STREAM_DEFAULT).
struct Ops {
  const char* name;  // "cuda", "host model"
  int (*pointer_info)(const void* p, PointerInfo* info);
  // The buffer id of the allocation holding p (0 for host memory): one
  // attribute, cheaper than pointer_info, to tell whether a cached
  // allocation is still the one at that address.
  int (*buffer_id)(const void* p, uint64_t* id);
  int (*stream_create)(void* context, int device, void** stream);
  // Copies n bytes between any two of host, pinned and device memory
  // (unified addressing), queued on `stream`.
  int (*copy_async)(void* dst, const void* src, size_t n, void* stream);
  // Copies `rows` rows of `width` bytes, `src_pitch` apart in the source and
  // `dst_pitch` apart in the destination: a strided vector packed or
  // unpacked by the GPU's copy engine (cuMemcpy2DAsync).
  int (*copy_2d_async)(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width, size_t rows,
                       void* stream);
  int (*stream_synchronize)(void* stream);
  int (*pinned_alloc)(void** p, size_t n);
  int (*pinned_free)(void* p);
  int (*ipc_get_handle)(const void* base, IpcHandle* handle);
  // Maps a peer's allocation into this process, in the context of `device`.
  int (*ipc_open_handle)(const IpcHandle& handle, int device, void** mapped);
  int (*ipc_close_handle)(void* mapped);
  const char* (*error_string)(int code);
  // Kernels (device/kernels.h): nullptr, all three, where the driver lacks
  // them. module_load loads a fatbin into `context` (or, for none, the
  // primary context of `device`); `image` is nullptr when libmpi was built
  // without kernels, which the driver refuses and the model accepts.
  int (*module_load)(void* context, int device, const void* image, void** module);
  int (*module_function)(void* module, const char* name, void** function);
  // Queues function<<<grid, block>>>(args...) on `stream` (cuLaunchKernel's
  // kernelParams: one pointer to each argument).
  int (*launch)(void* function, unsigned grid, unsigned block, void** args, void* stream);
  // GPU memory for Ferry's own use (collective scratch beside the user's
  // GPU buffers), in `context` (or GPU `device`'s primary one), and freed.
  int (*device_alloc)(void* context, int device, void** p, size_t n);
  int (*device_free)(void* context, void* p);
  // Waits for the work queued on the legacy default stream of `context`
  // (or GPU `device`'s primary one): what must be done before another
  // process may read a buffer, without queueing any GPU work of our own.
  int (*synchronize_legacy)(void* context, int device);
  // Events, to learn that a copy queued on a stream has finished without
  // waiting for it: made in the stream's context, recorded after the copy,
  // then queried: 0 once everything queued before the record has finished,
  // kNotReady while it runs, else the error.
  int (*event_create)(void* stream, void** event);
  int (*event_record)(void* event, void* stream);
  int (*event_query)(void* event);
  int (*event_destroy)(void* event);
};

// event_query's answer while the work before the event still runs (the
// driver's CUDA_ERROR_NOT_READY).
constexpr int kNotReady = 600;

enum class Mode { kAuto, kOn, kOff };
// FERRY_CUDA's value; std::nullopt for a value that is none of the three.
std::optional<Mode> mode_from_config();

// Loads the driver as `mode` asks (MPI_Init). False only for kOn without a
// usable driver, with `error` naming what is missing.
bool load(Mode mode, std::string* error);
// Installs a table directly (the tests' model), or none (nullptr); forgets
// cached pointers, streams and loaded kernels.
void install(const Ops* ops);
// Drops cached pointers, streams, pinned buffers and loaded kernels
// (MPI_Finalize).
void unload();

extern const Ops* installed;
// Whether device memory can exist in this process at all.
inline bool enabled() { return installed != nullptr; }

// Where `p` lives. Host while no table is installed; otherwise answered from
// the memory-type cache (device/memory_cache.h), asking the driver once per
// allocation.
Memory memory_of(const void* p);
// The same, with everything the driver said (for IPC and copies).
PointerInfo describe(const void* p);
// Asks the driver again (the allocation may have been freed and another
// made at its address): for whatever relies on the buffer id, such as IPC.
// `*error` gets the code of a failed call.
PointerInfo describe_fresh(const void* p, int* error);

// The error text of a failed call: "<call>: <error string>".
std::string error_text(const char* call, int code);

}  // namespace ferry::device
