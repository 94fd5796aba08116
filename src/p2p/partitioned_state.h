// The state of one partitioned request (p2p/partitioned.h), shared by the
// files that implement it: partitioned.cc (life cycle, handshake, rounds)
// and partitioned_wire.cc (the wire format: tags, blocks, placement).
// Every field is guarded by the engine lock.
#pragma once

#include <cstdint>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/request.h"

namespace ferry::p2p {

// What MPI_Psend_init sends to its receiver (tag: the user's).
struct PartitionedInit {
  uint64_t partitions;
  uint64_t bytes;  // the whole message
  uint32_t sender_id;
  uint32_t reserved;
};

// What the receiver sends at each round's start: ready to receive.
struct PartitionedCts {
  uint32_t receiver_id;
  int32_t truncated;  // the sender's message is larger than the receive buffer
};

struct Partitioned {
  Request* owner = nullptr;  // the user's request; nullptr once freed
  bool sender = false;
  Communicator* comm = nullptr;
  int peer = MPI_PROC_NULL;  // communicator rank
  int tag = 0;
  char* buffer = nullptr;
  const Datatype* type = nullptr;  // the owner holds the reference
  int partitions = 0;
  MPI_Count count = 0;          // elements per partition
  uint64_t partition_bytes = 0;  // this side's
  uint32_t id = UINT32_MAX;      // this side's id, in the other side's tags

  // The handshake: the INIT sent (sender) or being received (receiver).
  PartitionedInit init{};
  Request* init_request = nullptr;
  bool matched = false;  // receiver: the INIT has been read

  // The sender's partitioning, as wire blocks (both sides compute it alike).
  uint64_t send_partitions = 0;
  uint64_t send_partition_bytes = 0;
  uint64_t send_bytes = 0;
  uint64_t per_block = 1;  // sender partitions per block
  uint64_t blocks = 0;

  // The round.
  PartitionedCts cts{};
  Request* cts_request = nullptr;  // sender: its receive; receiver: its send
  bool cts_seen = false;           // sender: the CTS has been read
  bool posted = false;             // receiver: the round's receives are posted
  bool truncated = false;
  std::vector<Request*> block_requests;  // this round's, per block; nullptr once done
  std::vector<uint8_t> block_done;       // per block: sent (sender) or landed in the buffer (receiver)
  uint64_t done_blocks = 0;
  uint64_t scan_from = 0;  // blocks before it are done
  // Sender: partitions readied in this round, and per block how many are missing.
  std::vector<uint8_t> ready;
  std::vector<uint32_t> missing;
  // Receiver: bytes that cannot land in place (see wire::receive_block).
  std::vector<char> staging;
};

}  // namespace ferry::p2p
