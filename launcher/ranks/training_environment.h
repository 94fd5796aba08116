// torchrun's worker environment (PyTorch's torch.distributed.run), so that a
// training script written for torchrun runs under mpirun unchanged:
// init_process_group("env://") reads RANK, WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT; scripts read LOCAL_RANK for their device and
// TORCHELASTIC_RESTART_COUNT to resume from a checkpoint.
//
// mpirun decides the job's part once per attempt (the rendezvous address and
// port, the restart count, the run id) and sends it in the job plan; whoever
// starts a rank (mpirun on its host, a node daemon on the others) adds the
// rank's own part. A variable the user set (-x/-genv, or exported in
// mpirun's environment) is never replaced.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "launcher/ranks/rank_environment.h"

namespace ferry::launcher {

// The job's side, the same for every rank of one attempt.
struct TrainingJob {
  bool enabled = false;       // --no-torch-env turns it off
  std::string master_addr;    // empty: not determined (a warning said why)
  int master_port = 0;        // 0: not determined
  int restart_count = 0;      // TORCHELASTIC_RESTART_COUNT: the attempt under --max-restarts
  int max_restarts = 0;
  std::string run_id;         // TORCHELASTIC_RUN_ID: the job's PMIx namespace
  int num_hosts = 1;          // GROUP_WORLD_SIZE: hosts that run ranks
};

// A rank's place among the hosts: GROUP_RANK is its host's index.
struct TrainingPlace {
  int group_rank = 0;
};

// Sets torchrun's variables for one rank: RANK, LOCAL_RANK, WORLD_SIZE,
// LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE, ROLE_RANK, ROLE_WORLD_SIZE,
// ROLE_NAME, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RESTART_COUNT,
// TORCHELASTIC_MAX_RESTARTS, TORCHELASTIC_RUN_ID; each only where `env` does
// not have it yet.
void add_training_variables(Environment& env, const RankPosition& where, const TrainingPlace& place,
                            const TrainingJob& job);

// One of the names above: mpirun forwards a user's exported value of these
// to the remote ranks, as if given with -x.
bool is_training_variable(std::string_view name);

// The address ranks meet rank 0 at. `rank0_host` is the name of rank 0's host
// as the user gave it, or empty when rank 0 runs on mpirun's host; `other_host`
// any host of the job other than mpirun's (empty: every rank is on mpirun's
// host). On one host: 127.0.0.1. Rank 0 elsewhere: that host's address as
// mpirun resolves it. Rank 0 here with other hosts in the job: the address
// this host sends from towards `other_host`. Empty with `error` set when
// the name does not resolve.
std::string choose_master_addr(const std::string& rank0_host, const std::string& other_host, std::string* error);

// A port that is free on this host now (bound and released), below the
// kernel's ephemeral range where it can (so that no host's outgoing
// connection holds it), else the kernel's choice. 0 with `error` set when
// none can be had.
int pick_free_port(std::string* error);

// Binds `port` on every address of this host (IPv6 dual stack, else IPv4),
// not listening, so that nothing else takes it until the ranks start: the
// socket is close-on-exec and must be closed just before rank 0 is started.
// -1 with `error` ("port 29500 is in use on this host") when it is taken.
int hold_port(int port, std::string* error);

}  // namespace ferry::launcher
