// A host-memory model of a GPU behind the device::Ops table
// (device/device.h), for the unit tests of everything above it.
//
// Its "device" memory is host memory mapped PROT_NONE: the host cannot touch
// it except through the table's copy call (which opens it for the length of
// one memcpy), so code that reads or writes a device buffer directly crashes
// the test instead of passing by luck. Managed memory is ordinary memory
// that pointer_info reports as managed. Its GPU kernels are host functions
// found by the kernels' names (device/kernels/reduce_abi.h), run with the
// "device" memory opened for the length of one launch. Everything is
// counted, and a copy, a module load or a launch can be made to fail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "device/device.h"

namespace ferry::device::model {

const Ops* ops();

void* alloc(size_t n, int device = 0);  // GPU memory the host cannot touch
void* alloc_managed(size_t n);
void free(void* p);

// The test's own access to GPU memory (not counted).
void write(void* device_dst, const void* host_src, size_t n);
void read(void* host_dst, const void* device_src, size_t n);

struct Counters {
  uint64_t pointer_queries = 0;
  uint64_t id_queries = 0;  // buffer_id
  uint64_t copies = 0;
  uint64_t copies_2d = 0;
  uint64_t ipc_exports = 0;  // ipc_get_handle
  uint64_t ipc_opens = 0;
  uint64_t ipc_closes = 0;
  uint64_t pinned_allocs = 0;
  uint64_t module_loads = 0;
  uint64_t launches = 0;
  unsigned last_grid = 0;  // blocks and threads per block of the last launch
  unsigned last_block = 0;
  uint64_t device_allocs = 0;  // device_alloc: Ferry's own GPU memory
  uint64_t legacy_syncs = 0;   // synchronize_legacy
  uint64_t events_made = 0;
  uint64_t events_destroyed = 0;
  uint64_t event_queries = 0;
  uint64_t event_records = 0;
  uint64_t stream_syncs = 0;  // stream_synchronize: a wait for copies queued on Ferry's stream
};
Counters& counters();
void reset_counters();

// The next copy fails with this code (CUDA_ERROR_ILLEGAL_ADDRESS is 700).
void fail_next_copy(int code);
// The next module load (CUDA_ERROR_NO_BINARY_FOR_GPU is 209), or launch
// (CUDA_ERROR_LAUNCH_FAILED is 719), fails with this code.
void fail_next_module_load(int code);
void fail_next_launch(int code);
// The next IPC open (CUDA_ERROR_INVALID_HANDLE is 400) fails with this code.
void fail_next_ipc_open(int code);

// The arguments of the last reduction kernel run: its outputs and inputs,
// in the order the kernel got them, and its element count.
struct LastReduce {
  std::vector<void*> outputs;
  std::vector<const void*> inputs;
  size_t count = 0;
};
const LastReduce& last_reduce();
// Copies finish at once, but an event recorded from now on answers
// kNotReady to its first n queries (default 0), as a running copy would.
void set_event_polls(int n);
// Events recorded that still answer kNotReady: copies "running" now.
int copies_running();
// The next event recorded reports this error (CUDA_ERROR_ILLEGAL_ADDRESS is
// 700) once its polls are over: the copy before it failed.
void fail_next_event(int code);

}  // namespace ferry::device::model
