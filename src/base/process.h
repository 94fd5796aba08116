// What the base layer knows of the process it runs in, given to it by the
// runtime at MPI_Init (runtime/runtime.cc): its place in the job, for the
// predefined attributes and MPI_INFO_ENV, and how to end the job, for
// MPI_ERRORS_ARE_FATAL. The base sits below the runtime and must not call
// up into it; the runtime fills these in instead.
#pragma once

#include <string>

namespace ferry::process {

struct Facts {
  int world_size = 1;
  int universe_size = 1;  // MPI_UNIVERSE_SIZE
  int appnum = 0;         // MPI_APPNUM
  std::string hostname;
  int thread_level = 0;   // MPI_THREAD_SINGLE
  // This job's ranks on this host, and the cores they may use (the
  // cgroup's cpuset): the same answers on every rank of the host.
  int host_ranks = 1;
  int host_cores = 1;
};

// Set once, before any MPI object is used.
void set_facts(const Facts& facts);
const Facts& facts();

// Ends the whole job: prints `message`, tells the launcher, exits with
// `exit_code`. Before the runtime has installed its way (set_abort), only
// this process ends.
using AbortFn = void (*)(int exit_code, const std::string& message);
void set_abort(AbortFn abort);
[[noreturn]] void abort_job(int exit_code, const std::string& message);

}  // namespace ferry::process
