// Copies between host and GPU memory, and the pinned host buffers that
// device data is staged through on its way to a transport.
//
// Device data never reaches a transport directly (no transport can point
// the kernel or a socket at GPU memory): p2p streams it in chunks
// (p2p/pack_stream.h), each copied into a pinned buffer from this pool
// before it is sent and out of one after it lands. Pinned (page-locked)
// memory is what lets the GPU's copy engine move the bytes by DMA at full
// speed; allocating it costs milliseconds, so buffers are kept and reused.
//
// Copies are queued on one stream per CUDA context, made with
// CU_STREAM_DEFAULT, so they start only after work the program queued on
// the legacy default stream: a buffer a kernel wrote just before MPI_Send is
// complete when it is read. A program using per-thread default streams or
// its own streams must synchronize them before the MPI call (as with any
// CUDA-aware MPI).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "device/device.h"

namespace ferry::device::staging {

// Copies n bytes from src to dst, either or both in device memory, and waits
// for the copy. An error is the call's text ("cuMemcpyAsync: ...").
std::optional<std::string> copy(void* dst, const void* src, size_t n);
// The same for `rows` rows of `width` bytes, `src_pitch` and `dst_pitch`
// apart (cuMemcpy2DAsync): a vector packed or unpacked by the copy engine.
std::optional<std::string> copy_2d(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width,
                                   size_t rows);

// A copy that runs while the caller goes on (a large message's, so that
// the next can be queued behind it and progress continues meanwhile):
// copy_start queues it and an event after it on the stream copy() uses;
// copy_finished answers whether it has finished (false: still running),
// with *error set if it failed. A started copy must be polled to its end
// (that returns its event to the pool).
struct PendingCopy {
  void* event = nullptr;
  void* stream = nullptr;
};
std::optional<std::string> copy_start(void* dst, const void* src, size_t n, PendingCopy* pending);

// The same three for a caller that already knows the GPU side of the copy:
// `side` is what describe() said of the GPU pointer (the source's, if both
// are), and neither pointer is asked about again. A request asks about its
// buffer once and carries the answer (p2p/data_access.h `locate`), so the
// chunks of a message cost no cuPointerGetAttributes each, and the pinned
// staging buffers (from take(), host memory by construction) none at all.
std::optional<std::string> copy(const PointerInfo& side, void* dst, const void* src, size_t n);
std::optional<std::string> copy_2d(const PointerInfo& side, void* dst, size_t dst_pitch, const void* src,
                                   size_t src_pitch, size_t width, size_t rows);
std::optional<std::string> copy_start(const PointerInfo& side, void* dst, const void* src, size_t n,
                                      PendingCopy* pending);
// Several copies queued back to back on the stream of `side` (the
// allocation whose context runs them), then one wait: the one-pass
// collectives' copies into or out of peers' mapped buffers
// (coll/device_onepass.h). The first failed call's text, if any.
struct Copy {
  void* dst;
  const void* src;
  size_t bytes;
};
std::optional<std::string> copy_many(const PointerInfo& side, const Copy* copies, size_t n);
// The GPU side of a copy between `dst` and `src`: the source's description
// if it is on the GPU, else the destination's (one or two lookups).
PointerInfo side_of(void* dst, const void* src);

bool copy_finished(PendingCopy* pending, std::optional<std::string>* error);

// The stream of the allocation `info` describes (its context's, made on
// first use), which copies and kernels (device/kernels.h) are queued on;
// nullptr with `error` set when cuStreamCreate fails.
void* stream_for(const PointerInfo& info, std::string* error);

// A pinned host buffer of at least n bytes, reused from a pool (plain host
// memory where pinning fails); give it back with its size.
void* take(size_t n);
void give(void* p, size_t n);

// GPU memory of at least n bytes in the CUDA context of `near` (a GPU
// pointer): scratch for a collective run on the user's GPU buffers. Freed
// buffers are kept per context for reuse (cuMemFree synchronizes the whole
// device), at most kKeptDevice of them; nullptr with `*error` set if the
// driver has no memory to give.
void* take_device(const void* near, size_t n, std::string* error);
// The same in the context of the allocation `where` describes (asking nothing).
void* take_device(const PointerInfo& where, size_t n, std::string* error);
void give_device(void* p, size_t n);
constexpr size_t kKeptDevice = 4;

// Pinned buffers held by the pool (tests).
size_t pooled();
// GPU buffers held by the pool (tests).
size_t pooled_device();

// Frees the pool and the streams (a table is installed or unloaded).
void reset();

}  // namespace ferry::device::staging
