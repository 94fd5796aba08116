// Collective IO, phases 3 and 4 for writes (ROMIO's ADIOI_Exch_and_write,
// with its rounds overlapped).
//
// Each round, every process sends each aggregator the pieces of its access
// that fall in the aggregator's current window: a list of (offset, length)
// runs and the data, packed in file order, straight from the user's buffer
// when it is dense. The aggregator copies the pieces into its block and
// writes it with one pwrite. A block with holes (file bytes no process
// writes) is first filled from the file, hole by hole, or in one read when
// there are many: read-modify-write only where there is a hole, and a block
// with none is written without reading. The aggregator's own pieces go from
// its buffer straight into the block, without a message.
//
// Where the other processes' pieces arrive: a landing area of the
// collective buffer (Plan::landing), from which they are copied into the
// block. Receiving each process's pieces straight into the block at their
// file offsets would save that area and the copy, but the point-to-point
// layer takes a message into scattered places only through a derived
// datatype: one built per process per round from its run list (a layout
// node of ~100 bytes per run, six times the run list, so metadata that
// grows with the access pattern), and received through a bounce buffer of
// the message's size (eager) or of a 256 KiB chunk (rendezvous,
// p2p/pack_stream.h), which would stage the data all the same, out of
// sight and outside cb_buffer_size. Dividing the budget instead keeps
// every byte the aggregator holds in sight and bounded: each message is at
// most `landing` bytes, contiguous, taken by the transport straight into
// the landing area; when a round brings more than the area holds
// (processes writing the same bytes), its messages are received in
// batches, each copied into the block before the next is posted. The
// price is smaller blocks (a third of cb_buffer_size double-buffered, a
// half otherwise), so more rounds.
//
// Double buffering (io/block_pipeline.h; ferry_cb_double_buffer, on by
// default): the aggregator hands round k's block to the I/O worker thread
// and goes on with round k+1 (its counts, its messages, the copy into the
// other block) while the worker writes; it waits for the worker before the
// block is reused for round k+2, and for all of it before the call ends.
// Without it, one block, written by the aggregator itself, with round
// k+1's messages posted first so that what the transport takes without the
// aggregator (a shared-memory ring's free space, the socket buffers) moves
// meanwhile into the landing area, free again once round k is copied.
//
// Data that is not in host memory as the file takes it (io/collective.h's
// Detour: a converting representation, a GPU buffer) is converted or
// copied off the GPU a round's pieces at a time, as they are packed, so
// the request is never held whole in its file form.
//
// Where bytes are written by several processes (MPI-3.1 §13.6.1 leaves the
// result undefined), the pieces are copied in rank order, so the highest
// rank's bytes are the file's, as in ROMIO.
//
// Cost per round: one alltoall of two words per process (the counts), a
// run list and a message per `landing` bytes from each process to each
// aggregator whose window it touches, a memcpy of the data into the
// block, one pwrite per aggregator (and a pread per hole, at most
// kFewHoles, else one). Steered by cb_buffer_size (window and landing
// area) and ferry_cb_double_buffer, and through the domains by cb_nodes,
// cb_config_list and striping_unit.
#include <algorithm>
#include <cstring>

#include "base/type_pack.h"
#include "io/block_pipeline.h"
#include "io/datarep.h"
#include "io/device_staging.h"
#include "io/errors.h"
#include "io/round_messages.h"
#include "io/two_phase.h"

namespace ferry::io {
namespace {

// More holes than this in one block: one read of the whole block beats a
// read per hole.
constexpr size_t kFewHoles = 16;

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

// One message of data to the aggregator: bytes [at, at + bytes) of process
// `source`'s pieces in its window, into the landing area at `landing`.
struct Chunk {
  int source;
  uint64_t at, bytes;
  int batch;
  uint64_t landing;
};

class Writer {
 public:
  Writer(File& f, const Plan& plan, const FlatAccess& access, const Buffer& buffer, AggregatorReport* report,
         const Detour* detour)
      : f_(f), plan_(plan), access_(access), buffer_(buffer), report_(report), detour_(detour),
        dense_(detour != nullptr ? nullptr : type::dense_run(*buffer.type, buffer.data, buffer.count)),
        tag_(f.comm->next_collective_tag()),
        receives_(f.comm, tag_), sends_(f.comm, tag_), blocks_(f, plan, Direction::kWrite, report) {
    const size_t n = plan.aggregators.size();
    next_.assign(n, kUnknown);
    from_.assign(n, 0);
    to_.assign(n, 0);
    out_runs_.resize(n);
    out_data_.resize(n);
  }

