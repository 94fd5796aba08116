#include "job_info.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

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

JobInfo::JobInfo(const JobDescription& job) {
  const uint32_t n = uint32_t(job.num_ranks);
  std::string all_ranks;  // "0,1,...,n-1": every rank is on this host
  for (uint32_t r = 0; r < n; ++r) {
    if (r != 0) all_ranks += ',';
    all_ranks += std::to_string(r);
  }

  InfoList list;
  // Job level. One app, one node, and the job fills the universe.
  list.add_string(PMIX_JOBID, job.nspace);
  list.add_u32(PMIX_UNIV_SIZE, n);
  list.add_u32(PMIX_JOB_SIZE, n);
  list.add_u32(PMIX_MAX_PROCS, n);
  list.add_u32(PMIX_APPNUM, 0);
  list.add_u32(PMIX_JOB_NUM_APPS, 1);
  list.add_u32(PMIX_NUM_NODES, 1);
  list.add_u32(PMIX_LOCAL_SIZE, n);
  list.add_string(PMIX_LOCAL_PEERS, all_ranks);
  list.add_rank(PMIX_LOCALLDR, 0);
  list.add_u32(PMIX_NODEID, 0);
  list.add_string(PMIX_HOSTNAME, job.hostname);
  add_regex(list, PMIX_NODE_MAP, job.hostname, PMIx_generate_regex);
  add_regex(list, PMIX_PROC_MAP, all_ranks, PMIx_generate_ppn);
  list.add_string(kJobSecretKey, job.secret);

  // Per rank: PMIx wants PMIX_RANK first in each array.
  for (uint32_t r = 0; r < n; ++r) {
    InfoList proc;
    proc.add_rank(PMIX_RANK, r);
    proc.add_u16(PMIX_LOCAL_RANK, uint16_t(r));
    proc.add_u16(PMIX_NODE_RANK, uint16_t(r));
    proc.add_rank(PMIX_GLOBAL_RANK, r);
    proc.add_rank(PMIX_APP_RANK, r);
    proc.add_u32(PMIX_APPNUM, 0);
    proc.add_u32(PMIX_NODEID, 0);
    proc.add_string(PMIX_HOSTNAME, job.hostname);
    pmix_data_array_t array = proc.convert();
    list.add(PMIX_PROC_INFO_ARRAY, &array, PMIX_DATA_ARRAY);
    PMIx_Data_array_destruct(&array);
  }
  array_ = list.convert();
}

JobInfo::~JobInfo() { PMIx_Data_array_destruct(&array_); }

}  // namespace ferry::launcher
