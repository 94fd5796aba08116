// The names of a job's shared-memory files on one host: each rank's
// segment and its doorbell pipe (src/transport/shm).
//
//   /dev/shm/ferry-<uid>-<job>-<rank>        the segment (shm_open name "/ferry-...")
//   /dev/shm/ferry-<uid>-<job>-<rank>.wake   its doorbell (a FIFO)
//
// <job> is a 64-bit FNV-1a hash of the PMIx namespace, in hex. A rank
// computes its peers' names instead of looking them up: with hundreds of
// ranks on a host, fetching every peer's name from the PMIx server was a
// round trip per pair (65,280 of them at 256 ranks, 10 s of the start-up).
// Namespaces of jobs that run at the same time differ, so the names do; the
// uid keeps two users apart in the shared directory. A name that exists
// when a rank creates it was left by a killed job and is replaced.
//
// Shared by the runtime (which makes the files) and the launcher (which
// removes what a rank killed before MPI_Finalize left: remove_rank_files).
#pragma once

#include <string>

namespace ferry::shm_names {

// "/ferry-<uid>-<job>-": the shm_open name of every file of the job `nspace`
// starts with it.
std::string job_prefix(const std::string& nspace);
// The shm_open name of rank `rank`'s segment of job `nspace`.
std::string segment(const std::string& nspace, int rank);
// The doorbell pipe beside a segment, as a path.
std::string doorbell_path(const std::string& segment_name);
// Removes rank `rank`'s segment and doorbell of job `nspace` if they are
// there; returns how many were.
int remove_rank_files(const std::string& nspace, int rank);

}  // namespace ferry::shm_names
