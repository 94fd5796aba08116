#include "transport/self/self_transport.h"

#include <algorithm>
#include <cstring>

#include "transport/traffic.h"

namespace ferry::transport {

std::unique_ptr<Transport> SelfTransport::open(const JobLayout& job, PacketHandler* handler, std::string* error) {
  (void)error;
  return std::make_unique<SelfTransport>(job.rank, handler);
}

const char* SelfTransport::send(int peer, SendItem* item) {
  traffic::sent(traffic::kSelf, item->header);
  item->next = nullptr;
  if (tail_) tail_->next = item;
  else head_ = item;
  tail_ = item;
  return nullptr;
}

int SelfTransport::progress() {
  // Deliver only what is queued now: packets queued while delivering (a
  // rendezvous reply, say) wait for the next pass.
  SendItem* item = head_;
  SendItem* last = tail_;
  if (item == nullptr) return 0;
  head_ = tail_ = nullptr;
  int events = 0;
  for (;;) {
    SendItem* next = item->next;
    traffic::received(traffic::kSelf, item->header);
    Destination d = handler_->on_header(my_rank_, item->header);
    size_t n = std::min<size_t>(d.capacity, item->header.payload_bytes);
    if (n > 0) std::memcpy(d.data, item->payload, n);
    handler_->on_payload(my_rank_, item->header, d);
    if (item->on_sent) item->on_sent(item);
    ++events;
    if (item == last) break;
    item = next;
  }
  return events;
}

}  // namespace ferry::transport
