// Eager flow control over a shared receive queue: credits.
//
// Every connected peer is granted `grant` receive buffers, posted to the
// SRQ when its connection is made, so the SRQ never runs dry however many
// unexpected messages arrive: a sender spends one credit per frame and stops
// at zero (its packets wait in its own queue, bounded by the requests the
// program made, never in receive buffers). The receiver reposts a buffer as
// soon as it has copied the frame out and owes the sender a credit for it;
// owed credits ride back on every frame it sends that way, and once half
// the grant is owed with nothing to carry them, a credit-only frame takes
// them. That frame goes into one extra buffer per peer (the reserve) that
// only credit-only frames use, so returning credits never needs credits;
// the reserve itself comes back on the next ordinary frame, never in a
// credit-only one, so credit-only frames never answer each other. With
// credits, an RNR NAK cannot happen: RNR retries stay at "forever" only as a
// safety net.
#pragma once

#include <cstdint>

namespace ferry::transport::verbs {

class Credits {
 public:
  explicit Credits(int grant = 0) : grant_(grant), available_(grant) {}

  // --- sending ---
  bool can_send() const { return available_ > 0; }
  int available() const { return available_; }
  // Spends a credit on a frame; returns what the frame carries back.
  struct Returned {
    uint16_t credits;
    bool reserve;
  };
  Returned spend() {
    --available_;
    return take_owed();
  }
  // A credit-only frame: spends the peer's reserve and carries the owed
  // credits (never the reserve: see above).
  bool can_send_update() const { return reserve_available_ && owed_ >= (grant_ + 1) / 2; }
  uint16_t spend_update() {
    reserve_available_ = false;
    uint16_t n = static_cast<uint16_t>(owed_);
    owed_ = 0;
    return n;
  }
  // What arrived in a frame from the peer.
  void on_returned(uint16_t credits, bool reserve) {
    available_ += credits;
    reserve_available_ = reserve_available_ || reserve;
  }

  // --- receiving ---
  // A frame of the peer's was consumed and its buffer reposted.
  void on_consumed(bool credit_only) {
    if (credit_only) reserve_owed_ = true;
    else ++owed_;
  }
  int owed() const { return owed_; }

 private:
  Returned take_owed() {
    Returned r{static_cast<uint16_t>(owed_), reserve_owed_};
    owed_ = 0;
    reserve_owed_ = false;
    return r;
  }

  int grant_;
  int available_;
  bool reserve_available_ = true;
  int owed_ = 0;
  bool reserve_owed_ = false;
};

}  // namespace ferry::transport::verbs
