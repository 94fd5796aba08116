// The shared-memory transport: packets between ranks on the same host.
//
// Every rank owns one segment: a header (its wake word, transport/shm/wakeup.h,
// and its pid for cross-memory attach), a table of one `live` word per local
// sender, and one ring per local sender, each backed with memory only once
// its sender first sends (then it sets its live word; the receiver polls
// only the rings whose word it has seen set), and only as far as the
// sender's frames have reached (a page, then 16 KiB at a time). A sender
// writes into its ring in the receiver's segment and the receiver copies out, straight into
// the packet's destination. That is two copies and no system call per
// message.
//
// Nothing is done per pair at start-up: a rank creates its own segment
// under a name every local peer can compute (common/shm_names.h), and maps
// a peer's segment on first contact (a packet to send, a sleeper to wake, a
// one-sided copy). A job of N ranks on a host that talk along a tree or a
// ring maps O(N log N) segments in all, not N^2, and a rank holds a bounded
// number of descriptors (kKeptBells doorbells open, no segment's). A packet larger than the free space goes in pieces as the
// receiver drains it, so one ring carries messages of any size, in send
// order (FIFO per peer, as the engine requires).
//
// Large contiguous messages may skip the ring: the engine's single-copy
// rendezvous has the receiver read them out of the sender's memory
// (start_read, transport/shm/cma.h), where the kernel allows it and it beats
// the ring's two pipelined copies (FERRY_SHM_CMA). Host memory only: device
// memory is never handed to the kernel's copy.
//
// A rank with nothing to do sleeps in the kernel on its doorbell pipe
// (wait_fd), which peers ring only while it sleeps (wakeup.h).
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "transport/shm/cuda_ipc.h"
#include "transport/shm/ring.h"
#include "transport/shm/segment.h"
#include "transport/shm/wakeup.h"
#include "transport/providers.h"

namespace ferry::transport::shm {

constexpr size_t kDefaultRingBytes = 256 * 1024;
// Same-host messages up to this size go eagerly: one copy into the ring,
// one out, buffered at the receiver if unexpected. Contiguous ones from the
// CMA threshold on go single-copy instead where CMA wins (Reach).
constexpr size_t kEagerLimit = 64 * 1024;
// The largest exchange (MPI_Sendrecv) read with CMA where calibration
// prefers the ring one way (expose_exchanged). Measured on the 2-core VM:
// single copy was as fast as the ring or up to twice as fast from 128 KiB
// to 2 MiB (a shared core slows the ring, not CMA); from 3 MiB on its
// fastest call still took 0.55x the ring's, but half of its calls stalled
// for milliseconds: the waiting side slept after FERRY_SPIN_US (then 50 us)
// and paid the VM's wake-up (docs/performance.md, the sweep of 16:46).
// With 200 us, 4 MiB by CMA took 0.5-0.8x the ring's time in MPI_Sendrecv
// and MPI_Alltoall at 2 ranks (issue 29, 19:00); beyond it not measured.
constexpr size_t kExchangeCmaMax = 4 * 1024 * 1024;
// Doorbells of peers a rank keeps open; the others are opened for each
// ring (only when the peer sleeps, so a system call is being paid anyway).
constexpr int kKeptBells = 32;

// Cross-memory attach (FERRY_SHM_CMA, FERRY_SHM_CMA_THRESHOLD).
struct CmaOptions {
  enum Mode { kAuto, kOn, kOff } mode = kAuto;  // auto: where calibration says it wins (cma.h)
  size_t threshold = 8 * 1024;                  // smallest message read directly
  // Whether FERRY_SHM_CMA_THRESHOLD was given: then taken as is; else auto's
  // calibration may raise it (cma::single_copy_from).
  bool threshold_given = false;
  std::string error;                            // a malformed setting, reported by create()
};

class ShmTransport final : public Transport {
 public:
  // `local_peers`: the world ranks on this host, including `my_rank`, in the
  // same order on every one of them.
  ShmTransport(int my_rank, int world_size, std::vector<int> local_peers, PacketHandler* handler,
               size_t ring_bytes = kDefaultRingBytes, CmaOptions cma = cma_options_from_settings());
  ~ShmTransport() override;

