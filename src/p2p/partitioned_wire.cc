#include "p2p/partitioned_wire.h"

#include "base/type_pack.h"
#include "p2p/engine.h"

namespace ferry::p2p::partitioned_wire {
namespace {

// Free ids, per side; ids never handed out yet start at next.
struct Ids {
  std::vector<uint32_t> free;
  uint32_t next = 0;
};
Ids ids[2];

const Datatype* bytes_type() { return find_datatype(MPI_BYTE); }

Request* start_op(Partitioned* p, Request::Kind kind, void* buffer, MPI_Count count, const Datatype* t, int tag) {
  Request* r = requests::acquire();
  r->kind = kind;
  r->comm = p->comm;
  r->buffer = buffer;
  r->count = count;
  r->datatype = t;
  datatypes::retain(t);  // dropped when the request goes back to the pool
  r->bytes = t->bytes(count);
  r->peer = p->peer;
  r->tag = tag;
  r->context = p->comm->partitioned_context();
  r->active = true;
  if (kind == Request::Kind::kRecv) {
    p2p::start_recv(r);
    return r;
  }
  r->world_peer = p->comm->world_rank(p->peer);
  if (Err e = p2p::start_send(r)) complete(r, e);
  return r;
}

}  // namespace

bool take_id(bool sender, uint32_t* id) {
  Ids& side = ids[sender ? 1 : 0];
  if (!side.free.empty()) {
    *id = side.free.back();
    side.free.pop_back();
    return true;
  }
  if (side.next == kMaxIds) return false;
  *id = side.next++;
  return true;
}

void give_back_id(bool sender, uint32_t id) { ids[sender ? 1 : 0].free.push_back(id); }

void cut_blocks(Partitioned* p, uint64_t send_partitions, uint64_t send_partition_bytes) {
  p->send_partitions = send_partitions;
  p->send_partition_bytes = send_partition_bytes;
  p->send_bytes = send_partitions * send_partition_bytes;
  // One partition per block while the tags have room (the common case:
  // each MPI_Pready sends its partition); beyond, neighbours share a block.
  p->per_block = send_partitions <= kMaxBlocks ? 1 : (send_partitions + kMaxBlocks - 1) / kMaxBlocks;
  p->blocks = (send_partitions + p->per_block - 1) / p->per_block;
  p->block_requests.assign(p->blocks, nullptr);
  p->block_done.assign(p->blocks, 0);
}

void block_bytes(const Partitioned* p, uint64_t k, uint64_t* from, uint64_t* to) {
  *from = first_partition(p, k) * p->send_partition_bytes;
  *to = *from + partitions_in(p, k) * p->send_partition_bytes;
}

Request* start_send(Partitioned* p, const void* buffer, MPI_Count count, const Datatype* t, int tag) {
  return start_op(p, Request::Kind::kSend, const_cast<void*>(buffer), count, t, tag);
}

Request* start_recv(Partitioned* p, void* buffer, MPI_Count count, const Datatype* t, int tag) {
  return start_op(p, Request::Kind::kRecv, buffer, count, t, tag);
}

void send_block(Partitioned* p, uint64_t k) {
  // The partitions' elements in the user's layout: the engine packs them if
  // the type is not contiguous, as for any send.
  uint64_t first_element = first_partition(p, k) * static_cast<uint64_t>(p->count);
  const char* at = p->buffer + static_cast<MPI_Aint>(first_element) * p->type->extent;
  auto elements = static_cast<MPI_Count>(partitions_in(p, k) * static_cast<uint64_t>(p->count));
  p->block_requests[k] = start_send(p, at, elements, p->type, data_tag(p->cts.receiver_id, k));
}

void receive_block(Partitioned* p, uint64_t k) {
  uint64_t from = 0, to = 0;
  block_bytes(p, k, &from, &to);
  int tag = data_tag(p->id, k);
  auto bytes = static_cast<MPI_Count>(to - from);
  uint64_t elements = static_cast<uint64_t>(p->partitions) * static_cast<uint64_t>(p->count);
  const Datatype& t = *p->type;
  if (const char* dense = type::dense_run(t, p->buffer, elements); dense != nullptr || bytes == 0) {
    char* at = dense != nullptr ? const_cast<char*>(dense) + from : p->buffer;
    p->block_requests[k] = start_recv(p, at, bytes, bytes_type(), tag);
  } else if (from % t.size == 0 && to % t.size == 0) {
    // Whole elements of the receive type: the engine unpacks them in place.
    char* at = p->buffer + static_cast<MPI_Aint>(from / t.size) * t.extent;
    p->block_requests[k] = start_recv(p, at, static_cast<MPI_Count>((to - from) / t.size), &t, tag);
  } else {
    // The block starts or ends inside an element: land it packed, then
    // unpack exactly its bytes (type::unpack takes any byte range).
    if (p->staging.size() < p->send_bytes) p->staging.resize(p->send_bytes);
    p->block_requests[k] = start_recv(p, p->staging.data() + from, bytes, bytes_type(), tag);
  }
}

bool land(Partitioned* p, uint64_t k) {
  if (p->block_done[k]) return true;
  Request* r = p->block_requests[k];
  if (r == nullptr || !r->complete) return false;
  if (r->error != MPI_SUCCESS) {
    if (p->owner != nullptr) set_error(p->owner, Err(error_code::class_of(r->error), error_code::text(r->error)));
  } else if (!p->staging.empty() && static_cast<const char*>(r->buffer) >= p->staging.data() &&
             static_cast<const char*>(r->buffer) < p->staging.data() + p->staging.size()) {
    uint64_t from = 0, to = 0;
    block_bytes(p, k, &from, &to);
    uint64_t elements = static_cast<uint64_t>(p->partitions) * static_cast<uint64_t>(p->count);
    type::unpack(*p->type, p->buffer, elements, from, to - from, p->staging.data() + from);
  }
  requests::release(r);
  p->block_requests[k] = nullptr;
  p->block_done[k] = 1;
  ++p->done_blocks;
  return true;
}

}  // namespace ferry::p2p::partitioned_wire
