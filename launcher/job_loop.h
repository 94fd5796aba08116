// The Job that run_job (job.h) runs: mpirun's one event loop for a job and
// what it knows of it. Split by what it does:
//   job.cc                  set-up, the loop, the outcome
//   job_start.cc            the daemon tree's start, this host's ranks
//   job_events.cc           signals, exits, PMIx events, timers
//   job_daemon_reports.cc   what the node daemons report through the tree
//   job_end.cc              failures and ending the ranks
// Only these files include it.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/debug.h"
#include "launcher/clock.h"
#include "launcher/event_loop.h"
#include "launcher/job.h"
#include "launcher/pmix/request_service.h"
#include "launcher/profile/counter_forwarding.h"
#include "launcher/ranks/exit_status.h"
#include "launcher/ranks/local_ranks.h"
#include "launcher/ranks/node_setup.h"
#include "launcher/ranks/output_forwarding.h"
#include "launcher/ranks/rank_environment.h"
#include "launcher/ranks/stdin_forwarding.h"
#include "launcher/ranks/stdin_relay.h"
#include "launcher/spawned/spawned_fences.h"
#include "launcher/spawned/spawned_jobs.h"
#include "launcher/start/daemon_start.h"
#include "launcher/tree/daemon_tree.h"
#include "launcher/tree/wire.h"

namespace ferry::launcher {

class Job {
 public:
  Job(const Options& options, const JobPlan& plan, int local_node, PmixHost& server,
      const RankDefaults& defaults);
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  JobOutcome run();

 private:
  // After a failure the other ranks get SIGTERM, and SIGKILL if they are still
  // there after this long: short, as a failed job's ranks have nothing left to
  // do, but enough for a rank to flush and exit on SIGTERM.
  static constexpr int kFailureGraceMs = 300;
  // After mpirun passes on SIGINT/SIGTERM, what the user asked for: a second
  // for the ranks to act on it themselves.
  static constexpr int kInterruptGraceMs = 1000;
  // After SIGKILL went out, how long mpirun waits to hear of remote ranks'
  // ends. A daemon that says nothing by then is given up on: mpirun exits,
  // and the daemon, losing its link, kills its ranks itself.
  static constexpr int kRemoteKillWaitMs = 5000;
  // FERRY_PROFILE: after the last rank ended, how long mpirun waits for the
  // next piece of the daemons' counter files before it writes the report
  // without the rest (marked partial). Counted again at every piece.
  static constexpr int kProfileWaitMs = 10000;

  // What an event is about: its kind in the loop (see event_loop.h).
  enum Source : uint8_t {
    kServer = 1, kStdin, kStdinPipe, kRankStdout, kRankStderr, kDaemonListen, kDaemonLink, kStdinRelay,
    kSpawnedStdout, kSpawnedStderr
  };

  // An unfinished last line gets a newline when lines of several ranks (or
  // tagged lines) could otherwise run together; a 1-rank job's output is
  // passed on byte for byte.
  bool end_lines() const { return options_.num_ranks > 1 || options_.tag_output; }

  // What jobs that ranks spawn share with this one (spawned_jobs.h).
  SpawnContext spawn_context() const;

  // ---- Starting -----------------------------------------------------------

  // mpirun starts its own children in the daemon tree; each of them starts
  // its own (node_daemon.cc), and so on down. A failure below them arrives
  // as kStartFailed.
  void start_daemons();

  bool awaiting_profile() const {
    return std::any_of(profile_files_.begin(), profile_files_.end(),
                       [](const profile::CounterFileReceiver& r) { return !r.waiting_for().empty(); });
  }

  // A counter file's piece, or a daemon's last word on a job's files: to
  // the receiver of its job.
  void profile_piece(std::string_view body);
  void profile_done(std::string_view body);

  // Nothing more comes from the daemons that have not sent their counter
  // files: the report is written without them (and says it is partial).
  void give_up_on_profile();

  // A daemon could not be started, by mpirun or by the daemon above it:
  // the job ends, and a restart leaves its host out (restarts.h).
  void start_failed(const StartFailure& failed);

  // Ranks of the daemon at `position` and below are not running (any more):
  // nobody will report their exits.
  void forget_subtree(int position);

  // MASTER_PORT (chosen by mpirun, training_environment.h) stays bound here
  // while the other hosts start, so that rank 0 finds it free.
  void hold_master_port();

  void start_local_ranks();

  void set_running(int rank, bool running) {
    if (rank_running_[size_t(rank)] == running) return;
    rank_running_[size_t(rank)] = running;
    running_ += running ? 1 : -1;
  }

  // ---- Events -------------------------------------------------------------

