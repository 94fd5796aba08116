// One process's place in the daemon tree: mpirun at position 0, a node
// daemon elsewhere. Accepts the links of its children (each must say hello
// with the job secret and the position it was started for), passes their
// messages up, passes mpirun's messages down, and combines PMIx fences: a
// position sends its subtree's fence data up once its own ranks and every
// child have contributed, and mpirun releases the fence with everyone's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/job_plan.h"
#include "launcher/pmix/pmix_host.h"
#include "launcher/tree/daemon_link.h"

namespace ferry::launcher {

class DaemonTree {
 public:
  // `listen_fd` (owned here) is where children connect; epoll data for it
  // and for the links is `listen_kind` / `link_kind` in the low byte.
  // `deliver` gets what arrives from below at mpirun (position 0); other
  // positions pass it to their parent. `has_local_ranks`: this position's
  // host runs ranks, which take part in every fence.
  using Deliver = std::function<void(wire::Type, std::string_view body)>;
  DaemonTree(int epoll_fd, uint8_t listen_kind, uint8_t link_kind, const JobPlan& plan, int position,
             int listen_fd, bool has_local_ranks, Deliver deliver);
  ~DaemonTree();
  DaemonTree(const DaemonTree&) = delete;
  DaemonTree& operator=(const DaemonTree&) = delete;

  // A daemon's link to its parent (watched by the owner, which handles
  // what comes down and calls pass_down for it).
  void set_parent(DaemonLink* parent) { parent_ = parent; }

  // An epoll event with one of this tree's kinds.
  void on_event(uint64_t data, uint32_t events);

  void send_up(const std::string& frame);    // to the parent, or deliver at mpirun
  // The link to the parent has written what it held: children that were
  // not read while it was full (update_interest) are read again. The
  // owner calls it after the parent link's on_writable.
  void parent_drained();
  void pass_down(const std::string& frame);  // to every child
  // To the child whose subtree holds `position` (a daemon below this one).
  void send_toward(int position, const std::string& frame);

  // This host's ranks entered a fence (from PmixHost's kFence).
  void local_fence(std::string data, FenceReply reply);
  // mpirun released fence `sequence` with everyone's data (a daemon gets
  // this from its parent; mpirun calls it itself). Completes the local
  // fence and passes the release down.
  void release_fence(uint64_t sequence, const std::string& all_data);
  // The job is ending: local fences waiting for data fail.
  void fail_fences();

  // Says kSubtreeUp upwards once every daemon below this position is up
  // (each child said so): a daemon calls it once it is up itself, a leaf
  // so reports at once. At mpirun, delivered once the whole tree is up,
  // with the number of daemons and the tree's depth.
  void report_subtree_if_up();

  // Children that said hello and have not gone.
  int connected_children() const;
  // Flushes queued output to the children, blocking up to `timeout_ms`
  // (mpirun before it exits).
  void drain(int timeout_ms);

 private:
  struct Child {
    std::unique_ptr<DaemonLink> link;
    bool greeted = false;  // said hello: `position` is valid
    bool refused = false;  // a bad hello: dropped after the read that brought it
    int position = -1;
  };
  struct Fence {
    int contributions = 0;
    std::string data;
  };

  void accept_all();
  void on_frame(int slot, wire::Type type, std::string_view body);
  void lose(int slot, const std::string& reason);
  void contribute(uint64_t sequence, std::string_view data);
  void update_interest(int slot);
  void send_to_child(int position, const std::string& frame);

  int epoll_fd_;
  uint8_t listen_kind_, link_kind_;
  const JobPlan& plan_;
  int position_;
  int listen_fd_;
  bool has_local_ranks_;
  Deliver deliver_;
  DaemonLink* parent_ = nullptr;
  std::vector<int> expected_children_;
  std::map<int, Child> links_;  // by slot (epoll data)
  // Frames for children that have not said hello yet, by position.
  std::map<int, std::string> not_yet_greeted_;
  int next_slot_ = 0;
  // Fences: sequence numbers agree everywhere because every rank of the
  // job takes part in every fence, in the same order.
  uint64_t local_fences_ = 0;
  std::map<uint64_t, Fence> fences_;
  std::map<uint64_t, FenceReply> local_replies_;
  // kSubtreeUp from the children so far: daemons below, deepest branch.
  int subtree_reports_ = 0, subtree_daemons_ = 0, subtree_depth_ = 0;
  bool subtree_reported_ = false;
};

}  // namespace ferry::launcher
