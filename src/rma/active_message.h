// Active messages: RMA to a target that this process cannot reach in memory
// (another host, or FERRY_RMA_SHM=off), over the window's private
// communicator and whichever transport carries it (shm, tcp, verbs).
//
// An origin sends one request message per operation: a header, the runs of
// target memory (addresses in the target's address space, computed by the
// origin from the target's base and displacement unit, which every rank
// learned at creation) and the packed data; data of 64 KiB or more follows
// as a message of its own (rma/data_apart.cc), answers' data likewise. The target's service executes
// it with rma/apply.h, as a same-host origin would, and answers with an
// acknowledgement carrying any data read. Lock and unlock are requests too:
// the service takes the target's lock word for the origin (rma/control.h),
// or keeps the request until the word is free.
//
// What progresses the target: the service is a progress task
// (progress/tasks.h), run by every pass of the progress engine, so it
// answers while the target is inside any MPI call (a wait, a collective, a
// test). A target that computes without calling MPI is rung: an origin
// whose operation stays unanswered while it would sleep waiting rings the
// target's doorbell, and the target's doorbell thread runs the engine
// (rma/doorbell.h; README, "One-sided communication").
//
// A fence (rma/epochs.cc) waits for no acknowledgement: every request
// carries the number of the origin's fence epoch, each target counts the
// requests of the epoch it executed, and the fence's reduce-scatter of the
// origins' counts tells it how many to expect (MPI-4.0 §12.5.1: the fence
// completes the epoch's operations at the target, which its count
// ensures). The origin waits only for the answers that bring data (gets,
// fetching accumulates) or complete a request. So a put or accumulate of a
// fence epoch goes unacknowledged ("silent": the target answers it only
// with an error), but for one in every kSilentOperations (or
// kSilentBytes), whose answer, since one origin's requests are executed in
// order, also answers the silent ones before it: flow control still holds.
// A flush that finds silent operations sends a sync request, answered
// in turn, to learn that they are done.
//
// Requests from one origin are executed in the order they arrive (the
// transports do not reorder one sender's messages, and the service finishes
// each before it looks at the next), which gives the accumulate ordering
// MPI asks for by default (rar, raw, war, waw; §12.7.2).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/datatype.h"
#include "base/error.h"
#include "base/request.h"
#include "rma/apply.h"
#include "rma/doorbell.h"

namespace ferry::rma {

struct Window;

class Service {
 public:
  explicit Service(Window& w);
  ~Service();

  // Where to ring each rank's doorbell (by window rank; before start()).
  void set_bells(std::vector<doorbell::Bell> bells) { bells_ = std::move(bells); }
  // Starts the service task. Engine lock held or not.
  void start();
  // Ends it (MPI_Win_free, after every rank's last operation).
  void stop();

  // ---- Origin side (engine lock taken inside) ----
  // Sends `op` on `runs` to `target`; `data` is the packed input. When the
  // answer arrives its packed data is unpacked into `result` (count
  // elements of type) and `request`, if any, completes. Waits first while
  // too much is unanswered at `target` (flow control, active_message.cc).
  // `fence_epoch`: the origin is in a fence epoch, whose end needs no
  // acknowledgement of an operation that brings nothing back (see above).
  // `packed`: the vector `data` points into, when it is a packed copy
  // (kept while large data is sent apart from the request).
  Err send(int target, const TargetOp& op, const std::vector<Run>& runs, const char* data, uint64_t data_bytes,
           const char* compare, void* result, MPI_Count result_count, const Datatype* result_type,
           uint64_t result_bytes, Request* request, bool fence_epoch = false, std::vector<char> packed = {});
  // Asks `target` for its passive-target lock, or gives it back; flush()
  // waits for the answer (the grant, or the release: executed after every
  // operation this process sent the target before it).
  Err request_lock(int target, bool exclusive);
  Err request_unlock(int target, bool exclusive);
  // Blocks until every operation sent to `target` (or to anyone: -1) is
  // acknowledged.
  Err flush(int target);

  // ---- Fence (engine lock taken inside) ----
  // The requests this process sent each target (by window rank) in the
  // current fence epoch.
  std::vector<uint64_t> sent_this_epoch();
  // Ends the fence epoch: waits until this process executed `expected`
  // requests of the epoch (from all origins) and every answer that its own
  // operations wait for has come, then starts the next epoch. Returns the
  // first error a target reported since the last synchronization, if any.
  Err end_fence_epoch(uint64_t expected);

