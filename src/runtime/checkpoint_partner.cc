// MPIX_Checkpoint and MPIX_Restore on node-local storage with partner copies
// (FERRY_CHECKPOINT_REDUNDANCY=partner: SCR's PARTNER scheme), chosen over a
// shared directory when the file system the job shares is slow or absent.
// Each host keeps its own store (FERRY_CHECKPOINT_LOCAL_DIR, %h its name);
// an epoch survives the loss of any one host's storage.
//
// Commit, the two-phase protocol of runtime/checkpoint.h with one step more:
//   0. a consistent cut; the epoch is one past any epoch directory on any
//      host (a host whose storage was wiped must not reuse a name);
//   1. every rank runs the save hooks in its node-local directory and seals
//      it, then sends its files to its partner on the next host, which
//      writes them durably (runtime/checkpoint_copies.h);
//   2. only if every rank's files and copy are durable does rank 0 build the
//      manifest (with a `copy` line per rank) and broadcast it; the lowest
//      rank of each host publishes it in that host's store.
// Cost beyond the shared store's: each rank's checkpoint streamed to its
// partner, the partner's write and fdatasync of it, and three small
// collectives.
//
// Restore: the newest epoch that any host has a manifest of; the lowest
// rank that has it broadcasts it; a rank whose own files are missing or
// damaged gets its partner's copy back (checked by CRC-32C) before the
// restore hooks run. An epoch where some rank lost both is skipped with one
// warning naming that rank and both hosts, like a torn epoch.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/datatype.h"
#include "base/tool_events.h"
#include "coll/collectives.h"
#include "common/config.h"
#include "common/debug.h"
#include "fault/durable.h"
#include "fault/store.h"
#include "pmi/checkpoint_request.h"
#include "runtime/checkpoint.h"
#include "runtime/checkpoint_agreement.h"
#include "runtime/checkpoint_copies.h"
#include "runtime/checkpoint_hooks.h"

