#include "p2p/pack_stream.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "base/datatype.h"
#include "base/request.h"
#include "base/type_pack.h"
#include "common/debug.h"
#include "device/staging.h"
#include "p2p/data_access.h"
#include "p2p/engine.h"

namespace ferry::p2p {

struct PackStream {
  // One DATA packet in flight and the buffer it was packed into.
  struct Chunk {
    SendItem item;
    char* buffer = nullptr;  // nullptr: sent straight from the user's buffer
    PackStream* stream = nullptr;
    bool busy = false;       // the transport holds it, or its copy from the GPU runs
    bool copying = false;    // GPU data: its copy into `buffer` is under way
    device::staging::PendingCopy copy;
  };

  Request* request = nullptr;
  int world_peer = -1;
  uint64_t receiver_cookie = 0;
  uint64_t total = 0;         // send: bytes to send
  uint64_t next = 0;          // send: offset of the next chunk
  int in_flight = 0;          // send: chunks the transport holds
  bool started = false;       // send: a chunk has been queued
  bool pumping = false;       // send: pump() is on the stack
  bool broken = false;        // send: the transport refused a chunk
  const char* source = nullptr;  // send: the data, when it is one contiguous run already
  // Send of GPU data in one run: copied chunk by chunk ahead of the
  // transport (pump_device); the chunk whose copy was started and that the
  // transport does not hold yet.
  const char* device_run = nullptr;
  Chunk* prefetched = nullptr;
  Chunk chunks[2];
  char* bounce = nullptr;     // eager send: the packed message; receive: one chunk
  bool bounce_cached = false;  // the bounce buffer came from the chunk cache
  // GPU data: chunk and bounce buffers are pinned ones from the staging
  // pool (device/staging.h), so the copies to and from the GPU run at DMA
  // speed.
  bool pinned = false;
  // Receive of GPU data in one run, in more than one chunk: the chunks land
  // in chunks[0] and chunks[1] by turns, and each one's copy to the GPU runs
  // while the next lands (no bounce buffer).
  bool landing_in_turn = false;
  int landing = 0;  // the chunk the next DATA packet lands in
};

namespace {

// Chunk buffers are reused: a large transfer would otherwise map and fault
// in fresh pages for every message.
constexpr size_t kSpareChunks = 8;
std::vector<char*> spare_chunks;

char* take_chunk() {
  if (spare_chunks.empty()) return static_cast<char*>(std::malloc(kChunkBytes));
  char* c = spare_chunks.back();
  spare_chunks.pop_back();
  return c;
}

// A chunk buffer for the stream: pinned for GPU data.
char* take_chunk(const PackStream* st) {
  return st->pinned ? static_cast<char*>(device::staging::take(kChunkBytes)) : take_chunk();
}

void give_chunk(char* c) {
  if (c == nullptr) return;
  if (spare_chunks.size() < kSpareChunks) spare_chunks.push_back(c);
  else std::free(c);
}

Request* request_of(SendItem* item) {
  return reinterpret_cast<Request*>(reinterpret_cast<char*>(item) - offsetof(Request, packet));
}

PackStream::Chunk* chunk_of(SendItem* item) {
  return reinterpret_cast<PackStream::Chunk*>(reinterpret_cast<char*>(item) - offsetof(PackStream::Chunk, item));
}

void eager_sent(SendItem* item) {
  Request* s = request_of(item);
  end_stream(s);
  complete(s);
}

void chunk_sent(SendItem* item);

// Addresses chunk `c` as the stream's next DATA packet (the rendezvous
// request's source, tag, context and sender cookie; its offset and size) and
// returns its size.
uint64_t address_next_chunk(PackStream* st, PackStream::Chunk& c) {
  uint64_t n = std::min(kChunkBytes, st->total - st->next);
  c.item.header = st->request->packet.header;
  c.item.header.type = PacketType::kRendezvousData;
  c.item.header.flags = 0;
  c.item.header.payload_bytes = n;
  c.item.header.offset = st->next;
  c.item.header.receiver_cookie = st->receiver_cookie;
  return n;
}

// Packs (or points at) the next chunk and queues it on `c`.
Err send_next(PackStream* st, PackStream::Chunk& c) {
  Request* s = st->request;
  uint64_t n = address_next_chunk(st, c);
  if (st->source != nullptr) {
    c.item.payload = st->source + st->next;
  } else {
    if (c.buffer == nullptr && n > 0) c.buffer = take_chunk(st);
    // A failed GPU copy fails the send, but the chunk still goes: the
    // receiver must not be left waiting for it.
    if (Err e = pack_part(s, st->next, n, c.buffer); e && s->error == MPI_SUCCESS) set_error(s, e);
    c.item.payload = c.buffer;
  }
  c.item.on_sent = chunk_sent;
  c.busy = true;
  st->next += n;
  st->started = true;
  ++st->in_flight;
  Err e = send_packet(st->world_peer, &c.item);
  if (e) {
    c.busy = false;
    --st->in_flight;
  }
  return e;
}

// GPU data in one run. The copy of the next chunk off the GPU is started as
// soon as the chunk before it has been handed to the transport, and waited
// for only when the transport has nothing left to send: so while one chunk
// is on the wire (a TCP socket drained by progress, a NIC), the GPU's copy
// engine fills the other buffer, and progress runs meanwhile instead of
// waiting in cuStreamSynchronize. A copy that fails fails the send, and the
// chunk still goes, as in send_next.
Err gpu_failure(const std::string& what) { return fail(MPI_ERR_OTHER, "GPU buffer: %s", what.c_str()); }

// Starts the copy of the next chunk into `c`, which the stream then holds.
void start_copy(PackStream* st, PackStream::Chunk& c) {
  Request* s = st->request;
  uint64_t n = address_next_chunk(st, c);
  if (c.buffer == nullptr && n > 0) c.buffer = take_chunk(st);
  c.item.payload = c.buffer;
  c.item.on_sent = chunk_sent;
  c.busy = true;
  c.copying = false;
  if (n > 0) {
    if (auto error = device::staging::copy_start(s->device, c.buffer, st->device_run + st->next, n, &c.copy)) {
      if (s->error == MPI_SUCCESS) set_error(s, gpu_failure(*error));
    } else {
      c.copying = true;
    }
  }
  st->next += n;
  st->started = true;
  st->prefetched = &c;
}

// Whether the copy into `c` has finished; `wait`: polls until it has.
bool copy_done(PackStream* st, PackStream::Chunk& c, bool wait) {
  while (c.copying) {
    std::optional<std::string> error;
    if (device::staging::copy_finished(&c.copy, &error)) {
      c.copying = false;
      if (error && st->request->error == MPI_SUCCESS) set_error(st->request, gpu_failure(*error));
      break;
    }
    if (!wait) return false;
  }
  return true;
}

void pump_device(PackStream* st) {
  while (!st->broken) {
    if (st->prefetched == nullptr) {
      bool data_left = st->next < st->total || !st->started;
      PackStream::Chunk* free = nullptr;
      for (PackStream::Chunk& c : st->chunks)
        if (!c.busy) free = &c;
      if (!data_left || free == nullptr) break;
      start_copy(st, *free);
    }
    PackStream::Chunk& c = *st->prefetched;
    // With a chunk on the wire, its completion brings us back here: the
    // copy runs on meanwhile. With none, the copy is all there is to wait for.
    if (!copy_done(st, c, st->in_flight == 0)) break;
    st->prefetched = nullptr;
    ++st->in_flight;
    if (Err e = send_packet(st->world_peer, &c.item)) {
      c.busy = false;
      --st->in_flight;
      set_error(st->request, e);
      st->broken = true;
    }
  }
}

// Keeps both chunks in flight until the data has gone; ends the send once
// the transport is done with the last one. A transport may finish a chunk
// inside send(): that chunk_sent() finds the pump running and leaves the
// refill to it, so the stack stays shallow however many chunks there are.
void pump(PackStream* st) {
  if (st->pumping) return;
  st->pumping = true;
  Request* s = st->request;
  bool more = st->device_run == nullptr;
  if (st->device_run != nullptr) pump_device(st);
  while (more && !st->broken) {
    more = false;
    for (PackStream::Chunk& c : st->chunks) {
      // An empty message still sends one (empty) DATA packet.
      bool data_left = st->next < st->total || !st->started;
      if (c.busy || !data_left) continue;
      if (Err e = send_next(st, c)) {
        set_error(s, e);
        st->broken = true;
        break;
      }
      more = true;
    }
  }
  st->pumping = false;
  bool done = (st->next == st->total && st->prefetched == nullptr) || st->broken;
  if (done && st->in_flight == 0) {
    end_stream(s);
    complete(s);
  }
}

// The transport is done with a chunk: its buffer takes the next one.
void chunk_sent(SendItem* item) {
  PackStream::Chunk* c = chunk_of(item);
  PackStream* st = c->stream;
  c->busy = false;
  --st->in_flight;
  pump(st);
}

}  // namespace

Err pack_eager(Request* s) {
  auto* st = new PackStream;
  st->request = s;
  s->stream = st;
  if (on_device(s))
    FERRY_DEBUG(kCuda, "GPU message of %zu bytes to rank %d copied to host memory and sent eagerly", s->bytes,
                s->world_peer);
  if (s->bytes > 0) {
    st->bounce = static_cast<char*>(std::malloc(s->bytes));
    // A failed GPU copy fails the send, but the packet still goes, so that
    // the receiver is not left waiting for it.
    if (Err e = pack_part(s, 0, s->bytes, st->bounce)) set_error(s, e);
  }
  s->packet.payload = st->bounce;
  s->packet.on_sent = eager_sent;
  return {};
}

void send_chunks(Request* s, int world_peer, uint64_t bytes, uint64_t receiver_cookie) {
  auto* st = new PackStream;
  st->request = s;
  st->world_peer = world_peer;
  st->receiver_cookie = receiver_cookie;
  st->total = bytes;
  st->pinned = on_device(s);
  if (st->pinned)
    FERRY_DEBUG(kCuda, "GPU message of %llu bytes to rank %d staged through pinned host memory in %llu-byte chunks",
                static_cast<unsigned long long>(bytes), world_peer, static_cast<unsigned long long>(kChunkBytes));
  // Host data in one run goes straight from the user's buffer.
  if (!on_device(s)) st->source = type::dense_run(*s->datatype, s->buffer, static_cast<uint64_t>(s->count));
  else if (s->datatype->contiguous) st->device_run = static_cast<const char*>(s->buffer);
  for (PackStream::Chunk& c : st->chunks) c.stream = st;
  s->stream = st;
  pump(st);
}

Destination eager_destination(Request* r, uint64_t payload_bytes) {
  uint64_t n = std::min<uint64_t>(payload_bytes, r->bytes);
  return Destination{n > 0 ? std::malloc(n) : nullptr, n, r};
}

void unpack_eager(Request* r, const Destination& d) {
  if (Err e = unpack_part(r, 0, d.capacity, d.data)) set_error(r, e);
  std::free(d.data);
}

void expect_chunks(Request* r, uint64_t bytes) {
  if (bytes == 0) return;
  auto* st = new PackStream;
  st->request = r;
  st->pinned = on_device(r);
  if (st->pinned && r->datatype->contiguous && r->device.memory == device::Memory::kDevice && bytes > kChunkBytes) {
    // Over a transport that stages GPU data (TCP; shm without IPC), each
    // chunk's copy up to the GPU runs while the next comes off the wire,
    // instead of the wire waiting for the copy (cuStreamSynchronize).
    st->landing_in_turn = true;
    for (PackStream::Chunk& c : st->chunks) {
      c.stream = st;
      c.buffer = take_chunk(st);
    }
    r->stream = st;
    return;
  }
  if (bytes >= kChunkBytes || st->pinned) {
    st->bounce = take_chunk(st);
    st->bounce_cached = true;
  } else {
    st->bounce = static_cast<char*>(std::malloc(bytes));
  }
  r->stream = st;
}

Destination chunk_destination(Request* r, const PacketHeader& h) {
  PackStream* st = r->stream;
  if (st == nullptr) return Destination{nullptr, 0, r};
  uint64_t n = std::min<uint64_t>(h.payload_bytes, kChunkBytes);
  if (!st->landing_in_turn) return Destination{st->bounce, n, r};
  // The copy out of this buffer started two chunks ago: usually long done.
  PackStream::Chunk& c = st->chunks[st->landing];
  copy_done(st, c, true);
  return Destination{c.buffer, n, r};
}

void unpack_chunk(Request* r, const PacketHeader& h, const Destination& d) {
  PackStream* st = r->stream;
  if (st == nullptr || !st->landing_in_turn) {
    if (Err e = unpack_part(r, h.offset, d.capacity, d.data)) set_error(r, e);
    return;
  }
  int landed = d.data == st->chunks[0].buffer ? 0 : 1;
  PackStream::Chunk& c = st->chunks[landed];
  st->landing = 1 - landed;
  if (d.capacity == 0) return;
  // Not waited for here: the next chunk's destination waits for it if it
  // still runs, end_stream (the last chunk's arrival) for all of them.
  if (auto error = device::staging::copy_start(r->device, static_cast<char*>(r->buffer) + h.offset, d.data,
                                               d.capacity, &c.copy)) {
    if (r->error == MPI_SUCCESS) set_error(r, gpu_failure(*error));
    return;
  }
  c.copying = true;
}

void end_stream(Request* r) {
  PackStream* st = r->stream;
  if (st == nullptr) return;
  r->stream = nullptr;
  if (st->pinned) {
    // A copy still under way (a send the transport broke off) ends before
    // its buffer goes back to the pool.
    for (PackStream::Chunk& c : st->chunks) copy_done(st, c, true);
    for (PackStream::Chunk& c : st->chunks) device::staging::give(c.buffer, kChunkBytes);
    if (st->bounce_cached) device::staging::give(st->bounce, kChunkBytes);
    else std::free(st->bounce);
    delete st;
    return;
  }
  for (PackStream::Chunk& c : st->chunks) give_chunk(c.buffer);
  if (st->bounce_cached) give_chunk(st->bounce);
  else std::free(st->bounce);
  delete st;
}

void drop_spare_chunks() {
  for (char* c : spare_chunks) std::free(c);
  spare_chunks.clear();
}

}  // namespace ferry::p2p
