// mpirun's checkpoint and restart options (issue 15): where checkpoints go,
// how often the ranks are asked for one, and how often a failed job is
// started again. Parsed with the rest of mpirun's command line (options.cc)
// and checked here, each bad value refused with one line.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ferry::launcher {

struct FaultTolerance {
  // --checkpoint-dir (Hydra: -ckpoint-prefix), made absolute and created;
  // empty: not given (the ranks' FERRY_CHECKPOINT_DIR, if any, applies).
  std::string checkpoint_dir;
  // --checkpoint-local-dir: node-local directory (per host; "%h" is the
  // host's name), made absolute but not created (the ranks create it on
  // their hosts). Empty: not given.
  std::string checkpoint_local_dir;
  // --checkpoint-redundancy partner: each rank's files are copied to a rank
  // on the next host (SCR's PARTNER scheme).
  bool partner_redundancy = false;
  // --checkpoint-interval (Hydra: -ckpoint-interval): milliseconds between
  // due events; 0: only SIGUSR1 raises one.
  int checkpoint_interval_ms = 0;
  // --max-restarts (torchrun's name): how many times a failed job is
  // started again; 0: never.
  int max_restarts = 0;
  // --restart-delay: milliseconds between a failed attempt's end and the
  // next start.
  int restart_delay_ms = 0;
  // --restart-from (Hydra: -ckpoint-num): "latest" or an epoch number, for
  // the first attempt; restarts always read the latest epoch. Empty: not
  // given.
  std::string restart_from;
};

// What CLI11 stores before it is checked.
struct RawFaultOptions {
  std::string checkpoint_dir;
  std::string checkpoint_local_dir;
  std::string checkpoint_redundancy;
  std::string checkpoint_interval;
  std::string checkpoint_keep;
  std::string checkpoint_library;
  std::string max_restarts;
  std::string restart_delay;
  std::string restart_from;
};

// One option of mpirun's command line that stores its text in a RawFaultOptions field; the last
// one given counts. A table, so that only options.cc compiles CLI11 (its header alone costs
// seconds of every file that includes it).
struct FaultOption {
  const char* name;                       // "--checkpoint-dir"
  std::string RawFaultOptions::*field;
  const char* type_name;                  // "DIR", shown in --help
  const char* help;
};

std::span<const FaultOption> fault_option_table();

// Checks the values and fills `out`; the settings that libmpi reads
// (FERRY_CHECKPOINT_DIR, _LOCAL_DIR, _REDUNDANCY, _KEEP, FERRY_RESTART_FROM)
// are appended to `env`, the variables every rank gets. `hosts` is how many
// hosts the job was placed on (partner copies need two). Returns "" or the
// one-line reason (without "mpirun: ").
std::string apply_fault_options(const RawFaultOptions& raw, int hosts, FaultTolerance& out,
                                std::vector<std::pair<std::string, std::string>>& env);

}  // namespace ferry::launcher