  // One pass of the progress engine (engine lock taken inside): for calls
  // that complete without waiting, so that this process still serves
  // others' requests while it calls nothing that waits.
  void poke();

  // ---- Both sides: one pass (engine lock held) ----
  bool advance();

  // Origin side, engine lock held: rings the doorbell of each target with
  // operations unanswered, unless it was rung less than a millisecond ago
  // and has not answered since (rma/doorbell.h).
  void ring_overdue();

 private:
  struct Pending;
  struct Incoming;
  struct Outgoing;
  void receive_new();
  void handle(Incoming& in);
  // Whether every run lies in this process's window memory (else
  // MPI_ERR_RMA_RANGE).
  Err check_runs(const std::vector<Run>& runs) const;
  static std::vector<Run> runs_of(const Incoming& in);
  // A request whose data comes apart: posts the data's receive (into the
  // window, or in.payload) and returns true; false for any other.
  bool receive_data_apart(Incoming& in);
  static uint32_t epoch_of(const Incoming& in);
  // `kept`: the vector `data` points into, if any (kept while large data
  // is sent apart from the answer).
  // Returns the answer's send (for a large get's answer from the window).
  Outgoing* answer(int origin, uint64_t id, const Err& e, const char* data, uint64_t bytes,
                   std::vector<char> kept = {});
  bool try_grant(int origin, bool exclusive);
  void finish_sends();
  void handle_reply(Incoming& in);
  // An answer whose data comes apart: posts the data's receive (into the
  // result buffer, or in.payload) and returns true; false for any other.
  bool receive_reply_apart(Incoming& in);
  // Both: posts the receive of `bytes` with `tag` from in.source into
  // `into`, or into in.payload when `into` is null.
  void receive_apart(Incoming& in, char* into, uint64_t bytes, int tag);
  // Engine lock held: asks `target` to answer once it executed what this
  // process sent it (the silent operations' acknowledgement).
  void send_sync(int target);
  // Engine lock held: the silent operations to `target` sent before `id`
  // are done (an answer to `id` came; ~0: all of them).
  void retire_silent(size_t target, uint64_t id);
  // Engine lock held: operation `id` to `target` will not be answered
  // (its data could not be sent): nothing waits for it.
  void forget(int target, uint64_t id, bool silent);
  // The error of a receive of data apart from `peer`, if it failed.
  static Err data_lost(const Request& r, int peer);

  Window& w_;
  bool running_ = false;
  bool stopped_ = false;
  bool in_advance_ = false;
  uint64_t next_id_ = 1;
  std::vector<uint64_t> outstanding_;                // per target: requests not yet answered
  std::vector<uint64_t> in_flight_bytes_;            // per target: their data, both ways
  std::unordered_map<uint64_t, Pending*> pending_;   // by id
  std::deque<Incoming*> incoming_;                   // requests in arrival order
  std::vector<uint8_t> blocked_;                     // per origin, during advance(): a request waits
  std::vector<uint32_t> window_sends_;               // per origin: large gets' answers still reading the window
  uint64_t user_data_sends_ = 0;                     // large data still being sent from the program's buffers
  std::vector<Incoming*> replies_;                   // answers to this process's requests
  std::vector<Outgoing*> outgoing_;                  // sends in flight
  std::vector<std::pair<int, uint64_t>> waiting_locks_;  // (origin, id) of lock requests not yet granted
  std::vector<bool> waiting_exclusive_;
  std::vector<doorbell::Bell> bells_;                // per target: its doorbell (length 0: none)
  std::vector<long long> rung_at_;                   // per target: when last rung since its last answer (0: not)
  uint64_t unanswered_ = 0;                          // the sum of outstanding_
  uint64_t awaited_ = 0;                             // unanswered ones that bring data or complete a request
  uint32_t epoch_ = 0;                               // fence epochs this process ended
  std::vector<uint64_t> sent_in_epoch_;              // per target: requests sent in epoch_
  std::unordered_map<uint32_t, uint64_t> executed_;  // by the origin's epoch: requests executed here
  struct Silent {
    uint64_t id;
    uint64_t bytes;
  };
  std::vector<std::deque<Silent>> silent_;           // per target: silent operations, by id
  Err first_error_;
  std::shared_ptr<bool> alive_;
};

}  // namespace ferry::rma
