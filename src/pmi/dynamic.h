// The PMIx calls behind MPI's dynamic processes (MPI-3.1 §10): starting a
// job, reading what a process of another job published, and the launcher's
// name service, on which MPI_Publish_name and the ports' rendezvous stand.
//
// Works under any PMIx server that implements them (Ferry's mpirun does;
// Slurm's srun answers spawn and publish with "not supported").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/error.h"

namespace ferry::pmi {

// A process anywhere in the launcher's universe: its job and its rank there.
struct ProcessName {
  std::string nspace;
  int rank = 0;
  bool operator==(const ProcessName&) const = default;
};

// One program of MPI_Comm_spawn(_multiple), with the info keys MPI-3.1
// §10.3.4 reserves (empty: not given).
struct SpawnApp {
  std::string command;
  std::vector<std::string> argv;
  int maxprocs = 1;
  std::string host;
  std::string hostfile;
  std::string wdir;
};

// Starts one job running `apps` (PMIx_Spawn); its namespace goes in
// *nspace. A refusal (no such program, too few slots) is MPI_ERR_SPAWN with
// the server's reason.
Err spawn(const std::vector<SpawnApp>& apps, std::string* nspace);

// The process that spawned this job (PMIX_PARENT_ID), if one did.
std::optional<ProcessName> parent();

// A value that process `who` published (PMIx_Put + Commit), from any job.
Err lookup(const ProcessName& who, const char* key, std::string* value);

// The launcher's name service. `wait_s`: how long a lookup waits for the
// name to be published (0: not at all; negative: without limit). A name
// read with `once` is removed by that first lookup (PMIX_PERSIST_FIRST_READ
// at publish). Errors: a taken name is MPI_ERR_NAME at publish ("already
// published"), a missing one MPI_ERR_NAME at lookup and MPI_ERR_SERVICE at
// unpublish, as MPI-3.1 §10.4.4 names them.
Err publish_name(const std::string& key, const std::string& value, bool once = false);
Err lookup_name(const std::string& key, double wait_s, std::string* value);
Err unpublish_name(const std::string& key);

}  // namespace ferry::pmi
