// A checkpoint directory: plain directories that a shell or Python hook can
// read, one per epoch and rank, and one manifest per epoch.
//
//   <root>/epoch.<N>/rank.<r>/...   what rank r's save hooks wrote at epoch N
//   <root>/epoch.<N>/MANIFEST       present only once epoch N is complete
//   <root>/epoch.<N>/partner/rank.<q>/...   with partner redundancy (node-local
//                                   roots, fault/partner.h): the copy of rank
//                                   q's files that this host holds for it
//
// An epoch directory without a MANIFEST is a commit that did not finish (a
// rank or the job died first): readers skip it, and the next commit removes
// it. This is the layout of SCR's cache directories reduced to one level.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fault/manifest.h"
#include "fault/status.h"

namespace ferry::fault {

class Store {
 public:
  explicit Store(std::string root) : root_(std::move(root)) {}

  const std::string& root() const { return root_; }
  std::string epoch_dir(int64_t epoch) const;
  std::string rank_dir(int64_t epoch, int rank) const;
  std::string manifest_path(int64_t epoch) const;
  std::string partner_dir(int64_t epoch, int rank) const;

  // Epoch numbers that have a directory, complete or not, newest first.
  std::vector<int64_t> epochs() const;
  bool has_manifest(int64_t epoch) const;
  // One past the highest epoch directory present (0 in an empty store), so
  // that a new commit never reuses the name of a torn one.
  int64_t next_epoch() const;

  // Writer, phase 1 (each rank): an empty directory for the hooks.
  Status prepare_rank(int64_t epoch, int rank) const;
  // Writer, phase 1 end (each rank): fsyncs every file and directory the
  // hooks left in the rank's directory and lists them with size and CRC-32C.
  Status seal_rank(int64_t epoch, int rank, std::vector<FileEntry>* files) const;
  // Writer, any time after the epoch directory was made and before the
  // commit returns (the process that publishes): makes the epoch
  // directory's own entry in the root durable. Done beside phase 1, it costs
  // the commit nothing; lost in a crash before publish() ends, it loses an
  // epoch that had no manifest yet, so the previous one stays the latest.
  Status sync_root() const;
  // Writer, phase 2 (one process, after every rank sealed): the manifest,
  // written beside, fdatasynced and renamed into place, and the epoch
  // directory synced (its MANIFEST and rank.<r> entries). With
  // Root::kSync the root is synced last, as sync_root() would.
  enum class Root { kSync, kAlreadySynced };
  Status publish(const Manifest& manifest, Root root = Root::kSync) const;

  // Reader: the parsed manifest of an epoch.
  Status read_manifest(int64_t epoch, Manifest* manifest) const;
  // Reader: whether the files of `rank` (every rank when rank < 0) have the
  // sizes and checksums the manifest records; the first mismatch is named.
  Status verify(const Manifest& manifest, int rank) const;
  // Reader: the same for one rank's files found in `dir` (its own
  // directory or a partner copy).
  static Status verify_in(const Manifest& manifest, int rank, const std::string& dir);
  // The newest epoch whose manifest and files all verify, or -1. Each epoch
  // passed over adds one line to `skipped` saying why.
  int64_t latest_complete(std::vector<std::string>* skipped) const;

  // Keeps the `keep` newest complete epochs and removes the older ones, and
  // every incomplete epoch older than `current` (left by a failed commit).
  Status prune(int keep, int64_t current) const;
  // The first half of prune(): the epochs to go are renamed out of the
  // store's view (to <root>/.retired.epoch.<N>) and listed in `retired`,
  // with any left over from earlier, for the caller to remove when it suits.
  Status retire(int keep, int64_t current, std::vector<std::string>* retired) const;

 private:
  std::string root_;
};

}  // namespace ferry::fault
