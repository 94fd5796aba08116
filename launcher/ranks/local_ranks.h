// The ranks that this process starts on its own host: mpirun for the ranks
// of its host, a node daemon for those of its. Starts them (environment,
// binding, pipes), forwards their output whole lines at a time, learns of
// their exits, and signals them. The owner runs the event loop: it hands
// over the epoll events tagged with this class's tags and the children it
// reaped.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "launcher/job.h"
#include "launcher/ranks/binding.h"
#include "launcher/ranks/output_forwarding.h"
#include "launcher/ranks/rank_environment.h"
#include "launcher/ranks/training_environment.h"

namespace ferry::launcher {

class PmixHost;

struct LocalRanksSetup {
  std::string nspace;              // the job's PMIx namespace
  std::vector<int> ranks;          // global ranks of this host, ascending
  int num_ranks = 0;               // of the whole job
  // Where these ranks sit among their host's ranks of the job, when the
  // host runs several sets of them (the apps of a spawned job): the
  // first one's local rank, and the count (0: ranks.size()).
  int first_local_rank = 0;
  int local_size = 0;
  std::string program_path;
  std::vector<std::string> argv;   // program first
  std::string working_dir;         // empty: this process's
  bool tag_output = false;
  // Under --tag-output, a job started by PMIx_Spawn tags its lines
  // "[job,rank] " (its number among them); empty: "[rank] ".
  std::string job_tag;
  // Goes into bits 40 and up of this set's epoll data (see on_output), to
  // tell several sets under one event kind apart.
  uint32_t event_group = 0;
  bool end_lines = false;          // end an unfinished last line with '\n'
  std::vector<RankBinding> bindings;  // per local rank; empty: none bound
  bool report_bindings = false;    // --report-bindings: a line per rank on stderr
  std::string hostname;            // for that line
  TrainingJob training;            // torchrun's variables; off unless the plan has them
  TrainingPlace training_place;
};

class LocalRanks {
 public:
  // Epoll data for a rank's output: `stdout_kind`/`stderr_kind` in the low
  // byte, the local index in bits 8-39, setup.event_group above. `sink_for(local_index, 1 or 2)` says
  // where each rank's stdout and stderr go.
  LocalRanks(int epoll_fd, uint8_t stdout_kind, uint8_t stderr_kind, LocalRanksSetup setup,
             const RankDefaults& defaults, std::function<OutputSink*(int, int)> sink_for);
  ~LocalRanks();  // kills and reaps what still runs (an event loop that failed)
  LocalRanks(const LocalRanks&) = delete;
  LocalRanks& operator=(const LocalRanks&) = delete;

  // Starts local rank `index` with `base` plus its rank variables and
  // PMIx's. `stdin_fd` becomes its fd 0. Throws std::runtime_error with the
  // reason; a rank whose exec failed has been started (it exits 127).
  void start(int index, const Environment& base, PmixHost& server, int stdin_fd);

  // An epoll event with this class's tag: forwards the output.
  void on_output(uint64_t event_data);

  struct Exit {
    int rank;
    pid_t pid;
    int wait_status;
  };
  // A reaped child: if it is one of the ranks, its output is flushed and
  // its exit returned.
  std::optional<Exit> reaped(pid_t pid, int wait_status);

  void signal(int sig, int spared_rank = -1);  // each running rank's process group
  void kill_leftovers();  // SIGKILL to every rank's process group, running or not
  int running() const { return running_; }
  int size() const { return int(ranks_.size()); }
  int rank_at(int index) const { return setup_.ranks[size_t(index)]; }
  pid_t pid_of(int index) const { return ranks_[size_t(index)].pid; }

 private:
  struct Rank {
    pid_t pid = -1;  // also its process group
    bool running = false;
    std::optional<LineForwarder> out, err;
  };
  void watch(int fd, uint64_t data);

  int epoll_fd_;
  uint8_t stdout_kind_, stderr_kind_;
  LocalRanksSetup setup_;
  const RankDefaults& defaults_;
  std::function<OutputSink*(int, int)> sink_for_;
  std::vector<char*> argv_;
  std::vector<Rank> ranks_;
  int running_ = 0;
};

}  // namespace ferry::launcher