  Err run() {
    const bool aggregator = plan_.my_domain >= 0;
    note(post_round(0));
    for (int64_t k = 0; k < plan_.rounds; ++k) {
      // Round k's run lists and its first batch of data.
      note(receives_.wait());
      if (aggregator) {
        // Round k's block was round k-2's: the worker must be done with it.
        note(blocks_.finish(k - 2));
        note(assemble(k));
        if (error_.ok() && block_bytes_ > 0) blocks_.start(k, lo_, {{first_, block_bytes_}});
      }
      // This process's pieces of round k have gone, so what it packed them
      // in may be packed over. Waited apart from the receives: an
      // aggregator may take them in a later batch, once it has copied its
      // first, and it may be waiting for this process's pieces meanwhile.
      note(sends_.wait());
      if (k + 1 < plan_.rounds) note(post_round(k + 1));
      // One block: written here, with round k+1's data in flight.
      if (aggregator && !blocks_.double_buffered()) note(blocks_.finish(k));
    }
    if (aggregator) {
      note(blocks_.finish(plan_.rounds - 2));
      note(blocks_.finish(plan_.rounds - 1));
    }
    return std::move(error_);
  }

 private:
  static constexpr uint64_t kUnknown = ~uint64_t{0};

  void note(Err e) {
    if (e && error_.ok()) error_ = std::move(e);
  }

