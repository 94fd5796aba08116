#include "runtime/checkpoint_copies.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "base/datatype.h"
#include "base/request.h"
#include "coll/collectives.h"
#include "common/config.h"
#include "common/debug.h"
#include "fault/durable.h"
#include "fault/partner.h"
#include "p2p/message_batch.h"
#include "progress/progress.h"
#include "runtime/checkpoint_stream.h"
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

// The last round after the streams: whether each source read its files
// whole. A sink whose source failed received zeros from that point; it
// says nothing (*source_failed), the source's rank says why.
Err exchange_source_outcomes(Communicator* c, const std::vector<Outgoing>& out, const std::vector<Incoming>& in,
                             std::vector<int64_t>* source_failed) {
  std::vector<int64_t> mine(out.size());
  for (size_t i = 0; i < out.size(); ++i) mine[i] = out[i].source->status().ok() ? 0 : 1;
  source_failed->assign(in.size(), 0);
  Round outcomes(c, c->next_collective_tag());
  for (size_t i = 0; i < in.size(); ++i) outcomes.recv(&(*source_failed)[i], sizeof(int64_t), in[i].source);
  for (size_t i = 0; i < out.size(); ++i) outcomes.send(&mine[i], sizeof(int64_t), out[i].dest);
  return outcomes.wait();
}

void note_streams(const char* what, const std::vector<Outgoing>& out, const std::vector<Incoming>& in,
                  uint64_t most_buffered) {
  if (!debug::on(debug::kCheckpoint)) return;
  uint64_t total = 0;
  for (const Outgoing& o : out) total += o.source->total_bytes();
  for (const Incoming& i : in) total += i.sink->total_bytes();
  FERRY_DEBUG(kCheckpoint, "%s: %zu out, %zu in, %llu bytes, at most %llu bytes held in pieces", what, out.size(),
              in.size(), static_cast<unsigned long long>(total), static_cast<unsigned long long>(most_buffered));
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
  std::optional<FileSource> mine;
  int64_t out_words[2] = {-1, 0};
  if (sealed) {
    mine.emplace(store.rank_dir(epoch, c->rank), files);
    out_words[0] = static_cast<int64_t>(mine->header_bytes());
    out_words[1] = static_cast<int64_t>(mine->total_bytes());
  }
  std::vector<int64_t> in_words(2 * senders.size());
  Round sizes(c, c->next_collective_tag());
  for (size_t i = 0; i < senders.size(); ++i) sizes.recv(&in_words[2 * i], 2 * sizeof(int64_t), senders[i]);
  sizes.send(out_words, sizeof out_words, l.partner[c->rank]);
  if (Err e = sizes.wait()) return e;

  // Round 2 on: the files, piece by piece, each copy written as it comes.
  std::vector<Outgoing> out;
  if (mine) out.push_back({l.partner[c->rank], &*mine});
  std::vector<std::unique_ptr<FileSink>> sinks;
  std::vector<Incoming> in;
  for (size_t i = 0; i < senders.size(); ++i) {
    if (in_words[2 * i] < 0) continue;  // that rank failed: the epoch will not commit
    sinks.push_back(std::make_unique<FileSink>(store.partner_dir(epoch, senders[i]),
                                               static_cast<uint64_t>(in_words[2 * i]),
                                               static_cast<uint64_t>(in_words[2 * i + 1])));
    in.push_back({senders[i], sinks.back().get()});
  }
  uint64_t most_buffered = 0;
  if (Err e = move_streams(c, c->next_collective_tag(), out, in, &most_buffered)) return e;
  std::vector<int64_t> source_failed;
  if (Err e = exchange_source_outcomes(c, out, in, &source_failed)) return e;
  note_streams("partner copies", out, in, most_buffered);

  // The copies this rank holds, checked and made durable.
  for (size_t i = 0; i < in.size(); ++i) {
    fault::Status s = in[i].sink->finish();
    if (!s.ok() && !source_failed[i])
      return fail(MPI_ERR_IO, "the copy of rank %d's files: %s", in[i].source, s.message().c_str());
  }
  return mine ? from_status(mine->status()) : Err();
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
  std::vector<std::unique_ptr<FileSource>> sources(needy.size());
  std::vector<std::string> reasons(needy.size());
  std::vector<int64_t> out_words(2 * needy.size());
  for (size_t i = 0; i < needy.size(); ++i) {
    const std::string dir = store.partner_dir(epoch, needy[i]);
    std::vector<fault::FileEntry> files;
    for (const fault::FileEntry& f : m.files)
      if (f.rank == needy[i]) files.push_back(f);
    fault::Status s = fault::Store::verify_in(m, needy[i], dir);
    if (s.ok()) {
      sources[i] = std::make_unique<FileSource>(dir, files);
      out_words[2 * i] = static_cast<int64_t>(sources[i]->header_bytes());
      out_words[2 * i + 1] = static_cast<int64_t>(sources[i]->total_bytes());
    } else {
      reasons[i] = s.message();
      out_words[2 * i] = -1;
      out_words[2 * i + 1] = static_cast<int64_t>(reasons[i].size());
    }
  }
  const fault::PartnerCopy& copy = *m.copy_of(c->rank);
  int64_t in_words[2] = {0, 0};
  Round sizes(c, c->next_collective_tag());
  if (!own.ok()) sizes.recv(in_words, sizeof in_words, copy.partner);
  for (size_t i = 0; i < needy.size(); ++i) sizes.send(&out_words[2 * i], 2 * sizeof(int64_t), needy[i]);
  if (Err e = sizes.wait()) return e;

  // Round 2: the reasons a copy cannot come.
  const bool refused = !own.ok() && in_words[0] < 0;
  std::string reason(static_cast<size_t>(refused ? in_words[1] : 0), '\0');
  Round why(c, c->next_collective_tag());
  if (refused) why.recv(reason.data(), reason.size(), copy.partner);
  for (size_t i = 0; i < needy.size(); ++i)
    if (!sources[i]) why.send(reasons[i].data(), reasons[i].size(), needy[i]);
  if (Err e = why.wait()) return e;

  // Round 3 on: the copies, piece by piece, written back into the rank's
  // own directory as they come.
  std::vector<Outgoing> out;
  for (size_t i = 0; i < needy.size(); ++i)
    if (sources[i]) out.push_back({needy[i], sources[i].get()});
  std::optional<FileSink> sink;
  std::vector<Incoming> in;
  if (!own.ok() && !refused) {
    sink.emplace(store.rank_dir(epoch, c->rank), static_cast<uint64_t>(in_words[0]),
                 static_cast<uint64_t>(in_words[1]));
    in.push_back({copy.partner, &*sink});
  }
  uint64_t most_buffered = 0;
  if (Err e = move_streams(c, c->next_collective_tag(), out, in, &most_buffered)) return e;
  std::vector<int64_t> source_failed;
  if (Err e = exchange_source_outcomes(c, out, in, &source_failed)) return e;
  if (!out.empty() || !in.empty()) note_streams("copies back", out, in, most_buffered);
  // A rank that wrote no files still gets a directory for its restore hooks.
  if (own.ok()) return from_status(fault::make_directories(store.rank_dir(epoch, c->rank)));

  // Checked against the manifest like any restore.
  fault::Status back;
  if (refused) {
    back = fault::Status::failure(reason);
  } else {
    back = sink->finish();
    if (!back.ok() && source_failed[0]) back = fault::Status::failure("the copy changed while it was sent: " + back.message());
  }
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
