// GPU pack kernels for non-contiguous datatypes: gather the blocks of one
// chunk of a datatype's packed bytes into a dense buffer, or scatter them
// back, as pack_abi.h describes (names, parameters, the block list).
//
// Cost: memory-bound, one pass over the chunk's bytes plus one read of the
// block list (24 bytes per block). A warp takes one block, its 32 lanes
// moving consecutive bytes, so a block of at least 32 bytes is read in
// coalesced 32-byte segments; a datatype of single small elements (a
// vector of one int per row) spends most of the warp idle, which is still
// one launch per chunk instead of one copy per element. Not tuned, and not
// yet run on a GPU (README "GPU buffers"): the unit tests run the host
// twins of these kernels in tests/unit/device_model.cc.
#include "pack_abi.h"

namespace {

using ferry::device::kernels::kPackWarp;
using ferry::device::kernels::PackBlock;

__device__ void move_blocks(char* to_base, bool to_packed, const char* from_base, const PackBlock* blocks,
                            unsigned long long n) {
  unsigned long long warp = (blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x) / kPackWarp;
  unsigned long long warps = gridDim.x * static_cast<unsigned long long>(blockDim.x) / kPackWarp;
  unsigned lane = threadIdx.x % kPackWarp;
  for (unsigned long long b = warp; b < n; b += warps) {
    PackBlock block = blocks[b];
    char* to = to_packed ? to_base + block.packed : to_base + block.offset;
    const char* from = to_packed ? from_base + block.offset : from_base + block.packed;
    for (unsigned long long i = lane; i < block.bytes; i += kPackWarp) to[i] = from[i];
  }
}

}  // namespace

extern "C" __global__ void ferry_pack_gather(void* packed, const void* base, const PackBlock* blocks,
                                             unsigned long long n) {
  move_blocks(static_cast<char*>(packed), true, static_cast<const char*>(base), blocks, n);
}

extern "C" __global__ void ferry_pack_scatter(void* base, const void* packed, const PackBlock* blocks,
                                              unsigned long long n) {
  move_blocks(static_cast<char*>(base), false, static_cast<const char*>(packed), blocks, n);
}
