// The wire format of partitioned communication (p2p/partitioned.h): the
// tags of its messages on the communicator's partitioned context, how a
// sender's partitions are cut into wire blocks, and where a block lands in
// the receive buffer. Engine lock held throughout.
#pragma once

#include <cstdint>

#include "base/error.h"
#include "p2p/partitioned_state.h"

namespace ferry::p2p::partitioned_wire {

// Tags. INIT messages carry the user's tag (>= 0); the others are negative,
// so the two never meet. Ids are below kMaxIds; blocks below kMaxBlocks.
//   data: 1 0 [receiver id: 14 bits] [block: 16 bits]
//   CTS:  1 1 0000000000000000 [sender id: 14 bits]
constexpr uint32_t kMaxIds = 1u << 14;
constexpr uint64_t kMaxBlocks = 1u << 16;
inline int data_tag(uint32_t receiver_id, uint64_t block) {
  return static_cast<int>(0x80000000u | (receiver_id << 16) | static_cast<uint32_t>(block));
}
inline int cts_tag(uint32_t sender_id) { return static_cast<int>(0xc0000000u | sender_id); }

// A process's ids of one side (senders, or receivers): unique among its
// live partitioned requests of that side.
bool take_id(bool sender, uint32_t* id);
void give_back_id(bool sender, uint32_t id);

// Fills the block geometry from the sender's partitioning.
void cut_blocks(Partitioned* p, uint64_t send_partitions, uint64_t send_partition_bytes);
// Sender partitions [first, first + n) of block k.
inline uint64_t first_partition(const Partitioned* p, uint64_t k) { return k * p->per_block; }
inline uint64_t partitions_in(const Partitioned* p, uint64_t k) {
  uint64_t first = first_partition(p, k);
  return p->send_partitions - first < p->per_block ? p->send_partitions - first : p->per_block;
}
// Bytes [*from, *to) of the message that block k carries.
void block_bytes(const Partitioned* p, uint64_t k, uint64_t* from, uint64_t* to);

// A send or receive on the partitioned context, started now (a pooled
// request that never reaches the user). An engine error completes it with
// that error.
Request* start_send(Partitioned* p, const void* buffer, MPI_Count count, const Datatype* t, int tag);
Request* start_recv(Partitioned* p, void* buffer, MPI_Count count, const Datatype* t, int tag);

// Sender: sends block k of the round (its partitions are all ready).
void send_block(Partitioned* p, uint64_t k);
// Receiver: posts the receive of block k: straight into the buffer where
// the block's bytes are whole elements of the receive type (or the type is
// dense), else into `staging`, unpacked when it lands.
void receive_block(Partitioned* p, uint64_t k);
// Receiver: if block k's receive has completed, unpacks it if staged, notes
// its error on the owner, and marks it done. Returns whether it is done.
bool land(Partitioned* p, uint64_t k);

}  // namespace ferry::p2p::partitioned_wire
