// Collective IO, phases 3 and 4 for reads: the mirror image of
// io/two_phase_write.cc (ROMIO's ADIOI_Read_and_exch).
//
// Each round, every process sends each aggregator the list of runs it wants
// from the aggregator's current window; the aggregator reads the window's
// part that holds them (one pread of the whole span, data sieving, unless
// holes outweigh the data: then a pread per contiguous extent) and answers
// each process with its bytes, packed in its runs' order, which land
// straight in the user's buffer when it is dense. The aggregator's own
// pieces go from the block straight into its buffer, without a message.
//
// The replies are packed in the landing area of the collective buffer
// (Plan::landing; io/two_phase_write.cc says why not straight from the
// block), in messages of at most `landing` bytes; when a round's replies
// outgrow it (processes reading the same bytes, a header that every one
// reads), the aggregator waits for the messages sent from it before it
// packs the next ones there.
//
// Data that the buffer does not hold as the file does (io/collective.h's
// Detour: a converting representation, a GPU buffer) is converted or
// copied onto the GPU as each aggregator's part of a round arrives
// (Reader::deliver).
//
// Double buffering (io/block_pipeline.h; ferry_cb_double_buffer, on by
// default): round k+1's run lists are exchanged before round k's answers,
// so the aggregator hands round k+1's preads to the I/O worker and, while
// they run, copies round k's pieces out of the other block and sends them.
// Run lists and data travel under two tags, since a process now sends an
// aggregator round k+1's list while the aggregator sends it round k's data.
// Without it, one block, read by the aggregator itself just before it
// answers, and round k+1's lists after round k's data.
//
// Cost per round: one alltoall of two words per process, a run list to
// and a data message from each aggregator whose window a process reads,
// one pread (or one per extent) per aggregator and a memcpy of the data.
// The aggregator holds its blocks and the landing area: cb_buffer_size in
// all. Steered by cb_buffer_size, ferry_cb_double_buffer, and
// through the domains by cb_nodes, cb_config_list and striping_unit. Reads
// past the end of the file never get here: the caller shortens each access
// to the file's size first.
#include <algorithm>
#include <cstring>
#include <map>

#include "base/type_pack.h"
#include "io/block_pipeline.h"
#include "io/datarep.h"
#include "io/device_staging.h"
#include "io/errors.h"
#include "io/round_messages.h"
#include "io/two_phase.h"

namespace ferry::io {
namespace {

struct RunList final : type::RunVisitor {
  explicit RunList(std::vector<uint64_t>* words) : words(words) {}
  std::vector<uint64_t>* words;
  void run(uint64_t offset, uint64_t bytes) override {
    words->push_back(offset);
    words->push_back(bytes);
  }
};

struct Piece {
  uint64_t offset, bytes;
};

// What the aggregator knows of one round once the run lists are in.
struct Asked {
  std::vector<int64_t> counts;      // 2 words per process: runs, bytes
  std::vector<uint64_t> runs;       // (offset, length) pairs, by process
  std::vector<Piece> pieces;        // in the processes' order
  std::vector<size_t> piece_start;  // each process's first piece; one more at the end
  std::vector<uint64_t> own_runs;   // its own, which it does not ask by message
  bool valid = false;               // the runs are all inside the window
};

class Reader {
 public:
  Reader(File& f, const Plan& plan, const FlatAccess& access, const Buffer& buffer, AggregatorReport* report,
         const Detour* detour)
      : f_(f), plan_(plan), access_(access), buffer_(buffer), report_(report), detour_(detour),
        dense_(detour != nullptr ? nullptr
                                    : const_cast<char*>(type::dense_run(*buffer.type, buffer.data, buffer.count))),
        lists_tag_(f.comm->next_collective_tag()), data_tag_(f.comm->next_collective_tag()),
        replies_(f.comm, data_tag_), blocks_(f, plan, Direction::kRead, report) {
    const size_t n = plan.aggregators.size();
    next_.assign(n, kUnknown);
    for (int p = 0; p < 2; ++p) {
      from_[p].assign(n, 0);
      to_[p].assign(n, 0);
    }
    out_runs_.resize(n);
    in_data_.resize(n);
  }

  Err run() {
    if (plan_.rounds > 0) note(ask(0));
    for (int64_t k = 0; k < plan_.rounds; ++k) {
      const bool more = k + 1 < plan_.rounds;
      RoundMessages data(f_.comm, data_tag_);
      post_receives(k, data);
      // Round k+1's preads start on the worker before round k is answered.
      if (more && blocks_.double_buffered()) note(ask(k + 1));
      if (plan_.my_domain >= 0) answer(k);
      if (Err e = data.wait()) note(std::move(e));
      else unpack(k);
      if (more && !blocks_.double_buffered()) note(ask(k + 1));
    }
    note(replies_.wait());
    return std::move(error_);
  }

