// The shared-memory transport: packets between ranks on the same host.
//
// Every rank owns one segment holding one ring per local sender (so N-1
// rings, memory linear in the local peers only); a sender writes into its
// ring in the receiver's segment and the receiver copies out, straight into
// the packet's destination. That is two copies and no system call per
// message. A packet larger than the free space goes in pieces as the
// receiver drains it, so one ring carries messages of any size, in send
// order (FIFO per peer, as the engine requires).
//
// There is no file descriptor to sleep on: the progress engine keeps polling
// (core/progress.cc), which costs a compare of two counters per peer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "p2p/shm/ring.h"
#include "p2p/shm/segment.h"
#include "p2p/transport.h"

namespace ferry::p2p::shm {

constexpr size_t kDefaultRingBytes = 256 * 1024;

class ShmTransport final : public Transport {
 public:
  // `local_peers`: the world ranks on this host, including `my_rank`, in the
  // same order on every one of them.
  ShmTransport(int my_rank, int world_size, std::vector<int> local_peers, PacketHandler* handler,
               size_t ring_bytes = kDefaultRingBytes);
  ~ShmTransport() override;

  // Bytes of this rank's segment.
  size_t segment_bytes() const;
  // Creates this rank's segment under `name` (before the peers attach).
  bool create(const std::string& name, std::string* error);
  // Maps the segment of local peer `peer` (world rank), published as `name`.
  bool attach(int peer, const std::string& name, std::string* error);
  // Removes our segment's name, once every local peer has attached.
  void unlink();
  // True if `peer` is a local peer this transport reaches.
  bool reaches(int peer) const;

  const char* name() const override { return "shm"; }
  const char* send(int peer, SendItem* item) override;
  int progress() override;
  int wait_fd() const override { return -1; }
  bool needs_polling() const override { return true; }
  bool has_pending_sends() const override { return queued_items_ > 0; }

 private:
  struct Outgoing;
  struct Incoming;

  // The ring of sender `from` inside the segment of receiver `to` (local indices).
  size_t slot(int from, int to) const { return static_cast<size_t>(from < to ? from : from - 1); }
  // Writes as much of the queue as the ring takes; returns packets finished.
  int flush(Outgoing& out);
  // Delivers what the ring holds; returns packets received.
  int drain(Incoming& in);

  int my_rank_;
  int my_local_ = -1;
  std::vector<int> local_peers_;
  std::vector<int> local_index_;  // by world rank, -1 if not on this host
  PacketHandler* handler_;
  size_t ring_bytes_;
  Segment own_;
  std::vector<Segment> peer_segments_;  // by local index
  std::vector<Outgoing> outgoing_;      // by local index
  std::vector<Incoming> incoming_;      // by local index
  uint64_t queued_items_ = 0;
};

}  // namespace ferry::p2p::shm
