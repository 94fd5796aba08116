#include "launcher/pmix/job_info.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ferry::launcher {
namespace {

// Owns a PMIx info list (PMIx_Info_list_*): values are copied in, so the
// arguments of add() can be temporaries.
class InfoList {
 public:
  InfoList() : list_(PMIx_Info_list_start()) {}
  ~InfoList() { PMIx_Info_list_release(list_); }
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;

  void add(const char* key, const void* value, pmix_data_type_t type) {
    if (PMIx_Info_list_add(list_, key, value, type) != PMIX_SUCCESS)
      throw std::runtime_error(std::string("cannot describe the job to PMIx (key ") + key + ")");
  }
  void add_u32(const char* key, uint32_t v) { add(key, &v, PMIX_UINT32); }
  void add_u16(const char* key, uint16_t v) { add(key, &v, PMIX_UINT16); }
  void add_rank(const char* key, pmix_rank_t v) { add(key, &v, PMIX_PROC_RANK); }
  void add_string(const char* key, const std::string& v) { add(key, v.c_str(), PMIX_STRING); }
  void add_bool(const char* key, bool v) { add(key, &v, PMIX_BOOL); }

  // The list as an array of pmix_info_t (copied; the caller destructs it).
  pmix_data_array_t convert() {
    pmix_data_array_t array;
    PMIX_DATA_ARRAY_CONSTRUCT(&array, 0, PMIX_INFO);
    if (PMIx_Info_list_convert(list_, &array) != PMIX_SUCCESS)
      throw std::runtime_error("cannot describe the job to PMIx");
    return array;
  }

 private:
  void* list_;
};

// PMIx's compact encodings of where the job runs. The result is a
// PMIX_REGEX value, which PMIx sizes itself (it may not be a C string).
void add_regex(InfoList& list, const char* key, const std::string& input,
               pmix_status_t (*generate)(const char*, char**)) {
  char* regex = nullptr;
  if (generate(input.c_str(), &regex) != PMIX_SUCCESS || regex == nullptr)
    throw std::runtime_error(std::string("cannot build the PMIx ") + key);
  list.add(key, regex, PMIX_REGEX);
  std::free(regex);
}

}  // namespace

std::string make_job_secret() {
  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("getrandom failed; cannot make the job secret");
    got += size_t(n);
  }
  std::string hex(32, '0');
  static const char kDigits[] = "0123456789abcdef";
  for (size_t i = 0; i < sizeof bytes; ++i) {
    hex[2 * i] = kDigits[bytes[i] >> 4];
    hex[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return hex;
}

JobDescription single_host_job(std::string nspace, int num_ranks, std::string hostname,
                               std::string secret) {
  JobDescription job;
  job.nspace = std::move(nspace);
  job.num_ranks = num_ranks;
  job.secret = std::move(secret);
  NodeDescription node;
  node.hostname = std::move(hostname);
  for (int r = 0; r < num_ranks; ++r) node.ranks.push_back(r);
  job.nodes.push_back(std::move(node));
  return job;
}

JobInfo::JobInfo(const JobDescription& job) {
  const uint32_t n = uint32_t(job.num_ranks);
  const NodeDescription& here = job.nodes.at(size_t(job.this_node));
  // Where every rank runs: its node, and its index among that node's ranks.
  std::vector<uint32_t> node_of(n, 0);
  std::vector<uint16_t> local_rank_of(n, 0);
  std::string node_map, proc_map;  // "h1,h2" and "0,1;2,3"
  for (size_t i = 0; i < job.nodes.size(); ++i) {
    const NodeDescription& node = job.nodes[i];
    node_map += (i == 0 ? "" : ",") + node.hostname;
    if (i != 0) proc_map += ';';
    for (size_t k = 0; k < node.ranks.size(); ++k) {
      uint32_t r = uint32_t(node.ranks[k]);
      node_of[r] = uint32_t(i);
      local_rank_of[r] = uint16_t(k);
      proc_map += (k == 0 ? "" : ",") + std::to_string(r);
    }
  }
  // Each rank's app and its rank within it.
  std::vector<int> app_sizes = job.app_sizes.empty() ? std::vector<int>{job.num_ranks} : job.app_sizes;
  std::vector<uint32_t> app_of(n, 0), app_rank_of(n, 0);
  for (uint32_t app = 0, r = 0; app < app_sizes.size(); ++app)
    for (int k = 0; k < app_sizes[app] && r < n; ++k, ++r) {
      app_of[r] = app;
      app_rank_of[r] = uint32_t(k);
    }
  std::string local_peers;
  for (size_t k = 0; k < here.ranks.size(); ++k) local_peers += (k == 0 ? "" : ",") + std::to_string(here.ranks[k]);

  InfoList list;
  // Job level.
  list.add_string(PMIX_JOBID, job.nspace);
  list.add_u32(PMIX_UNIV_SIZE, job.universe_size > 0 ? uint32_t(job.universe_size) : n);
  list.add_u32(PMIX_JOB_SIZE, n);
  list.add_u32(PMIX_MAX_PROCS, n);
  if (app_sizes.size() == 1) list.add_u32(PMIX_APPNUM, 0);  // else per rank only
  list.add_u32(PMIX_JOB_NUM_APPS, uint32_t(app_sizes.size()));
  if (!job.parent_nspace.empty()) {
    // MPI_Comm_get_parent's source (MPI-3.1 §10.3.2).
    pmix_proc_t parent;
    PMIX_LOAD_PROCID(&parent, job.parent_nspace.c_str(), pmix_rank_t(job.parent_rank));
    list.add(PMIX_PARENT_ID, &parent, PMIX_PROC);
    list.add_bool(PMIX_SPAWNED, true);
  }
  list.add_u32(PMIX_NUM_NODES, uint32_t(job.nodes.size()));
  // This node, as its ranks see it.
  list.add_u32(PMIX_LOCAL_SIZE, uint32_t(here.ranks.size()));
  list.add_string(PMIX_LOCAL_PEERS, local_peers);
  list.add_rank(PMIX_LOCALLDR, here.ranks.empty() ? 0 : pmix_rank_t(here.ranks[0]));
  list.add_u32(PMIX_NODEID, uint32_t(job.this_node));
  list.add_string(PMIX_HOSTNAME, here.hostname);
  add_regex(list, PMIX_NODE_MAP, node_map, PMIx_generate_regex);
  add_regex(list, PMIX_PROC_MAP, proc_map, PMIx_generate_ppn);
  list.add_string(kJobSecretKey, job.secret);

  // Per rank: PMIx wants PMIX_RANK first in each array.
  for (uint32_t r = 0; r < n; ++r) {
    InfoList proc;
    proc.add_rank(PMIX_RANK, r);
    proc.add_u16(PMIX_LOCAL_RANK, local_rank_of[r]);
    proc.add_u16(PMIX_NODE_RANK, local_rank_of[r]);
    proc.add_rank(PMIX_GLOBAL_RANK, r);
    proc.add_rank(PMIX_APP_RANK, app_rank_of[r]);
    proc.add_u32(PMIX_APPNUM, app_of[r]);
    proc.add_u32(PMIX_NODEID, node_of[r]);
    proc.add_string(PMIX_HOSTNAME, job.nodes[node_of[r]].hostname);
    pmix_data_array_t array = proc.convert();
    list.add(PMIX_PROC_INFO_ARRAY, &array, PMIX_DATA_ARRAY);
    PMIx_Data_array_destruct(&array);
  }
  array_ = list.convert();
}

JobInfo::~JobInfo() { PMIx_Data_array_destruct(&array_); }

}  // namespace ferry::launcher
