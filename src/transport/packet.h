// What travels between two ranks: a fixed header, then `payload_bytes` of data.
//
// The same packets run over every transport; a transport only moves them.
#pragma once

#include <cstdint>

namespace ferry::transport {

enum class PacketType : uint8_t {
  kEager = 1,            // a whole message: header, then its data
  kRendezvousRequest,    // "I have message_bytes for you" (no data); sender waits for kRendezvousReady
  kRendezvousReady,      // receiver matched it: "send me message_bytes now, tagged with my cookie"
  kRendezvousData,       // (part of) the data of a rendezvous message, at `offset`, for the receiver's cookie
  kRendezvousDone,       // receiver read the data itself (kFlagDirect): the send is complete
  kCancelSend,           // MPI_Cancel of the send `sender_cookie`: drop its message if no receive took it
  kCancelReply,          // the receiver's answer to kCancelSend (kFlagCancelled: it dropped the message)
  kRevoke,               // MPIX_Comm_revoke: the communicator of `context` is revoked (p2p/revoke.h)
};

// kRendezvousReady: the receiver takes the data in DATA packets of at most
// p2p::kChunkBytes (p2p/pack_stream.h), because it unpacks each as it lands.
constexpr uint8_t kFlagChunked = 1;
// kRendezvousRequest: the message is contiguous at `sender_address` in the
// sender's memory, exposed for a one-sided read (Transport::expose); the
// payload, if any, is the registration key (transport/memory.h). A receiver
// whose transport can read it there does, and answers kRendezvousDone
// instead of kRendezvousReady.
constexpr uint8_t kFlagDirect = 2;
// With kFlagDirect: the sender's buffer is device memory.
constexpr uint8_t kFlagDeviceMemory = 4;
// kCancelReply: the message was still unreceived and is gone.
constexpr uint8_t kFlagCancelled = 8;
// kCancelReply with kFlagCancelled: dropped because the communicator was
// revoked (p2p/revoke.h); the send fails with MPIX_ERR_REVOKED.
constexpr uint8_t kFlagRevoked = 16;

struct PacketHeader {
  PacketType type;
  uint8_t flags;              // kFlag*
  uint8_t reserved[2];
  int32_t source;             // sender's rank in the communicator
  int32_t tag;
  uint32_t context;           // communicator context: traffic on different ones never matches
  uint64_t payload_bytes;     // bytes that follow this header on the wire
  union {
    uint64_t message_bytes;   // size of the whole message (eager, rendezvous request; ready: bytes wanted)
    uint64_t offset;          // rendezvous data: where this packet's payload lies in the message
  };
  uint64_t sender_cookie;     // identifies the send request at the sender
  union {
    uint64_t receiver_cookie; // identifies the receive request at the receiver
    uint64_t sender_address;  // rendezvous request with kFlagDirect: where the data lies at the sender
  };
};
static_assert(sizeof(PacketHeader) == 48, "the header is part of the wire format");

}  // namespace ferry::transport
