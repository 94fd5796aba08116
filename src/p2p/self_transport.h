// Messages a rank sends to itself: delivered from a queue by progress(), so
// that a send never re-enters the matching code from inside a receive.
// The payload is copied once, from the send buffer into its destination.
#pragma once

#include "p2p/transport.h"

namespace ferry::p2p {

class SelfTransport final : public Transport {
 public:
  SelfTransport(int my_rank, PacketHandler* handler) : my_rank_(my_rank), handler_(handler) {}
  const char* name() const override { return "self"; }
  const char* send(int peer, SendItem* item) override;
  int progress() override;
  int wait_fd() const override { return -1; }
  bool has_pending_sends() const override { return head_ != nullptr; }

 private:
  int my_rank_;
  PacketHandler* handler_;
  SendItem* head_ = nullptr;
  SendItem* tail_ = nullptr;
};

}  // namespace ferry::p2p