  // Phase 3, the sending side, and the aggregator's receives.
  Err post_round(int64_t k) {
    const size_t n = plan_.aggregators.size();
    const uint64_t landing = plan_.landing;
    std::vector<int64_t> counts(2 * static_cast<size_t>(f_.comm->size), 0);
    uint64_t staged = 0;
    Err packing;
    for (size_t i = 0; i < n; ++i) {
      uint64_t lo = plan_.window_lo(i, k), hi = plan_.window_hi(i, k);
      out_runs_[i].clear();
      from_[i] = to_[i] = 0;
      if (lo >= hi || access_.bytes() == 0 || hi <= access_.first() || lo >= access_.end()) continue;
      uint64_t from = next_[i] != kUnknown ? next_[i] : access_.packed_below(lo);
      uint64_t to = access_.packed_below(hi);
      next_[i] = to;
      if (to <= from) continue;
      RunList list(&out_runs_[i]);
      access_.runs(from, to, list);
      from_[i] = from;
      to_[i] = to;
      // Its own pieces: copied into the block by assemble(), no message
      // (converted first, or copied off the GPU, on a detour).
      const bool own = static_cast<int>(i) == plan_.my_domain;
      if (own && detour_ == nullptr) continue;
      if (dense_ == nullptr) {
        out_data_[i].resize(to - from);
        if (Err e = pack(from, to - from, out_data_[i].data()); e && packing.ok()) packing = std::move(e);
        staged += to - from;
      }
      if (own) continue;
      size_t agg = static_cast<size_t>(plan_.aggregators[i]);
      counts[2 * agg] = static_cast<int64_t>(out_runs_[i].size() / 2);
      counts[2 * agg + 1] = static_cast<int64_t>(to - from);
    }
    report_->staged = std::max(report_->staged, staged + edge_.capacity());
    if (Err e = exchange_counts(f_.comm, counts, &in_counts_)) return e;

    // Receives first, so that the messages find them posted: every run
    // list, and the data of the first batch (all of it, unless processes
    // write the same bytes).
    if (plan_.my_domain >= 0) {
      uint64_t words = 0;
      chunks_.clear();
      uint64_t fill = 0;
      int batch = 0;
      for (int s = 0; s < f_.comm->size; ++s) {
        words += 2 * static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s)]);
        const uint64_t nb = static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s) + 1]);
        for (uint64_t at = 0; at < nb; at += landing) {
          const uint64_t bytes = std::min(landing, nb - at);
          if (fill + bytes > landing) {
            ++batch;
            fill = 0;
          }
          chunks_.push_back({s, at, bytes, batch, fill});
          fill += bytes;
        }
      }
      if (!chunks_.empty() && landing_ == nullptr) landing_ = collective_buffer(1, landing, &report_->held);
      in_runs_.resize(words);
      run_start_.assign(static_cast<size_t>(f_.comm->size), 0);
      uint64_t w = 0;
      for (int s = 0; s < f_.comm->size; ++s) {
        uint64_t nw = 2 * static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s)]);
        run_start_[static_cast<size_t>(s)] = w;
        receives_.recv_words(in_runs_.data() + w, nw, s);
        w += nw;
      }
      post_batch(0);
    }
    for (size_t i = 0; i < n; ++i) {
      if (out_runs_[i].empty() || static_cast<int>(i) == plan_.my_domain) continue;
      int agg = plan_.aggregators[i];
      const uint64_t bytes = to_[i] - from_[i];
      const char* data = dense_ != nullptr ? dense_ + from_[i] : out_data_[i].data();
      sends_.send_words(out_runs_[i].data(), out_runs_[i].size(), agg);
      for (uint64_t at = 0; at < bytes; at += landing) sends_.send(data + at, std::min(landing, bytes - at), agg);
    }
    // A piece that failed to convert went all the same: the messages match.
    return packing;
  }

  // Bytes [from, from + n) of this process's data as the file takes them:
  // packed, copied off the GPU, or converted. Conversion takes whole
  // elements: those inside the range go straight into `out`; one the range
  // cuts is converted whole into edge_ and kept, as the next range
  // (another aggregator's, or the next round's) starts with its other part.
  Err pack(uint64_t from, uint64_t n, char* out) {
    if (detour_ == nullptr) {
      type::pack(*buffer_.type, buffer_.data, buffer_.count, from, n, out);
      return {};
    }
    if (detour_->device_run != nullptr) return device_staging::copy(out, detour_->device_run + from, n);
    const Buffer& m = detour_->memory;
    const uint64_t element = detour_->element;
    for (uint64_t at = from, end = from + n; at < end;) {
      const uint64_t e = at / element, lo = e * element;
      if (at == lo && end - at >= element) {
        const uint64_t count = (end - at) / element;
        if (Err x = datarep::to_file(*detour_->rep, *m.type, m.data, e, count, out + (at - from))) return x;
        at += count * element;
        continue;
      }
      if (edge_element_ != e) {
        edge_.resize(element);
        edge_element_ = kUnknown;
        if (Err x = datarep::to_file(*detour_->rep, *m.type, m.data, e, 1, edge_.data())) return x;
        edge_element_ = e;
      }
      const uint64_t part = std::min(end, lo + element) - at;
      std::memcpy(out + (at - from), edge_.data() + (at - lo), part);
      at += part;
    }
    return {};
  }

  // The receives of round k's data batch `b`, into the landing area.
  void post_batch(int b) {
    for (const Chunk& c : chunks_)
      if (c.batch == b) receives_.recv(landing_ + c.landing, c.bytes, c.source);
  }

  // Makes sure batch `b` is in the landing area: the batches before it are
  // copied into the block by now, so the next can take their place.
  Err receive_batch(int b) {
    Err first;
    while (received_batch_ < b) {
      post_batch(received_batch_ + 1);
      if (Err e = receives_.wait(); e && first.ok()) first = std::move(e);
      ++received_batch_;
    }
    return first;
  }

  // Phase 4: the pieces of round k in the block, holes filled from the file.
  Err assemble(int64_t k) {
    // The first batch came with the run lists.
    received_batch_ = 0;
    Err e = fill_block(k);
    // Whatever happened, every batch of the round is received, so that the
    // next round's messages match theirs.
    const int last = chunks_.empty() ? 0 : chunks_.back().batch;
    if (Err d = receive_batch(last); d && e.ok()) e = std::move(d);
    return e;
  }

  Err fill_block(int64_t k) {
    const size_t me = static_cast<size_t>(plan_.my_domain);
    lo_ = plan_.window_lo(me, k);
    const uint64_t hi = plan_.window_hi(me, k);
    block_bytes_ = 0;
    pieces_.clear();
    for (int s = 0; s < f_.comm->size; ++s) {
      const bool own = s == f_.comm->rank;
      const uint64_t* runs = own ? out_runs_[me].data() : in_runs_.data() + run_start_[static_cast<size_t>(s)];
      const uint64_t n = own ? out_runs_[me].size() / 2 : static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s)]);
      const uint64_t bytes = own ? to_[me] - from_[me] : static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s) + 1]);
      uint64_t sum = 0;
      for (uint64_t r = 0; r < n; ++r) {
        Piece p{runs[2 * r], runs[2 * r + 1]};
        sum += p.bytes;
        if (p.offset < lo_ || p.offset + p.bytes > hi || sum > bytes)
          return fail(MPI_ERR_INTERN, "collective write: process %d sent a piece [%llu, +%llu) outside the window "
                      "[%llu, %llu)", s, static_cast<unsigned long long>(p.offset),
                      static_cast<unsigned long long>(p.bytes), static_cast<unsigned long long>(lo_),
                      static_cast<unsigned long long>(hi));
        pieces_.push_back(p);
      }
      if (sum != bytes)
        return fail(MPI_ERR_INTERN, "collective write: process %d sent %llu bytes for runs of %llu", s,
                    static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(sum));
    }
    if (pieces_.empty()) return {};
    auto by_offset = [](const Piece& a, const Piece& b) { return a.offset < b.offset; };
    // Each process's pieces come in file order; several processes' interleave.
    if (!std::is_sorted(pieces_.begin(), pieces_.end(), by_offset))
      std::sort(pieces_.begin(), pieces_.end(), by_offset);

    // The holes between the pieces.
    first_ = pieces_.front().offset;
    uint64_t end = first_;
    holes_.clear();
    for (const Piece& p : pieces_) {
      if (p.offset > end) holes_.push_back({end, p.offset - end});
      end = std::max(end, p.offset + p.bytes);
    }
    block_ = blocks_.block(k);
    // Many holes: one read of the span, before any piece is in place.
    const bool one_read = holes_.size() > kFewHoles;
    if (one_read) {
      if (int err = read_range(f_.fd, block_ + (first_ - lo_), end - first_, first_))
        return system_error(err, "cannot read (to fill the holes of a collective write) a range of", f_.path);
      report_->syscalls++;
      report_->holes_read += end - first_;
    }
    // The pieces, in rank order (the highest rank's last).
    size_t chunk = 0;
    for (int s = 0; s < f_.comm->size; ++s) {
      if (s == f_.comm->rank) {
        if (detour_ == nullptr) {
          copy_own_pieces(Direction::kWrite, buffer_, from_[me], to_[me] - from_[me], out_runs_[me], block_, lo_);
        } else {
          const char* data = out_data_[me].data();
          for (size_t r = 0; r + 1 < out_runs_[me].size(); r += 2) {
            std::memcpy(block_ + (out_runs_[me][r] - lo_), data, out_runs_[me][r + 1]);
            data += out_runs_[me][r + 1];
          }
        }
        continue;
      }
      const uint64_t* runs = in_runs_.data() + run_start_[static_cast<size_t>(s)];
      const uint64_t n = static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s)]);
      uint64_t at = 0;  // in the process's data
      for (uint64_t r = 0; r < n; ++r) {
        uint64_t offset = runs[2 * r], left = runs[2 * r + 1];
        while (left > 0) {
          while (chunks_[chunk].source != s || at >= chunks_[chunk].at + chunks_[chunk].bytes) ++chunk;
          const Chunk& c = chunks_[chunk];
          if (Err e = receive_batch(c.batch)) return e;
          const uint64_t m = std::min(left, c.at + c.bytes - at);
          std::memcpy(block_ + (offset - lo_), landing_ + c.landing + (at - c.at), m);
          offset += m;
          at += m;
          left -= m;
        }
      }
    }
    // Few holes: a read each, into bytes that no piece covers.
    if (!one_read) {
      for (const Piece& h : holes_) {
        if (int err = read_range(f_.fd, block_ + (h.offset - lo_), h.bytes, h.offset))
          return system_error(err, "cannot read (to fill a hole of a collective write) a range of", f_.path);
        report_->syscalls++;
        report_->holes_read += h.bytes;
      }
    }
    block_bytes_ = end - first_;
    return {};
  }

  File& f_;
  const Plan& plan_;
  const FlatAccess& access_;
  const Buffer& buffer_;
  AggregatorReport* report_;
  const Detour* detour_;  // nullptr: the file takes the data as it is in memory
  const char* dense_;
  int tag_;
  // One tag for both: a pair of processes posts its messages in the same
  // order on both sides. Apart, so that a process waits for its own sends
  // only when it must reuse what they send from.
  RoundMessages receives_, sends_;
  BlockPipeline blocks_;
  Err error_;

  // The sending side, per aggregator: this round's packed range [from, to).
  std::vector<uint64_t> next_;  // packed position where its next window starts
  std::vector<uint64_t> from_, to_;
  std::vector<std::vector<uint64_t>> out_runs_;
  std::vector<std::vector<char>> out_data_;
  std::vector<char> edge_;  // element edge_element_, converted whole
  uint64_t edge_element_ = kUnknown;

  // The aggregator's side.
  std::vector<int64_t> in_counts_;
  std::vector<uint64_t> in_runs_;
  std::vector<uint64_t> run_start_;  // each process's first word in in_runs_
  std::vector<Chunk> chunks_;        // by process, then by position
  char* landing_ = nullptr;
  int received_batch_ = -1;
  std::vector<Piece> pieces_, holes_;
  char* block_ = nullptr;
  uint64_t lo_ = 0, first_ = 0, block_bytes_ = 0;
};

}  // namespace

Err write_two_phase(File& f, const Plan& plan, const FlatAccess& access, const Buffer& buffer,
                    AggregatorReport* report, const Detour* detour) {
  Writer writer(f, plan, access, buffer, report, detour);
  return writer.run();
}

}  // namespace ferry::io
