#include "launcher/start/daemon_start.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <deque>
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
                                           int port, const ParentWatch& parent) {
  const std::string ferryd = daemon_path();
  const std::string plan_bytes = encode_plan(plan);
  const std::string stdin_data = std::to_string(plan_bytes.size()) + "\n" + plan_bytes;
  const std::vector<int> children = tree_children(position, plan.fanout, plan.num_daemons);
  double t0 = monotonic_ms();

  std::mutex mutex;
  std::deque<int> waiting(children.begin(), children.end());
  int started = 0;
  std::optional<StartFailure> first_failure;
  int workers_done = 0;
  std::condition_variable worker_done;

  auto start_some = [&]() {
    for (;;) {
      int child;
      {
        std::lock_guard lock(mutex);
        if (first_failure || waiting.empty()) return;
        child = waiting.front();
        waiting.pop_front();
      }
      const PlanNode& node = plan.nodes[size_t(plan.node_at(child))];
      RemoteCommand command;
      command.host = node.host;
      command.origin = node.host;
      command.argv = {ferryd, "--position", std::to_string(child), "--parent", addresses, "--port",
                      std::to_string(port)};
      command.stdin_data = stdin_data;
      FERRY_DEBUG(kLaunch, "starting the daemon on %s (position %d)", node.host.c_str(), child);
      RemoteStartResult result = start_remote(command, plan.remote_start);
      int child_port = 0;
      std::string child_addresses;
      if (result.ok && !parse_ready_line(result.first_line, &child_port, &child_addresses)) {
        result.ok = false;
        result.error = "mpirun: " + node.host + ": the node daemon said \"" + result.first_line +
                       "\" instead of being ready (is " + ferryd + " of this Ferry build there?)";
      }
      std::lock_guard lock(mutex);
      if (result.ok) ++started;
      else if (!first_failure) first_failure = StartFailure{child, result.error};
    }
  };

  auto worker = [&]() {
    start_some();
    std::lock_guard lock(mutex);
    ++workers_done;
    worker_done.notify_one();
  };

  int workers = std::min(kMaxParallelStarts, int(children.size()));
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) threads.emplace_back(worker);
  {
    std::unique_lock lock(mutex);
    while (workers_done < workers) {
      worker_done.wait_for(lock, kParentCheck);
      if (workers_done < workers && parent.fd >= 0 && hung_up(parent.fd)) {
        FERRY_DEBUG(kLaunch, "the parent went while %d of %zu child daemons were started; ending", started,
                    children.size());
        parent.gone();  // does not return: the starts in flight end with this process
      }
    }
  }
  for (std::thread& t : threads) t.join();
  FERRY_DEBUG(kLaunch, "started %d of %zu child daemons in %.1f ms%s", started, children.size(),
              monotonic_ms() - t0, first_failure ? " (then one failed)" : "");
  return first_failure;
}

}  // namespace ferry::launcher