  void handle_server_events();

  // PMIx_Spawn from a rank: started, or refused with one line (the
  // spawning rank gets the error status and decides; the job goes on).
  void spawn(SpawnParse& parsed);

  // A forwarded request or its answer (forwarded_requests.h), from this
  // host's server or from below: served here, or sent toward the daemon
  // that answers it or that asked.
  void route(const std::string& frame);

  // Where process `rank` of `nspace` runs: its host's tree position, or -1.
  int position_of(const std::string& nspace, int rank) const;

  // A spawned process connected, finalized or aborted.
  void spawned_rank_event(const ServerEvent& e);

  // What the daemons report (through the tree).
  void from_daemons(wire::Type type, std::string_view body);

  // By table: with every rank's exit reported through here, a search of
  // the plan would cost O(ranks^2) over a job on many hosts.
  const std::string& host_of(int rank) const;

  // A daemon's link closed: it and every daemon below it are gone (those
  // below lose their parent and end their ranks), so are their ranks.
  void node_lost(int position, const std::string& reason);

  void on_signal(int sig);

  void on_child_exit(pid_t pid, int status);

  // `host` is empty for a rank of mpirun's own host.
  void rank_ended(int r, pid_t pid, int status, const std::string& host);

  void on_timer();

  // A checkpoint is due: every rank's server raises the event (this host's
  // here, the others' through their daemons), and libmpi's handler sets the
  // flag that MPIX_Checkpoint_due agrees on.
  void checkpoint_due(const char* why);

  // ---- Ending -------------------------------------------------------------

  // Whether --max-restarts may start the job again after a failure: not
  // when the user ended it, its output was closed, or it could not start
  // (the same start would fail the same way).
  enum Restart { kRestartable, kFinal };

  // The first failure decides the message and the exit status.
  bool record(const Failure& f, Restart restart = kRestartable);

  void fail(const Failure& f, int spared_rank = -1, Restart restart = kRestartable);

  // Sends `sig` to every rank's process group (but `spared_rank`'s, of
  // the first job or of spawned job `spared_nspace`), and SIGKILL to all
  // that remain after `grace_ms`.
  void terminate(int sig, int grace_ms, int spared_rank = -1, const std::string& spared_nspace = "",
                 int spared_spawned_rank = -1);

  void kill_all();

  void signal_ranks(int sig, int spared_rank = -1);

  enum class Phase { kRunning, kTerminating, kKilling };
  // mpirun's exit status for a job ended by its time limit, as timeout(1)'s.
  static constexpr int kTimedOutStatus = 124;

  const Options& options_;
  const JobPlan& plan_;
  int master_port_fd_ = -1;
  int local_node_;
  PmixHost& server_;
  const RankDefaults& defaults_;
  EventLoop loop_;
  OutputSink stdout_{STDOUT_FILENO}, stderr_{STDERR_FILENO};
  StdinForwarder stdin_;
  std::optional<LocalRanks> local_;
  std::optional<SpawnedJobs> spawned_;  // always there; empty until a rank spawns
  std::optional<RequestService> requests_;  // what daemons' servers forward
  // Fences of spawned jobs on several hosts (mpirun gathers them).
  SpawnedFences spawned_fences_{0, [this](int position, const std::string& frame) {
                                  if (tree_) tree_->send_toward(position, frame);
                                }};
  std::unique_ptr<DaemonTree> tree_;
  // Rank 0's stdin when rank 0 runs under a daemon (stdin_relay.h).
  StdinRelay relay_{loop_, kStdinRelay, stdin_, [this](std::string_view bytes) {
                      int rank0_position = plan_.nodes[size_t(node_of_rank_[0])].position;
                      tree_->send_toward(rank0_position, wire::Encoder(wire::Type::kStdin).str(bytes).finish());
                    }};
  std::vector<bool> rank_running_;  // every rank of the job, wherever it runs
  std::vector<int> node_of_rank_;   // the plan's node of every rank
  int running_ = 0;
  Phase phase_ = Phase::kRunning;
  std::optional<Failure> failure_;
  bool restartable_ = false;
  double failed_ms_ = 0;
  std::vector<LostHost> lost_hosts_;
  std::optional<LostHost> unreachable_;
  double daemons_start_ms_ = 0;  // when mpirun began to start its children
  // FERRY_PROFILE: the daemons' counter files, written where the report reads:
  // the first job's, and each spawned job's with a part on a daemon's host
  // (none when they are not sent, or once given up on).
  std::vector<profile::CounterFileReceiver> profile_files_;
  bool profile_timer_armed_ = false;
};

}  // namespace ferry::launcher
