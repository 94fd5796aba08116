#include "runtime/checkpoint_copies.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "base/datatype.h"
#include "base/request.h"
#include "coll/collectives.h"
#include "common/config.h"
#include "common/debug.h"
#include "fault/crc32c.h"
#include "fault/durable.h"
#include "fault/partner.h"
#include "p2p/message_batch.h"
#include "progress/progress.h"
#include "runtime/runtime.h"

namespace ferry::runtime::checkpoint::copies {

namespace {

constexpr size_t kHostNameBytes = 256;

Err from_status(const fault::Status& s) { return s.ok() ? Err() : fail(MPI_ERR_IO, "%s", s.message().c_str()); }

// This rank's host as partner choice sees it.
std::string my_host() {
  const std::string real = job().hostname.empty() ? "localhost" : job().hostname;
  const int64_t fake = config::integer("FERRY_CHECKPOINT_TEST_RANKS_PER_HOST");
  if (fake <= 0) return real;
  return real + "-fake" + std::to_string(job().rank / fake);
}

// The sends and receives of one exchange round, in bytes, waited for
// together (p2p/message_batch.h).
class Round {
 public:
  Round(Communicator* c, int tag) : batch_(c, tag) {}
  void send(const void* data, uint64_t bytes, int dest) {
    batch_.send(data, static_cast<MPI_Count>(bytes), find_datatype(MPI_BYTE), dest);
  }
  void recv(void* data, uint64_t bytes, int source) {
    batch_.recv(data, static_cast<MPI_Count>(bytes), find_datatype(MPI_BYTE), source);
  }
  Err wait() { return batch_.wait(); }

