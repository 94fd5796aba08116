// The open-files limit of the process that starts a host's ranks (mpirun,
// or ferryd for its host): it keeps two pipes per rank and PMIx one socket
// per connected rank, plus its links in the daemon tree, so a host with
// hundreds of ranks needs more than the usual soft limit of 1024.
#pragma once

#include <sys/resource.h>

#include <optional>
#include <string>

namespace ferry::launcher {

// Raises the soft limit when `ranks` ranks and `links` tree links need more
// (the ranks get the original back in `original`: a huge limit slows
// programs that close every possible fd). Returns "" or the one line that
// says why the job cannot run ("ferryd: 600 ranks need about 2473 open
// files, but the limit (ulimit -Hn) is 2048").
std::string fit_file_limit(const std::string& who, int ranks, int links, std::optional<rlimit>* original);

}  // namespace ferry::launcher
