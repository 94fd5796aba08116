#include "pmi/dynamic.h"

#include <pmix.h>

#include <cmath>
#include <cstring>

#include "common/debug.h"
#include "mpi.h"
#include "pmi/pmix_client.h"

namespace ferry::pmi {
namespace {

pmix_proc_t proc_of(const ProcessName& name) {
  pmix_proc_t p;
  PMIX_LOAD_PROCID(&p, name.nspace.c_str(), static_cast<pmix_rank_t>(name.rank));
  return p;
}

// PMIx keeps at most PMIX_MAX_KEYLEN characters of a name.
bool key_fits(const std::string& key) { return !key.empty() && key.size() <= PMIX_MAX_KEYLEN; }

}  // namespace

Err spawn(const std::vector<SpawnApp>& apps, std::string* nspace) {
  std::vector<pmix_app_t> papps(apps.size());
  for (size_t i = 0; i < apps.size(); ++i) {
    const SpawnApp& a = apps[i];
    pmix_app_t& p = papps[i];
    PMIX_APP_CONSTRUCT(&p);
    p.cmd = strdup(a.command.c_str());
    // argv[0] is the program, as exec sees it.
    p.argv = static_cast<char**>(calloc(a.argv.size() + 2, sizeof(char*)));
    p.argv[0] = strdup(a.command.c_str());
    for (size_t k = 0; k < a.argv.size(); ++k) p.argv[k + 1] = strdup(a.argv[k].c_str());
    p.maxprocs = a.maxprocs;
    std::vector<std::pair<const char*, const std::string*>> infos;
    if (!a.host.empty()) infos.push_back({PMIX_HOST, &a.host});
    if (!a.hostfile.empty()) infos.push_back({PMIX_HOSTFILE, &a.hostfile});
    if (!a.wdir.empty()) infos.push_back({PMIX_WDIR, &a.wdir});
    if (!infos.empty()) {
      PMIX_INFO_CREATE(p.info, infos.size());
      p.ninfo = infos.size();
      for (size_t k = 0; k < infos.size(); ++k)
        PMIX_INFO_LOAD(&p.info[k], infos[k].first, infos[k].second->c_str(), PMIX_STRING);
    }
  }
  char child[PMIX_MAX_NSLEN + 1] = {};
  pmix_status_t rc = PMIx_Spawn(nullptr, 0, papps.data(), papps.size(), child);
  for (pmix_app_t& p : papps) PMIX_APP_DESTRUCT(&p);
  if (rc != PMIX_SUCCESS) {
    const char* why = rc == PMIX_ERR_NOT_SUPPORTED ? "this launcher does not spawn processes"
                                                   : PMIx_Error_string(rc);
    return fail(MPI_ERR_SPAWN, "the launcher could not start %s: %s", apps.front().command.c_str(), why);
  }
  *nspace = child;
  FERRY_DEBUG(kPmix, "spawned job %s", child);
  return {};
}

std::optional<ProcessName> parent() {
  pmix_proc_t me;
  PMIX_LOAD_PROCID(&me, nspace().c_str(), PMIX_RANK_WILDCARD);
  pmix_info_t info;
  bool optional = true;
  PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
  pmix_value_t* v = nullptr;
  pmix_status_t rc = PMIx_Get(&me, PMIX_PARENT_ID, &info, 1, &v);
  PMIX_INFO_DESTRUCT(&info);
  std::optional<ProcessName> result;
  if (rc == PMIX_SUCCESS && v != nullptr && v->type == PMIX_PROC && v->data.proc != nullptr)
    result = ProcessName{v->data.proc->nspace, static_cast<int>(v->data.proc->rank)};
  if (v) PMIX_VALUE_RELEASE(v);
  return result;
}

Err lookup(const ProcessName& who, const char* key, std::string* value) {
  pmix_proc_t p = proc_of(who);
  pmix_value_t* v = nullptr;
  pmix_status_t rc = PMIx_Get(&p, key, nullptr, 0, &v);
  if (rc != PMIX_SUCCESS)
    return fail(MPI_ERR_OTHER, "no %s for rank %d of job %s: %s", key, who.rank, who.nspace.c_str(),
                PMIx_Error_string(rc));
  Err result;
  if (v->type == PMIX_STRING && v->data.string != nullptr) *value = v->data.string;
  else result = fail(MPI_ERR_INTERN, "%s of rank %d of job %s is not a string", key, who.rank, who.nspace.c_str());
  PMIX_VALUE_RELEASE(v);
  return result;
}

Err publish_name(const std::string& key, const std::string& value, bool once) {
  if (!key_fits(key)) return fail(MPI_ERR_NAME, "name '%s' is longer than %d characters", key.c_str(), PMIX_MAX_KEYLEN);
  pmix_info_t info[2];
  PMIX_INFO_LOAD(&info[0], key.c_str(), value.c_str(), PMIX_STRING);
  pmix_persistence_t persistence = once ? PMIX_PERSIST_FIRST_READ : PMIX_PERSIST_SESSION;
  PMIX_INFO_LOAD(&info[1], PMIX_PERSISTENCE, &persistence, PMIX_PERSIST);
  pmix_status_t rc = PMIx_Publish(info, 2);
  PMIX_INFO_DESTRUCT(&info[0]);
  PMIX_INFO_DESTRUCT(&info[1]);
  if (rc == PMIX_ERR_DUPLICATE_KEY) return fail(MPI_ERR_NAME, "'%s' is already published", key.c_str());
  if (rc != PMIX_SUCCESS)
    return fail(MPI_ERR_SERVICE, "the launcher could not publish '%s': %s", key.c_str(), PMIx_Error_string(rc));
  return {};
}

Err lookup_name(const std::string& key, double wait_s, std::string* value) {
  if (!key_fits(key)) return fail(MPI_ERR_NAME, "name '%s' is longer than %d characters", key.c_str(), PMIX_MAX_KEYLEN);
  pmix_pdata_t pdata;
  PMIX_PDATA_CONSTRUCT(&pdata);
  PMIX_LOAD_KEY(pdata.key, key.c_str());
  pmix_info_t info[2];
  size_t ninfo = 0;
  bool yes = true;
  int seconds = wait_s > 0 ? std::max(1, static_cast<int>(std::ceil(wait_s))) : 0;
  if (wait_s != 0) PMIX_INFO_LOAD(&info[ninfo++], PMIX_WAIT, &yes, PMIX_BOOL);
  if (wait_s > 0) PMIX_INFO_LOAD(&info[ninfo++], PMIX_TIMEOUT, &seconds, PMIX_INT);
  pmix_status_t rc = PMIx_Lookup(&pdata, 1, ninfo > 0 ? info : nullptr, ninfo);
  for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&info[i]);
  Err result;
  if (rc == PMIX_SUCCESS && pdata.value.type == PMIX_STRING && pdata.value.data.string != nullptr)
    *value = pdata.value.data.string;
  else if (rc == PMIX_SUCCESS)
    result = fail(MPI_ERR_NAME, "'%s' is published with a value that is not a string", key.c_str());
  else if (rc == PMIX_ERR_NOT_FOUND || rc == PMIX_ERR_TIMEOUT)
    result = fail(MPI_ERR_NAME, "'%s' is not published", key.c_str());
  else
    result = fail(MPI_ERR_NAME, "the launcher could not look up '%s': %s", key.c_str(), PMIx_Error_string(rc));
  PMIX_PDATA_DESTRUCT(&pdata);
  return result;
}

Err unpublish_name(const std::string& key) {
  if (!key_fits(key)) return fail(MPI_ERR_SERVICE, "'%s' is not published", key.c_str());
  char* keys[2] = {const_cast<char*>(key.c_str()), nullptr};
  pmix_status_t rc = PMIx_Unpublish(keys, nullptr, 0);
  if (rc == PMIX_ERR_NOT_FOUND) return fail(MPI_ERR_SERVICE, "'%s' is not published by this process", key.c_str());
  if (rc != PMIX_SUCCESS)
    return fail(MPI_ERR_SERVICE, "the launcher could not unpublish '%s': %s", key.c_str(), PMIx_Error_string(rc));
  return {};
}

}  // namespace ferry::pmi
