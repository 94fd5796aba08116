#include "p2p/partitioned.h"

#include <memory>

#include "common/debug.h"
#include "p2p/partitioned_state.h"
#include "p2p/partitioned_wire.h"
#include "progress/progress.h"
#include "progress/tasks.h"

namespace ferry::partitioned {
namespace {

using p2p::Partitioned;
namespace wire = p2p::partitioned_wire;

const Datatype* bytes_type() { return find_datatype(MPI_BYTE); }

// ---- Tearing down ----------------------------------------------------------

bool idle(const Request* r) { return r == nullptr || r->complete; }

bool all_idle(const Partitioned* p) {
  if (!idle(p->init_request) || !idle(p->cts_request)) return false;
  for (const Request* r : p->block_requests)
    if (!idle(r)) return false;
  return true;
}

void destroy_now(Partitioned* p) {
  auto drop = [](Request*& r) {
    if (r != nullptr) requests::release(r);
    r = nullptr;
  };
  drop(p->init_request);
  drop(p->cts_request);
  for (Request*& r : p->block_requests) drop(r);
  if (p->id != UINT32_MAX) wire::give_back_id(p->sender, p->id);
  delete p;
}

// A freed request's messages still under way (an INIT whose receive was
// freed unmatched, a last CTS): the state lives until they are done, so no
// later request can match them.
class Reaper : public progress::Task {
 public:
  explicit Reaper(Partitioned* p) : p_(p) {}
  bool advance() override {
    if (!all_idle(p_)) return false;
    destroy_now(p_);
    return true;
  }

