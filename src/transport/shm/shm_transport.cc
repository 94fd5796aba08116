#include "transport/shm/shm_transport.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>

#include "common/config.h"
#include "common/debug.h"
#include "common/shm_names.h"
#include "progress/progress.h"
#include "transport/shm/cma.h"
#include "transport/shm/fence.h"
#include "transport/traffic.h"

namespace ferry::transport::shm {
namespace {

constexpr size_t kHeaderBytes = sizeof(PacketHeader);
// Large payloads are published in pieces of this size, so the receiver
// starts copying out while the sender still copies in.
constexpr size_t kPieceBytes = 32 * 1024;
// A ring is backed in /dev/shm this much at a time, as its sender first
// reaches that far: a ring that carries small messages takes a few pages,
// not 256 KiB, so a job whose every pair talks (an alltoall at 1,024 ranks
// on a host: 1,023 rings per rank) fits in /dev/shm.
constexpr size_t kBackStep = 16 * 1024;
// The first step: with the control block, a page, enough for a few dozen
// small packets (a pair that meets once in a collective: 1,023 of them per
// rank in an exchange among all pairs of 1,024 ranks).
constexpr size_t kFirstBacked = 4096 - sizeof(RingControl);

// Why a peer may need waking after our last pass (ShmTransport::to_check_).
constexpr uint8_t kWrote = 1;  // we published bytes into its ring
constexpr uint8_t kFreed = 2;  // we freed space in the ring it writes to us

// The start of every rank's segment; the rings follow.
struct SegmentHeader {
  WakeWord wake;
  // Written once by the owner before any peer attaches.
  alignas(kCacheLine) int32_t owner_pid;
  uint64_t owner_address;  // where the owner maps this segment: a word any peer may probe with CMA
  // How many senders have set their live word (below): the owner scans the
  // words only when this moved, so a poll costs one load plus the rings in
  // use, not a load per rank of the host.
  alignas(kCacheLine) std::atomic<uint32_t> live_count;
};
// After the header, one word per local rank: set by that rank once it has
// backed its ring in this segment. The receiver polls only the rings whose
// word it has seen set, so a segment backs one line per sender, not the
// page that each ring's first line would take (at 1,024 ranks on a host, 4
// MiB per rank of /dev/shm).
constexpr size_t kLiveAt = (sizeof(SegmentHeader) + kCacheLine - 1) / kCacheLine * kCacheLine;

SegmentHeader* header_of(const Segment& s) { return reinterpret_cast<SegmentHeader*>(s.data()); }
std::atomic<uint32_t>* live_of(const Segment& s) { return reinterpret_cast<std::atomic<uint32_t>*>(s.data() + kLiveAt); }
static_assert(std::atomic<uint32_t>::is_always_lock_free, "the live words are shared between processes");

// The doorbell pipe sits beside the segment: /dev/shm/<segment name>.wake
// (shm_open's names live in /dev/shm on Linux).
std::string doorbell_path(const std::string& segment_name) { return shm_names::doorbell_path(segment_name); }

}  // namespace

struct ShmTransport::Outgoing {
  Ring ring;
  bool backed = false;     // the ring's control block and first step are allocated (back_ring)
  size_t data_backed = 0;  // bytes of the ring's data allocated, from its start (cover)
  SendItem* head = nullptr;
  SendItem* tail = nullptr;
  bool flushing = false;  // a packet's on_sent may queue the next one
};

struct ShmTransport::Incoming {
  Ring ring;  // made once live: its memory is backed only then
  bool live = false;
  int peer = -1;
  bool in_payload = false;
  PacketHeader header{};
  Destination destination{};
  uint64_t payload_done = 0;
};

struct ShmTransport::Peer {
  bool attached = false;  // first contact made: segment mapped, bell open
  Segment segment;
  Bell bell;
  pid_t pid = 0;
  Cma cma = kCmaOff;
};

CmaOptions ShmTransport::cma_options_from_settings() {
  CmaOptions o;
  std::string mode = config::value("FERRY_SHM_CMA");
  if (mode == "on") o.mode = CmaOptions::kOn;
  else if (mode == "off") o.mode = CmaOptions::kOff;
  else if (mode != "auto") o.error = "FERRY_SHM_CMA=" + mode + ": expected auto, on or off";
  o.threshold = static_cast<size_t>(std::max<int64_t>(1, config::integer("FERRY_SHM_CMA_THRESHOLD")));
  o.threshold_given = config::is_set("FERRY_SHM_CMA_THRESHOLD");
  return o;
}

ShmTransport::ShmTransport(int my_rank, int world_size, std::vector<int> local_peers, PacketHandler* handler,
                           size_t ring_bytes, CmaOptions cma)
    : my_rank_(my_rank),
      local_peers_(std::move(local_peers)),
      local_index_(static_cast<size_t>(world_size), -1),
      handler_(handler),
      ring_bytes_(ring_bytes),
      cma_(cma) {
  // Ring slots are numbered by local index: every rank must see one order.
  std::sort(local_peers_.begin(), local_peers_.end());
  for (size_t i = 0; i < local_peers_.size(); ++i) {
    local_index_[static_cast<size_t>(local_peers_[i])] = static_cast<int>(i);
    if (local_peers_[i] == my_rank_) my_local_ = static_cast<int>(i);
  }
  peers_.resize(local_peers_.size());
  outgoing_.resize(local_peers_.size());
  incoming_.resize(local_peers_.size());
  to_check_.resize(local_peers_.size());
  check_list_.reserve(local_peers_.size());
  rings_at_ = (kLiveAt + local_peers_.size() * sizeof(uint32_t) + kCacheLine - 1) / kCacheLine * kCacheLine;
}

ShmTransport::~ShmTransport() = default;

size_t ShmTransport::segment_bytes() const {
  return rings_at_ + (local_peers_.size() - 1) * ring_footprint(ring_bytes_);
}

size_t ShmTransport::ring_offset(int from, int to) const {
  return rings_at_ + slot(from, to) * ring_footprint(ring_bytes_);
}

bool ShmTransport::reaches(int peer) const {
  return peer != my_rank_ && peer >= 0 && static_cast<size_t>(peer) < local_index_.size() &&
         local_index_[static_cast<size_t>(peer)] >= 0;
}

bool ShmTransport::create(const std::string& name, std::string* error) {
  if (!cma_.error.empty()) {
    *error = cma_.error;
    return false;
  }
  // Backed now: the header and the live words, which this rank polls. A
  // sender backs its ring before its first packet (send), so pairs that
  // never talk cost no memory.
  if (!own_.create(name, segment_bytes(), error) || !own_.back(0, rings_at_, error)) return false;
  own_.done_backing();
  SegmentHeader* header = header_of(own_);
  header->owner_pid = static_cast<int32_t>(getpid());
  header->owner_address = reinterpret_cast<uintptr_t>(own_.data());
  if (!doorbell_.create(doorbell_path(name), &header->wake, error)) return false;
  for (size_t i = 0; i < local_peers_.size(); ++i) incoming_[i].peer = local_peers_[i];
  return true;
}

void ShmTransport::find_new_senders() {
  uint32_t count = header_of(own_)->live_count.load(std::memory_order_acquire);
  if (count == live_seen_) return;
  live_seen_ = count;
  std::atomic<uint32_t>* live = live_of(own_);
  for (size_t li = 0; li < local_peers_.size(); ++li) {
    Incoming& in = incoming_[li];
    // Acquire: the sender backed the ring before it set the word.
    if (in.live || static_cast<int>(li) == my_local_ || live[li].load(std::memory_order_acquire) == 0) continue;
    in.ring = Ring(own_.data() + ring_offset(static_cast<int>(li), my_local_), ring_bytes_);
    in.live = true;
    senders_.push_back(li);
  }
}

bool ShmTransport::attach(int peer, const std::string& name, std::string* error) {
  size_t li = static_cast<size_t>(local_index_[static_cast<size_t>(peer)]);
  Peer& p = peers_[li];
  if (p.attached) return true;
  if (!p.segment.attach(name, segment_bytes(), error)) return false;
  bool keep = bells_kept_ < kKeptBells;
  if (!p.bell.open(doorbell_path(name), &header_of(p.segment)->wake, keep, error)) return false;
  bells_kept_ += keep ? 1 : 0;
  p.pid = header_of(p.segment)->owner_pid;
  all_asymmetric_ = all_asymmetric_ && p.bell.asymmetric();
  p.attached = true;
  ++peers_mapped_;
  probe_cma(li);
  return true;
}

bool ShmTransport::contact(size_t li, std::string* error) {
  if (peers_[li].attached) return true;
  int peer = local_peers_[li];
  if (nspace_.empty()) {
    *error = "rank " + std::to_string(peer) + ": not attached (no job name to compute its segment's from)";
    return false;
  }
  if (!attach(peer, shm_names::segment(nspace_, peer), error)) {
    *error = "rank " + std::to_string(peer) + ": " + *error;
    return false;
  }
  FERRY_DEBUG(kP2p, "shm: first contact with rank %d (%zu of %zu local peers mapped)", peer, peers_mapped_,
              local_peers_.size() - 1);
  return true;
}

void ShmTransport::contact_or_fail(size_t li) {
  // Every wake() of a shared-memory collective comes here: no string made
  // once the peer is attached (they cost a small collective about 50
  // instructions, issue 29).
  if (peers_[li].attached) [[likely]] return;
  std::string error;
  if (contact(li, &error)) return;
  error = "shared memory: " + error;
  if (fatal_) fatal_(error);
  std::fprintf(stderr, "ferry: %s\n", error.c_str());
  std::abort();
}

void ShmTransport::probe_cma(size_t li) {
  Peer& p = peers_[li];
  int peer = local_peers_[li];
  bool say = debug::on(debug::kP2p) || debug::on(debug::kTcp);
  if (cma_.mode == CmaOptions::kOff) {
    p.cma = kCmaOff;
    if (say) debug::print("peer %d via shm: large messages pipelined through the ring (FERRY_SHM_CMA=off)", peer);
    return;
  }
  const SegmentHeader* header = header_of(p.segment);
  uint64_t word = 0;
  if (int e = cma::read(p.pid, header->owner_address, &word, sizeof word); e != 0) {
    p.cma = kCmaRefused;
    if (say)
      debug::print("peer %d via shm: CMA refused (%s), large messages pipelined through the ring", peer,
                   e == EPERM ? "EPERM" : std::strerror(e));
    return;
  }
  p.cma = kCmaWorks;
  if (cma_.mode == CmaOptions::kAuto && cma_wins_ == 0) p.cma = kCmaSlower;
  if (!say) return;
  if (p.cma == kCmaWorks)
    debug::print("peer %d via shm: large messages single-copy (process_vm_readv) from %zu bytes", peer,
                 cma_.threshold);
  else
    debug::print("peer %d via shm: CMA slower than the ring here, large messages pipelined through the ring", peer);
}

void ShmTransport::calibrate_cma(size_t li) {
  if (cma_.mode != CmaOptions::kAuto || cma_wins_ >= 0) return;
  Peer& p = peers_[li];
  // Pinning pages costs the same for every peer: measure once, on the peer
  // of the first large message, over the start of its rings (4 KiB pages
  // of shared memory). Not at first contact: a job that sends no large
  // message (or a rank that meets many peers) backs nothing for it.
  std::string error;
  size_t n = std::min<size_t>(128 * 1024, segment_bytes() - rings_at_);
  if (!p.segment.back(rings_at_, n, &error)) {
    FERRY_DEBUG(kP2p, "shm: CMA calibration skipped: %s", error.c_str());
    return;
  }
  cma::Rates r = cma::calibrate(p.pid, header_of(p.segment)->owner_address + rings_at_, p.segment.data() + rings_at_, n);
  // The ring copies every byte twice (in, then out), CMA once, and the
  // ring's copy out reads lines the other core has just written, so its
  // copies run well below this hot memcpy: on the Xeon VM of
  // docs/performance.md (2026-11-29 evening) a 1 MiB ping-pong through the
  // ring moved 6.7 GB/s against memcpy's 49 here, CMA 15 (process_vm_readv
  // 24 here). So CMA wins from a quarter of memcpy's speed; at half (the
  // rule before) the two ranks of that VM decided differently by 2% of
  // noise and large messages went through the ring at 2.5x the time. The
  // EPYC VM's 12 against 80 GB/s still keeps the ring.
  const bool wins = r.cma * 4 >= r.memcpy;
  FERRY_DEBUG(kP2p, "shm: process_vm_readv %.1f GB/s, memcpy %.1f GB/s on 4 KiB pages: %s", r.cma / 1e9,
              r.memcpy / 1e9, wins ? "CMA wins" : "the ring wins (FERRY_SHM_CMA=on forces CMA)");
  // Below the eager limit, from the size where the read's fixed cost is
  // paid back (cma.h single_copy_from), for one-way messages and exchanges
  // alike. The engine's routes keep the threshold they were made with: a
  // smaller message is still offered, and refused here by one compare.
  // (Not over rings too small to hold the sizes tried: the unit tests' 4 KiB.)
  if (!cma_.threshold_given && r.cma > 0 && n >= kEagerLimit) {
    size_t from = cma::single_copy_from(p.pid, header_of(p.segment)->owner_address + rings_at_,
                                        p.segment.data() + rings_at_, cma_.threshold, kEagerLimit);
    FERRY_DEBUG(kP2p, "shm: single copy below the eager limit from %zu bytes (calibrated)", from);
    cma_.threshold = std::max(cma_.threshold, from);
  }
  record_cma_verdict(wins);
}

void ShmTransport::record_cma_verdict(bool cma_wins) {
  cma_wins_ = cma_wins ? 1 : 0;
  if (!cma_wins)
    for (Peer& q : peers_)
      if (q.cma == kCmaWorks) q.cma = kCmaSlower;
}

void ShmTransport::unlink() {
  own_.unlink();
  doorbell_.unlink();
}

std::optional<Reach> ShmTransport::reach(int peer) const {
  if (!reaches(peer)) return std::nullopt;
  // Single copy from the threshold on where cross-memory attach is allowed
  // and wins. That is learnt at first contact and at the first large
  // message (probe_cma, calibrate_cma): before, it is offered unless off,
  // and expose() checks it for every message.
  const Peer& p = peers_[static_cast<size_t>(local_index_[static_cast<size_t>(peer)])];
  bool single_copy = p.attached ? p.cma == kCmaWorks : cma_.mode != CmaOptions::kOff;
  // An exchange is offered where the peer's calibration found CMA slower
  // too (offer()), so only a refusal or FERRY_SHM_CMA=off rules it out.
  bool exchange_copy = p.attached ? p.cma == kCmaWorks || p.cma == kCmaSlower : cma_.mode != CmaOptions::kOff;
  return Reach{kEagerLimit, single_copy ? cma_.threshold : SIZE_MAX, cuda_ipc_.threshold(),
               exchange_copy ? cma_.threshold : SIZE_MAX, /*sends_now=*/true, /*polls_peer=*/true};
}

bool ShmTransport::expose(int peer, const MemoryRef& local, size_t n, RemoteBuffer* remote) {
  return offer(peer, local, n, remote, false);
}
bool ShmTransport::expose_exchanged(int peer, const MemoryRef& local, size_t n, RemoteBuffer* remote) {
  return offer(peer, local, n, remote, true);
}

bool ShmTransport::offer(int peer, const MemoryRef& local, size_t n, RemoteBuffer* remote, bool exchanged) {
  if (reaches(peer) && local.kind == MemoryKind::kDevice) return n >= cuda_ipc_.threshold() && cuda_ipc_.expose(local, remote);
  if (!reaches(peer) || local.kind != MemoryKind::kHost || n < cma_.threshold || cma_.mode == CmaOptions::kOff)
    return false;
  size_t li = static_cast<size_t>(local_index_[static_cast<size_t>(peer)]);
  contact_or_fail(li);
  calibrate_cma(li);
  if (n < cma_.threshold) return false;  // raised by the calibration just made
  // The calibration weighs one copy by the kernel against the ring's two on
  // two cores (one each side). In an exchange each core also copies its own
  // incoming half, so the ring costs every core two copies where CMA costs
  // one: there a slower CMA still wins, up to kExchangeCmaMax
  // (docs/performance.md, "MPI_Sendrecv as an exchange").
  Cma cma = peers_[li].cma;
  if (cma != kCmaWorks && !(exchanged && cma == kCmaSlower && n <= kExchangeCmaMax)) return false;
  remote->address = reinterpret_cast<uintptr_t>(local.data);
  remote->kind = MemoryKind::kHost;
  remote->key_bytes = 0;
  return true;
}

Started ShmTransport::start_read(OneSided* op) {
  if (op->remote.kind == MemoryKind::kDevice) return reaches(op->peer) ? cuda_ipc_.read(op) : Started::kUnsupported;
  return copy_with_cma(op, cma::read);
}
Started ShmTransport::start_write(OneSided* op) { return copy_with_cma(op, cma::write); }

Started ShmTransport::copy_with_cma(OneSided* op, int (*copy)(pid_t, uint64_t, void*, size_t)) {
  if (!reaches(op->peer) || op->local.kind != MemoryKind::kHost || op->remote.kind != MemoryKind::kHost)
    return Started::kUnsupported;
  size_t li = static_cast<size_t>(local_index_[static_cast<size_t>(op->peer)]);
  contact_or_fail(li);
  Peer& p = peers_[li];
  // kCmaSlower too, up to the exchange's limit: the sender may have offered
  // its buffer for an exchange (expose_exchanged), where one copy beats the
  // ring's two. Beyond it the ring, as this side's calibration chose (the
  // packet does not say whether the offer was an exchange's).
  if (p.cma != kCmaWorks && !(p.cma == kCmaSlower && op->bytes <= kExchangeCmaMax)) return Started::kUnsupported;
  if (op->bytes == 0) return Started::kDone;
  int e = copy(p.pid, op->remote.address, op->local.data, op->bytes);
  if (e == 0) return Started::kDone;
  // Allowed at the probe, refused now (a seccomp filter installed since, a
  // kernel that limits it): keep the ring from now on.
  p.cma = kCmaRefused;
  FERRY_DEBUG(kP2p, "peer %d via shm: cross-memory attach failed (%s), large messages pipelined through the ring",
              op->peer, std::strerror(e));
  return Started::kUnsupported;
}

bool ShmTransport::back_ring(size_t li, std::string* error) {
  Outgoing& out = outgoing_[li];
  if (out.backed) return true;
  if (!contact(li, error)) return false;
  Segment& segment = peers_[li].segment;
  size_t at = ring_offset(my_local_, static_cast<int>(li));
  out.data_backed = std::min(kFirstBacked, ring_bytes_);
  if (!segment.back(at, sizeof(RingControl) + out.data_backed, error)) return false;
  segment.done_backing();
  out.ring = Ring(segment.data() + at, ring_bytes_);
  // Release: the receiver makes its view of the ring (reading its control
  // block) only after it sees the word.
  live_of(segment)[static_cast<size_t>(my_local_)].store(1, std::memory_order_release);
  header_of(segment)->live_count.fetch_add(1, std::memory_order_release);
  out.backed = true;
  receivers_.push_back(li);
  return true;
}

void ShmTransport::cover(size_t li, size_t n) {
  Outgoing& out = outgoing_[li];
  if (out.data_backed == ring_bytes_) return;
  // The frame (stamp, n bytes, to the end of its line) and the line after
  // it, where the receiver polls for the next stamp. Positions past the
  // first lap wrap onto memory already backed.
  uint64_t need = out.ring.written() + (sizeof(uint64_t) + n + kCacheLine - 1) / kCacheLine * kCacheLine + kCacheLine;
  if (need <= out.data_backed) return;
  size_t want = std::min<uint64_t>(ring_bytes_, (need + kBackStep - 1) / kBackStep * kBackStep);
  std::string error;
  size_t at = ring_offset(my_local_, static_cast<int>(li)) + sizeof(RingControl);
  if (!peers_[li].segment.back(at + out.data_backed, want - out.data_backed, &error)) {
    error = "shared memory: rank " + std::to_string(local_peers_[li]) + ": " + error;
    if (fatal_) fatal_(error);
    std::fprintf(stderr, "ferry: %s\n", error.c_str());
    std::abort();
  }
  out.data_backed = want;
}

bool ShmTransport::write_now(size_t li, const PacketHeader& header, const void* payload) {
  Outgoing& out = outgoing_[li];
  // Behind anything queued to this peer (FIFO per peer: MPI's non-overtaking
  // rule), and only as one frame: otherwise the queue's way (flush).
  uint64_t total = kHeaderBytes + header.payload_bytes;
  if (out.head != nullptr || out.flushing || total > kPieceBytes) return false;
  cover(li, total);
  if (!out.ring.write_all(&header, kHeaderBytes, payload, total - kHeaderBytes)) return false;
  note_wrote(li);
  return true;
}

const char* ShmTransport::send(int peer, SendItem* item) {
  size_t li = static_cast<size_t>(local_index_[static_cast<size_t>(peer)]);
  Outgoing& out = outgoing_[li];
  if (!out.backed && !back_ring(li, &send_error_)) return send_error_.c_str();
  traffic::sent(traffic::kShm, item->header);
  if (write_now(li, item->header, item->payload)) {
    // Sent without touching the queue. An on_sent that sends to this peer
    // again queues behind the flag and is flushed here: a loop, never
    // recursion (docs/architecture.md, "One MPI_Send, down and back").
    item->sent = kHeaderBytes + item->header.payload_bytes;
    out.flushing = true;
    if (item->on_sent) item->on_sent(item);
    out.flushing = false;
    if (out.head != nullptr) flush(li);
    ring_sleepers();
    return nullptr;
  }
  item->sent = 0;
  item->next = nullptr;
  if (out.tail) out.tail->next = item;
  else out.head = item;
  out.tail = item;
  ++queued_items_;
  // Straight into the ring when nothing is ahead of it; a flush already
  // running (we are inside an on_sent) picks the item up itself.
  if (!out.flushing) {
    flush(li);
    ring_sleepers();
  }
  return nullptr;
}

bool ShmTransport::send_now(int peer, const PacketHeader& header, const void* payload) {
  size_t li = static_cast<size_t>(local_index_[static_cast<size_t>(peer)]);
  if (!outgoing_[li].backed || !write_now(li, header, payload)) return false;
  traffic::sent(traffic::kShm, header);
  ring_sleepers();
  return true;
}

int ShmTransport::flush(size_t li) {
  Outgoing& out = outgoing_[li];
  int finished = 0;
  bool wrote = false;
  out.flushing = true;
  if (out.ring.writer_wants() != 0) out.ring.set_writer_wants(0);
  while (SendItem* item = out.head) {
    // The header goes in whole, so a reader that sees bytes can always use
    // them; with a small payload in the same frame, so that the reader takes
    // both in one cache-line transfer (ring.h).
    uint64_t total = kHeaderBytes + item->header.payload_bytes;
    if (item->sent == 0) {
      cover(li, total <= kPieceBytes ? total : kHeaderBytes);
      if (total <= kPieceBytes && out.ring.write_all(&item->header, kHeaderBytes, item->payload, total - kHeaderBytes)) {
        item->sent = total;
      } else if (out.ring.write_all(&item->header, kHeaderBytes)) {
        item->sent = kHeaderBytes;
      } else {
        break;
      }
      wrote = true;
    }
    while (item->sent < total) {
      uint64_t done = item->sent - kHeaderBytes;
      size_t want = static_cast<size_t>(std::min<uint64_t>(total - item->sent, kPieceBytes));
      cover(li, want);
      size_t n = out.ring.write(static_cast<const char*>(item->payload) + done, want);
      item->sent += n;
      wrote = wrote || n > 0;
      if (n < want) break;
    }
    if (item->sent < total) break;  // ring full
    out.head = item->next;
    if (out.head == nullptr) out.tail = nullptr;
    --queued_items_;
    ++finished;
    if (item->on_sent) item->on_sent(item);
  }
  if (SendItem* item = out.head) {
    // Blocked: ask the reader for a wake-up once half the ring is free (or
    // what the rest of the packet needs), not at every piece it drains, so
    // that an oversubscribed pair switches a few times per ring, not per
    // piece.
    uint64_t rest = kHeaderBytes + item->header.payload_bytes - item->sent;
    out.ring.set_writer_wants(std::max<uint64_t>(std::min<uint64_t>(rest, out.ring.capacity() / 2), 1));
  }
  out.flushing = false;
  if (!wrote) return finished;
  note_wrote(li);
  // Pieces moved count, like the reader's (drain): worth another pass before any sleep.
  return finished > 0 ? finished : 1;
}

int ShmTransport::drain(size_t li) {
  Incoming& in = incoming_[li];
  int received = 0;
  bool freed = false;
  for (;;) {
    size_t avail = in.ring.readable();
    if (!in.in_payload) {
      if (avail < kHeaderBytes) break;
      // A header starts its frame (flush writes it whole, first), so it lies
      // in the frame's first line: copied as a struct, not through memcpy.
      static_assert(sizeof(uint64_t) + kHeaderBytes <= kCacheLine);
      in.header = *static_cast<const PacketHeader*>(in.ring.next_bytes());
      in.ring.read(nullptr, kHeaderBytes);
      freed = true;
      traffic::received(traffic::kShm, in.header);
      in.destination = handler_->on_header(in.peer, in.header);
      in.payload_done = 0;
      if (in.header.payload_bytes == 0) {
        ++received;
        handler_->on_payload(in.peer, in.header, in.destination);
        continue;
      }
      in.in_payload = true;
      continue;
    }
    if (avail == 0) break;
    // Two std::min, not the initializer-list form: that one is a loop over
    // a list built on the stack (about 60 instructions per packet).
    size_t take = static_cast<size_t>(
        std::min<uint64_t>(std::min<uint64_t>(avail, in.header.payload_bytes - in.payload_done), kPieceBytes));
    // Bytes beyond the destination's capacity are consumed and dropped.
    if (in.payload_done >= in.destination.capacity) {
      in.ring.read(nullptr, take);
    } else {
      size_t keep = static_cast<size_t>(std::min<uint64_t>(take, in.destination.capacity - in.payload_done));
      in.ring.read(static_cast<char*>(in.destination.data) + in.payload_done, keep);
      if (take > keep) in.ring.read(nullptr, take - keep);
    }
    freed = true;
    in.payload_done += take;
    ++received;  // a piece moved: worth another pass before any sleep
    if (in.payload_done == in.header.payload_bytes) {
      in.in_payload = false;
      handler_->on_payload(in.peer, in.header, in.destination);
    }
  }
  if (freed) note_freed(li);
  return received;
}

void ShmTransport::note_wrote(size_t li) {
  if (to_check_[li] == 0) check_list_.push_back(li);
  to_check_[li] |= kWrote;
}

void ShmTransport::note_freed(size_t li) {
  if (to_check_[li] == 0) check_list_.push_back(li);
  to_check_[li] |= kFreed;
}

void ShmTransport::ring_sleepers() {
  if (check_list_.empty()) return;
  // One fence for every ring we touched since the last one (wakeup.h); a
  // compiler barrier only, when every peer sleeps with membarrier (fence.h).
  fence::light(all_asymmetric_);
  for (size_t li : check_list_) {
    bool wake = (to_check_[li] & kWrote) != 0;
    if (!wake && (to_check_[li] & kFreed) != 0) {
      // Only a writer that waits for space needs us, and only once there
      // is as much as it asked for.
      uint64_t wants = incoming_[li].ring.writer_wants();
      wake = wants != 0 && incoming_[li].ring.free_space() >= wants;
    }
    if (wake) {
      // A writer waiting on us may be one we never wrote to.
      contact_or_fail(li);
      peers_[li].bell.ring_if_asleep();
    }
    to_check_[li] = 0;
  }
  check_list_.clear();
}

int ShmTransport::progress() {
  int events = 0;
  find_new_senders();
  for (size_t i : senders_) events += drain(i);
  for (size_t i : receivers_) {
    Outgoing& out = outgoing_[i];
    if (out.head != nullptr && !out.flushing) events += flush(i);
  }
  if (cuda_ipc_.busy()) events += cuda_ipc_.progress();  // inline test: no call per poll without GPU copies
  ring_sleepers();
  return events;
}

int ShmTransport::progress_peer(int peer) {
  size_t li = static_cast<size_t>(local_index_[static_cast<size_t>(peer)]);
  // Its ring, once it has one (the live word: one load while it has not).
  if (!incoming_[li].live) [[unlikely]] {
    find_new_senders();
    if (!incoming_[li].live) return 0;
  }
  int events = drain(li);
  // What waits to go to it (a rendezvous answer, pieces of a large
  // message): the peer we wait on may be waiting for that itself.
  Outgoing& out = outgoing_[li];
  if (out.head != nullptr && !out.flushing) events += flush(li);
  ring_sleepers();
  return events;
}

void ShmTransport::bells_of(const int* peers, size_t n, std::vector<Bell*>* bells) {
  // First contact changes the peer table, which a thread driving the engine
  // may be using (a no-op unless threads do).
  progress::Lock lock;
  bells->clear();
  for (size_t i = 0; i < n; ++i) {
    if (!reaches(peers[i])) continue;
    size_t li = static_cast<size_t>(local_index_[static_cast<size_t>(peers[i])]);
    contact_or_fail(li);
    bells->push_back(&peers_[li].bell);  // peers_ is sized once, at construction
  }
}

void ShmTransport::ring(Bell* const* bells, size_t n) {
  progress::Lock lock;
  fence::light(all_asymmetric_);
  for (size_t i = 0; i < n; ++i) bells[i]->ring_if_asleep();
}

bool ShmTransport::arm_wakeup() {
  // A GPU copy under way ends without any peer ringing: keep polling.
  if (cuda_ipc_.busy()) return false;
  doorbell_.arm();
  // Re-check after the fence in arm(): anything a peer published before it
  // saw us asleep is visible now (wakeup.h).
  find_new_senders();
  bool work = false;
  for (size_t i : senders_) work = work || incoming_[i].ring.readable() > 0;
  for (size_t i : receivers_) {
    uint64_t wants = outgoing_[i].ring.writer_wants();
    work = work || (wants != 0 && outgoing_[i].ring.free_space() >= wants);
  }
  if (work) doorbell_.woke(false);
  return !work;
}

}  // namespace ferry::transport::shm
