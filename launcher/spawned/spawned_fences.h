// PMIx fences of spawned jobs that run on several hosts (MPI_Init's fence
// over the contact cards, and any later one). Each host's server posts a
// kFence once its own processes of the job have entered; that host's share
// goes to mpirun (kJobFence, passed up the tree unchanged), which releases
// the fence once every host of the job has contributed: kJobFenceRelease,
// with everyone's data, toward each of them. A star through the tree rather
// than the first job's combining tree (daemon_tree.h): a spawned job's hosts
// are a few of the job's, and no daemon on the way knows which.
//
// Sequence numbers agree because every process of a job takes part in each
// of its fences, in the same order (as for the first job).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "launcher/pmix/pmix_host.h"

namespace ferry::launcher {

class SpawnedFences {
 public:
  // `send(position, frame)`: up for a daemon (position ignored); toward
  // `position` for mpirun. `position`: this process's in the tree.
  using Send = std::function<void(int position, const std::string& frame)>;
  SpawnedFences(int position, Send send) : position_(position), send_(std::move(send)) {}

  // mpirun: job `nspace` runs on the hosts at `positions` (0: mpirun's).
  void expect(const std::string& nspace, std::vector<int> positions) { hosts_[nspace] = std::move(positions); }
  // This host's processes of `nspace` entered a fence.
  void local(const std::string& nspace, std::string data, FenceReply reply);
  // mpirun: a host's share (a kJobFence body).
  void contribute(std::string_view body);
  // A kJobFenceRelease body for this host, after its target position.
  void release(std::string_view body);
  // The job is ending: local fences still waiting fail.
  void fail_all();

 private:
  using Key = std::pair<std::string, uint64_t>;
  void add(const std::string& nspace, uint64_t sequence, std::string_view data);

  int position_;
  Send send_;
  std::map<std::string, std::vector<int>> hosts_;  // mpirun
  std::map<std::string, uint64_t> local_count_;
  std::map<Key, FenceReply> waiting_;
  struct Gathered {
    int contributions = 0;
    std::string data;
  };
  std::map<Key, Gathered> gathered_;  // mpirun
};

}  // namespace ferry::launcher