 private:
  Partitioned* p_;
};

void destroy(Partitioned* p) {
  p->owner = nullptr;
  if (all_idle(p)) destroy_now(p);
  else progress::start(std::make_unique<Reaper>(p));
}

// ---- The handshake and the round, each side --------------------------------

// Receiver: reads the INIT once it has arrived. Returns whether matched.
bool absorb_init(Partitioned* p) {
  if (p->matched) return true;
  if (!idle(p->init_request)) return false;
  Request* r = p->init_request;
  if (r->error != MPI_SUCCESS && p->owner != nullptr)
    set_error(p->owner, Err(error_code::class_of(r->error), error_code::text(r->error)));
  requests::release(r);
  p->init_request = nullptr;
  p->matched = true;
  wire::cut_blocks(p, p->init.partitions, p->init.partitions == 0 ? 0 : p->init.bytes / p->init.partitions);
  p->truncated = p->send_bytes > static_cast<uint64_t>(p->partitions) * p->partition_bytes;
  FERRY_DEBUG(kP2p, "partitioned: receive from %d tag %d matched: %llu partitions sent as %llu blocks, %d received",
              p->peer, p->tag, static_cast<unsigned long long>(p->send_partitions),
              static_cast<unsigned long long>(p->blocks), p->partitions);
  return true;
}

// Receiver: the round's receives, then the CTS that lets the sender send.
void post_round(Partitioned* p) {
  p->posted = true;
  p->done_blocks = 0;
  p->scan_from = 0;
  if (p->truncated && p->owner != nullptr)
    set_error(p->owner, fail(MPI_ERR_TRUNCATE, "%llu bytes sent by rank %d (tag %d) do not fit the %llu of the receive buffer",
                             static_cast<unsigned long long>(p->send_bytes), p->peer, p->tag,
                             static_cast<unsigned long long>(p->partitions) * p->partition_bytes));
  if (!p->truncated) {
    p->block_done.assign(p->blocks, 0);
    for (uint64_t k = 0; k < p->blocks; ++k) wire::receive_block(p, k);
  }
  p->cts = p2p::PartitionedCts{p->id, p->truncated ? 1 : 0};
  p->cts_request = wire::start_send(p, &p->cts, static_cast<int>(sizeof p->cts), bytes_type(), wire::cts_tag(p->init.sender_id));
}

// Sender: reads the round's CTS once it has arrived, and sends the blocks
// that were readied before it came.
void absorb_cts(Partitioned* p) {
  if (p->cts_seen || !idle(p->cts_request)) return;
  Request* r = p->cts_request;
  if (r->error != MPI_SUCCESS)
    set_error(p->owner, Err(error_code::class_of(r->error), error_code::text(r->error)));
  requests::release(r);
  p->cts_request = nullptr;
  p->cts_seen = true;
  if (p->cts.truncated) {
    p->truncated = true;
    set_error(p->owner, fail(MPI_ERR_TRUNCATE, "the partitioned receive at rank %d (tag %d) is smaller than the %llu bytes sent",
                             p->peer, p->tag, static_cast<unsigned long long>(p->send_bytes)));
    return;
  }
  for (uint64_t k = 0; k < p->blocks; ++k)
    if (p->missing[k] == 0) wire::send_block(p, k);
}

// Whether every block of the round is done (sent and complete, or landed).
bool blocks_done(Partitioned* p) {
  for (; p->scan_from < p->blocks; ++p->scan_from) {
    uint64_t k = p->scan_from;
    if (p->sender) {
      Request* r = p->block_requests[k];
      if (r == nullptr || !r->complete) return false;
      if (r->error != MPI_SUCCESS)
        set_error(p->owner, Err(error_code::class_of(r->error), error_code::text(r->error)));
      requests::release(r);
      p->block_requests[k] = nullptr;
    } else if (!wire::land(p, k)) {
      return false;
    }
  }
  return true;
}

// Completes the owner's round. A request freed while active goes now.
void finish_round(Partitioned* p) {
  Request* owner = p->owner;
  if (!p->sender) {
    owner->status.MPI_SOURCE = p->peer;
    owner->status.MPI_TAG = p->tag;
    set_status_bytes(owner->status, p->truncated ? 0 : p->send_bytes);
  }
  if (owner->user_freed) {
    owner->partitioned = nullptr;
    destroy(p);
  }
  complete(owner);
}

bool round_finished(Partitioned* p) {
  if (p->sender) {
    absorb_cts(p);
    return p->cts_seen && (p->truncated || blocks_done(p));
  }
  if (!p->posted) {
    if (!absorb_init(p)) return false;
    post_round(p);
  }
  if (!p->truncated && !blocks_done(p)) return false;
  // The CTS has reached the sender (its data is here); its send may still
  // report completion a pass later.
  if (!idle(p->cts_request)) return false;
  requests::release(p->cts_request);
  p->cts_request = nullptr;
  return true;
}

// Moves a round forward from every progress pass until it completes.
class Round : public progress::Task {
 public:
  explicit Round(Partitioned* p) : p_(p) {}
  bool advance() override {
    if (!round_finished(p_)) return false;
    finish_round(p_);
    return true;
  }

