// One-pass collectives on GPU buffers among ranks of one host (issue 33):
// what NCCL does within a node. Every rank maps the others' buffers
// through CUDA IPC (device/ipc_cache.h, kept open; our own allocations'
// exports kept too, device/ipc_exports.h), and ONE kernel per rank reduces
// its slice (1/p of the elements) of every rank's input and writes it
// into EVERY rank's output (device/kernels.h, reduce_to). Each input byte
// is read once and each output byte written once: the traffic of one
// cudaMemcpy per rank. Today's path (coll/device_schedule.h) runs the host
// algorithm's many steps on the GPU buffers, each with its fixed costs.
//
// Cost: 3 small host collectives (the allgather of the exports, the entry
// agreement, the exit agreement) + one legacy-stream wait + one kernel of
// n/p elements x p inputs x p outputs, at the GPU's memory bandwidth.
//
// Protocol of one blocking MPI_Allreduce (every rank decides alike, so no
// rank ever waits in a collective the others skipped):
//   0. Eligible, from what is the same on every rank (MPI-3.1 §5.9.1: the
//      same count, datatype and op everywhere): an intracommunicator of 2
//      to 8 ranks, blocking, a predefined op and type with a kernel
//      (defined for the pair), at least FERRY_CUDA_ONEPASS_THRESHOLD bytes,
//      and the communicator agreed, once at its first such call, that all
//      its ranks share this host and have the CUDA driver loaded (one
//      allreduce, kept with the communicator). A program without GPUs, or
//      one rank under FERRY_CUDA=off, pays that one allreduce per
//      communicator and nothing more.
//   1. One allgather of each rank's Entry: whether its buffers can take
//      part (GPU memory that IPC can export, not managed or host memory,
//      one GPU, a kernel that loads) and the exports of its send and
//      receive allocations with the buffers' offsets. Any rank says no:
//      everyone takes today's path. (A program with host buffers on a GPU
//      machine pays this one small collective per eligible call.)
//   2. Each rank opens the others' mappings (cached) and waits for its
//      legacy default stream (the program's kernels may still be writing
//      its send buffer, as for the point-to-point IPC path's sender).
//   3. An allreduce MIN of "opened everything": the entry barrier (after
//      it, every rank's input is final and every output may be written)
//      and the agreement (any failure: everyone takes today's path,
//      nothing has been written).
//   4. Rank r's kernel: slice r of every rank's input (rank order, so every
//      element is folded alike) into slice r of every rank's output.
//      MPI_IN_PLACE: the receive buffer is the input; safe because only
//      rank r's kernel touches slice r, and each thread reads an element
//      before it writes it.
//   5. An allreduce MIN of "my kernel finished": the exit barrier (every
//      peer's writes into my receive buffer are done; nobody reads my send
//      buffer any more) and every rank learns of a failed kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "coll/collectives.h"
#include "device/ipc_cache.h"
#include "device/kernels.h"

namespace ferry::coll::gpu::onepass {

// The whole call: std::nullopt when it does not run here (not eligible, or
// some rank cannot: the caller runs today's path, on every rank alike),
// else its outcome. Called first by coll::allreduce, on every rank.
std::optional<Err> allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                             Communicator* c, Launch how);

// The same machinery for three more (coll::reduce_scatter_block,
// coll::allgather, coll::bcast ask first likewise):
//   reduce_scatter_block: rank r's kernel reduces block r of every rank's
//     send buffer into its own receive buffer (MPI_IN_PLACE: today's path,
//     since rank r writes its block 0 while rank 0 reads it).
//   allgather: rank r copies every peer's block (its send buffer, or its
//     block of its receive buffer in place) into its own receive buffer,
//     all copies queued back to back, one wait.
//   bcast: every other rank copies the root's buffer into its own.
// A rank's datatypes may differ from another's (same signature), so
// contiguity is each rank's answer in its Entry, not part of step 0. The
// threshold counts the bytes of the whole result (every block together).
std::optional<Err> reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type,
                                        const Op* op, Communicator* c, Launch how);
std::optional<Err> allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                             MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how);
std::optional<Err> bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c, Launch how);

