// What the GPU pack kernels (pack.cu, compiled by nvcc) and the code that
// launches them (device/kernels.cc, and the unit tests' model) agree on:
// the kernels' names, their parameters and their block size.
//
// A non-contiguous datatype on the GPU is flattened on the host into the
// blocks that one chunk of its packed bytes covers (p2p/data_access.cc, from
// the datatype's layout: a vector, an indexed type, a struct of contiguous
// blocks, a subarray alike), the list is copied to GPU memory, and one
// launch moves every block of the chunk:
//
//   extern "C" __global__ void ferry_pack_gather(void* packed, const void* base,
//                                                const PackBlock* blocks, unsigned long long n)
//     packed[b.packed .. b.packed + b.bytes) = base[b.offset .. b.offset + b.bytes) for each block b
//   extern "C" __global__ void ferry_pack_scatter(void* base, const void* packed,
//                                                 const PackBlock* blocks, unsigned long long n)
//     the reverse
//
// `packed`, `base` and `blocks` are GPU memory. One warp per block, its
// lanes striding over the block's bytes; a grid-stride loop over the blocks.
//
// Plain C++ with no CUDA in it: nvcc and the host compiler both read it.
#pragma once

namespace ferry::device::kernels {

struct PackBlock {
  long long offset;          // from `base` (a datatype may reach below its buffer's address)
  unsigned long long packed;  // from `packed`: the bytes of the blocks before it
  unsigned long long bytes;
};

constexpr unsigned kPackThreads = 256;  // 8 warps: 8 blocks per thread block
constexpr unsigned kPackWarp = 32;

}  // namespace ferry::device::kernels
