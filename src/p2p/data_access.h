// Reading and writing a request's data wherever it lives: host memory in
// any datatype, or GPU memory (device/device.h).
//
// GPU memory is never touched by the host: contiguous data is one copy
// through the device table (cuMemcpyAsync, then a wait); a strided vector
// (one element of a type that is one run repeated by one loop) is packed
// and unpacked by the GPU's copy engine, one cuMemcpy2DAsync per chunk;
// other non-contiguous data by the pack kernels (device/kernels.h
// pack_blocks): the blocks a part of the packed stream covers, flattened
// from the layout on the host, moved by one launch. Without the kernels, it
// is copied in the span of the bytes that part covers, packed or unpacked
// on the host, and (receive) copied back: each span once, never one element
// at a time. Writing a span back also rewrites the gaps between the
// elements with the values they had when it was read: a program must not
// change those bytes on the GPU while the receive is in progress.
#pragma once

#include <cstdint>

#include "base/datatype.h"
#include "base/error.h"
#include "base/request.h"

namespace ferry::p2p {

inline bool on_device(const Request* r) { return r->memory == transport::MemoryKind::kDevice; }

// Whether the request's data goes through pack_part/unpack_part (and the
// chunked protocols of p2p/pack_stream.h) instead of straight between the
// user's buffer and a transport.
inline bool streamed(const Request* r) { return !r->datatype->contiguous || on_device(r); }

// Bytes [offset, offset + n) of the request's packed data, into `out`.
Err pack_part(const Request* r, uint64_t offset, uint64_t n, void* out);
// The same bytes, from `in` into place.
Err unpack_part(const Request* r, uint64_t offset, uint64_t n, const void* in);

// A whole message packed or unpacked in one go, the data and the packed
// bytes each in host or GPU memory (MPI_Pack, MPI_Unpack, the copies of
// MPI_Bsend and MPI_Sendrecv_replace): `bytes` of the packed form of
// `count` elements of `t` at `buf`.
Err pack_into(const void* buf, MPI_Count count, const Datatype* t, uint64_t bytes, void* out);
Err unpack_from(const void* in, uint64_t bytes, void* buf, MPI_Count count, const Datatype* t);

// MPI_Pack_external and MPI_Unpack_external (MPI-3.1 §4.3): the same in
// external32 (base/external32.h), `bytes` of its form, either buffer on the
// host or the GPU. The conversion runs on the host: GPU data is staged as
// the span of its elements (copied in; for an unpack, written back with the
// bytes between the elements as they were), GPU packed bytes as one copy.
// A failed copy is MPI_ERR_OTHER naming the CUDA call.
Err pack_external_into(const void* buf, MPI_Count count, const Datatype* t, uint64_t bytes, void* out);
Err unpack_external_from(const void* in, uint64_t bytes, void* buf, MPI_Count count, const Datatype* t);

// Where `buffer` lives, for a request's `memory` field.
transport::MemoryKind memory_kind(const void* buffer);
// Sets r->memory and r->device for r->buffer with one question to the
// memory-type cache: every later copy of the request's data (each chunk's)
// uses that answer and asks nothing again (README "GPU buffers").
void locate(Request* r);

}  // namespace ferry::p2p
