#include "transport/verbs/verbs_transport.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstring>

#include "common/debug.h"
#include "transport/verbs/memlock.h"
#include "transport/verbs/memory_hooks.h"

namespace ferry::transport::verbs {
namespace {

constexpr int kPollBatch = 32;
// Send-queue requests carry this bit, the peer (bits 32-61) and a sequence
// number; receives carry their buffer's slot.
constexpr uint64_t kSendWrIdBit = 1ull << 63;

const char* cause_of(Status s) {
  switch (s) {
    case Status::kRnrRetryExceeded:
      return "it had no receive buffer posted (RNR retries exhausted)";
    case Status::kRemoteAccess:
      return "it refused the access (remote access error: the registration was withdrawn or the key is wrong)";
    case Status::kRetryExceeded:
      return "it does not answer (transport retries exhausted: the process died or the link is down)";
    case Status::kLocalProtection:
      return "our own registration did not cover the buffer (local protection error)";
    default:
      return "the request failed on the queue pair (work completion error)";
  }
}

}  // namespace

VerbsTransport::VerbsTransport(VerbsOptions options, std::unique_ptr<Device> device, PacketHandler* handler)
    : options_(std::move(options)), device_(std::move(device)), handler_(handler) {
  peers_.resize(static_cast<size_t>(options_.world_size));
  for (int i = 0; i < options_.world_size; ++i) {
    Peer& p = peers_[static_cast<size_t>(i)];
    p.reachable = true;  // this rank too: a loopback QP, when verbs is all there is
    p.credits = Credits(options_.credits);
  }
  buffer_bytes_ = sizeof(Frame) + sizeof(PacketHeader) + options_.eager_limit;
}

VerbsTransport::~VerbsTransport() {
  memory_hooks::detach(cache_.get());
  for (Peer& p : peers_)
    if (p.qp >= 0) device_->destroy_qp(p.qp);
  for (auto& [rkey, exposure] : exposed_)
    for (int i = 0; i < exposure.second; ++i) cache_->release(exposure.first);
  cache_.reset();
  for (auto& [memory, region] : blocks_) device_->deregister_memory(region);
}

bool VerbsTransport::start(std::string* error) {
  // Pinned from the start: the send buffers and the first peer's receive
  // buffers (each connection adds credits + 1 more).
  size_t pinned = static_cast<size_t>(options_.send_slots + options_.credits + 1) * buffer_bytes_;
  if (!check_memlock(pinned, error)) return false;
  if (!select_address(*device_, options_.port, options_.gid_index, &local_, error)) return false;
  Resources sizes;
  // The CQ holds every completion that can be outstanding at once, so it
  // never overruns (an overrun is fatal on hardware): every posted receive,
  // and every send-queue request of every peer (reads are each signaled).
  int peers = std::min(options_.world_size, kMaxPeersSized);
  sizes.srq_entries = (options_.credits + 1) * peers;
  sizes.cq_entries = sizes.srq_entries + peers * static_cast<int>(kMaxPostedPerPeer) + 64;
  if (!device_->setup(options_.port, sizes, error)) return false;
  local_.card.datagram_qpn = device_->datagram_qpn();
  // The cache keeps registrations after use only where the memory hooks
  // (memory_hooks.h) will tell it when memory goes away.
  bool hooked = memory_hooks::active();
  cache_ = std::make_unique<RegistrationCache>(device_.get(), hooked ? options_.reg_cache_bytes : 0);
  if (hooked) memory_hooks::attach(cache_.get());
  auto block = std::make_unique<uint8_t[]>(static_cast<size_t>(options_.send_slots) * buffer_bytes_);
  Region region;
  if (!device_->register_memory(block.get(), static_cast<size_t>(options_.send_slots) * buffer_bytes_, &region, error))
    return false;
  send_buffers_ = block.get();
  blocks_.emplace_back(std::move(block), region);
  send_lkey_ = region.lkey;
  for (int i = options_.send_slots - 1; i >= 0; --i) free_send_slots_.push_back(i);
  FERRY_DEBUG(kVerbs, "verbs: %s port %d, %s, lid %u, gid[%d] %s (%s), mtu %u, inline %d bytes, registration cache %s",
              device_->name().c_str(), options_.port,
              local_.info.link == LinkLayer::kEthernet ? "RoCE" : "InfiniBand", local_.card.lid, local_.gid_index,
              gid_text(local_.card.gid).c_str(), gid_kind_name(local_.gid_kind), local_.card.mtu_bytes,
              device_->max_inline(), cache_->caching() ? "on" : "off (memory hooks not in effect: memory_hooks.h)");
  return true;
}

std::optional<Reach> VerbsTransport::reach(int peer) const {
  if (peer < 0 || static_cast<size_t>(peer) >= peers_.size() || !peers_[static_cast<size_t>(peer)].reachable)
    return std::nullopt;
  // Contiguous messages beyond the eager limit are read in place; eager ones
  // are not offered (registering a small buffer costs more than its copy).
  return Reach{options_.eager_limit, options_.eager_limit + 1};
}

int VerbsTransport::connected_peers() const {
  int n = 0;
  for (const Peer& p : peers_) n += p.state == Peer::State::kConnected ? 1 : 0;
  return n;
}

bool VerbsTransport::has_pending_sends() const {
  // Finalize waits for this: requests posted but not yet known complete
  // count too, and the next progress() asks for a completion of each.
  if (outstanding_ > 0) draining_ = true;
  return queued_items_ > 0 || outstanding_ > 0;
}

bool VerbsTransport::post(int peer, Peer& p, SendRequest request, const Posted& posted) {
  Posted entry = posted;
  entry.seq = p.next_seq++;
  entry.signaled = request.signaled;
  request.wr_id = kSendWrIdBit | (static_cast<uint64_t>(peer) << 32) | (entry.seq & 0xffffffffu);
  std::string error;
  if (!device_->post_send(p.qp, request, &error)) {
    fail_peer(peer, p, "verbs: posting to rank " + std::to_string(peer) + " failed: " + error);
    return false;
  }
  p.posted.push_back(entry);
  ++outstanding_;
  if (request.signaled) {
    p.unsignaled = 0;
    ++signaled_;
  } else {
    ++p.unsignaled;
  }
  return true;
}

// Every request up to `seq` (RC completes them in order) is done.
void VerbsTransport::retire(int peer, Peer& p, uint64_t seq, const char* error) {
  (void)peer;
  while (!p.posted.empty()) {
    Posted e = p.posted.front();
    p.posted.pop_front();
    --outstanding_;
    // An atomic's old value came into its send buffer (one_sided.cc).
    if (e.one_sided != nullptr && error == nullptr && atomic_op(*e.one_sided))
      std::memcpy(e.one_sided->local.data, send_buffers_ + static_cast<size_t>(e.send_slot) * buffer_bytes_, 8);
    if (e.send_slot >= 0) free_send_slots_.push_back(e.send_slot);
    if (e.local != nullptr) cache_->release(e.local);
    if (e.one_sided != nullptr && e.one_sided->on_done != nullptr) e.one_sided->on_done(e.one_sided, error);
    if ((e.seq & 0xffffffffu) == seq) break;
  }
}

void VerbsTransport::fail_peer(int peer, Peer& p, const std::string& message, bool fatal) {
  if (p.state == Peer::State::kFailed) return;
  if (p.state == Peer::State::kRequested) --connecting_;
  p.state = Peer::State::kFailed;
  for (SendItem* item = p.head; item != nullptr; item = item->next) --queued_items_;
  p.head = p.tail = nullptr;
  // One-sided requests not yet posted fail too: their owners wait for them.
  std::deque<OneSided*> waiting;
  waiting.swap(p.one_sided);
  for (OneSided* op : waiting)
    if (op->on_done != nullptr) op->on_done(op, "the verbs connection to this rank failed");
  FERRY_DEBUG(kVerbs, "%s", message.c_str());
  (void)peer;
  if (fatal && options_.fatal) options_.fatal(message);
}

void VerbsTransport::on_completion(const Completion& c) {
  if ((c.wr_id & kSendWrIdBit) == 0) {
    on_receive(c);
    return;
  }
  int peer = static_cast<int>((c.wr_id >> 32) & 0x3fffffff);
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (c.status == Status::kSuccess) {
    p.flush_posted = false;  // whatever completed retired the unsignaled requests before it
    retire(peer, p, c.wr_id & 0xffffffffu, nullptr);
    if (!p.one_sided.empty() || p.head != nullptr) push(peer, p);
    return;
  }
  // The QP is in the error state: this request failed, and every later one
  // comes back flushed. The first error names the cause.
  const OneSided* op = nullptr;
  for (const Posted& e : p.posted)
    if ((e.seq & 0xffffffffu) == (c.wr_id & 0xffffffffu)) op = e.one_sided;
  const char* what = "send to";
  bool caller_reports = op != nullptr && op->caller_reports;  // retire may free the request
  if (op != nullptr) {
    auto code = static_cast<Opcode>(op->transport_op);
    what = code == Opcode::kRead ? "RDMA read from" : code == Opcode::kWrite ? "RDMA write to" : "RDMA atomic at";
  }
  std::string message = "verbs: " + std::string(what) + " rank " + std::to_string(peer) + " failed: " +
                        cause_of(c.status);
  if (c.status == Status::kFlushed)
    message = "verbs: the queue pair to rank " + std::to_string(peer) + " is in the error state (requests flushed)";
  retire(peer, p, c.wr_id & 0xffffffffu, cause_of(c.status));
  // A one-sided request's owner raises its failure as an MPI error; the
  // job goes on (the pair's later traffic fails: its QP is in error).
  // Unless messages to the rank are queued or in flight: they would be
  // lost without a word and their receiver wait for ever, so the job ends.
  bool messages_pending = p.head != nullptr;
  for (const Posted& e : p.posted) messages_pending = messages_pending || e.one_sided == nullptr;
  fail_peer(peer, p, message, !caller_reports || messages_pending);  // once: later flushed completions find it failed
}

int VerbsTransport::progress() {
  int events = 0;
  Completion batch[kPollBatch];
  if (!stash_.empty()) {
    std::vector<Completion> stashed;
    stashed.swap(stash_);
    for (const Completion& c : stashed) on_completion(c);
    events += static_cast<int>(stashed.size());
  }
  for (int n; (n = device_->poll(batch, kPollBatch)) > 0;) {
    for (int i = 0; i < n; ++i) on_completion(batch[i]);
    events += n;
    if (n < kPollBatch) break;
  }
  for (std::string& d : datagram_stash_) on_datagram(d.data(), d.size());
  events += static_cast<int>(datagram_stash_.size());
  datagram_stash_.clear();
  char datagram[kMaxDatagram];
  for (size_t n; (n = device_->take_datagram(datagram, sizeof datagram)) > 0; ++events) on_datagram(datagram, n);
  if (connecting_ > 0) check_connect_timeouts();
  if (draining_) {
    // Unsignaled requests complete only with a later signaled one.
    draining_ = false;
    for (size_t i = 0; i < peers_.size(); ++i)
      if (peers_[i].unsignaled > 0 && peers_[i].head == nullptr) flush_unsignaled(static_cast<int>(i), peers_[i]);
  }
  return events;
}

// The engine is about to sleep on the completion channel: ask for an event
// at the next completion, then look once more for one that came before.
bool VerbsTransport::arm_wakeup() {
  if (!stash_.empty() || !datagram_stash_.empty()) return false;
  device_->arm();
  Completion batch[kPollBatch];
  int n = device_->poll(batch, kPollBatch);
  stash_.assign(batch, batch + n);
  char datagram[kMaxDatagram];
  for (size_t got; (got = device_->take_datagram(datagram, sizeof datagram)) > 0;)
    datagram_stash_.emplace_back(datagram, got);
  return stash_.empty() && datagram_stash_.empty();
}

void VerbsTransport::disarm_wakeup(bool slept) {
  (void)slept;
  device_->acknowledge_events();
}

}  // namespace ferry::transport::verbs