  static CmaOptions cma_options_from_settings();
  // The provider (transport/providers.h): a transport for the ranks on this
  // host, or none when this rank is alone on it (shm_provider.cc).
  static std::unique_ptr<Transport> open(const JobLayout& job, PacketHandler* handler, std::string* error);

  // Bytes of this rank's segment.
  size_t segment_bytes() const;
  // Creates this rank's segment under `name`, and its doorbell beside it
  // (before the peers attach).
  bool create(const std::string& name, std::string* error);
  // Maps the segment of local peer `peer` (world rank), created as `name`
  // (done on first contact by the transport itself; tests call it).
  bool attach(int peer, const std::string& name, std::string* error);
  // Removes our segment's and doorbell's names (when the transport ends:
  // peers may make first contact until the finalize fence).
  void unlink();
  // How many local peers' segments this rank has mapped.
  size_t peers_mapped() const { return peers_mapped_; }
  // True if `peer` is a local peer this transport reaches.
  bool reaches(int peer) const;
  // For others that publish to local peers through shared memory of their
  // own (coll/shm), who wake the same peers at every operation: the bells
  // of `peers` (world ranks, this host; those this transport does not
  // reach are left out), each peer not met yet contacted here, into
  // *bells. The bells live as long as this transport. Takes the engine
  // lock (the caller may not hold it).
  void bells_of(const int* peers, size_t n, std::vector<Bell*>* bells);
  // After storing what they may wait for: rings those of `bells` (from
  // bells_of) whose owner sleeps. One fence for all of them (wakeup.h's
  // handshake; the waiter re-checks after its heavy fence, through a
  // progress source added after this transport's). Takes the engine lock
  // where threads use it (a peer attached meanwhile changes the fence).
  void ring(Bell* const* bells, size_t n);

  const char* name() const override { return "shm"; }
  // Joining the job (shm_provider.cc): publish creates our segment (the
  // fence that follows makes every segment exist before anyone maps one);
  // connect has nothing to do: peers are mapped on first contact.
  bool publish(Exchange& exchange, std::string* error) override;
  bool connect(Exchange& exchange, std::string* error) override;
  std::optional<Reach> reach(int peer) const override;
  const char* send(int peer, SendItem* item) override;
  bool send_now(int peer, const PacketHeader& header, const void* payload) override;
  int progress() override;
  int progress_peer(int peer) override;
  int wait_fd() const override { return doorbell_.fd(); }
  bool arm_wakeup() override;
  void disarm_wakeup(bool slept) override { doorbell_.woke(slept); }
  bool has_pending_sends() const override { return queued_items_ > 0; }
  // Cross-memory attach needs no registration: exposing host memory costs
  // nothing, and the copy is done before start_read returns.
  bool expose(int peer, const MemoryRef& local, size_t n, RemoteBuffer* remote) override;
  bool expose_exchanged(int peer, const MemoryRef& local, size_t n, RemoteBuffer* remote) override;
  Started start_read(OneSided* op) override;
  Started start_write(OneSided* op) override;

 private:
  // The unit test sets calibration's verdict (tests/unit/shm_cma_test.cc).
  friend struct ShmCmaTestAccess;
  CudaIpc cuda_ipc_;  // GPU buffers of local peers, read in place
  struct Outgoing;
  struct Incoming;
  struct Peer;
  // Per peer: whether large messages from it are read with CMA.
  enum Cma : uint8_t { kCmaOff, kCmaWorks, kCmaRefused, kCmaSlower };