// FERRY_CUDA_ONEPASS_THRESHOLD (negative: never).
int64_t threshold();
// Whether a call of `bytes` may run in one pass: asked inline by the entry
// points before anything else, so that a small call, whose latency
// matters, pays a load and two compares (callgrind, 8-byte allreduce on 2
// ranks: a call into the checks cost 34 instructions of ~1300).
inline bool big_enough(size_t bytes) {
  static const int64_t at_least = threshold();
  return at_least >= 0 && static_cast<int64_t>(bytes) >= at_least;
}

// Closes the peers' mappings (MPI_Finalize, before the driver goes).
void close_mappings();

// The steps, for the unit tests (tests/unit/device_onepass_test.cc run
// them for several ranks in one process against the device model).

// What each rank contributes to a call's allgather (step 1).
struct Entry {
  uint8_t usable = 0;    // 1: this rank's buffers can take part
  uint8_t in_place = 0;  // 1: MPI_IN_PLACE, the input is in the receive buffer
  uint8_t has_send = 0;  // 1: `send` holds the send buffer's export
  uint8_t has_recv = 0;  // 1: `recv` holds the receive buffer's export
  uint32_t reserved = 0;
  device::IpcExport send{};
  uint64_t send_offset = 0;  // the send buffer's offset in its allocation
  device::IpcExport recv{};
  uint64_t recv_offset = 0;
};

// A rank's buffers in a call: send may be nullptr (none) or MPI_IN_PLACE;
// recv may be nullptr (none). share_*: whether the others map it.
struct Buffers {
  const void* send = nullptr;
  size_t send_bytes = 0;
  bool share_send = true;
  void* recv = nullptr;
  size_t recv_bytes = 0;
  bool share_recv = true;
  bool ok = true;  // this rank can run its part (a kernel, contiguous types)
};

// The elements of rank r's slice among p ranks: whole 16-byte units (so
// that slices of aligned buffers stay aligned for the kernel's vector
// loads), spread as evenly as they go; the last rank takes the elements
// that fill no whole unit. Together the slices cover [0, count) once.
struct Slice {
  size_t first = 0;
  size_t count = 0;
};
Slice slice_of(size_t count, size_t element_bytes, int p, int r);

// Step 1: this rank's entry: usable when every buffer it names is GPU
// memory of one GPU (not host or managed memory), inside its allocation,
// and exported if shared.
Entry describe_buffers(const Buffers& b);
// The allreduce's: `bytes` at sendbuf (or MPI_IN_PLACE) and recvbuf, both
// shared; `kernel`: whether the kernel for the call runs here.
Entry describe_buffers(const void* sendbuf, void* recvbuf, size_t bytes, bool kernel);
// Whether every rank's entry says it can take part.
bool all_usable(const Entry* entries, int p);

// Step 2: every rank's input (its send buffer, or its receive buffer in
// place) and output (its receive buffer), the buffers' starts as this
// process sees them: its own as they are, the others' that they shared
// mapped through `cache` (keyed by peer_ids[q]) on GPU `device`; only
// rank `only`'s where only >= 0. False with `*error` if a mapping cannot
// be opened.
struct Mapped {
  const void* inputs[device::kernels::kMaxInputs] = {};
  void* outputs[device::kernels::kMaxOutputs] = {};
};
bool open_peers(const Entry* entries, int p, int me, const int* peer_ids, const void* sendbuf, void* recvbuf,
                int device, device::IpcCache& cache, Mapped* mapped, std::string* error, int only = -1);

// Step 4: rank `me`'s kernel: slice `me` of every input into slice `me` of
// every output (its own first: the kernel runs in its context).
std::optional<std::string> reduce_slice(const Mapped& mapped, int p, int me, size_t count, size_t element_bytes,
                                        device::kernels::Element element, device::kernels::Reduction op);
// reduce_scatter_block's: block `me` (`count` elements) of every input into
// this rank's output.
std::optional<std::string> reduce_block(const Mapped& mapped, int p, int me, size_t count, size_t element_bytes,
                                        device::kernels::Element element, device::kernels::Reduction op);
// allgather's: every rank's block of `block_bytes` (its input, or its
// block of its output in place) into block q of this rank's output.
std::optional<std::string> gather_blocks(const Entry* entries, const Mapped& mapped, int p, int me,
                                         size_t block_bytes);

}  // namespace ferry::coll::gpu::onepass
