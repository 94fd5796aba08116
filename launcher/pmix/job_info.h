// What mpirun tells the PMIx server about the job: the standard job-level
// and per-rank keys that ranks read at PMIx_Init (docs/architecture.md), plus
// Ferry's job secret.
#pragma once

#include <pmix.h>
#include <pmix_server.h>

#include <string>
#include <vector>

namespace ferry::launcher {

// The job-level key under which ranks find the job secret (PMIX_STRING).
inline constexpr const char* kJobSecretKey = "ferry.job.secret";

struct NodeDescription {
  std::string hostname;    // as mpirun names the host
  std::vector<int> ranks;  // global ranks, ascending
};

struct JobDescription {
  std::string nspace;    // PMIx namespace, also PMIX_JOBID
  int num_ranks = 0;
  std::string secret;    // 32 hex digits
  std::vector<NodeDescription> nodes;  // PMIx node ids are indexes
  int this_node = 0;     // the node whose server is told about the job
  // PMIX_UNIV_SIZE (MPI_UNIVERSE_SIZE): the slots of mpirun's allocation;
  // 0: the job's size.
  int universe_size = 0;
  // The ranks of each app (MPI_Comm_spawn_multiple), numbered app after
  // app; empty: one app of every rank.
  std::vector<int> app_sizes;
  // A job started by PMIx_Spawn: PMIX_SPAWNED and PMIX_PARENT_ID, the
  // process that asked for it. Empty: the job mpirun was started with.
  std::string parent_nspace;
  int parent_rank = 0;
};

// A job on this host alone: node 0 runs every rank.
JobDescription single_host_job(std::string nspace, int num_ranks, std::string hostname,
                               std::string secret);

// 128 random bits from getrandom(), as 32 lowercase hex digits.
std::string make_job_secret();

// The pmix_info_t array for PMIx_server_register_nspace, owned here: the
// server reads it until the registration's callback has run.
class JobInfo {
 public:
  explicit JobInfo(const JobDescription& job);
  ~JobInfo();
  JobInfo(const JobInfo&) = delete;
  JobInfo& operator=(const JobInfo&) = delete;

  pmix_info_t* info() const { return static_cast<pmix_info_t*>(array_.array); }
  size_t size() const { return array_.size; }

 private:
  pmix_data_array_t array_;
};

}  // namespace ferry::launcher
