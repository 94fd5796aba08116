#include "pmi/pmix_client.h"

#include <pmix.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <utility>

#include "common/debug.h"
#include "pmi/checkpoint_request.h"
#include "mpi.h"

namespace ferry::pmi {
namespace {

pmix_proc_t me;
std::string my_nspace;
bool initialized = false;
bool singleton = false;
std::vector<int> local_peers;  // world ranks on this host, including us

Err pmix_error(const char* what, pmix_status_t rc) {
  return fail(MPI_ERR_OTHER, "%s failed: %s", what, PMIx_Error_string(rc));
}

// A job-level value (rank wildcard), optional.
bool get_job_value(const char* key, pmix_value_t** value) {
  pmix_proc_t wildcard;
  PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);
  pmix_info_t info;
  bool optional = true;
  PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
  pmix_status_t rc = PMIx_Get(&wildcard, key, &info, 1, value);
  PMIX_INFO_DESTRUCT(&info);
  return rc == PMIX_SUCCESS;
}

bool get_my_value(const char* key, pmix_value_t** value) {
  pmix_info_t info;
  bool optional = true;
  PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
  pmix_status_t rc = PMIx_Get(&me, key, &info, 1, value);
  PMIX_INFO_DESTRUCT(&info);
  return rc == PMIX_SUCCESS;
}

// PMIx servers differ in the integer type they store a key with.
std::optional<long> as_integer(const pmix_value_t* v) {
  switch (v->type) {
    case PMIX_UINT32: return v->data.uint32;
    case PMIX_INT32: return v->data.int32;
    case PMIX_UINT16: return v->data.uint16;
    case PMIX_INT16: return v->data.int16;
    case PMIX_UINT64: return static_cast<long>(v->data.uint64);
    case PMIX_INT64: return v->data.int64;
    case PMIX_INT: return v->data.integer;
    case PMIX_UINT: return static_cast<long>(v->data.uint);
    case PMIX_PROC_RANK: return static_cast<long>(v->data.rank);
    case PMIX_SIZE: return static_cast<long>(v->data.size);
    default: return std::nullopt;
  }
}

std::optional<long> job_integer(const char* key) {
  pmix_value_t* v = nullptr;
  if (!get_job_value(key, &v)) return std::nullopt;
  auto r = as_integer(v);
  PMIX_VALUE_RELEASE(v);
  return r;
}

std::optional<long> my_integer(const char* key) {
  pmix_value_t* v = nullptr;
  if (!get_my_value(key, &v)) return std::nullopt;
  auto r = as_integer(v);
  PMIX_VALUE_RELEASE(v);
  return r;
}

// PMIX_LOCAL_PEERS is a comma-separated list of ranks.
std::vector<int> parse_rank_list(std::string_view list) {
  std::vector<int> ranks;
  size_t start = 0;
  while (start < list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    ranks.push_back(std::atoi(std::string(list.substr(start, end - start)).c_str()));
    start = end + 1;
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

// ---- Values of the ranks on this host, fetched for all of them at once ----
//
// Under a server with PMIx's hash data store (mpirun's choice, see
// launcher/pmix/pmix_host.cc) every PMIx_Get of a peer's value is a round trip to
// the server, and the runtime reads one key of every local peer in a row
// right after a fence (the shared-memory names). One after another, each of
// those round trips waits for the server's thread and then for this rank's
// own to be scheduled: 15 of 0.3-2.5 ms each per rank with 16 ranks on 2
// cores. Asked together with PMIx_Get_nb they cost about one.
//
// The first lookup of a key for a local peer fetches that key of every local
// peer; what the server does not have yet is left to the plain PMIx_Get. A
// fence forgets what was fetched: peers may have published since.
class LocalValues {
 public:
  // The value `key` of local peer `rank`, fetching the key of all local
  // peers first if not done yet; false if the batch did not bring it.
  bool find(int rank, const char* key, std::string* value) {
    std::lock_guard lock(mutex_);
    if (fetched_keys_.insert(key).second) fetch_all(key);
    auto it = values_.find({rank, key});
    if (it == values_.end()) return false;
    *value = it->second;
    return true;
  }

  void clear() {
    std::lock_guard lock(mutex_);
    values_.clear();
    fetched_keys_.clear();
  }

 private:
  // One PMIx_Get_nb; PMIx may read the proc until it calls back.
  struct Request {
    LocalValues* self;
    pmix_proc_t proc;
    const char* key;
  };

  // Called with mutex_ held.
  void fetch_all(const char* key) {
    auto start = std::chrono::steady_clock::now();
    std::vector<Request> requests;  // sized once: PMIx holds pointers into it
    requests.reserve(local_peers.size());
    for (int peer : local_peers) {
      if (peer == static_cast<int>(me.rank)) continue;
      Request& r = requests.emplace_back(Request{this, {}, key});
      PMIX_LOAD_PROCID(&r.proc, me.nspace, static_cast<pmix_rank_t>(peer));
    }
    // PMIX_IMMEDIATE: a value the server does not hold yet is reported
    // missing instead of awaited, so the batch never waits on a peer.
    pmix_info_t info;
    bool immediate = true;
    PMIX_INFO_LOAD(&info, PMIX_IMMEDIATE, &immediate, PMIX_BOOL);
    {
      std::lock_guard lock(arrived_mutex_);
      pending_ = requests.size();
    }
    for (Request& r : requests)
      if (PMIx_Get_nb(&r.proc, key, &info, 1, arrived, &r) != PMIX_SUCCESS) arrived(PMIX_ERROR, nullptr, &r);
    {
      std::unique_lock lock(arrived_mutex_);
      all_arrived_.wait(lock, [this] { return pending_ == 0; });
    }
    PMIX_INFO_DESTRUCT(&info);
    FERRY_DEBUG(kPmix, "%s of %zu local peers fetched in %.2f ms", key, requests.size(),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }

  // On PMIx's thread, or on the caller's for a request PMIx did not take.
  static void arrived(pmix_status_t status, pmix_value_t* value, void* cbdata) {
    auto* r = static_cast<Request*>(cbdata);
    LocalValues* self = r->self;
    std::lock_guard lock(self->arrived_mutex_);
    if (status == PMIX_SUCCESS && value != nullptr && value->type == PMIX_STRING && value->data.string != nullptr)
      self->values_[{static_cast<int>(r->proc.rank), r->key}] = value->data.string;
    if (--self->pending_ == 0) self->all_arrived_.notify_one();
  }

  std::mutex mutex_;  // held by find() through a whole batch
  std::map<std::pair<int, std::string>, std::string> values_;  // (rank, key): value
  std::set<std::string> fetched_keys_;
  std::mutex arrived_mutex_;  // values_ and pending_ while a batch is out
  std::condition_variable all_arrived_;
  size_t pending_ = 0;
};

LocalValues local_values;

bool is_local_peer(int rank) {
  return rank != static_cast<int>(me.rank) && std::binary_search(local_peers.begin(), local_peers.end(), rank);
}

}  // namespace

Err init(Job* job) {
  pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
  // Without a server, Open PMIx still sets up a singleton namespace and
  // reports that the server is unreachable.
  if (rc == PMIX_ERR_UNREACH) {
    singleton = true;
  } else if (rc != PMIX_SUCCESS) {
    return pmix_error("PMIx_Init", rc);
  }
  initialized = true;
  my_nspace = me.nspace;
  job->singleton = singleton;
  job->nspace = me.nspace;
  job->rank = static_cast<int>(me.rank);

  char host[256] = {};
  gethostname(host, sizeof host - 1);
  job->hostname = host;

  if (singleton) {
    job->size = job->universe_size = 1;
    job->local_peers = {0};
    job->local_rank = 0;
    FERRY_DEBUG(kPmix, "no PMIx server: running as a singleton");
    return {};
  }
  auto size = job_integer(PMIX_JOB_SIZE);
  if (!size) return fail(MPI_ERR_OTHER, "the PMIx server did not provide PMIX_JOB_SIZE");
  job->size = static_cast<int>(*size);
  job->universe_size = static_cast<int>(job_integer(PMIX_UNIV_SIZE).value_or(*size));
  // Per process first: the apps of MPI_Comm_spawn_multiple share one job.
  job->appnum = static_cast<int>(my_integer(PMIX_APPNUM).value_or(job_integer(PMIX_APPNUM).value_or(0)));

  pmix_value_t* v = nullptr;
  if (get_job_value(PMIX_LOCAL_PEERS, &v) && v->type == PMIX_STRING && v->data.string != nullptr) {
    job->local_peers = parse_rank_list(v->data.string);
  }
  if (v) PMIX_VALUE_RELEASE(v);
  if (job->local_peers.empty()) job->local_peers = {job->rank};
  local_peers = job->local_peers;  // sorted for is_local_peer: PMIx does not promise an order
  std::sort(local_peers.begin(), local_peers.end());
  job->local_rank = static_cast<int>(my_integer(PMIX_LOCAL_RANK).value_or(
      std::find(job->local_peers.begin(), job->local_peers.end(), job->rank) - job->local_peers.begin()));
  FERRY_DEBUG(kPmix, "namespace %s rank %d of %d, %zu ranks on this host", me.nspace, job->rank, job->size,
              job->local_peers.size());
  return watch_checkpoint_requests();
}

void finalize() {
  if (!initialized) return;
  local_values.clear();
  PMIx_Finalize(nullptr, 0);
  initialized = false;
}

Err publish(const char* key, const std::string& value) {
  if (singleton) return {};
  pmix_value_t v;
  PMIX_VALUE_LOAD(&v, value.c_str(), PMIX_STRING);
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
  PMIX_VALUE_DESTRUCT(&v);
  if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Put", rc);
  rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Commit", rc);
  return {};
}

Err fence(bool collect) {
  if (singleton) return {};
  // Peers may have published new values before this fence.
  local_values.clear();
  pmix_proc_t all;
  PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
  pmix_info_t info;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  pmix_status_t rc = PMIx_Fence(&all, 1, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Fence", rc);
  return {};
}

Err lookup(int rank, const char* key, std::string* value) {
  if (is_local_peer(rank) && local_values.find(rank, key, value)) return {};
  pmix_proc_t peer;
  PMIX_LOAD_PROCID(&peer, me.nspace, static_cast<pmix_rank_t>(rank));
  pmix_value_t* v = nullptr;
  pmix_status_t rc = PMIx_Get(&peer, key, nullptr, 0, &v);
  if (rc != PMIX_SUCCESS) return fail(MPI_ERR_OTHER, "no %s for rank %d: %s", key, rank, PMIx_Error_string(rc));
  Err result;
  if (v->type == PMIX_STRING && v->data.string != nullptr) *value = v->data.string;
  else result = fail(MPI_ERR_INTERN, "%s of rank %d is not a string", key, rank);
  PMIX_VALUE_RELEASE(v);
  return result;
}

std::optional<std::string> job_string(const char* key) {
  if (singleton) return std::nullopt;
  pmix_value_t* v = nullptr;
  std::optional<std::string> result;
  if (get_job_value(key, &v) && v->type == PMIX_STRING && v->data.string != nullptr) result = v->data.string;
  if (v) PMIX_VALUE_RELEASE(v);
  return result;
}

const std::string& nspace() { return my_nspace; }

void abort(int code, const char* message) {
  if (!initialized || singleton) return;
  PMIx_Abort(code, message, nullptr, 0);
}

}  // namespace ferry::pmi