 private:
  Partitioned* p_;
};

Err make(bool sender, void* buffer, int partitions, MPI_Count count, const Datatype* t, int peer, int tag,
         Communicator* c, Request** out) {
  auto p = std::make_unique<Partitioned>();
  if (peer != MPI_PROC_NULL && !wire::take_id(sender, &p->id))
    return fail(MPI_ERR_OTHER, "more than %u partitioned %s requests at once", wire::kMaxIds,
                sender ? "send" : "receive");
  p->sender = sender;
  p->comm = c;
  p->peer = peer;
  p->tag = tag;
  p->buffer = static_cast<char*>(buffer);
  p->type = t;
  p->partitions = partitions;
  p->count = count;
  p->partition_bytes = t->size * static_cast<uint64_t>(count);

  Request* r = requests::acquire();
  r->kind = sender ? Request::Kind::kSend : Request::Kind::kRecv;
  r->comm = c;
  r->buffer = buffer;
  r->datatype = t;
  datatypes::retain(t);  // dropped when the request goes back to the pool
  r->bytes = static_cast<size_t>(partitions) * p->partition_bytes;
  r->peer = peer;
  r->tag = tag;
  r->context = c->partitioned_context();
  r->persistent = true;
  p->owner = r;
  if (peer != MPI_PROC_NULL) {
    // Matching happens in the order of the init calls (MPI-4.0 §4.2.2),
    // and both calls are local: the INIT goes out now and its receive is
    // posted now; the engine's in-order matching pairs them.
    if (sender) {
      p->init = p2p::PartitionedInit{static_cast<uint64_t>(partitions), r->bytes, p->id, 0};
      wire::cut_blocks(p.get(), static_cast<uint64_t>(partitions), p->partition_bytes);
      p->init_request = wire::start_send(p.get(), &p->init, static_cast<int>(sizeof p->init), bytes_type(), tag);
    } else {
      p->init_request = wire::start_recv(p.get(), &p->init, static_cast<int>(sizeof p->init), bytes_type(), tag);
    }
  }
  r->partitioned = p.release();
  *out = r;
  return {};
}

Partitioned* state_of(Request* r) { return r->partitioned; }

// The first partition of [low, high] that is bad, as an error.
Err check_partition(const Partitioned* p, int partition, const char* argument) {
  if (partition < 0 || partition >= p->partitions)
    return fail(MPI_ERR_ARG, "%s %d is out of range (the request has %d partitions)", argument, partition,
                p->partitions);
  return {};
}

Err check_active_send(const Request* r) {
  if (!r->active) return fail(MPI_ERR_REQUEST, "the partitioned send request is not active (MPI_Start it first)");
  return {};
}

// Marks one partition ready; sends its block if that completes it and the
// receiver is ready (engine lock held).
Err ready_one(Partitioned* p, int partition, const char* argument) {
  if (p->ready[static_cast<size_t>(partition)])
    return fail(MPI_ERR_ARG, "%s %d is already ready in this round", argument, partition);
  p->ready[static_cast<size_t>(partition)] = 1;
  if (p->peer == MPI_PROC_NULL) return {};
  uint64_t k = static_cast<uint64_t>(partition) / p->per_block;
  if (--p->missing[k] == 0 && p->cts_seen && !p->truncated) wire::send_block(p, k);
  return {};
}

// After MPI_Pready: a CTS already here releases blocks readied before it.
// Then one progress pass: it may bring the CTS (the task then sends those
// blocks), and it moves blocks under way, whose data may need this side's
// help (a rendezvous through the shared-memory ring goes as the sender
// polls): without it a large partition readied early would travel only at
// MPI_Wait, however early it was readied.
void push(Partitioned* p) {
  if (p->peer == MPI_PROC_NULL) return;
  absorb_cts(p);
  progress::poll();
}

}  // namespace

Err send_init(const void* buffer, int partitions, MPI_Count count, const Datatype* t, int dest, int tag,
              Communicator* c, Request** out) {
  progress::Lock lock;
  return make(true, const_cast<void*>(buffer), partitions, count, t, dest, tag, c, out);
}

Err recv_init(void* buffer, int partitions, MPI_Count count, const Datatype* t, int source, int tag,
              Communicator* c, Request** out) {
  progress::Lock lock;
  return make(false, buffer, partitions, count, t, source, tag, c, out);
}

Err start(Request* r) {
  progress::Lock lock;
  Partitioned* p = state_of(r);
  r->active = true;
  r->complete = false;
  r->cancelled = false;
  r->error = MPI_SUCCESS;
  r->status = MPI_Status{};
  if (p->sender) {
    p->ready.assign(static_cast<size_t>(p->partitions), 0);
    p->missing.assign(p->blocks, 0);
    for (uint64_t k = 0; k < p->blocks; ++k) p->missing[k] = static_cast<uint32_t>(wire::partitions_in(p, k));
    p->scan_from = 0;
    p->cts_seen = false;
    p->truncated = false;
  } else {
    p->posted = false;
  }
  if (p->peer == MPI_PROC_NULL) {
    r->status = proc_null_status();
    complete(r);
    return {};
  }
  if (p->sender) {
    p->cts_request = wire::start_recv(p, &p->cts, static_cast<int>(sizeof p->cts), bytes_type(), wire::cts_tag(p->id));
  } else if (absorb_init(p)) {
    post_round(p);
  }
  progress::start(std::make_unique<Round>(p));
  return {};
}

namespace {

// MPI_Pready and MPI_Pready_range; the names are the call's arguments.
Err ready_partitions(Request* r, int low, int high, const char* low_name, const char* high_name) {
  progress::Lock lock;
  Partitioned* p = state_of(r);
  if (Err e = check_partition(p, low, low_name)) return e;
  if (Err e = check_partition(p, high, high_name)) return e;
  if (low > high) return fail(MPI_ERR_ARG, "%s %d is above %s %d", low_name, low, high_name, high);
  if (Err e = check_active_send(r)) return e;
  for (int i = low; i <= high; ++i)
    if (Err e = ready_one(p, i, low == high ? low_name : "partition in the range")) return e;
  push(p);
  return {};
}

}  // namespace

Err ready(Request* r, int partition) { return ready_partitions(r, partition, partition, "partition", "partition"); }

Err ready_range(Request* r, int low, int high) {
  return ready_partitions(r, low, high, "partition_low", "partition_high");
}

Err ready_list(Request* r, int length, const int partitions[]) {
  progress::Lock lock;
  Partitioned* p = state_of(r);
  if (length < 0) return fail(MPI_ERR_ARG, "length %d is negative", length);
  for (int i = 0; i < length; ++i)
    if (partitions[i] < 0 || partitions[i] >= p->partitions)
      return fail(MPI_ERR_ARG, "array_of_partitions[%d] = %d is out of range (the request has %d partitions)", i,
                  partitions[i], p->partitions);
  if (Err e = check_active_send(r)) return e;
  for (int i = 0; i < length; ++i)
    if (Err e = ready_one(p, partitions[i], "array_of_partitions entry")) return e;
  push(p);
  return {};
}

Err arrived(Request* r, int partition, int* flag) {
  progress::Lock lock;
  Partitioned* p = state_of(r);
  if (Err e = check_partition(p, partition, "partition")) return e;
  if (!r->active) return fail(MPI_ERR_REQUEST, "the partitioned receive request is not active (MPI_Start it first)");
  *flag = 0;
  if (r->complete || p->peer == MPI_PROC_NULL) {
    *flag = 1;
    return {};
  }
  // The receive partition's bytes, and the blocks that carry them.
  auto check = [&]() -> bool {
    if (!p->posted) {
      if (!absorb_init(p)) return false;
      post_round(p);
    }
    if (p->truncated) return true;
    uint64_t from = static_cast<uint64_t>(partition) * p->partition_bytes;
    uint64_t to = from + p->partition_bytes;
    if (to > p->send_bytes) to = p->send_bytes;
    uint64_t block_bytes = p->per_block * p->send_partition_bytes;
    if (block_bytes == 0) {
      // No data at all: the (empty) blocks themselves are what arrives.
      for (uint64_t k = 0; k < p->blocks; ++k)
        if (!wire::land(p, k)) return false;
      return true;
    }
    if (to <= from) return true;  // beyond the end of a shorter message
    for (uint64_t k = from / block_bytes; k <= (to - 1) / block_bytes; ++k)
      if (!wire::land(p, k)) return false;
    return true;
  };
  if (!check()) {
    progress::poll();
    if (!r->active || r->complete) {
      *flag = 1;
      return {};
    }
    if (!check()) return {};
  }
  *flag = 1;
  return {};
}

void free_request(Request* r) {
  progress::Lock lock;
  Partitioned* p = state_of(r);
  if (r->active && !r->complete) {
    r->user_freed = true;  // finish_round frees it
    return;
  }
  r->partitioned = nullptr;
  destroy(p);
  requests::release(r);
}

int cancel(Request*) { return MPI_SUCCESS; }

}  // namespace ferry::partitioned
