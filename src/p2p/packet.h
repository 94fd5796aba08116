// What travels between two ranks: a fixed header, then `payload_bytes` of data.
//
// The same packets run over every transport; a transport only moves them.
#pragma once

#include <cstdint>

namespace ferry::p2p {

enum class PacketType : uint8_t {
  kEager = 1,            // a whole message: header, then its data
  kRendezvousRequest,    // "I have message_bytes for you" (no data); sender waits for kRendezvousReady
  kRendezvousReady,      // receiver matched it: "send me message_bytes now, tagged with my cookie"
  kRendezvousData,       // the data of a rendezvous message, for the receiver's cookie
};

struct PacketHeader {
  PacketType type;
  uint8_t reserved[3];
  int32_t source;             // sender's rank in the communicator
  int32_t tag;
  uint32_t context;           // communicator context: traffic on different ones never matches
  uint64_t payload_bytes;     // bytes that follow this header on the wire
  uint64_t message_bytes;     // size of the whole message (rendezvous request and ready)
  uint64_t sender_cookie;     // identifies the send request at the sender
  uint64_t receiver_cookie;   // identifies the receive request at the receiver
};
static_assert(sizeof(PacketHeader) == 48, "the header is part of the wire format");

}  // namespace ferry::p2p
