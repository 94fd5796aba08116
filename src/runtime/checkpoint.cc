// MPIX_Checkpoint and MPIX_Checkpoint_due: the commit protocol of
// runtime/checkpoint.h, on the store of fault/store.h.
#include "runtime/checkpoint.h"

#include <chrono>
#include <cstdio>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "base/datatype.h"
#include "base/request.h"
#include "base/tool_events.h"
#include "coll/collectives.h"
#include "common/config.h"
#include "common/debug.h"
#include "fault/durable.h"
#include "fault/store.h"
#include "pmi/checkpoint_request.h"
#include "progress/progress.h"
#include "runtime/checkpoint_agreement.h"
#include "runtime/checkpoint_copies.h"
#include "runtime/checkpoint_hooks.h"

namespace ferry::runtime::checkpoint {

namespace {

Err from_status(const fault::Status& s) { return s.ok() ? Err() : fail(MPI_ERR_IO, "%s", s.message().c_str()); }

const char* kind_name(const Request& r) {
  switch (r.kind) {
    case Request::Kind::kSend: return "send";
    case Request::Kind::kRecv: return "receive";
    case Request::Kind::kCollective: return "nonblocking collective";
    case Request::Kind::kGeneralized: return "generalized request";
  }
  return "request";
}

}  // namespace

// Phase 0. A message in flight belongs to neither side's saved state, so a
// restart from this cut would lose or repeat it: the classic consistent-cut
// condition (Chandy and Lamport), here made the caller's duty.
Err check_cut(Communicator* c) {
  progress::Lock lock;
  const Request* r = requests::first_active_of(c);
  if (r == nullptr) return {};
  return fail(MPI_ERR_PENDING,
              "a %s (peer %d, tag %d) is still outstanding on the communicator; complete or free every request "
              "on it before a checkpoint (a consistent cut)",
              kind_name(*r), r->peer, r->tag);
}

// Phase 2 at rank 0: every rank's `file` lines, in rank order.
Err gather_files(Communicator* c, const std::string& mine, std::string* all) {
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(c->rank == 0 ? c->size : 0), offsets(lengths.size());
  const Datatype* int_type = find_datatype(MPI_INT);
  const Datatype* char_type = find_datatype(MPI_CHAR);
  if (Err e = coll::gather(&length, 1, int_type, lengths.data(), 1, int_type, 0, c)) return e;
  int total = 0;
  for (size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  all->assign(static_cast<size_t>(total), '\0');
  return coll::gatherv(mine.data(), length, char_type, all->data(), lengths.data(), offsets.data(), char_type, 0,
                       c);
}

namespace {

// Removing an old epoch frees as many blocks as the checkpoint wrote (about
// 0.1 s for 4 x 64 MiB on ext4 here): it runs beside the application, not
// inside MPIX_Checkpoint. Never destroyed, so that a program that exits
// without MPI_Finalize does not end in std::terminate.
std::thread* remover = nullptr;
std::mutex remover_mutex;  // checkpoints on two communicators from two threads

void join_remover_locked() {
  if (remover == nullptr) return;
  remover->join();
  delete remover;
  remover = nullptr;
}

// The root's fsync (fault/store.h sync_root) on a helper thread of rank 0,
// started once the epoch directory exists and waited for before the
// manifest: it overlaps the hooks' writes instead of following the publish.
class RootSync {
 public:
  explicit RootSync(const fault::Store& store) : store_(store) {
    try {
      done_ = std::async(std::launch::async, [this] { return store_.sync_root(); });
    } catch (const std::system_error&) {
      // No thread to be had: publish() syncs the root itself.
    }
  }
  // What publish() still has to do, having waited for the thread's outcome.
  fault::Status wait(fault::Store::Root* root) {
    *root = done_.valid() ? fault::Store::Root::kAlreadySynced : fault::Store::Root::kSync;
    return done_.valid() ? done_.get() : fault::Status();
  }

 private:
  const fault::Store& store_;
  std::future<fault::Status> done_;  // its destructor waits, on every path out
};

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void remove_in_background(std::vector<std::string> paths) {
  std::lock_guard<std::mutex> hold(remover_mutex);
  // The last removal must be over before another starts: a commit that
  // finds it still running waits (a real program computes between
  // checkpoints, so it rarely does), which keeps at most one epoch's
  // blocks waiting to be freed however fast checkpoints come.
  join_remover_locked();
  if (paths.empty()) return;
  remover = new std::thread([paths = std::move(paths)] {
    for (const std::string& p : paths) (void)fault::remove_tree(p);
  });
}

void finish_background_work() {
  std::lock_guard<std::mutex> hold(remover_mutex);
  join_remover_locked();
}

Err add_hook(MPIX_Checkpoint_fn* save, MPIX_Checkpoint_fn* restore, void* state) {
  return checkpoint_hooks::add(save, restore, state);
}

Err due(Communicator* c, int* flag) {
  int64_t requested = pmi::checkpoint_requested() ? 1 : 0;
  if (Err e = agree(c, Err(), &requested)) return e;
  *flag = static_cast<int>(requested);
  return {};
}

Err take(Communicator* c, MPI_Comm handle, int* epoch_out) {
  if (checkpoint_hooks::running()) return fail(MPI_ERR_OTHER, "called from inside a checkpoint hook");
  bool partnered = false;
  if (Err e = copies::redundancy(&partnered)) return e;
  if (partnered) return take_partnered(c, handle, epoch_out);
  const auto began = std::chrono::steady_clock::now();
  const std::string root = config::value("FERRY_CHECKPOINT_DIR");
  const int64_t keep = config::integer("FERRY_CHECKPOINT_KEEP");
  fault::Store store(root);

  // Phase 0: a consistent cut everywhere, and rank 0 names the epoch (one
  // past any directory present, so a torn epoch's name is never reused).
  Err local = check_cut(c);
  int64_t epoch = -1;
  if (local.ok() && !root.empty() && keep < 1)
    local = fail(MPI_ERR_ARG, "FERRY_CHECKPOINT_KEEP=%lld: at least one epoch must be kept",
                 static_cast<long long>(keep));
  if (local.ok() && !root.empty() && c->rank == 0) {
    epoch = store.next_epoch();
    local = from_status(fault::make_directories(store.epoch_dir(epoch)));
  }
  if (Err e = agree(c, std::move(local), &epoch)) return e;
  if (root.empty()) {
    // Checkpoints go nowhere; the launcher's request is served all the same,
    // or MPIX_Checkpoint_due would answer 1 at every step from now on.
    pmi::clear_checkpoint_request();
    *epoch_out = -1;
    return {};
  }

  // Phase 1: the hooks write in this rank's directory; what they wrote is
  // fsynced and checksummed (fault/seal.h). Rank 0 syncs the root beside it.
  std::optional<RootSync> root_sync;
  if (c->rank == 0) root_sync.emplace(store);
  const double cut_ms = ms_since(began);
  std::vector<fault::FileEntry> files;
  const std::string dir = store.rank_dir(epoch, c->rank);
  Err wrote = from_status(store.prepare_rank(epoch, c->rank));
  if (wrote.ok()) wrote = checkpoint_hooks::run_save(handle, dir);
  const double hooks_ms = ms_since(began);
  if (wrote.ok()) wrote = from_status(store.seal_rank(epoch, c->rank, &files));
  const double sealed_ms = ms_since(began);
  if (Err e = agree(c, std::move(wrote))) {
    // Every rank has stopped writing: the unfinished epoch can go. Left
    // behind, it would only be skipped (it has no manifest).
    if (c->rank == 0) (void)fault::remove_tree(store.epoch_dir(epoch));
    return e;
  }

  // Phase 2: every rank succeeded; rank 0 publishes the manifest.
  fault::Manifest manifest;
  manifest.epoch = epoch;
  manifest.job_size = c->size;
  std::string all_files;
  Err published = gather_files(c, fault::Manifest::format_files(files), &all_files);
  const double gathered_ms = ms_since(began);
  if (published.ok() && c->rank == 0) {
    fault::Store::Root root_left = fault::Store::Root::kSync;
    published = from_status(root_sync->wait(&root_left));
    if (published.ok()) published = from_status(fault::Manifest::parse_files(all_files, &manifest.files));
    if (published.ok()) published = from_status(store.publish(manifest, root_left));
    if (!published.ok()) {
      (void)fault::remove_tree(store.epoch_dir(epoch));
    } else {
      std::vector<std::string> retired;
      if (fault::Status s = store.retire(static_cast<int>(keep), epoch, &retired))
        // The epoch is committed; an old one left behind costs only space.
        std::fprintf(stderr, "ferry: rank 0: MPIX_Checkpoint: warning: %s\n", s.message().c_str());
      remove_in_background(std::move(retired));
    }
  }
  const double published_ms = ms_since(began);
  if (Err e = agree(c, std::move(published))) return e;
  if (c->rank == 0 && debug::on(debug::kCheckpoint)) {
    uint64_t bytes = 0;
    for (const fault::FileEntry& f : manifest.files) bytes += f.size;
    // Times since the call began, on rank 0: where a slow commit went.
    FERRY_DEBUG(kCheckpoint, "epoch %lld committed: %zu files, %llu bytes from %d ranks in %s (ms: cut %.1f, hooks "
                "%.1f, sealed %.1f, all sealed and gathered %.1f, published %.1f, agreed %.1f)",
                static_cast<long long>(epoch), manifest.files.size(), static_cast<unsigned long long>(bytes),
                c->size, root.c_str(), cut_ms, hooks_ms, sealed_ms, gathered_ms, published_ms, ms_since(began));
  }
  pmi::clear_checkpoint_request();
  tool::note_checkpoint_committed(static_cast<int>(epoch), c->size);
  *epoch_out = static_cast<int>(epoch);
  return {};
}

}  // namespace ferry::runtime::checkpoint
