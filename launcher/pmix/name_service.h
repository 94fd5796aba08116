// The names that processes publish through mpirun (PMIx_Publish, _Lookup,
// _Unpublish; MPI_Publish_name and friends, MPI-3.1 §10.4.4): one store in
// mpirun, shared by every job it runs (the first and those PMIx_Spawn
// started). Called from PMIx's thread and from lookup timers; locked inside.
//
// Scope of a name, by the publisher's PMIX_RANGE: PMIX_RANGE_NAMESPACE
// names are seen by the publisher's own job only, PMIX_RANGE_PROC_LOCAL by
// the publisher only, every other range (session, the default; global,
// local, ...) by every process of this mpirun. One name is published once
// per scope: a second publish is refused with PMIX_ERR_DUPLICATE_KEY.
//
// How long a name lives, by PMIX_PERSISTENCE: PMIX_PERSIST_PROC until its
// publisher finalizes, PMIX_PERSIST_FIRST_READ until one lookup returned
// it, any other (the default) until unpublished or mpirun ends.
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ferry::launcher {

class NameService {
 public:
  NameService();
  ~NameService();
  NameService(const NameService&) = delete;
  NameService& operator=(const NameService&) = delete;

  // The data in `info` (every entry but the directives PMIX_RANGE,
  // PMIX_PERSISTENCE, PMIX_USERID, PMIX_GRPID, PMIX_TIMEOUT) under
  // `publisher`. All or nothing: PMIX_ERR_DUPLICATE_KEY if one of the
  // names is taken in its scope, PMIX_ERR_BAD_PARAM for no data.
  pmix_status_t publish(const pmix_proc_t& publisher, const pmix_info_t info[], size_t ninfo);

  // Answers `callback` (perhaps before returning) with what `keys` (NULL
  // terminated) name in the requester's view: PMIX_SUCCESS when all are
  // found, PMIX_ERR_NOT_FOUND when none is, PMIX_ERR_PARTIAL_SUCCESS with
  // those found otherwise. With PMIX_WAIT (true: every key, a number: that
  // many) the answer waits for a publish that completes it, up to
  // PMIX_TIMEOUT seconds if given (then PMIX_ERR_TIMEOUT).
  void lookup(const pmix_proc_t& requester, char** keys, const pmix_info_t info[], size_t ninfo,
              pmix_lookup_cbfunc_t callback, void* cbdata);

  // Removes `keys` (NULL: all) that `publisher` published. PMIX_ERR_NOT_FOUND
  // if a key named is not one of its names (the others are removed).
  pmix_status_t unpublish(const pmix_proc_t& publisher, char** keys, const pmix_info_t info[],
                          size_t ninfo);

  // `proc` finalized: its PMIX_PERSIST_PROC names go.
  void forget(const pmix_proc_t& proc);

 private:
  struct Name;
  struct Waiter;
  struct Answer;

  static bool visible(const Name& name, const pmix_proc_t& viewer);
  const Name* find(const std::string& key, const pmix_proc_t& viewer) const;
  // The answer to `w` if it has one now; `timed_out`: its time is up, so
  // it gets what there is. Called with the lock held; the answer is given
  // (deliver) after the lock is let go.
  std::unique_ptr<Answer> answer_if_ready(const Waiter& w, bool timed_out);
  static void deliver(Answer& answer);
  void expire(uint64_t waiter_id);

  std::mutex mutex_;
  std::vector<std::unique_ptr<Name>> names_;
  std::vector<std::unique_ptr<Waiter>> waiters_;
  uint64_t next_waiter_id_ = 1;
};

}  // namespace ferry::launcher
