// Everything a node daemon needs to run its part of a job, decided once by
// mpirun and sent to every daemon when it starts (on its stdin, with the
// job secret): the nodes and their ranks, the program, the environment
// additions, the binding policy, the shape of the daemon tree and how a
// daemon starts its own children in it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "launcher/hosts/launch_policy.h"
#include "launcher/ranks/training_environment.h"
#include "launcher/start/remote_start.h"

namespace ferry::launcher {

struct PlanNode {
  std::string host;       // as the user named it (hostfile, -H)
  std::vector<int> ranks; // global ranks, ascending
  int position = 0;       // in the daemon tree: 0 is mpirun itself
  bool oversubscribed = false;
};

struct JobPlan {
  std::string nspace;
  std::string secret;
  int num_ranks = 0;
  int universe_size = 0;        // the allocation's slots (PMIX_UNIV_SIZE)
  std::vector<PlanNode> nodes;  // PMIx node ids are indexes here
  int fanout = 8;               // children per daemon (and of mpirun)
  int num_daemons = 0;          // tree positions 1..num_daemons
  // How every daemon starts its children: mpirun's --launch-agent,
  // --accept-new-host-keys and FERRY_LAUNCH_TIMEOUT (daemon_start.h).
  RemoteStartOptions remote_start;
  // Fences of the job carry no data: a rank's card is fetched from its
  // host when first asked for (PMIx direct modex through the tree), from
  // FERRY_DIRECT_MODEX_RANKS ranks on.
  bool direct_modex = false;
  std::string program_path;
  std::vector<std::string> program_args;  // argv, program first
  // Set in every remote rank on top of the daemon's own environment:
  // -x/-genv variables and mpirun's FERRY_*/PMIX_MCA_* settings.
  std::vector<std::pair<std::string, std::string>> environment;
  std::string working_dir;       // mpirun's, or --wdir
  bool working_dir_given = false;  // --wdir: a missing directory is an error
  bool tag_output = false;
  MapBy map_by = MapBy::kSlot;
  BindTo bind_to = BindTo::kDefault;
  bool report_bindings = false;
  TrainingJob training;          // torchrun's variables (GROUP_RANK: a node's index here)
  // MASTER_PORT was chosen by mpirun: rank 0's host holds it from its start
  // until its ranks start, and says so if it was taken meanwhile.
  bool hold_master_port = false;
  // FERRY_PROFILE without the user's FERRY_PROFILE_DIR: mpirun's directory
  // of counter files (its session directory's, on its own disk). Each
  // daemon's ranks count into the daemon's own session directory instead,
  // and the daemon sends their files up the tree to mpirun, which writes
  // them here, when its ranks have ended. Empty: nothing is sent.
  std::string profile_collect_dir;

  // The node whose daemon sits at `position`, or -1.
  int node_at(int position) const;
};

std::string encode_plan(const JobPlan& plan);
// False when `data` is not a plan of this build.
bool decode_plan(const std::string& data, JobPlan* plan);

// The daemon tree: mpirun is position 0, daemons 1..n; each position has at
// most `fanout` children, so no process talks to more than fanout + 1 others
// however many hosts the job has.
int tree_parent(int position, int fanout);
std::vector<int> tree_children(int position, int fanout, int num_daemons);

}  // namespace ferry::launcher
