// MPI-IO on GPU buffers: the data is staged through host memory.
//
// The data path (io/access.h) packs, unpacks, converts and hands the user's
// buffer to pread and pwrite, all on the host, which cannot touch GPU
// memory. So a GPU buffer is replaced by host stand-ins, as Open MPI's OMPIO
// and MPICH's ROMIO do in their CUDA-aware builds:
//
//   independent accesses (explicit offsets, file pointers, the shared
//   pointer's forms ordered or not, the nonblocking forms on the I/O worker): in pieces of at most kPieceBytes from the
//   pinned pool (device/staging.h), one after another, so memory stays
//   bounded whatever the transfer's size. A write copies a piece off the
//   GPU and writes it; a read reads a piece and copies it onto the GPU.
//   A buffer that is one dense run (and a view without conversion) is cut
//   at any byte; otherwise a piece is whole elements of the memory
//   datatype, the span of those elements staged and the datatype applied
//   on the host copy;
//
//   collective accesses (_all, i*_all, *_all_begin): a buffer that is one
//   dense run (and a view that converts nothing) is copied a round's
//   pieces at a time by two-phase itself (io/collective.h's Detour): a
//   write copies what it sends to each aggregator off the GPU, a read
//   copies what each aggregator sends it onto the GPU, at most a window
//   per aggregator per round in host memory. Any other buffer is staged
//   whole (the span of the buffer, as blocking collectives do,
//   coll/device_buffers.h), because two-phase reads and writes the buffer
//   in the order of the file domains, not the buffer's, and a piece of a
//   round may cut a datatype's element.
//
// A read that is not cut at any byte (a datatype with holes, a view that
// converts) copies the span onto the host first, so that the copy back
// leaves the holes (and elements past the end of the file) as they were.
//
// Cost: one extra copy of the data across PCIe or NVLink (two for those
// reads), on top of the host path's own. The copies of a
// nonblocking access happen on the I/O worker, before its request
// completes (MPI-3.1 §13.4.1: the buffer belongs to the access until then).
// A failed copy is the access's error: MPI_ERR_OTHER naming the CUDA call.
#pragma once

#include <cstdint>
#include <functional>

#include "base/error.h"
#include "io/access.h"

namespace ferry::io::device_staging {

// The most host memory one piece of an independent access stages.
constexpr uint64_t kPieceBytes = 4u << 20;

// Whether `buffer` is GPU memory (managed memory is not: the host touches
// it).
bool on_gpu(const Buffer& buffer);

// `n` bytes between GPU and host memory, either way (device/staging.h);
// a failed copy is MPI_ERR_OTHER naming the CUDA call.
Err copy(void* dst, const void* src, uint64_t n);

// Moves `bytes` of a GPU buffer's packed data at view byte `position` in
// pieces: `host_move` is the host data path, called with a host stand-in
// for each piece, the piece's view position and packed bytes, and the
// bytes it moved. `cut_anywhere`: the buffer is one dense run and the view
// converts nothing, so pieces are cut at any byte (else at elements).
// *done: the bytes moved; a piece that moves fewer (the end of the file)
// ends the access there.
using HostMove = std::function<Err(uint64_t position, const Buffer& host, uint64_t bytes, uint64_t* done)>;
Err move_in_pieces(Direction direction, uint64_t position, const Buffer& buffer, uint64_t bytes, bool cut_anywhere,
                   uint64_t* done, const HostMove& host_move);

// The whole buffer's stand-in, for a collective access.
class WholeSpan {
 public:
  WholeSpan() = default;
  WholeSpan(const WholeSpan&) = delete;
  WholeSpan& operator=(const WholeSpan&) = delete;
  ~WholeSpan();

  // Puts a host stand-in for GPU `buffer` in *host: copied in for a write,
  // and for a read unless the buffer is one dense run and the view
  // `converts` nothing.
  Err stage(Direction direction, const Buffer& buffer, bool converts, Buffer* host);
  // A read: copies the stand-in back onto the GPU (the first `done` packed
  // bytes where the buffer is one dense run). Frees the stand-in.
  Err finish(Direction direction, uint64_t done);

 private:
  char* device_ = nullptr;  // the user's buffer + the span's low end
  char* host_ = nullptr;
  uint64_t bytes_ = 0;
  bool dense_ = false;
};

}  // namespace ferry::io::device_staging
