#include "launcher/pmix/name_service.h"

#include <pmix.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/debug.h"

namespace ferry::launcher {

struct NameService::Name {
  std::string key;
  pmix_proc_t publisher;
  pmix_data_range_t range;
  pmix_persistence_t persistence;
  pmix_value_t* value;  // PMIx's copy, released with the name
};

struct NameService::Waiter {
  uint64_t id;
  pmix_proc_t requester;
  std::vector<std::string> keys;
  size_t wanted;  // answer once this many keys are found
  pmix_lookup_cbfunc_t callback;
  void* cbdata;
};

struct NameService::Answer {
  pmix_lookup_cbfunc_t callback;
  void* cbdata;
  pmix_status_t status;
  std::vector<const Name*> found;  // copied into the reply before the lock goes
  pmix_pdata_t* pdata = nullptr;
  size_t ndata = 0;
};

namespace {

bool is_directive(const char* key) {
  for (const char* d : {PMIX_RANGE, PMIX_PERSISTENCE, PMIX_USERID, PMIX_GRPID, PMIX_TIMEOUT, PMIX_WAIT})
    if (std::strncmp(key, d, PMIX_MAX_KEYLEN) == 0) return true;
  return false;
}

// The value of directive `key` in `info`, read as an unsigned number (a bool
// is 1 or 0); `otherwise` when absent.
uint64_t directive(const pmix_info_t info[], size_t ninfo, const char* key, uint64_t otherwise) {
  for (size_t i = 0; i < ninfo; ++i) {
    if (std::strncmp(info[i].key, key, PMIX_MAX_KEYLEN) != 0) continue;
    const pmix_value_t& v = info[i].value;
    switch (v.type) {
      case PMIX_BOOL: return v.data.flag ? 1 : 0;
      case PMIX_DATA_RANGE: return v.data.range;
      case PMIX_PERSIST: return v.data.persist;
      case PMIX_INT: return uint64_t(std::max(0, v.data.integer));
      case PMIX_UINT32: return v.data.uint32;
      case PMIX_SIZE: return v.data.size;
      default: return otherwise;
    }
  }
  return otherwise;
}

bool same_proc(const pmix_proc_t& a, const pmix_proc_t& b) {
  return PMIX_CHECK_NSPACE(a.nspace, b.nspace) && a.rank == b.rank;
}

}  // namespace

NameService::NameService() = default;

NameService::~NameService() {
  for (auto& n : names_) PMIX_VALUE_RELEASE(n->value);
}

// Who may see a name: its range narrowed to what one mpirun can tell apart.
bool NameService::visible(const NameService::Name& name, const pmix_proc_t& viewer) {
  switch (name.range) {
    case PMIX_RANGE_PROC_LOCAL: return same_proc(name.publisher, viewer);
    case PMIX_RANGE_NAMESPACE: return PMIX_CHECK_NSPACE(name.publisher.nspace, viewer.nspace);
    default: return true;  // session, global, local, undef, custom: this mpirun
  }
}

const NameService::Name* NameService::find(const std::string& key, const pmix_proc_t& viewer) const {
  for (const auto& n : names_)
    if (n->key == key && visible(*n, viewer)) return n.get();
  return nullptr;
}

pmix_status_t NameService::publish(const pmix_proc_t& publisher, const pmix_info_t info[], size_t ninfo) {
  // PMIx's default range for published data is the session.
  auto range = pmix_data_range_t(directive(info, ninfo, PMIX_RANGE, PMIX_RANGE_SESSION));
  if (range == PMIX_RANGE_UNDEF) range = PMIX_RANGE_SESSION;
  auto persistence = pmix_persistence_t(directive(info, ninfo, PMIX_PERSISTENCE, PMIX_PERSIST_SESSION));
  std::vector<std::unique_ptr<Name>> added;
  for (size_t i = 0; i < ninfo; ++i) {
    if (is_directive(info[i].key)) continue;
    auto name = std::make_unique<Name>();
    name->key.assign(info[i].key, strnlen(info[i].key, PMIX_MAX_KEYLEN));
    name->publisher = publisher;
    name->range = range;
    name->persistence = persistence;
    PMIX_VALUE_CREATE(name->value, 1);
    if (name->value == nullptr || PMIx_Value_xfer(name->value, &info[i].value) != PMIX_SUCCESS) {
      if (name->value != nullptr) PMIX_VALUE_RELEASE(name->value);
      for (auto& a : added) PMIX_VALUE_RELEASE(a->value);
      return PMIX_ERR_NOMEM;
    }
    added.push_back(std::move(name));
  }
  if (added.empty()) return PMIX_ERR_BAD_PARAM;

  std::vector<std::unique_ptr<Answer>> answers;
  {
    std::unique_lock lock(mutex_);
    // A name taken where any process could see both is a duplicate
    // (MPI-3.1 §10.4.4: publishing a name twice is an error).
    for (auto& a : added) {
      bool taken = false;
      for (const auto& n : names_)
        if (n->key == a->key && (visible(*n, publisher) || visible(*a, n->publisher))) taken = true;
      for (const auto& b : added)
        if (b != a && b->key == a->key) taken = true;
      if (taken) {
        lock.unlock();
        FERRY_DEBUG(kLaunch, "publish by %s:%u: '%s' is taken", publisher.nspace, publisher.rank, a->key.c_str());
        for (auto& x : added) PMIX_VALUE_RELEASE(x->value);
        return PMIX_ERR_DUPLICATE_KEY;
      }
    }
    for (auto& a : added) {
      FERRY_DEBUG(kLaunch, "%s:%u published '%s'", publisher.nspace, publisher.rank, a->key.c_str());
      names_.push_back(std::move(a));
    }
    // Lookups that waited for these.
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (auto answer = answer_if_ready(**it, false)) {
        answers.push_back(std::move(answer));
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& a : answers) deliver(*a);
  return PMIX_SUCCESS;
}

void NameService::lookup(const pmix_proc_t& requester, char** keys, const pmix_info_t info[], size_t ninfo,
                         pmix_lookup_cbfunc_t callback, void* cbdata) {
  auto w = std::make_unique<Waiter>();
  w->requester = requester;
  for (char** k = keys; k != nullptr && *k != nullptr; ++k) w->keys.emplace_back(*k);
  w->callback = callback;
  w->cbdata = cbdata;
  // PMIX_WAIT: true waits for every key, a number for that many.
  uint64_t wait = directive(info, ninfo, PMIX_WAIT, 0);
  bool wait_is_bool = false;
  for (size_t i = 0; i < ninfo; ++i)
    if (std::strncmp(info[i].key, PMIX_WAIT, PMIX_MAX_KEYLEN) == 0) wait_is_bool = info[i].value.type == PMIX_BOOL;
  w->wanted = wait == 0 ? 0 : wait_is_bool ? w->keys.size() : std::min<size_t>(wait, w->keys.size());
  uint64_t timeout_s = directive(info, ninfo, PMIX_TIMEOUT, 0);

  std::unique_ptr<Answer> answer;
  {
    std::lock_guard lock(mutex_);
    w->id = next_waiter_id_++;
    answer = answer_if_ready(*w, w->wanted == 0);
    if (!answer) {
      FERRY_DEBUG(kLaunch, "lookup by %s:%u waits for %zu of %zu keys", requester.nspace, requester.rank,
                  w->wanted, w->keys.size());
      if (timeout_s > 0) {
        // A waiting lookup's time limit, on a thread of its own: nothing
        // else here keeps time. The service lives as long as mpirun.
        uint64_t id = w->id;
        std::thread([this, id, timeout_s] {
          std::this_thread::sleep_for(std::chrono::seconds(timeout_s));
          expire(id);
        }).detach();
      }
      waiters_.push_back(std::move(w));
    }
  }
  if (answer) deliver(*answer);
}

std::unique_ptr<NameService::Answer> NameService::answer_if_ready(const Waiter& w, bool timed_out) {
  auto answer = std::make_unique<Answer>();
  answer->callback = w.callback;
  answer->cbdata = w.cbdata;
  for (const std::string& key : w.keys)
    if (const Name* n = find(key, w.requester)) answer->found.push_back(n);
  if (!timed_out && answer->found.size() < w.wanted) return nullptr;
  if (answer->found.size() == w.keys.size() && !w.keys.empty()) answer->status = PMIX_SUCCESS;
  else if (!answer->found.empty()) answer->status = PMIX_ERR_PARTIAL_SUCCESS;
  else answer->status = w.wanted > 0 ? PMIX_ERR_TIMEOUT : PMIX_ERR_NOT_FOUND;
  // The reply is built now, while the names are sure to exist.
  answer->ndata = answer->found.size();
  if (answer->ndata > 0) {
    PMIX_PDATA_CREATE(answer->pdata, answer->ndata);
    for (size_t i = 0; i < answer->ndata; ++i) {
      const Name& n = *answer->found[i];
      pmix_pdata_t& d = answer->pdata[i];
      d.proc = n.publisher;
      PMIX_LOAD_KEY(d.key, n.key.c_str());
      PMIx_Value_xfer(&d.value, n.value);
    }
  }
  // PMIX_PERSIST_FIRST_READ: read once, gone.
  for (const Name* n : answer->found)
    if (n->persistence == PMIX_PERSIST_FIRST_READ)
      std::erase_if(names_, [&](const std::unique_ptr<Name>& x) {
        if (x.get() != n) return false;
        PMIX_VALUE_RELEASE(x->value);
        return true;
      });
  answer->found.clear();
  return answer;
}

void NameService::deliver(Answer& answer) {
  answer.callback(answer.status, answer.pdata, answer.ndata, answer.cbdata);
  // PMIx copied what it sends (its lookup callback packs the reply at once).
  if (answer.pdata != nullptr) PMIX_PDATA_FREE(answer.pdata, answer.ndata);
}

void NameService::expire(uint64_t waiter_id) {
  std::unique_ptr<Answer> answer;
  {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(waiters_.begin(), waiters_.end(), [&](const auto& w) { return w->id == waiter_id; });
    if (it == waiters_.end()) return;  // answered already
    answer = answer_if_ready(**it, true);
    waiters_.erase(it);
  }
  deliver(*answer);
}

pmix_status_t NameService::unpublish(const pmix_proc_t& publisher, char** keys, const pmix_info_t[], size_t) {
  std::lock_guard lock(mutex_);
  auto remove_own = [&](const std::string* key) {
    size_t before = names_.size();
    std::erase_if(names_, [&](const std::unique_ptr<Name>& n) {
      if (!same_proc(n->publisher, publisher) || (key != nullptr && n->key != *key)) return false;
      PMIX_VALUE_RELEASE(n->value);
      return true;
    });
    return before - names_.size();
  };
  if (keys == nullptr) {
    remove_own(nullptr);
    return PMIX_SUCCESS;
  }
  pmix_status_t status = PMIX_SUCCESS;
  for (char** k = keys; *k != nullptr; ++k) {
    std::string key = *k;
    if (remove_own(&key) == 0) status = PMIX_ERR_NOT_FOUND;  // not published, or not by this process
  }
  return status;
}

void NameService::forget(const pmix_proc_t& proc) {
  std::lock_guard lock(mutex_);
  std::erase_if(names_, [&](const std::unique_ptr<Name>& n) {
    if (n->persistence != PMIX_PERSIST_PROC || !same_proc(n->publisher, proc)) return false;
    PMIX_VALUE_RELEASE(n->value);
    return true;
  });
}

}  // namespace ferry::launcher