namespace ferry::runtime::checkpoint {

namespace {

Err from_status(const fault::Status& s) { return s.ok() ? Err() : fail(MPI_ERR_IO, "%s", s.message().c_str()); }

// Phase 2: rank 0's manifest, to every rank. `built` is rank 0's outcome.
Err broadcast_manifest(Communicator* c, int root, Err built, fault::Manifest* m) {
  std::string text = c->rank == root && built.ok() ? m->format() : "";
  int64_t length = static_cast<int64_t>(text.size());
  if (Err e = agree(c, std::move(built), &length)) return e;
  text.resize(static_cast<size_t>(length));
  if (Err e = coll::bcast(text.data(), length, find_datatype(MPI_CHAR), root, c)) return e;
  Err parsed;
  if (c->rank != root) parsed = from_status(fault::Manifest::parse(text, m));
  return agree(c, std::move(parsed));
}

// Restore, phase 2: the manifest of `epoch` from the lowest rank whose host
// has one that reads.
Err share_manifest(Communicator* c, const fault::Store& store, int64_t epoch, fault::Manifest* m) {
  fault::Status mine = store.read_manifest(epoch, m);
  int64_t holder = mine.ok() ? c->size - c->rank : 0;
  if (Err e = agree(c, Err(), &holder)) return e;
  if (holder == 0)
    return fail(MPI_ERR_IO, "no host has a manifest that reads (here: %s)", mine.message().c_str());
  return broadcast_manifest(c, c->size - static_cast<int>(holder), Err(), m);
}

}  // namespace

Err take_partnered(Communicator* c, MPI_Comm handle, int* epoch_out) {
  const int64_t keep = config::integer("FERRY_CHECKPOINT_KEEP");

  // Phase 0: a consistent cut, who holds whose copy, and the epoch.
  copies::Layout layout;
  Err placed = copies::layout(c, &layout);
  fault::Store store(layout.root);
  Err local = check_cut(c);
  if (local.ok()) local = std::move(placed);
  if (local.ok() && keep < 1)
    local = fail(MPI_ERR_ARG, "FERRY_CHECKPOINT_KEEP=%lld: at least one epoch must be kept",
                 static_cast<long long>(keep));
  int64_t epoch = local.ok() ? store.next_epoch() : 0;
  if (Err e = agree(c, std::move(local), &epoch)) return e;
  auto abandon = [&] {
    // Every rank has stopped writing; each host removes its part.
    if (layout.keeper) (void)fault::remove_tree(store.epoch_dir(epoch));
  };

  // Phase 1: the hooks write in this rank's node-local directory, which is
  // sealed (fsync, checksums) and copied to the partner.
  std::vector<fault::FileEntry> files;
  Err wrote = from_status(store.prepare_rank(epoch, c->rank));
  if (wrote.ok()) wrote = checkpoint_hooks::run_save(handle, store.rank_dir(epoch, c->rank));
  if (wrote.ok()) wrote = from_status(store.seal_rank(epoch, c->rank, &files));
  Err copied = copies::send_to_partners(c, layout, store, epoch, wrote.ok(), files);
  if (wrote.ok()) wrote = std::move(copied);
  if (Err e = agree(c, std::move(wrote))) {
    abandon();
    return e;
  }

  // Phase 2: every file and copy is durable; the manifest goes to every host.
  fault::Manifest manifest;
  manifest.epoch = epoch;
  manifest.job_size = c->size;
  std::string all_files;
  Err built = gather_files(c, fault::Manifest::format_files(files), &all_files);
  if (built.ok() && c->rank == 0) {
    built = from_status(fault::Manifest::parse_files(all_files, &manifest.files));
    for (int r = 0; r < c->size; ++r)
      manifest.copies.push_back({r, layout.hosts[r], layout.partner[r], layout.hosts[layout.partner[r]]});
  }
  Err published = broadcast_manifest(c, 0, std::move(built), &manifest);
  if (published.ok() && layout.keeper) published = from_status(store.publish(manifest));
  if (Err e = agree(c, std::move(published))) {
    abandon();
    return e;
  }
  if (layout.keeper) {
    std::vector<std::string> retired;
    if (fault::Status s = store.retire(static_cast<int>(keep), epoch, &retired))
      std::fprintf(stderr, "ferry: rank %d: MPIX_Checkpoint: warning: %s\n", c->rank, s.message().c_str());
    remove_in_background(std::move(retired));
  }
  if (c->rank == 0 && debug::on(debug::kCheckpoint)) {
    uint64_t bytes = 0;
    for (const fault::FileEntry& f : manifest.files) bytes += f.size;
    FERRY_DEBUG(kCheckpoint, "epoch %lld committed: %zu files, %llu bytes from %d ranks, each also on its partner; "
                "in %s on each host", static_cast<long long>(epoch), manifest.files.size(),
                static_cast<unsigned long long>(bytes), c->size, config::value("FERRY_CHECKPOINT_LOCAL_DIR").c_str());
  }
  pmi::clear_checkpoint_request();
  tool::note_checkpoint_committed(static_cast<int>(epoch), c->size);
  *epoch_out = static_cast<int>(epoch);
  return {};
}

Err restore_partnered(Communicator* c, MPI_Comm handle, int* epoch_out) {
  *epoch_out = -1;
  copies::Layout layout;
  Err placed = copies::layout(c, &layout);
  int64_t wanted = -1;
  if (placed.ok()) placed = wanted_epoch(&wanted);
  if (Err e = agree(c, std::move(placed))) return e;
  fault::Store store(layout.root);

  for (int64_t below = INT64_MAX;;) {
    // Phase 1: the newest epoch below the last one tried that some host has
    // a manifest of (a wiped host has none: the others decide).
    // The newest directory of any epoch, too: one newer than the proposal
    // is a commit that did not finish, passed over with a warning.
    int64_t proposal = -1, newest = -1;
    if (wanted >= 0) {
      proposal = wanted;
    } else {
      for (int64_t e : store.epochs()) {
        if (e >= below) continue;
        newest = std::max(newest, e);
        if (store.has_manifest(e)) {
          proposal = e;
          break;
        }
      }
    }
    if (Err e = agree(c, Err(), &proposal)) return e;
    if (Err e = agree(c, Err(), &newest)) return e;
    if (c->rank == 0 && newest > proposal)
      warn_skipped(newest, "no host has its manifest (the commit did not finish)");
    if (proposal < 0) {  // (FERRY_RESTART_FROM's epoch is tried once, and its failure returns)
      if (c->rank == 0) FERRY_DEBUG(kCheckpoint, "no complete epoch on any host: starting afresh");
      return {};
    }
    below = proposal;

    // Phase 2: its manifest; phase 3: lost files come back from partners.
    fault::Manifest m;
    Err found = share_manifest(c, store, proposal, &m);
    if (found.ok() && m.job_size != c->size)
      return fail(MPI_ERR_OTHER, "epoch %lld in %s was written by a job of %d processes, this job has %d; "
                                 "restart with -n %d", static_cast<long long>(proposal), layout.root.c_str(),
                  m.job_size, c->size, m.job_size);
    if (found.ok()) found = agree(c, copies::recover_from_partners(c, layout, store, m));
    if (found) {
      if (wanted >= 0)
        return fail(MPI_ERR_IO, "epoch %lld (FERRY_RESTART_FROM) cannot be restored: %s",
                    static_cast<long long>(wanted), found.message().c_str());
      if (c->rank == 0) warn_skipped(proposal, found.message());
      continue;
    }
    // A host whose store was wiped has its files back; its manifest too, so
    // that it can serve the next restore.
    if (layout.keeper && !store.has_manifest(proposal)) (void)store.publish(m);

    // Phase 4: the restore hooks read it back.
    Err restored = checkpoint_hooks::run_restore(handle, store.rank_dir(proposal, c->rank));
    if (Err e = agree(c, std::move(restored))) return e;
    if (c->rank == 0) FERRY_DEBUG(kCheckpoint, "restored epoch %lld (partner copies)", static_cast<long long>(proposal));
    *epoch_out = static_cast<int>(proposal);
    return {};
  }
}

}  // namespace ferry::runtime::checkpoint