 private:
  static constexpr uint64_t kUnknown = ~uint64_t{0};

  void note(Err e) {
    if (e && error_.ok()) error_ = std::move(e);
  }

  // Phase 3: what this process wants from each aggregator's window of
  // round k, told to the aggregators; an aggregator then starts reading
  // the extents that hold what it was asked.
  Err ask(int64_t k) {
    const size_t n = plan_.aggregators.size();
    const int size = f_.comm->size;
    std::vector<uint64_t>& from = from_[k % 2];
    std::vector<uint64_t>& to = to_[k % 2];
    std::vector<int64_t> counts(2 * static_cast<size_t>(size), 0);
    for (size_t i = 0; i < n; ++i) {
      uint64_t lo = plan_.window_lo(i, k), hi = plan_.window_hi(i, k);
      out_runs_[i].clear();
      to[i] = from[i] = 0;
      if (lo >= hi || access_.bytes() == 0 || hi <= access_.first() || lo >= access_.end()) continue;
      uint64_t f = next_[i] != kUnknown ? next_[i] : access_.packed_below(lo);
      uint64_t t = access_.packed_below(hi);
      next_[i] = t;
      if (t <= f) continue;
      RunList list(&out_runs_[i]);
      access_.runs(f, t, list);
      from[i] = f;
      to[i] = t;
      // Its own pieces: copied out of the block by answer(), no message.
      if (static_cast<int>(i) == plan_.my_domain) continue;
      size_t agg = static_cast<size_t>(plan_.aggregators[i]);
      counts[2 * agg] = static_cast<int64_t>(out_runs_[i].size() / 2);
      counts[2 * agg + 1] = static_cast<int64_t>(t - f);
    }
    Asked& asked = asked_[k % 2];
    asked.valid = false;
    if (plan_.my_domain >= 0) asked.own_runs = out_runs_[static_cast<size_t>(plan_.my_domain)];
    if (Err e = exchange_counts(f_.comm, counts, &asked.counts)) return e;

    RoundMessages lists(f_.comm, lists_tag_);
    if (plan_.my_domain >= 0) {
      uint64_t words = 0;
      for (int s = 0; s < size; ++s) words += 2 * static_cast<uint64_t>(asked.counts[2 * static_cast<size_t>(s)]);
      asked.runs.resize(words);
      uint64_t w = 0;
      for (int s = 0; s < size; ++s) {
        uint64_t nw = 2 * static_cast<uint64_t>(asked.counts[2 * static_cast<size_t>(s)]);
        lists.recv_words(asked.runs.data() + w, nw, s);
        w += nw;
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (!out_runs_[i].empty() && static_cast<int>(i) != plan_.my_domain)
        lists.send_words(out_runs_[i].data(), out_runs_[i].size(), plan_.aggregators[i]);
    Err local = lists.wait();
    if (plan_.my_domain >= 0 && local.ok()) local = start_reading(k, asked);
    return local;
  }

  // The pieces of round k and the extents of the window that hold them,
  // handed to the block pipeline.
  Err start_reading(int64_t k, Asked& asked) {
    const size_t me = static_cast<size_t>(plan_.my_domain);
    const uint64_t lo = plan_.window_lo(me, k), hi = plan_.window_hi(me, k);
    const int size = f_.comm->size;
    asked.pieces.clear();
    asked.piece_start.assign(static_cast<size_t>(size) + 1, 0);
    size_t w = 0;
    for (int s = 0; s < size; ++s) {
      asked.piece_start[static_cast<size_t>(s)] = asked.pieces.size();
      uint64_t runs = static_cast<uint64_t>(asked.counts[2 * static_cast<size_t>(s)]);
      uint64_t sum = 0;
      for (uint64_t r = 0; r < runs; ++r, w += 2) {
        Piece p{asked.runs[w], asked.runs[w + 1]};
        if (p.offset < lo || p.offset + p.bytes > hi)
          return fail(MPI_ERR_INTERN, "collective read: process %d asked for [%llu, +%llu) outside the window "
                      "[%llu, %llu)", s, static_cast<unsigned long long>(p.offset),
                      static_cast<unsigned long long>(p.bytes), static_cast<unsigned long long>(lo),
                      static_cast<unsigned long long>(hi));
        sum += p.bytes;
        asked.pieces.push_back(p);
      }
      if (sum != static_cast<uint64_t>(asked.counts[2 * static_cast<size_t>(s) + 1]))
        return fail(MPI_ERR_INTERN, "collective read: process %d asked for %llu bytes in runs of %llu", s,
                    static_cast<unsigned long long>(asked.counts[2 * static_cast<size_t>(s) + 1]),
                    static_cast<unsigned long long>(sum));
    }
    asked.piece_start[static_cast<size_t>(size)] = asked.pieces.size();
    asked.valid = true;
    std::vector<Piece> sorted = asked.pieces;
    for (size_t r = 0; r + 1 < asked.own_runs.size(); r += 2) sorted.push_back({asked.own_runs[r], asked.own_runs[r + 1]});
    if (sorted.empty()) return {};
    auto by_offset = [](const Piece& a, const Piece& b) { return a.offset < b.offset; };
    if (!std::is_sorted(sorted.begin(), sorted.end(), by_offset)) std::sort(sorted.begin(), sorted.end(), by_offset);

    // Extents: the pieces merged where they touch or overlap.
    std::vector<Extent> extents;
    uint64_t data_bytes = 0;
    for (const Piece& p : sorted) {
      if (extents.empty() || p.offset > extents.back().offset + extents.back().bytes) {
        extents.push_back({p.offset, p.bytes});
      } else {
        Extent& e = extents.back();
        e.bytes = std::max(e.offset + e.bytes, p.offset + p.bytes) - e.offset;
      }
    }
    for (const Extent& e : extents) data_bytes += e.bytes;
    const uint64_t first = extents.front().offset, end = extents.back().offset + extents.back().bytes;
    // Data sieving: one read of the span, unless it would read more hole
    // than data.
    if (extents.size() > 1 && end - first - data_bytes <= data_bytes) extents = {{first, end - first}};
    blocks_.start(k, lo, std::move(extents));
    return {};
  }

  // Where round k's bytes from each aggregator land.
  void post_receives(int64_t k, RoundMessages& data) {
    const std::vector<uint64_t>& from = from_[k % 2];
    const std::vector<uint64_t>& to = to_[k % 2];
    const uint64_t landing = plan_.landing;
    uint64_t staged = 0;
    for (size_t i = 0; i < plan_.aggregators.size(); ++i) {
      if (to[i] <= from[i] || static_cast<int>(i) == plan_.my_domain) continue;
      const uint64_t bytes = to[i] - from[i];
      char* into = dense_ != nullptr ? dense_ + from[i] : nullptr;
      if (into == nullptr) {
        in_data_[i].resize(bytes);
        into = in_data_[i].data();
        staged += bytes;
      }
      // In the messages the aggregator packs them in: `landing` bytes each.
      // (And elements cut by a round, gathered until whole.)
      for (uint64_t at = 0; at < bytes; at += landing)
        data.recv(into + at, std::min(landing, bytes - at), plan_.aggregators[i]);
    }
    if (detour_ != nullptr) staged += partial_.size() * detour_->element + own_.capacity();
    report_->staged = std::max(report_->staged, staged);
  }

  // Phase 4: round k's block, once read, copied out to whoever asked: its
  // own pieces into its buffer, the others' packed in the landing area.
  void answer(int64_t k) {
    const Asked& asked = asked_[k % 2];
    Err local = blocks_.finish(k);
    const bool copy = local.ok() && asked.valid;
    const uint64_t lo = plan_.window_lo(static_cast<size_t>(plan_.my_domain), k);
    const char* block = blocks_.block(k);
    const size_t me = static_cast<size_t>(plan_.my_domain);
    const uint64_t own_from = from_[k % 2][me], own_bytes = to_[k % 2][me] - own_from;
    if (copy && detour_ == nullptr) {
      copy_own_pieces(Direction::kRead, buffer_, own_from, own_bytes, asked.own_runs, const_cast<char*>(block), lo);
    } else if (copy && own_bytes > 0) {
      // On a detour (converted, or copied onto the GPU): packed first, in
      // the access's order.
      own_.resize(own_bytes);
      char* at = own_.data();
      for (size_t r = 0; r + 1 < asked.own_runs.size(); r += 2) {
        std::memcpy(at, block + (asked.own_runs[r] - lo), asked.own_runs[r + 1]);
        at += asked.own_runs[r + 1];
      }
      note(deliver(own_from, own_bytes, own_.data()));
    }
    // The replies, sized by what was asked: after a failure they are sent
    // all the same (garbage), so that nobody waits in vain.
    const uint64_t landing = plan_.landing;
    uint64_t fill = 0;
    bool fresh = true;  // the landing area may still be in earlier messages
    for (int s = 0; s < f_.comm->size; ++s) {
      const uint64_t nb = static_cast<uint64_t>(asked.counts[2 * static_cast<size_t>(s) + 1]);
      size_t piece = copy ? asked.piece_start[static_cast<size_t>(s)] : 0;
      const size_t pieces_end = copy ? asked.piece_start[static_cast<size_t>(s) + 1] : 0;
      uint64_t used = 0;  // of the current piece
      for (uint64_t at = 0; at < nb; at += landing) {
        const uint64_t bytes = std::min(landing, nb - at);
        if (fresh || fill + bytes > landing) {
          // Messages sent from the landing area (this round's, or the last
          // round's) must have gone before it is packed over.
          note(replies_.wait());
          if (landing_ == nullptr) landing_ = collective_buffer(1, landing, &report_->held);
          fill = 0;
          fresh = false;
        }
        char* out = landing_ + fill;
        for (uint64_t done = 0; done < bytes && piece < pieces_end;) {
          const Piece& p = asked.pieces[piece];
          const uint64_t m = std::min(bytes - done, p.bytes - used);
          std::memcpy(out + done, block + (p.offset + used - lo), m);
          done += m;
          used += m;
          if (used == p.bytes) {
            ++piece;
            used = 0;
          }
        }
        replies_.send(out, bytes, s);
        fill += bytes;
      }
    }
    note(std::move(local));
  }

  // What did not land in place.
  void unpack(int64_t k) {
    if (dense_ != nullptr) return;
    const std::vector<uint64_t>& from = from_[k % 2];
    const std::vector<uint64_t>& to = to_[k % 2];
    for (size_t i = 0; i < plan_.aggregators.size(); ++i)
      if (to[i] > from[i] && static_cast<int>(i) != plan_.my_domain)
        note(deliver(from[i], to[i] - from[i], in_data_[i].data()));
  }

  // Bytes [from, from + n) of this process's data, as the file holds them,
  // into its buffer: unpacked, copied onto the GPU, or converted. Conversion takes whole
  // elements: those inside the range at once; one the range cuts is
  // gathered in partial_ until its last byte has come (from another
  // aggregator, or a later round), then converted.
  Err deliver(uint64_t from, uint64_t n, const char* data) {
    if (detour_ == nullptr) {
      type::unpack(*buffer_.type, buffer_.data, buffer_.count, from, n, data);
      return {};
    }
    if (detour_->device_run != nullptr) return device_staging::copy(detour_->device_run + from, data, n);
    const Buffer& m = detour_->memory;
    const uint64_t element = detour_->element;
    for (uint64_t at = from, end = from + n; at < end;) {
      const uint64_t e = at / element, lo = e * element;
      if (at == lo && end - at >= element) {
        const uint64_t count = (end - at) / element;
        if (Err x = datarep::from_file(*detour_->rep, *m.type, m.data, e, count, data + (at - from))) return x;
        at += count * element;
        continue;
      }
      Partial& p = partial_[e];
      p.bytes.resize(element);
      const uint64_t part = std::min(end, lo + element) - at;
      std::memcpy(p.bytes.data() + (at - lo), data + (at - from), part);
      p.filled += part;
      at += part;
      if (p.filled == element) {
        Err x = datarep::from_file(*detour_->rep, *m.type, m.data, e, 1, p.bytes.data());
        partial_.erase(e);
        if (x) return x;
      }
    }
    return {};
  }

  File& f_;
  const Plan& plan_;
  const FlatAccess& access_;
  const Buffer& buffer_;
  AggregatorReport* report_;
  const Detour* detour_;  // nullptr: the data is in memory as the file holds it
  char* dense_;
  int lists_tag_, data_tag_;
  // The aggregator's replies, sent from the landing area: waited for before
  // it is packed over (the process's own receives are waited apart).
  RoundMessages replies_;
  char* landing_ = nullptr;
  BlockPipeline blocks_;
  Err error_;

  // The asking side, per aggregator; from_/to_ by the round's parity.
  std::vector<uint64_t> next_, from_[2], to_[2];
  std::vector<std::vector<uint64_t>> out_runs_;
  std::vector<std::vector<char>> in_data_;
  struct Partial {
    std::vector<char> bytes;
    uint64_t filled = 0;
  };
  std::map<uint64_t, Partial> partial_;  // by element index
  std::vector<char> own_;                 // an aggregator's own pieces, to convert
  // The aggregator's side, by the round's parity.
  Asked asked_[2];
};

}  // namespace

Err read_two_phase(File& f, const Plan& plan, const FlatAccess& access, const Buffer& buffer,
                   AggregatorReport* report, const Detour* detour) {
  Reader reader(f, plan, access, buffer, report, detour);
  return reader.run();
}

}  // namespace ferry::io
