// The PMIx client side of wire-up: who we are, who shares our host, and an
// exchange of contact cards.
//
// Only standard PMIx keys are read, so ranks started by any PMIx server
// (ours, Slurm's srun --mpi=pmix, PRRTE) work unchanged. Without a server the
// program runs as a singleton: a 1-rank job.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/error.h"

namespace ferry::pmi {

struct Job {
  bool singleton = false;
  std::string nspace;
  int rank = 0;
  int size = 1;
  int universe_size = 1;
  int appnum = 0;
  std::vector<int> local_peers;  // world ranks on this host, including us
  int local_rank = 0;
  std::string hostname;
};

Err init(Job* job);
void finalize();

// Publishes a value under `key` for the other ranks (PMIx_Put + Commit).
Err publish(const char* key, const std::string& value);
// PMIx_Fence over the whole job; with `collect`, published values are
// gathered so later lookups are local.
Err fence(bool collect);
// A value that rank `rank` published.
Err lookup(int rank, const char* key, std::string* value);
// A job-level string the launcher registered (e.g. ferry.job.secret).
std::optional<std::string> job_string(const char* key);

// This process's PMIx namespace (its job's name).
const std::string& nspace();

// Asks the server to end the whole job; returns only if there is no server.
void abort(int code, const char* message);

}  // namespace ferry::pmi