 private:
  p2p::MessageBatch batch_;
};

// Reads exactly `size` bytes of `path` into `into`; a file of another size
// is refused (it changed since it was sealed or verified).
fault::Status read_exactly(const std::string& path, char* into, uint64_t size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fault::Status::from_errno("cannot open", path);
  uint64_t done = 0;
  char probe = 0;
  for (;;) {
    // The last read asks for one byte more than expected: it must find the end.
    ssize_t got = done < size ? ::read(fd, into + done, size - done) : ::read(fd, &probe, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      fault::Status s = fault::Status::from_errno("cannot read", path);
      ::close(fd);
      return s;
    }
    if (got == 0 || done >= size) {
      ::close(fd);
      if (done == size && got == 0) return {};
      return fault::Status::failure(path + ": its size changed since it was checked");
    }
    done += static_cast<uint64_t>(got);
  }
}

// One rank's files as a message: their `file` lines, then their bytes.
// *header_bytes says where the bytes start. Each file must still have the
// checksum it was sealed with (a hook's thread may not touch it after).
fault::Status pack(const std::string& dir, const std::vector<fault::FileEntry>& files, std::string* message,
                   uint64_t* header_bytes) {
  *message = fault::Manifest::format_files(files);
  *header_bytes = message->size();
  uint64_t total = *header_bytes;
  for (const fault::FileEntry& f : files) total += f.size;
  message->resize(total);  // read in place: no copy, no regrowth
  uint64_t at = *header_bytes;
  for (const fault::FileEntry& f : files) {
    const std::string path = dir + "/" + f.path;
    if (fault::Status s = read_exactly(path, message->data() + at, f.size)) return s;
    if (fault::crc32c(0, message->data() + at, f.size) != f.crc)
      return fault::Status::failure(path + ": CRC-32C changed since it was checked");
    at += f.size;
  }
  return {};
}

// The other side: checks each file's CRC-32C and writes it under `dir`
// (emptied first), durably; `dir`'s own entry and its parents' are synced.
fault::Status unpack(const std::string& message, uint64_t header_bytes, const std::string& dir) {
  std::vector<fault::FileEntry> files;
  if (header_bytes > message.size()) return fault::Status::failure("a partner copy message is torn");
  if (fault::Status s = fault::Manifest::parse_files(message.substr(0, header_bytes), &files))
    return fault::Status::failure("a partner copy's file list: " + s.message());
  if (fault::Status s = fault::remove_tree(dir)) return s;
  if (fault::Status s = fault::make_directories(dir)) return s;
  std::set<std::string> directories;
  uint64_t at = header_bytes;
  for (const fault::FileEntry& f : files) {
    const std::filesystem::path relative(f.path);
    if (relative.is_absolute() || std::find(relative.begin(), relative.end(), "..") != relative.end())
      return fault::Status::failure("a partner copy names a file outside its directory: " + f.path);
    if (f.size > message.size() - at) return fault::Status::failure("a partner copy message is torn");
    if (fault::crc32c(0, message.data() + at, f.size) != f.crc)
      return fault::Status::failure(f.path + ": CRC-32C of the partner copy differs (damaged in transit)");
    const std::string path = dir + "/" + f.path;
    const std::string parent = std::filesystem::path(path).parent_path().string();
    if (fault::Status s = fault::make_directories(parent)) return s;
    if (fault::Status s = fault::write_atomically(path, message.data() + at, f.size)) return s;
    // Each directory between the file and `dir` holds a new entry.
    for (std::filesystem::path d = parent; d.string().size() > dir.size(); d = d.parent_path())
      directories.insert(d.string());
    at += f.size;
  }
  // New subdirectories are durable once their parents are synced, up to
  // the epoch directory (whose own entry the manifest's publish syncs).
  directories.insert(dir);
  const std::filesystem::path above = std::filesystem::path(dir).parent_path();
  directories.insert(above.string());
  directories.insert(above.parent_path().string());
  for (const std::string& d : directories)
    if (fault::Status s = fault::sync_path(d)) return s;
  return {};
}

}  // namespace

Err redundancy(bool* partner) {
  const std::string value = config::value("FERRY_CHECKPOINT_REDUNDANCY");
  *partner = value == "partner";
  if (*partner || value == "none") return {};
  return fail(MPI_ERR_ARG, "FERRY_CHECKPOINT_REDUNDANCY=%s: expected none or partner", value.c_str());
}

Err layout(Communicator* c, Layout* out) {
  char mine[kHostNameBytes] = {};
  std::snprintf(mine, sizeof mine, "%s", my_host().c_str());
  std::vector<char> all(kHostNameBytes * static_cast<size_t>(c->size));
  const Datatype* chars = find_datatype(MPI_CHAR);
  if (Err e = coll::allgather(mine, kHostNameBytes, chars, all.data(), kHostNameBytes, chars, c)) return e;
  out->hosts.clear();
  for (int r = 0; r < c->size; ++r) out->hosts.emplace_back(&all[kHostNameBytes * static_cast<size_t>(r)]);
  out->partner = fault::choose_partners(out->hosts);
  out->keeper = std::find(out->hosts.begin(), out->hosts.end(), out->hosts[c->rank]) - out->hosts.begin() == c->rank;
  const std::string pattern = config::value("FERRY_CHECKPOINT_LOCAL_DIR");
  out->root = fault::expand_host(pattern, out->hosts[c->rank]);
  if (pattern.empty())
    return fail(MPI_ERR_ARG, "FERRY_CHECKPOINT_REDUNDANCY=partner needs FERRY_CHECKPOINT_LOCAL_DIR "
                             "(mpirun --checkpoint-local-dir)");
  if (out->partner.empty())
    return fail(MPI_ERR_ARG, "FERRY_CHECKPOINT_REDUNDANCY=partner needs ranks on at least two hosts (all %d are "
                             "on %s)", c->size, out->hosts[c->rank].c_str());
  return {};
}

Err send_to_partners(Communicator* c, const Layout& l, const fault::Store& store, int64_t epoch, bool sealed,
                     const std::vector<fault::FileEntry>& files) {
  std::vector<int> senders;
  for (int q = 0; q < c->size; ++q)
    if (l.partner[q] == c->rank) senders.push_back(q);
  // Round 1: sizes (header bytes, total bytes; -1: nothing comes).
  std::string message;
  int64_t out_words[2] = {-1, 0};
  Err packed;
  if (sealed) {
    uint64_t header = 0;
    packed = from_status(pack(store.rank_dir(epoch, c->rank), files, &message, &header));
    if (packed.ok()) {
      out_words[0] = static_cast<int64_t>(header);
      out_words[1] = static_cast<int64_t>(message.size());
    }
  }
  std::vector<int64_t> in_words(2 * senders.size());
  Round sizes(c, c->next_collective_tag());
  for (size_t i = 0; i < senders.size(); ++i) sizes.recv(&in_words[2 * i], 2 * sizeof(int64_t), senders[i]);
  sizes.send(out_words, sizeof out_words, l.partner[c->rank]);
  if (Err e = sizes.wait()) return e;

  // Round 2: the files.
  std::vector<std::string> copies(senders.size());
  Round bytes(c, c->next_collective_tag());
  for (size_t i = 0; i < senders.size(); ++i)
    if (in_words[2 * i] >= 0) {
      copies[i].resize(static_cast<size_t>(in_words[2 * i + 1]));
      bytes.recv(copies[i].data(), copies[i].size(), senders[i]);
    }
  if (out_words[0] >= 0) bytes.send(message.data(), message.size(), l.partner[c->rank]);
  if (Err e = bytes.wait()) return e;

  // The copies this rank holds, checked and made durable.
  for (size_t i = 0; i < senders.size(); ++i) {
    if (in_words[2 * i] < 0) continue;  // that rank failed: the epoch will not commit
    if (fault::Status s = unpack(copies[i], static_cast<uint64_t>(in_words[2 * i]), store.partner_dir(epoch, senders[i])))
      return fail(MPI_ERR_IO, "the copy of rank %d's files: %s", senders[i], s.message().c_str());
  }
  return packed;
}

Err recover_from_partners(Communicator* c, const Layout& l, const fault::Store& store, const fault::Manifest& m) {
  const int64_t epoch = m.epoch;
  fault::Status own = fault::Store::verify_in(m, c->rank, store.rank_dir(epoch, c->rank));
  std::vector<int> intact(static_cast<size_t>(c->size));
  int mine = own.ok() ? 1 : 0;
  const Datatype* ints = find_datatype(MPI_INT);
  if (Err e = coll::allgather(&mine, 1, ints, intact.data(), 1, ints, c)) return e;
  for (int q = 0; q < c->size; ++q)
    if (m.copy_of(q) == nullptr)
      return fail(MPI_ERR_IO, "the manifest of epoch %lld records no partner copy of rank %d",
                  static_cast<long long>(epoch), q);

  // Round 1: each holder of a copy that is needed says whether it has it
  // (header bytes, total bytes) or why not (-1, bytes of the reason).
  std::vector<int> needy;
  for (int q = 0; q < c->size; ++q)
    if (!intact[q] && m.copy_of(q)->partner == c->rank) needy.push_back(q);
  std::vector<std::string> messages(needy.size());
  std::vector<int64_t> out_words(2 * needy.size());
  for (size_t i = 0; i < needy.size(); ++i) {
    const std::string dir = store.partner_dir(epoch, needy[i]);
    std::vector<fault::FileEntry> files;
    for (const fault::FileEntry& f : m.files)
      if (f.rank == needy[i]) files.push_back(f);
    uint64_t header = 0;
    fault::Status s = fault::Store::verify_in(m, needy[i], dir);
    if (s.ok()) s = pack(dir, files, &messages[i], &header);
    if (s.ok()) {
      out_words[2 * i] = static_cast<int64_t>(header);
    } else {
      messages[i] = s.message();
      out_words[2 * i] = -1;
    }
    out_words[2 * i + 1] = static_cast<int64_t>(messages[i].size());
  }
  const fault::PartnerCopy& copy = *m.copy_of(c->rank);
  int64_t in_words[2] = {0, 0};
  Round sizes(c, c->next_collective_tag());
  if (!own.ok()) sizes.recv(in_words, sizeof in_words, copy.partner);
  for (size_t i = 0; i < needy.size(); ++i) sizes.send(&out_words[2 * i], 2 * sizeof(int64_t), needy[i]);
  if (Err e = sizes.wait()) return e;

  // Round 2: the copies (or the reasons).
  std::string received(static_cast<size_t>(own.ok() ? 0 : in_words[1]), '\0');
  Round bytes(c, c->next_collective_tag());
  if (!own.ok()) bytes.recv(received.data(), received.size(), copy.partner);
  for (size_t i = 0; i < needy.size(); ++i) bytes.send(messages[i].data(), messages[i].size(), needy[i]);
  if (Err e = bytes.wait()) return e;
  // A rank that wrote no files still gets a directory for its restore hooks.
  if (own.ok()) return from_status(fault::make_directories(store.rank_dir(epoch, c->rank)));

  // Written back into this rank's own directory, then checked against the
  // manifest like any restore.
  fault::Status back = in_words[0] < 0 ? fault::Status::failure(received)
                                       : unpack(received, static_cast<uint64_t>(in_words[0]),
                                                store.rank_dir(epoch, c->rank));
  if (back.ok()) back = fault::Store::verify_in(m, c->rank, store.rank_dir(epoch, c->rank));
  if (back.ok()) {
    FERRY_DEBUG(kCheckpoint, "epoch %lld: files on %s restored from the copy on rank %d (%s); they were lost: %s",
                static_cast<long long>(epoch), l.hosts[c->rank].c_str(), copy.partner,
                l.hosts[copy.partner].c_str(), own.message().c_str());
    return {};
  }
  return fail(MPI_ERR_IO, "%sits files on host %s are lost (%s) and so is their copy on rank %d, host %s (%s)",
              c->rank == 0 ? "rank 0: " : "", l.hosts[c->rank].c_str(), own.message().c_str(), copy.partner,
              l.hosts[copy.partner].c_str(), back.message().c_str());
}

}  // namespace ferry::runtime::checkpoint::copies