  // The ring of sender `from` inside the segment of receiver `to` (local indices).
  size_t slot(int from, int to) const { return static_cast<size_t>(from < to ? from : from - 1); }
  size_t ring_offset(int from, int to) const;
  // Writes a packet of one frame into peer `li`'s ring now, if nothing is
  // queued ahead of it and it fits; false: nothing written.
  bool write_now(size_t li, const PacketHeader& header, const void* payload);
  // Writes as much of the queue as the ring takes; returns packets finished
  // (at least 1 if it wrote any bytes).
  int flush(size_t li);
  // Delivers what the ring holds; returns packets received.
  int drain(size_t li);
  // After writing to or reading from peer `li`'s rings: wake it if it sleeps
  // on what we did. ring_sleepers() fences once for all of them.
  void note_wrote(size_t li);
  void note_freed(size_t li);
  void ring_sleepers();
  // Tries process_vm_readv on the peer's segment header once, at attach,
  // and (FERRY_SHM_CMA=auto, first peer only) times it against the ring.
  void probe_cma(size_t li);
  // A one-sided copy with process_vm_readv or _writev (cma::read, cma::write).
  Started copy_with_cma(OneSided* op, int (*copy)(pid_t, uint64_t, void*, size_t));
  // Allocates our ring's control block and first kBackStep of data in peer
  // `li`'s segment, once, before its first use.
  bool back_ring(size_t li, std::string* error);
  // Before writing a frame of `n` stream bytes to peer `li`: allocates the
  // ring's data that far (and the line after), in kBackStep steps, while
  // the first lap has not covered it all; the job ends if /dev/shm is full.
  void cover(size_t li, size_t n);
  // Maps peer `li`'s segment and opens its doorbell if not done yet (first
  // contact); the segment's name is computed (shm_names).
  bool contact(size_t li, std::string* error);
  // contact(), or the job ends: a peer we cannot reach would hang.
  void contact_or_fail(size_t li);
  // FERRY_SHM_CMA=auto: times CMA against the ring once, on the first large
  // message (cma_wins_).
  void calibrate_cma(size_t li);
  // Calibration's verdict, for this process's peers met so far and later.
  void record_cma_verdict(bool cma_wins);
  // expose and expose_exchanged: `exchanged` also offers a CMA slower than the ring.
  bool offer(int peer, const MemoryRef& local, size_t n, RemoteBuffer* remote, bool exchanged);
  // Adds to senders_ the peers that have set their live word since the last
  // look (one load when none has).
  void find_new_senders();

  int my_rank_;
  int my_local_ = -1;
  size_t rings_at_ = 0;  // where the rings start in a segment (after the live table)
  std::vector<int> local_peers_;
  std::vector<int> local_index_;  // by world rank, -1 if not on this host
  PacketHandler* handler_;
  size_t ring_bytes_;
  CmaOptions cma_;
  int cma_wins_ = -1;  // FERRY_SHM_CMA=auto: calibration's verdict (-1: not measured yet)
  Segment own_;
  Doorbell doorbell_;
  std::vector<Peer> peers_;          // by local index
  std::vector<Outgoing> outgoing_;   // by local index
  std::vector<Incoming> incoming_;   // by local index
  std::vector<uint8_t> to_check_;    // by local index: kWrote | kFreed since the last fence
  std::vector<size_t> check_list_;   // the local indices with to_check_ set
  // What progress() and arm_wakeup() look at: the peers that write to us
  // (their live word seen) and those we write to (ring backed), so that a
  // poll costs what the rank's traffic needs, not a look at every rank of
  // the host.
  std::vector<size_t> senders_;
  std::vector<size_t> receivers_;
  uint32_t live_seen_ = 0;  // the live_count that senders_ reflects
  uint64_t queued_items_ = 0;
  std::string send_error_;  // what send() returned, kept alive for the caller
  bool all_asymmetric_ = true;  // every peer attached so far sleeps with membarrier (fence.h)
  std::string segment_name_;    // made by open()
  std::string nspace_;          // peers' segment names are computed from it (open())
  std::function<void(const std::string&)> fatal_;  // ends the job (open(); abort() without)
  size_t peers_mapped_ = 0;
  int bells_kept_ = 0;  // doorbells kept open, at most kKeptBells
};

}  // namespace ferry::transport::shm
