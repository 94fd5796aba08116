// Messages a rank sends to itself: delivered from a queue by progress(), so
// that a send never re-enters the matching code from inside a receive; one
// progress() delivers them and every reply they cause.
// The payload is copied once, from the send buffer into its destination.
#pragma once

#include <memory>

#include "transport/providers.h"

namespace ferry::transport {

class SelfTransport final : public Transport {
 public:
  SelfTransport(int my_rank, PacketHandler* handler) : my_rank_(my_rank), handler_(handler) {}
  static std::unique_ptr<Transport> open(const JobLayout& job, PacketHandler* handler, std::string* error);

  const char* name() const override { return "self"; }
  bool publish(Exchange&, std::string*) override { return true; }
  bool connect(Exchange&, std::string*) override { return true; }
  // The self path has no network to protect; its eager limit only bounds
  // how much an early self-send buffers.
  std::optional<Reach> reach(int peer) const override {
    if (peer != my_rank_) return std::nullopt;
    return Reach{64 * 1024, SIZE_MAX, SIZE_MAX, SIZE_MAX, /*sends_now=*/true};
  }
  const char* send(int peer, SendItem* item) override;
  // A blocking send's small message (Transport::send_now) is delivered at
  // once when nothing is queued ahead of it: an eager packet causes no reply,
  // and a blocking send is never called from inside the matching code.
  bool send_now(int peer, const PacketHeader& header, const void* payload) override;
  // Delivers everything queued, and what that queues in turn.
  int progress() override;
  int wait_fd() const override { return -1; }
  bool has_pending_sends() const override { return head_ != nullptr; }

 private:
  int deliver_queued();
  // Hands one packet to the handler (send_now's and the queue's way alike).
  void deliver(const PacketHeader& header, const void* payload);

  int my_rank_;
  PacketHandler* handler_;
  SendItem* head_ = nullptr;
  SendItem* tail_ = nullptr;
};

}  // namespace ferry::transport
