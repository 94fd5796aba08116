// MPIX_Restore and MPIX_Restart_count (runtime/checkpoint.h).
//
// The newest epoch is tried first; one whose manifest is missing or torn, or
// whose files do not match it on some rank, is passed over with one warning
// line and the next older is tried. Rank 0 proposes, every rank checks its
// own files (the store is shared; reading everything on rank 0 would cost
// the whole checkpoint's size on one process), and they agree.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/debug.h"
#include "fault/store.h"
#include "runtime/checkpoint.h"
#include "runtime/checkpoint_agreement.h"
#include "runtime/checkpoint_copies.h"
#include "runtime/checkpoint_hooks.h"

namespace ferry::runtime::checkpoint {

void warn_skipped(int64_t epoch, const std::string& why) {
  std::fprintf(stderr, "ferry: rank 0: MPIX_Restore: warning: epoch %lld skipped: %s\n",
               static_cast<long long>(epoch), why.c_str());
}

Err wanted_epoch(int64_t* wanted) {
  const std::string from = config::value("FERRY_RESTART_FROM");
  *wanted = -1;
  if (from == "latest") return {};
  char* end = nullptr;
  long long n = std::strtoll(from.c_str(), &end, 10);
  if (from.empty() || *end != '\0' || n < 0 || n > INT32_MAX)
    return fail(MPI_ERR_ARG, "FERRY_RESTART_FROM=%s: expected 'latest' or an epoch number", from.c_str());
  *wanted = n;
  return {};
}

namespace {

// Rank 0: the next candidate, newest first, whose manifest reads and was
// written by a job of this size. -1 when none is left.
Err propose(const fault::Store& store, const std::vector<int64_t>& candidates, size_t* next, bool exact,
            int size, int64_t* proposal) {
  *proposal = -1;
  while (*next < candidates.size()) {
    int64_t epoch = candidates[(*next)++];
    fault::Manifest m;
    if (fault::Status s = store.read_manifest(epoch, &m)) {
      if (exact) return fail(MPI_ERR_IO, "epoch %lld (FERRY_RESTART_FROM) cannot be restored: %s",
                             static_cast<long long>(epoch), s.message().c_str());
      warn_skipped(epoch, s.message());
      continue;
    }
    // Each rank restores its own rank's files: another job size has no
    // meaningful mapping (MPI-3.1 §10.5.1 gives a restarted job no promise either).
    if (m.job_size != size)
      return fail(MPI_ERR_OTHER, "epoch %lld in %s was written by a job of %d processes, this job has %d; "
                                 "restart with -n %d",
                  static_cast<long long>(epoch), store.root().c_str(), m.job_size, size, m.job_size);
    *proposal = epoch;
    return {};
  }
  return {};
}

}  // namespace

Err restore(Communicator* c, MPI_Comm handle, int* epoch_out) {
  *epoch_out = -1;
  if (checkpoint_hooks::running()) return fail(MPI_ERR_OTHER, "called from inside a checkpoint hook");
  bool partnered = false;
  if (Err e = copies::redundancy(&partnered)) return e;
  if (partnered) return restore_partnered(c, handle, epoch_out);
  const std::string root = config::value("FERRY_CHECKPOINT_DIR");
  if (root.empty()) return {};  // checkpoints go nowhere, none to restore
  fault::Store store(root);

  int64_t wanted = -1;
  Err arguments = wanted_epoch(&wanted);
  std::vector<int64_t> candidates;
  if (c->rank == 0 && arguments.ok()) candidates = wanted >= 0 ? std::vector<int64_t>{wanted} : store.epochs();
  size_t next = 0;
  for (;;) {
    // Phase 1: rank 0 proposes an epoch.
    int64_t proposal = -1;
    Err proposed = std::move(arguments);
    if (proposed.ok() && c->rank == 0)
      proposed = propose(store, candidates, &next, wanted >= 0, c->size, &proposal);
    if (Err e = agree(c, std::move(proposed), &proposal)) return e;
    if (proposal < 0) {
      if (wanted >= 0) return fail(MPI_ERR_IO, "epoch %lld (FERRY_RESTART_FROM) is not in %s",
                                   static_cast<long long>(wanted), root.c_str());
      if (c->rank == 0) FERRY_DEBUG(kCheckpoint, "no complete epoch in %s: starting afresh", root.c_str());
      return {};  // nothing complete: the program starts afresh
    }

    // Phase 2: every rank checks its own files against the manifest.
    fault::Manifest m;
    fault::Status s = store.read_manifest(proposal, &m);
    if (s.ok()) s = store.verify(m, c->rank);
    Err verified = s.ok() ? Err() : fail(MPI_ERR_IO, "%s", s.message().c_str());
    if (Err e = agree(c, std::move(verified))) {
      if (wanted >= 0) return fail(MPI_ERR_IO, "epoch %lld (FERRY_RESTART_FROM) cannot be restored: %s",
                                   static_cast<long long>(wanted), e.message().c_str());
      if (c->rank == 0) warn_skipped(proposal, e.message());
      continue;
    }

    // Phase 3: the restore hooks read it back.
    Err restored = checkpoint_hooks::run_restore(handle, store.rank_dir(proposal, c->rank));
    if (Err e = agree(c, std::move(restored))) return e;
    if (c->rank == 0) FERRY_DEBUG(kCheckpoint, "restored epoch %lld from %s", static_cast<long long>(proposal), root.c_str());
    *epoch_out = static_cast<int>(proposal);
    return {};
  }
}

int restart_count() {
  // mpirun's count wins; a job Slurm requeued has only Slurm's.
  if (config::environment("FERRY_RESTART_COUNT")) return static_cast<int>(config::integer("FERRY_RESTART_COUNT"));
  if (std::optional<std::string> slurm = config::environment("SLURM_RESTART_COUNT")) {
    char* end = nullptr;
    long n = std::strtol(slurm->c_str(), &end, 10);
    if (!slurm->empty() && *end == '\0' && n >= 0 && n <= INT32_MAX) return static_cast<int>(n);
  }
  return 0;
}

}  // namespace ferry::runtime::checkpoint
