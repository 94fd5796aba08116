// Collective IO, phases 3 and 4 for writes (ROMIO's ADIOI_Exch_and_write,
// with its rounds overlapped).
//
// Each round, every process sends each aggregator the pieces of its access
// that fall in the aggregator's current window of cb_buffer_size bytes: a
// list of (offset, length) runs and the data, packed, straight from the
// user's buffer when it is dense. The aggregator copies the pieces into its
// block and writes it with one pwrite. A block with holes (file bytes no
// process writes) is first filled from the file, hole by hole, or in one
// read when there are many: read-modify-write only where there is a hole,
// and a block with none is written without reading.
//
// Double buffering (io/block_pipeline.h; ferry_cb_double_buffer, on by
// default): the aggregator hands round k's block to the I/O worker thread
// and goes on with round k+1 (its counts, its messages, the copy into the
// other block) while the worker writes; it waits for the worker before the
// block is reused for round k+2, and for all of it before the call ends.
// The two blocks are halves of cb_buffer_size. Without it, one block of
// cb_buffer_size is written by the aggregator itself, with round k+1's
// messages posted first so that what the transport takes without the
// aggregator (a shared-memory ring's free space, the socket buffers) moves
// meanwhile. Either way the incoming data of one round takes a staging
// buffer of one window besides.
//
// Cost per round: one alltoall of two words per process (the counts), two
// messages from each process to each aggregator whose window it touches,
// a memcpy of the data into the block, one pwrite per aggregator (and a
// pread per hole, at most kFewHoles, else one). Steered by cb_buffer_size
// (the window), and through the domains by cb_nodes, cb_config_list and
// striping_unit.
#include <algorithm>
#include <cstring>

#include "base/type_pack.h"
#include "io/block_pipeline.h"
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
  const char* data;
};

class Writer {
 public:
  Writer(File& f, const Plan& plan, const FlatAccess& access, const Buffer& buffer, AggregatorReport* report)
      : f_(f), plan_(plan), access_(access), buffer_(buffer), report_(report),
        dense_(type::dense_run(*buffer.type, buffer.data, buffer.count)),
        messages_(f.comm, f.comm->next_collective_tag()), blocks_(f, plan, Direction::kWrite, report) {
    const size_t n = plan.aggregators.size();
    next_.assign(n, kUnknown);
    out_runs_.resize(n);
    out_data_.resize(n);
  }

