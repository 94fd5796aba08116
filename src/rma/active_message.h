// Active messages: RMA to a target that this process cannot reach in memory
// (another host, or FERRY_RMA_SHM=off), over the window's private
// communicator and whichever transport carries it (shm, tcp, verbs).
//
// An origin sends one request message per operation: a header, the runs of
// target memory (addresses in the target's address space, computed by the
// origin from the target's base and displacement unit, which every rank
// learned at creation) and the packed data. The target's service executes
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
  Err send(int target, const TargetOp& op, const std::vector<Run>& runs, const char* data, uint64_t data_bytes,
           const char* compare, void* result, MPI_Count result_count, const Datatype* result_type,
           uint64_t result_bytes, Request* request);
  // Asks `target` for its passive-target lock, or gives it back; flush()
  // waits for the answer (the grant, or the release: executed after every
  // operation this process sent the target before it).
  Err request_lock(int target, bool exclusive);
  Err request_unlock(int target, bool exclusive);
  // Blocks until every operation sent to `target` (or to anyone: -1) is
  // acknowledged.
  Err flush(int target);

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
  void answer(int origin, uint64_t id, const Err& e, const char* data, uint64_t bytes);
  bool try_grant(int origin, bool exclusive);
  void finish_sends();
  void handle_reply(Incoming& in);

  Window& w_;
  bool running_ = false;
  bool stopped_ = false;
  bool in_advance_ = false;
  uint64_t next_id_ = 1;
  std::vector<uint64_t> outstanding_;                // per target: requests not yet answered
  std::vector<uint64_t> in_flight_bytes_;            // per target: their data, both ways
  std::unordered_map<uint64_t, Pending*> pending_;   // by id
  std::deque<Incoming*> incoming_;                   // requests in arrival order
  std::vector<Incoming*> replies_;                   // answers to this process's requests
  std::vector<Outgoing*> outgoing_;                  // sends in flight
  std::vector<std::pair<int, uint64_t>> waiting_locks_;  // (origin, id) of lock requests not yet granted
  std::vector<bool> waiting_exclusive_;
  std::vector<doorbell::Bell> bells_;                // per target: its doorbell (length 0: none)
  std::vector<long long> rung_at_;                   // per target: when last rung since its last answer (0: not)
  uint64_t unanswered_ = 0;                          // the sum of outstanding_
  Err first_error_;
  std::shared_ptr<bool> alive_;
};

}  // namespace ferry::rma
