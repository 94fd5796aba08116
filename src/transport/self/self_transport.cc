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

bool SelfTransport::send_now(int peer, const PacketHeader& header, const void* payload) {
  (void)peer;
  if (head_ != nullptr) return false;  // queued packets go first (FIFO)
  traffic::sent(traffic::kSelf, header);
  deliver(header, payload);
  return true;
}

int SelfTransport::progress() {
  // Deliver until nothing is queued, packets queued while delivering (a
  // rendezvous reply and its data, a cancel's answer) included: the
  // receiver is this process, so whatever a send to itself needs is done
  // within one pass. A program cannot tell "not yet" from "never" otherwise:
  // MPI_Request_get_status right after MPI_Cancel would say "not complete"
  // although the answer needs nobody else (mpi4py then receives a message
  // that was cancelled, and waits for ever), and a send whose matched
  // receive one MPI_Test has completed would still read its buffer later.
  // Every chain of replies ends (ready, data; cancel, answer), so this does.
  int events = 0;
  while (head_ != nullptr) events += deliver_queued();
  return events;
}

// One packet, header and payload, copied once into its destination.
void SelfTransport::deliver(const PacketHeader& header, const void* payload) {
  traffic::received(traffic::kSelf, header);
  Destination d = handler_->on_header(my_rank_, header);
  size_t n = std::min<size_t>(d.capacity, header.payload_bytes);
  if (n > 0) std::memcpy(d.data, payload, n);
  handler_->on_payload(my_rank_, header, d);
}

// One batch: what is queued now, in order. Packets queued meanwhile start
// a new queue (the batch is detached first).
int SelfTransport::deliver_queued() {
  SendItem* item = head_;
  SendItem* last = tail_;
  head_ = tail_ = nullptr;
  int events = 0;
  for (;;) {
    SendItem* next = item->next;
    deliver(item->header, item->payload);
    if (item->on_sent) item->on_sent(item);
    ++events;
    if (item == last) break;
    item = next;
  }
  return events;
}

}  // namespace ferry::transport
