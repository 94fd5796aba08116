// This process's own GPU allocations exported for CUDA IPC, kept by buffer
// id: cuIpcGetMemHandle costs 10-16 us, and a program hands the same
// buffers to MPI again and again, so each allocation is exported once.
//
// The driver never reuses a buffer id, so an entry never goes stale (an
// allocation freed and made again at the same address has a new id, and
// a new export). The table is bounded only for programs that allocate
// without end: when full it is emptied. The point-to-point IPC path
// (transport/shm/cuda_ipc.h) and the one-pass collectives
// (coll/device_onepass.h) share it. Forgotten at device::install and
// device::unload.
#pragma once

#include <cstddef>

#include "device/device.h"
#include "device/ipc_cache.h"

namespace ferry::device {

// The export of the device allocation `info` describes (info.base,
// info.buffer_id): from the table, or made now. 0, or the code of the
// failed cuIpcGetMemHandle (nothing kept then).
int export_allocation(const PointerInfo& info, IpcExport* out);

// Empties the table.
void forget_exports();

constexpr size_t kMaxExports = 4096;

}  // namespace ferry::device
