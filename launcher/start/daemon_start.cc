#include "launcher/start/daemon_start.h"

#include <unistd.h>

#include <climits>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "common/config.h"
#include "common/debug.h"
#include "launcher/clock.h"
#include "launcher/tree/daemon_link.h"

namespace ferry::launcher {
namespace {

// ssh connections in flight at once: enough to hide the round trips of
// each start, few enough not to look like an attack to sshd's MaxStartups
// (10 by default, beyond which it drops connections at random).
constexpr int kMaxParallelStarts = 8;

std::string join(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : std::string(1, sep)) + parts[i];
  return out;
}

// ferryd sits next to mpirun, at the same path on every host (as Open
// MPI's orted does: one installation on a shared or identical file system).
std::string daemon_path() {
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "ferryd";
  std::string path(self, size_t(n));
  return path.substr(0, path.rfind('/') + 1) + "ferryd";
}

}  // namespace

std::string ready_line(int port, const std::vector<std::string>& addresses) {
  return "ferryd ready " + std::to_string(port) + " " + join(addresses, ',');
}

bool parse_ready_line(const std::string& line, int* port, std::string* addresses) {
  std::istringstream in(line);
  std::string word1, word2;
  in >> word1 >> word2 >> *port >> *addresses;
  return !in.fail() && word1 == "ferryd" && word2 == "ready" && *port > 0 && !addresses->empty();
}

std::string start_node_daemons(const JobPlan& plan, int port, const RemoteStartOptions& options,
                               std::string* failed_host) {
  const std::string ferryd = daemon_path();
  const std::string plan_bytes = encode_plan(plan);
  const std::string stdin_data = std::to_string(plan_bytes.size()) + "\n" + plan_bytes;
  double t0 = monotonic_ms();

  std::mutex mutex;
  std::condition_variable changed;
  // Where each position's children connect: mpirun's own addresses for
  // its children, a daemon's (from its ready line) for its own.
  std::vector<std::string> listen_at(size_t(plan.num_daemons) + 1);
  listen_at[0] = join(reachable_addresses(), ',') + " " + std::to_string(port);
  std::deque<int> ready = {};
  for (int c : tree_children(0, plan.fanout, plan.num_daemons)) ready.push_back(c);
  int in_flight = 0, started = 0;
  std::string first_error;

  auto worker = [&]() {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return !ready.empty() || in_flight == 0 || !first_error.empty(); });
      if (!first_error.empty() || ready.empty()) return;
      int position = ready.front();
      ready.pop_front();
      ++in_flight;
      const PlanNode& node = plan.nodes[size_t(plan.node_at(position))];
      const std::string& parent = listen_at[size_t(tree_parent(position, plan.fanout))];
      std::string parent_addresses = parent.substr(0, parent.find(' '));
      std::string parent_port = parent.substr(parent.find(' ') + 1);
      lock.unlock();

      RemoteCommand command;
      command.host = node.host;
      command.origin = node.host;
      command.argv = {ferryd, "--position", std::to_string(position), "--parent", parent_addresses, "--port",
                      parent_port};
      command.stdin_data = stdin_data;
      FERRY_DEBUG(kLaunch, "starting the daemon on %s (position %d)", node.host.c_str(), position);
      RemoteStartResult result = start_remote(command, options);
      int child_port = 0;
      std::string child_addresses;
      if (result.ok && !parse_ready_line(result.first_line, &child_port, &child_addresses)) {
        result.ok = false;
        result.error = "mpirun: " + node.host + ": the node daemon said \"" + result.first_line +
                       "\" instead of being ready (is " + ferryd + " of this Ferry build there?)";
      }

      lock.lock();
      --in_flight;
      if (!result.ok) {
        if (first_error.empty()) {
          first_error = result.error;
          if (failed_host != nullptr) *failed_host = node.host;
        }
      } else {
        ++started;
        listen_at[size_t(position)] = child_addresses + " " + std::to_string(child_port);
        for (int c : tree_children(position, plan.fanout, plan.num_daemons)) ready.push_back(c);
      }
      changed.notify_all();
    }
  };

  int workers = std::min(kMaxParallelStarts, plan.num_daemons);
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  if (first_error.empty() && started != plan.num_daemons)
    first_error = "mpirun: started only " + std::to_string(started) + " of " + std::to_string(plan.num_daemons) +
                  " node daemons";
  FERRY_DEBUG(kLaunch, "%d node daemons started in %.1f ms%s", started, monotonic_ms() - t0,
              first_error.empty() ? "" : " (then one failed)");
  return first_error;
}

}  // namespace ferry::launcher
