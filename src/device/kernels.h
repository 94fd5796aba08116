// Reductions on GPU memory, run by GPU kernels: dst = src0 op src1 op ...,
// element by element, without the data leaving the GPU; and the pack
// kernels that gather and scatter the blocks of a non-contiguous datatype
// (pack_blocks, below).
//
// The kernels (device/kernels/reduce.cu) are compiled by nvcc when the
// build finds it (cmake/FerryCudaKernels.cmake) and embedded in libmpi as a
// fatbin; the first reduce in a CUDA context loads it there
// (cuModuleLoadData) and launches through the device table (device.h), so
// libmpi still links neither libcuda nor libcudart. A libmpi built without
// nvcc or a driver without cuLaunchKernel makes supports() false, and so
// does a module the driver refused (a GPU the fatbin has no code for) once
// a reduce() has tried to load it: the caller then stages the reduction
// through the host, as it does for the pairs that have no kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "device/device.h"
#include "device/kernels/pack_abi.h"

namespace ferry::device::kernels {

enum class Element : uint8_t { kInt8, kUint8, kInt16, kUint16, kInt32, kUint32, kInt64, kUint64, kFloat, kDouble };
enum class Reduction : uint8_t { kSum, kProd, kMax, kMin, kLand, kLor, kLxor, kBand, kBor, kBxor };
constexpr int kMaxInputs = 8;

// Whether MPI defines op for element (and so a kernel exists): the same
// answer in every process, whatever its driver or build.
bool defined(Element element, Reduction op);

// Whether reduce() can run (element, op) on the GPU in this process: the
// kernels are built into libmpi (or the test model is installed), the
// driver can launch them, and MPI defines op for element.
bool supports(Element element, Reduction op);

// dst[i] = srcs[0][i] op ... op srcs[n-1][i] for i < count, 1 <= n <= kMaxInputs;
// every pointer GPU memory usable in the CUDA context of dst's allocation
// (its own, or a peer's mapped with CUDA IPC); dst may be one of srcs.
// Queued on the stream device/staging uses for dst's context (so it is
// ordered after work on the legacy default stream) and waited for.
// An error is the failed call's text ("cuLaunchKernel: ..."). When the
// module fails to load, supports() answers false from then on, so a caller
// that sees an error may ask again and stage through the host instead.
std::optional<std::string> reduce(void* dst, const void* const* srcs, int n, size_t count, Element element,
                                  Reduction op);

// The same result written to `m` outputs at once (1 <= m <= kMaxOutputs):
// dsts[j][i] = srcs[0][i] op ... op srcs[n-1][i] for every j, each element
// read once from each input and computed once. dsts[0] is this process's
// own allocation (its context and stream run the kernel); the others may
// be peers' allocations mapped with CUDA IPC. Outputs never overlap one
// another; each may be one of the inputs.
std::optional<std::string> reduce_to(void* const* dsts, int m, const void* const* srcs, int n, size_t count,
                                     Element element, Reduction op);
constexpr int kMaxOutputs = 8;

// Pack kernels (kernels/pack.cu, pack_abi.h): the blocks of one chunk of a
// non-contiguous datatype on the GPU, flattened by the caller, moved by one
// launch. Whether they can run here (the kernels are built into libmpi, or
// the test model is installed, and the module loads).
bool supports_pack();
// Gathers `n` blocks (offsets from `base`, GPU memory in the allocation
// `where` describes; their packed offsets end at `packed_bytes`) into
// `packed` (host or GPU memory), or (!gather) scatters `packed` into them.
// The block list and, for a host `packed`, the packed bytes go through a
// GPU scratch buffer (staging::take_device): one copy of the list, one
// launch, one copy of the bytes, on the stream of `where`'s context, then a
// wait. An error is the failed call's text.
std::optional<std::string> pack_blocks(const PointerInfo& where, void* base, const PackBlock* blocks, size_t n,
                                       uint64_t packed_bytes, void* packed, bool packed_on_device, bool gather);

// Forgets loaded modules and past failures (device::install and unload):
// the driver frees the modules with their contexts.
void reset();

}  // namespace ferry::device::kernels
