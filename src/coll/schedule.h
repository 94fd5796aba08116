// A collective operation as a schedule: rounds of point-to-point messages on
// the communicator's collective context, each followed by local work
// (reductions, copies).
//
// Every algorithm in src/coll builds a Schedule; the blocking form runs it to
// the end, the nonblocking form (MPI_I...) hands it to the progress engine,
// which advances it from any MPI call. So each algorithm is written once and
// reads as its textbook rounds:
//
//   Schedule s(comm);
//   s.recv(tmp, count, type, left);        // round 0: exchange with neighbours
//   s.send(buf, count, type, right);
//   s.reduce(tmp, buf, count, type, op);   //          then combine
//   s.end_round();
//   ...
//   return s.run();
//
// Within a round, receives are posted first, then sends; the local steps run
// in order once all of the round's messages have completed. A round of one
// send and one receive with the same peer, the receive as large (a pairwise
// step), is an exchange as MPI_Sendrecv's is (Request::exchange): both cores
// copy at once, so the send is offered for the peer to read in place. All messages of
// one schedule share one tag, so a pair of ranks must post them in the same
// order on both sides (MPI's non-overtaking rule then matches them).
//
// Large counts (MPI-4.0 §6.2.2, the _c calls): counts are MPI_Count
// throughout. A message or copy of 2 GiB or more becomes several steps of
// at most kPieceBytes, so point-to-point never sees a count above 2^31
// (until the p2p engine takes MPI_Count itself): a contiguous type is
// cut at any byte, as MPI_BYTE; any other into runs of whole elements
// (kPieceBytes / size of them). Sender and receiver cut at the same bytes
// when their types are contiguous, or have the same size, or sizes that
// are powers of two (the usual case); a message whose two sides cut
// differently fails as a size mismatch rather than hang.
//
// Persistent collectives (MPI-4.0 §6.13) keep one schedule for every start:
// rearm() puts it back to its first round; it keeps its tag, its scratch
// and its steps, so a start posts messages and nothing else.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "base/request.h"
#include "coll/count_array.h"
#include "coll/scratch_cache.h"

namespace ferry::coll {

class Schedule {
 public:
  explicit Schedule(Communicator* c);
  // A schedule among some members of `c` only: algorithms see `members.size()`
  // ranks numbered by position in `members` (my_index is this process's),
  // and each message goes to the communicator rank at that position
  // (MPI_Comm_create_group's agreement, runtime/group_allreduce.cc).
  Schedule(Communicator* c, std::vector<int> members, int my_index);
  ~Schedule();
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  // On an intercommunicator (coll/inter/algorithms.h): messages built while
  // use_local(true) travel on its hidden local intracommunicator, among the
  // local group; otherwise across, to ranks of the remote group.
  void use_local(bool on) { local_mode_ = on; }
  int remote_size() const { return comm_->remote_size; }

  // The ranks the algorithm works among: the communicator's (the local
  // group, on an intercommunicator), or the members'.
  int size() const {
    if (local_mode_) return comm_->local->size;
    return members_.empty() ? comm_->size : static_cast<int>(members_.size());
  }
  int rank() const {
    if (local_mode_) return comm_->local->rank;
    return members_.empty() ? comm_->rank : my_index_;
  }

  // Building. Peers are ranks as size() and rank() count them.
  void send(const void* buf, MPI_Count count, const Datatype* type, int peer);
  void recv(void* buf, MPI_Count count, const Datatype* type, int peer);
  void reduce(const void* in, void* inout, MPI_Count count, const Datatype* type, const Op* op);
  void copy(const void* src, MPI_Count scount, const Datatype* stype, void* dst, MPI_Count rcount,
            const Datatype* rtype);
  // Any other local work, run in order with the round's reduces and copies.
  void local(std::function<void()> work);
  // The same for work that can fail: its error becomes the schedule's (the
  // first one wins, and later rounds still run, as for a failed message).
  void local_checked(std::function<Err()> work);
  void end_round();
  // A buffer that lives as long as the schedule: GPU memory while a
  // gpu::ScratchOnGpu was alive when the schedule was made
  // (coll/device_schedule.h), else host memory.
  void* scratch(size_t bytes);
  // Keeps a reduction operation alive as long as the schedule (a
  // persistent request outlives the user's handle, MPI-4.0 §6.13).
  void hold(const Op* op);

  // The size of the pieces a message or copy of 2 GiB or more is cut into
  // (see above).
  static constexpr size_t kPieceBytes = size_t{1} << 30;

  Communicator* comm() const { return comm_; }

  // Running. run() is the blocking collective; start() and advance() are
  // what the nonblocking form and the progress engine use.
  Err run();
  Err start();
  // Moves the schedule forward without blocking; true once it has finished
  // (then error() tells how).
  bool advance();
  const Err& error() const { return error_; }
  // Back to the first round, for the next start of a persistent collective
  // (only once finished).
  void rearm();

 private:
  struct Step {
    enum class Kind : uint8_t { kSend, kRecv, kReduce, kCopy, kLocal } kind;
    const void* in;
    void* out;
    MPI_Count count;
    const Datatype* type;
    int peer;
    MPI_Count count2;         // copy: destination count
    const Datatype* type2;    // copy: destination type
    const Op* op;
    bool on_local = false;    // send/recv: on the intercommunicator's local intracommunicator
    bool exchange = false;    // send: its round receives as much from the same peer (end_round)
  };

  // Posts the messages of the current round.
  void post_round();
  // Runs the local steps of the current round.
  void finish_round();
  // Keeps a derived datatype alive as long as the schedule.
  void hold(const Datatype* t);
  // One step as built, before it is cut into pieces of kPieceBytes.
  void message(Step::Kind kind, const void* in, void* out, MPI_Count count, const Datatype* type, int peer);

  // The communicator rank of peer `p` as the algorithm numbers it.
  int comm_rank(int p) const { return members_.empty() ? p : members_[static_cast<size_t>(p)]; }

  Communicator* comm_;
  std::vector<int> members_;  // empty: all of comm_
  int my_index_ = 0;
  const void* scratch_near_ = nullptr;  // non-null: scratch in GPU memory beside this buffer
  bool local_mode_ = false;
  int tag_;
  int local_tag_ = -1;  // an intercommunicator's: the tag on its local intracommunicator
  std::vector<Step> steps_;
  std::vector<std::function<void()>> local_work_;  // kLocal steps: index in `count`
  std::vector<size_t> round_ends_;  // index one past each round's last step
  size_t round_ = 0;
  std::vector<Request*> pending_;   // the current round's messages
  std::vector<scratch_cache::Block> scratch_;  // given back to the cache when the schedule ends
  struct GpuScratch {
    void* buffer;
    size_t bytes;
  };
  std::vector<GpuScratch> gpu_scratch_;
  std::vector<const Datatype*> held_types_;  // one reference each
  std::vector<const Op*> held_ops_;          // one reference each
  Err build_error_;        // a step that could not be built: every run fails with it
  bool started_ = false;
  bool finished_ = false;
  Err error_;              // the first error; later rounds still run
  bool stopped_ = false;   // a message could not be started: no later rounds
};

// Starts a nonblocking collective: the progress engine owns the schedule
// from here (a progress::Task) and frees it when it finishes; the returned
// request completes then.
Request* start_nonblocking(std::unique_ptr<Schedule> schedule, Err* error);

}  // namespace ferry::coll
