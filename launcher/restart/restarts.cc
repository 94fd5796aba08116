#include "launcher/restart/restarts.h"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "common/debug.h"
#include "launcher/clock.h"
#include "launcher/hosts/placement.h"
#include "launcher/ranks/node_setup.h"

namespace ferry::launcher {
namespace {

// One line on stderr, "mpirun: " first (once).
void print_line(const std::string& what) {
  std::fprintf(stderr, "%s%s\n", what.rfind("mpirun: ", 0) == 0 ? "" : "mpirun: ", what.c_str());
  std::fflush(stderr);
}

std::string without_prefix(const std::string& line) {
  return line.rfind("mpirun: ", 0) == 0 ? line.substr(8) : line;
}

// What ended an attempt, for the summary.
std::string describe(const JobOutcome& outcome) {
  if (!outcome.failure.empty()) return without_prefix(outcome.failure);
  return "ended with exit status " + std::to_string(outcome.status);
}

// Drops the hosts whose daemon was lost and places the job's ranks on the
// others, with the same policy. Returns "" or why the job cannot restart.
std::string leave_out(Options& options, const std::vector<LostHost>& lost) {
  std::string names, reasons;
  for (const LostHost& l : lost) {
    std::erase_if(options.hosts, [&](const hosts::HostEntry& h) { return h.name == l.host; });
    names += (names.empty() ? "" : ", ") + l.host;
    reasons += (reasons.empty() ? "" : "; ") + l.host + ": " + l.reason;
  }
  PlacementRequest request = options.placement_request;
  request.hosts = options.hosts;
  request.num_ranks = options.num_ranks;  // the job keeps its size
  PlacementResult placed = options.hosts.empty() ? PlacementResult{{}, "mpirun: no host is left"}
                                                 : place_ranks(request, is_this_host);
  if (!placed.error.empty())
    return "cannot restart the job without " + names + " (" + reasons + "): " + without_prefix(placed.error);
  options.placement = std::move(placed.placement);
  options.placement_request = std::move(request);
  int slots = 0;
  for (const hosts::HostEntry& h : options.hosts) slots += h.slots;
  print_line("leaving out " + reasons + "; the " + std::to_string(options.num_ranks) + " ranks restart on " +
             std::to_string(options.placement.nodes.size()) + " other hosts (" + std::to_string(slots) + " slots)");
  return "";
}

// Sleeps `ms` between attempts, reading the signals mpirun handles (they
// stay blocked): SIGINT, SIGTERM or SIGHUP end mpirun instead of the
// restart; exits of leftover children are collected. Returns false when
// interrupted.
bool wait_restart_delay(int ms, const sigset_t& handled) {
  double deadline = monotonic_ms() + ms;
  for (;;) {
    double left = deadline - monotonic_ms();
    if (left <= 0) return true;
    timespec wait = {time_t(left / 1000), long(std::fmod(left, 1000.0) * 1e6)};
    siginfo_t info;
    int sig = ::sigtimedwait(&handled, &info, &wait);
    if (sig < 0) {
      if (errno == EAGAIN) return true;
      continue;  // EINTR
    }
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      print_line("interrupted by signal " + std::to_string(sig) + " before the restart; not restarting");
      return false;
    }
    if (sig == SIGCHLD)
      while (::waitpid(-1, nullptr, WNOHANG) > 0) {
      }
  }
}

void print_summary(const std::vector<std::string>& attempts, int max_restarts) {
  print_line("the job failed " + std::to_string(attempts.size()) + (attempts.size() == 1 ? " time" : " times") +
             " (--max-restarts " + std::to_string(max_restarts) + "):");
  for (size_t i = 0; i < attempts.size(); ++i)
    print_line("  attempt " + std::to_string(i + 1) + " (FERRY_RESTART_COUNT=" + std::to_string(i) +
               "): " + attempts[i]);
}

}  // namespace

int run_with_restarts(const Options& options, PmixHost& server, const RankDefaults& defaults,
                      const PlanMaker& make_plan) {
  const int max_restarts = options.fault.max_restarts;
  Options current = options;
  std::vector<std::string> attempts;
  double failed_ms = 0;  // when the previous attempt's failure was noticed
  for (int attempt = 0;; ++attempt) {
    Options o = current;
    if (attempt > 0) {
      o.environment.emplace_back("FERRY_RESTART_COUNT", std::to_string(attempt));
      // --restart-from names the first attempt's epoch; a restart reads
      // what that attempt and later ones committed.
      if (!o.fault.restart_from.empty()) o.environment.emplace_back("FERRY_RESTART_FROM", "latest");
    }
    // News of the failed attempt's ranks that came after its end (a
    // connection closed late) must not be taken for this attempt's.
    server.take_events();
    int local_node = -1;
    JobOutcome outcome;
    try {
      const JobPlan plan = make_plan(o, attempt, &local_node);
      if (local_node >= 0) server.register_job(job_description(plan, local_node));
      // stdio is flushed now: the ranks must not inherit buffered output.
      std::fflush(nullptr);
      outcome = run_job(o, plan, local_node, server, defaults);
    } catch (const std::exception& e) {  // the event loop failed; the ranks are ended
      print_line(e.what());
      outcome.status = 1;
      outcome.failure = e.what();
    }
    if (attempt > 0 && outcome.started_ms > 0)
      FERRY_DEBUG(kLaunch, "restart %d: ranks running again %.1f ms after the failure was noticed", attempt,
                  outcome.started_ms - failed_ms);
    if (outcome.status == 0) return 0;
    attempts.push_back(describe(outcome));
    failed_ms = outcome.failed_ms;
    // A host that ran the job before and cannot be reached now is lost.
    std::vector<LostHost> lost = outcome.lost_hosts;
    bool unreachable = attempt > 0 && outcome.unreachable;
    if (unreachable) lost.push_back(*outcome.unreachable);
    if (!(outcome.restartable || unreachable) || attempt >= max_restarts) {
      if (max_restarts > 0) print_summary(attempts, max_restarts);
      return outcome.status;
    }
    if (!lost.empty()) {
      if (std::string problem = leave_out(current, lost); !problem.empty()) {
        print_line(problem);
        print_summary(attempts, max_restarts);
        return outcome.status;
      }
    }
    char delay[32];
    std::snprintf(delay, sizeof delay, "%g", o.fault.restart_delay_ms / 1000.0);
    print_line("restarting the job (restart " + std::to_string(attempt + 1) + " of " +
               std::to_string(max_restarts) + ")" +
               (o.fault.restart_delay_ms > 0 ? " in " + std::string(delay) + " s" : ""));
    if (!wait_restart_delay(o.fault.restart_delay_ms, defaults.signals.handled)) {
      print_summary(attempts, max_restarts);
      return outcome.status;
    }
  }
}

}  // namespace ferry::launcher
