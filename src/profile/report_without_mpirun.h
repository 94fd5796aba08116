// FERRY_PROFILE's report for a job that mpirun did not start (srun --mpi=pmix, another launcher's
// PMIx server, a singleton): nobody else will write it, so rank 0 does, at the end of its
// MPI_Finalize, by running ferry_profile_report (installed next to mpirun, bin/ beside libmpi's
// lib/) on FERRY_PROFILE_DIR. The tool waits (at most kWaitSeconds) until every rank's counter file
// says that rank finished; one that does not in time makes the report partial. Rank 0's
// MPI_Finalize returns when the report is written: the step's end would kill a tool left running.
// Under mpirun nothing happens here (mpirun writes the report once every rank has ended).
#pragma once

#include <string>

namespace ferry::profile {

inline constexpr int kWaitSeconds = 10;

// At MPI_Init's return, with the counter file made in `dir` for job `nspace`: remembers whether
// this job's launcher is mpirun (its PMIx server registers the job's secret) while PMIx is up.
void note_launcher(const std::string& dir, const std::string& nspace, int rank);

// At the end of MPI_Finalize (this rank's file marked complete): rank 0 of a job without mpirun
// writes the report to FERRY_PROFILE (the tool says where, or why it could not).
void write_report_without_mpirun();

}  // namespace ferry::profile