  Err run() {
    const bool aggregator = plan_.my_domain >= 0;
    note(post_round(0));
    for (int64_t k = 0; k < plan_.rounds; ++k) {
      note(messages_.wait());
      if (aggregator) {
        // Round k's block was round k-2's: the worker must be done with it.
        note(blocks_.finish(k - 2));
        note(assemble(k));
        if (error_.ok() && block_bytes_ > 0) blocks_.start(k, lo_, {{first_, block_bytes_}});
      }
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
    std::vector<int64_t> counts(2 * static_cast<size_t>(f_.comm->size), 0);
    for (size_t i = 0; i < n; ++i) {
      uint64_t lo = plan_.window_lo(i, k), hi = plan_.window_hi(i, k);
      out_runs_[i].clear();
      if (lo >= hi || access_.bytes() == 0 || hi <= access_.first() || lo >= access_.end()) continue;
      uint64_t from = next_[i] != kUnknown ? next_[i] : access_.packed_below(lo);
      uint64_t to = access_.packed_below(hi);
      next_[i] = to;
      if (to <= from) continue;
      RunList list(&out_runs_[i]);
      access_.runs(from, to, list);
      if (dense_ == nullptr) {
        out_data_[i].resize(to - from);
        type::pack(*buffer_.type, buffer_.data, buffer_.count, from, to - from, out_data_[i].data());
      }
      size_t agg = static_cast<size_t>(plan_.aggregators[i]);
      counts[2 * agg] = static_cast<int64_t>(out_runs_[i].size() / 2);
      counts[2 * agg + 1] = static_cast<int64_t>(to - from);
      from_[i] = from;
    }
    if (Err e = exchange_counts(f_.comm, counts, &in_counts_)) return e;

    // Receives first, so that the messages find them posted.
    if (plan_.my_domain >= 0) {
      uint64_t words = 0, bytes = 0;
      for (int s = 0; s < f_.comm->size; ++s) {
        words += 2 * static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s)]);
        bytes += static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s) + 1]);
      }
      in_runs_.resize(words);
      in_data_ = collective_buffer(1, bytes);
      uint64_t w = 0, b = 0;
      for (int s = 0; s < f_.comm->size; ++s) {
        uint64_t nw = 2 * static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s)]);
        uint64_t nb = static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s) + 1]);
        messages_.recv_words(in_runs_.data() + w, nw, s);
        messages_.recv(in_data_ + b, nb, s);
        w += nw;
        b += nb;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (out_runs_[i].empty()) continue;
      int agg = plan_.aggregators[i];
      uint64_t bytes = static_cast<uint64_t>(counts[2 * static_cast<size_t>(agg) + 1]);
      messages_.send_words(out_runs_[i].data(), out_runs_[i].size(), agg);
      messages_.send(dense_ != nullptr ? dense_ + from_[i] : out_data_[i].data(), bytes, agg);
    }
    return {};
  }

  // Phase 4: the pieces of round k in the block, holes filled from the file.
  Err assemble(int64_t k) {
    const size_t me = static_cast<size_t>(plan_.my_domain);
    lo_ = plan_.window_lo(me, k);
    const uint64_t hi = plan_.window_hi(me, k);
    block_bytes_ = 0;
    pieces_.clear();
    const char* data = in_data_;
    size_t w = 0;
    for (int s = 0; s < f_.comm->size; ++s) {
      uint64_t runs = static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s)]);
      uint64_t bytes = static_cast<uint64_t>(in_counts_[2 * static_cast<size_t>(s) + 1]), sum = 0;
      for (uint64_t r = 0; r < runs; ++r, w += 2) {
        Piece p{in_runs_[w], in_runs_[w + 1], data + sum};
        sum += p.bytes;
        if (p.offset < lo_ || p.offset + p.bytes > hi || sum > bytes)
          return fail(MPI_ERR_INTERN, "collective write: process %d sent a piece [%llu, +%llu) outside the window "
                      "[%llu, %llu)", s, static_cast<unsigned long long>(p.offset),
                      static_cast<unsigned long long>(p.bytes), static_cast<unsigned long long>(lo_),
                      static_cast<unsigned long long>(hi));
        pieces_.push_back(p);
      }
      data += bytes;
    }
    if (pieces_.empty()) return {};
    auto by_offset = [](const Piece& a, const Piece& b) { return a.offset < b.offset; };
    // Each process's pieces come in file order; several processes' interleave.
    if (!std::is_sorted(pieces_.begin(), pieces_.end(), by_offset))
      std::stable_sort(pieces_.begin(), pieces_.end(), by_offset);

    // The holes between the pieces (stable sort keeps, for bytes written
    // twice, the higher rank's last, as ROMIO does).
    first_ = pieces_.front().offset;
    uint64_t end = first_;
    holes_.clear();
    for (const Piece& p : pieces_) {
      if (p.offset > end) holes_.push_back({end, p.offset - end, nullptr});
      end = std::max(end, p.offset + p.bytes);
    }
    block_ = blocks_.block(k);
    if (!holes_.empty()) {
      if (holes_.size() <= kFewHoles) {
        for (const Piece& h : holes_) {
          if (int err = read_range(f_.fd, block_ + (h.offset - lo_), h.bytes, h.offset))
            return system_error(err, "cannot read (to fill a hole of a collective write) a range of", f_.path);
          report_->syscalls++;
          report_->holes_read += h.bytes;
        }
      } else {
        if (int err = read_range(f_.fd, block_ + (first_ - lo_), end - first_, first_))
          return system_error(err, "cannot read (to fill the holes of a collective write) a range of", f_.path);
        report_->syscalls++;
        report_->holes_read += end - first_;
      }
    }
    for (const Piece& p : pieces_) std::memcpy(block_ + (p.offset - lo_), p.data, p.bytes);
    block_bytes_ = end - first_;
    return {};
  }

  File& f_;
  const Plan& plan_;
  const FlatAccess& access_;
  const Buffer& buffer_;
  AggregatorReport* report_;
  const char* dense_;
  RoundMessages messages_;
  BlockPipeline blocks_;
  Err error_;

  // The sending side, per aggregator.
  std::vector<uint64_t> next_;  // packed position where its next window starts
  std::vector<uint64_t> from_ = std::vector<uint64_t>(plan_.aggregators.size());
  std::vector<std::vector<uint64_t>> out_runs_;
  std::vector<std::vector<char>> out_data_;

  // The aggregator's side.
  std::vector<int64_t> in_counts_;
  std::vector<uint64_t> in_runs_;
  char* in_data_ = nullptr;
  std::vector<Piece> pieces_, holes_;
  char* block_ = nullptr;
  uint64_t lo_ = 0, first_ = 0, block_bytes_ = 0;
};

}  // namespace

Err write_two_phase(File& f, const Plan& plan, const FlatAccess& access, const Buffer& buffer,
                    AggregatorReport* report) {
  Writer writer(f, plan, access, buffer, report);
  return writer.run();
}

}  // namespace ferry::io
