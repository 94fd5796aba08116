#include "launcher/start/daemon_start.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "common/debug.h"
#include "launcher/clock.h"

namespace ferry::launcher {
namespace {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : sep) + parts[i];
  return out;
}

// ferryd sits next to mpirun, at the same path on every host (as Open
// MPI's orted does: one installation on a shared or identical file system).
// In a daemon, /proc/self/exe is ferryd itself: the same folder.
std::string daemon_path() {
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "ferryd";
  std::string path(self, size_t(n));
  return path.substr(0, path.rfind('/') + 1) + "ferryd";
}

// Whether the peer of `fd` has closed its end (or the socket failed): a
// daemon's parent that is gone.
bool hung_up(int fd) {
  pollfd p = {fd, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

// How often a daemon starting its children looks at its parent's link.
constexpr auto kParentCheck = std::chrono::milliseconds(100);

}  // namespace

std::string ready_line(int port, const std::vector<std::string>& addresses) {
  return "ferryd ready " + std::to_string(port) + " " + join(addresses, ",");
}

bool parse_ready_line(const std::string& line, int* port, std::string* addresses) {
  std::istringstream in(line);
  std::string word1, word2;
  in >> word1 >> word2 >> *port >> *addresses;
  return !in.fail() && word1 == "ferryd" && word2 == "ready" && *port > 0 && !addresses->empty();
}

std::vector<std::string> tree_path(const JobPlan& plan, int position) {
  std::vector<std::string> path;
  for (int p = tree_parent(position, plan.fanout); p > 0; p = tree_parent(p, plan.fanout)) {
    int node = plan.node_at(p);
    path.push_back(node >= 0 ? plan.nodes[size_t(node)].host : "?");
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::string start_failure_message(const JobPlan& plan, const StartFailure& failure) {
  std::vector<std::string> path = tree_path(plan, failure.position);
  if (path.empty()) return failure.error;
  int node = plan.node_at(failure.position);
  std::string host = node >= 0 ? plan.nodes[size_t(node)].host : "?";
  std::string why = failure.error;
  if (std::string prefix = "mpirun: " + host + ": "; why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
  else if (why.rfind("mpirun: ", 0) == 0) why.erase(0, 8);  // "mpirun: h7 (10.0.0.7:22): ..." keeps its address
  return "mpirun: could not start ferryd on " + host + " (via " + join(path, ", ") + "): " + why;
}

std::optional<StartFailure> start_children(const JobPlan& plan, int position, const std::string& addresses,
                                           int port, const StartWatch& watch) {
  const std::vector<int> children = tree_children(position, plan.fanout, plan.num_daemons);
  double t0 = monotonic_ms();

  // What the starting threads share. Held by each of them too, so that an
  // interrupted start can return while they finish the starts in flight.
  struct Round {
    std::string ferryd = daemon_path();
    std::string stdin_data;
    std::mutex mutex;
    std::deque<int> waiting;
    int started = 0;
    std::optional<StartFailure> first_failure;
    bool abandoned = false;  // interrupted: start no more
    int workers_done = 0;
    std::condition_variable worker_done;
  };
  auto round = std::make_shared<Round>();
  const std::string plan_bytes = encode_plan(plan);
  round->stdin_data = std::to_string(plan_bytes.size()) + "\n" + plan_bytes;
  round->waiting.assign(children.begin(), children.end());

  // Each thread starts children until none is left (or one failed). `plan`
  // outlives the threads unless the start is abandoned, so they copy what
  // they need of it first.
  struct Child {
    int position;
    std::string host;
  };
  std::vector<Child> nodes;
  for (int child : children) nodes.push_back({child, plan.nodes[size_t(plan.node_at(child))].host});
  const RemoteStartOptions how = plan.remote_start;
  const std::string parent_addresses = addresses;
  auto worker = [round, nodes, how, parent_addresses, port]() {
    for (;;) {
      int child;
      {
        std::lock_guard lock(round->mutex);
        if (round->first_failure || round->abandoned || round->waiting.empty()) break;
        child = round->waiting.front();
        round->waiting.pop_front();
      }
      const std::string& host = std::find_if(nodes.begin(), nodes.end(), [&](const Child& c) {
                                  return c.position == child;
                                })->host;
      RemoteCommand command;
      command.host = host;
      command.origin = host;
      command.argv = {round->ferryd, "--position", std::to_string(child), "--parent", parent_addresses, "--port",
                      std::to_string(port)};
      command.stdin_data = round->stdin_data;
      FERRY_DEBUG(kLaunch, "starting the daemon on %s (position %d)", host.c_str(), child);
      RemoteStartResult result = start_remote(command, how);
      int child_port = 0;
      std::string child_addresses;
      if (result.ok && !parse_ready_line(result.first_line, &child_port, &child_addresses)) {
        result.ok = false;
        result.error = "mpirun: " + host + ": the node daemon said \"" + result.first_line +
                       "\" instead of being ready (is " + round->ferryd + " of this Ferry build there?)";
      }
      std::lock_guard lock(round->mutex);
      if (result.ok) ++round->started;
      else if (!round->first_failure) round->first_failure = StartFailure{child, result.error};
    }
    std::lock_guard lock(round->mutex);
    ++round->workers_done;
    round->worker_done.notify_one();
  };

  int workers = std::min(kMaxParallelStarts, int(children.size()));
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) threads.emplace_back(worker);
  {
    std::unique_lock lock(round->mutex);
    while (round->workers_done < workers) {
      round->worker_done.wait_for(lock, kParentCheck);
      if (round->workers_done == workers) break;
      if (watch.parent_fd >= 0 && hung_up(watch.parent_fd)) {
        FERRY_DEBUG(kLaunch, "the parent went while %d of %zu child daemons were started; ending", round->started,
                    children.size());
        watch.parent_gone();  // does not return: the starts in flight end with this process
      }
      if (watch.interrupted && watch.interrupted()) {
        FERRY_DEBUG(kLaunch, "interrupted while %d of %zu child daemons were started", round->started,
                    children.size());
        round->abandoned = true;
        lock.unlock();
        for (std::thread& t : threads) t.detach();
        return StartFailure{0, "", true};
      }
    }
  }
  for (std::thread& t : threads) t.join();
  FERRY_DEBUG(kLaunch, "started %d of %zu child daemons in %.1f ms%s", round->started, children.size(),
              monotonic_ms() - t0, round->first_failure ? " (then one failed)" : "");
  return round->first_failure;
}

}  // namespace ferry::launcher
