#include "fault/store.h"

#include <stdio.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "fault/crc32c.h"
#include "fault/durable.h"
#include "fault/seal.h"

namespace fs = std::filesystem;

namespace ferry::fault {

namespace {
constexpr const char* kEpochPrefix = "epoch.";
constexpr const char* kManifestName = "MANIFEST";
constexpr const char* kRetiredPrefix = ".retired.epoch.";

// "epoch.<digits>" -> N; anything else (epoch.3.tmp, notes.txt) -> -1.
int64_t epoch_of(const std::string& name) {
  const std::string prefix = kEpochPrefix;
  if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size()) return -1;
  int64_t n = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || n > (INT32_MAX - 9) / 10) return -1;
    n = n * 10 + (name[i] - '0');
  }
  return n;
}
}  // namespace

std::string Store::epoch_dir(int64_t epoch) const { return root_ + "/" + kEpochPrefix + std::to_string(epoch); }
std::string Store::rank_dir(int64_t epoch, int rank) const {
  return epoch_dir(epoch) + "/rank." + std::to_string(rank);
}
std::string Store::manifest_path(int64_t epoch) const { return epoch_dir(epoch) + "/" + kManifestName; }
std::string Store::partner_dir(int64_t epoch, int rank) const {
  return epoch_dir(epoch) + "/partner/rank." + std::to_string(rank);
}

std::vector<int64_t> Store::epochs() const {
  std::vector<int64_t> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(root_, ec)) {
    int64_t n = epoch_of(e.path().filename().string());
    if (n >= 0 && e.is_directory(ec)) found.push_back(n);
  }
  std::sort(found.rbegin(), found.rend());
  return found;
}

bool Store::has_manifest(int64_t epoch) const {
  std::error_code ec;
  return fs::is_regular_file(manifest_path(epoch), ec);
}

int64_t Store::next_epoch() const {
  std::vector<int64_t> all = epochs();
  return all.empty() ? 0 : all.front() + 1;
}

Status Store::prepare_rank(int64_t epoch, int rank) const {
  const std::string dir = rank_dir(epoch, rank);
  if (Status s = remove_tree(dir)) return s;
  return make_directories(dir);
}

Status Store::seal_rank(int64_t epoch, int rank, std::vector<FileEntry>* files) const {
  const fs::path dir = rank_dir(epoch, rank);
  std::vector<FileEntry> found;
  std::vector<std::string> directories{dir.string()};
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::string path = e.path().string();
    if (e.is_symlink(ec)) return Status::failure(path + ": a symbolic link (a checkpoint holds plain files only)");
    if (e.is_directory(ec)) {
      directories.push_back(path);
      continue;
    }
    if (!e.is_regular_file(ec)) return Status::failure(path + ": not a regular file");
    FileEntry f;
    f.rank = rank;
    f.path = e.path().lexically_relative(dir).string();
    if (f.path.find('\n') != std::string::npos || f.path.front() == ' ')
      return Status::failure(path + ": a file name with a newline or a leading space cannot go in the manifest");
    found.push_back(std::move(f));
  }
  if (ec) return Status::failure("cannot list " + dir.string() + ": " + ec.message());
  // The checksums overlap the disk's writes (fault/seal.h). New entries are
  // durable only once their directories are synced; the rank directory's
  // own entry, in the epoch directory, is synced by publish().
  if (Status s = seal_files(dir.string(), &found, directories)) return s;
  std::sort(found.begin(), found.end(), [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  *files = std::move(found);
  return {};
}

Status Store::sync_root() const { return sync_path(root_); }

Status Store::publish(const Manifest& manifest, Root root) const {
  // write_atomically ends with the fsync of the epoch directory: the
  // manifest's entry and, in the same call, every rank.<r> entry.
  if (Status s = write_atomically(manifest_path(manifest.epoch), manifest.format())) return s;
  return root == Root::kSync ? sync_root() : Status();
}

Status Store::read_manifest(int64_t epoch, Manifest* manifest) const {
  const std::string path = manifest_path(epoch);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::failure("no manifest " + path + " (the commit did not finish)");
  std::ostringstream text;
  text << in.rdbuf();
  if (Status s = Manifest::parse(text.str(), manifest)) return Status::failure(path + ": " + s.message());
  if (manifest->epoch != epoch)
    return Status::failure(path + ": records epoch " + std::to_string(manifest->epoch) + ", not " +
                           std::to_string(epoch));
  return {};
}

namespace {
// One file against its manifest entry: present, of the recorded size and checksum.
Status check_file(const FileEntry& f, const std::string& path) {
  uint32_t crc = 0;
  uint64_t size = 0;
  if (Status s = crc32c_file(path, &crc, &size)) return s;
  if (size != f.size)
    return Status::failure(path + ": " + std::to_string(size) + " bytes, the manifest records " +
                           std::to_string(f.size) + " (truncated or extended)");
  if (crc != f.crc) return Status::failure(path + ": CRC-32C differs from the manifest's (the data changed)");
  return {};
}
}  // namespace

Status Store::verify(const Manifest& manifest, int rank) const {
  for (const FileEntry& f : manifest.files) {
    if (rank >= 0 && f.rank != rank) continue;
    if (Status s = check_file(f, rank_dir(manifest.epoch, f.rank) + "/" + f.path)) return s;
  }
  return {};
}

Status Store::verify_in(const Manifest& manifest, int rank, const std::string& dir) {
  for (const FileEntry& f : manifest.files)
    if (f.rank == rank)
      if (Status s = check_file(f, dir + "/" + f.path)) return s;
  return {};
}

int64_t Store::latest_complete(std::vector<std::string>* skipped) const {
  for (int64_t epoch : epochs()) {
    Manifest m;
    Status s = read_manifest(epoch, &m);
    if (s.ok()) s = verify(m, -1);
    if (s.ok()) return epoch;
    if (skipped) skipped->push_back("epoch " + std::to_string(epoch) + " skipped: " + s.message());
  }
  return -1;
}

Status Store::retire(int keep, int64_t current, std::vector<std::string>* retired) const {
  int complete = 0;
  for (int64_t epoch : epochs()) {  // newest first
    if (epoch > current) continue;  // not there when one job writes; not ours to judge
    bool done = epoch == current || has_manifest(epoch);
    if (done && ++complete <= keep) continue;
    // One rename takes it out of every reader's view at once; the slow
    // part, freeing its blocks, can happen later.
    const std::string away = root_ + "/" + kRetiredPrefix + std::to_string(epoch);
    if (::rename(epoch_dir(epoch).c_str(), away.c_str()) != 0)
      return Status::from_errno("cannot retire", epoch_dir(epoch));
  }
  // Retired here, or by a process that ended before removing them.
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(root_, ec))
    if (e.path().filename().string().rfind(kRetiredPrefix, 0) == 0) retired->push_back(e.path().string());
  return {};
}

Status Store::prune(int keep, int64_t current) const {
  std::vector<std::string> retired;
  if (Status s = retire(keep, current, &retired)) return s;
  for (const std::string& path : retired)
    if (Status s = remove_tree(path)) return s;
  return {};
}

}  // namespace ferry::fault
