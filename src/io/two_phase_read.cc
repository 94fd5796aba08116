// Collective IO, phases 3 and 4 for reads: the mirror image of
// io/two_phase_write.cc (ROMIO's ADIOI_Read_and_exch).
//
// Each round, every process sends each aggregator the list of runs it wants
// from the aggregator's current window; the aggregator reads the window's
// part that holds them (one pread of the whole span, data sieving, unless
// holes outweigh the data: then a pread per contiguous extent) and answers
// each process with its bytes, packed in its runs' order, which land
// straight in the user's buffer when it is dense.
//
// Cost per round: one alltoall of two words per process, a run list to
// and a data message from each aggregator whose window a process reads,
// one pread (or one per extent) per aggregator and a memcpy of the data.
// The aggregator holds its block and the replies (cb_buffer_size each).
// Steered by cb_buffer_size, and through the domains by cb_nodes,
// cb_config_list and striping_unit. Reads past the end of the file never
// get here: the caller shortens each access to the file's size first.
#include <algorithm>
#include <cstring>

#include "base/type_pack.h"
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
  char* reply;  // where its bytes go in the replies
};

class Reader {
 public:
  Reader(File& f, const Plan& plan, const FlatAccess& access, const Buffer& buffer, AggregatorReport* report)
      : f_(f), plan_(plan), access_(access), buffer_(buffer), report_(report),
        dense_(const_cast<char*>(type::dense_run(*buffer.type, buffer.data, buffer.count))),
        tag_(f.comm->next_collective_tag()) {
    const size_t n = plan.aggregators.size();
    next_.assign(n, kUnknown);
    from_.assign(n, 0);
    to_.assign(n, 0);
    out_runs_.resize(n);
    in_data_.resize(n);
  }

  Err run() {
    for (int64_t k = 0; k < plan_.rounds; ++k) note(round(k));
    return std::move(error_);
  }

 private:
  static constexpr uint64_t kUnknown = ~uint64_t{0};

  void note(Err e) {
    if (e && error_.ok()) error_ = std::move(e);
  }

  Err round(int64_t k) {
    const size_t n = plan_.aggregators.size();
    const int size = f_.comm->size;
    // What this process wants from each aggregator's window.
    std::vector<int64_t> counts(2 * static_cast<size_t>(size), 0);
    for (size_t i = 0; i < n; ++i) {
      uint64_t lo = plan_.window_lo(i, k), hi = plan_.window_hi(i, k);
      out_runs_[i].clear();
      to_[i] = from_[i] = 0;
      if (lo >= hi || access_.bytes() == 0 || hi <= access_.first() || lo >= access_.end()) continue;
      uint64_t from = next_[i] != kUnknown ? next_[i] : access_.packed_below(lo);
      uint64_t to = access_.packed_below(hi);
      next_[i] = to;
      if (to <= from) continue;
      RunList list(&out_runs_[i]);
      access_.runs(from, to, list);
      from_[i] = from;
      to_[i] = to;
      size_t agg = static_cast<size_t>(plan_.aggregators[i]);
      counts[2 * agg] = static_cast<int64_t>(out_runs_[i].size() / 2);
      counts[2 * agg + 1] = static_cast<int64_t>(to - from);
    }
    std::vector<int64_t> in_counts;
    if (Err e = exchange_counts(f_.comm, counts, &in_counts)) return e;

    // Posting order matters between two processes that are both
    // aggregators: run lists (aggregator side) before data (process side),
    // the order in which each sends them.
    RoundMessages lists(f_.comm, tag_), data(f_.comm, tag_);
    uint64_t reply_bytes = 0;
    if (plan_.my_domain >= 0) {
      uint64_t words = 0;
      for (int s = 0; s < size; ++s) {
        words += 2 * static_cast<uint64_t>(in_counts[2 * static_cast<size_t>(s)]);
        reply_bytes += static_cast<uint64_t>(in_counts[2 * static_cast<size_t>(s) + 1]);
      }
      in_runs_.resize(words);
      uint64_t w = 0;
      for (int s = 0; s < size; ++s) {
        uint64_t nw = 2 * static_cast<uint64_t>(in_counts[2 * static_cast<size_t>(s)]);
        lists.recv_words(in_runs_.data() + w, nw, s);
        w += nw;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (to_[i] <= from_[i]) continue;
      char* into = dense_ != nullptr ? dense_ + from_[i] : nullptr;
      if (into == nullptr) {
        in_data_[i].resize(to_[i] - from_[i]);
        into = in_data_[i].data();
      }
      data.recv(into, to_[i] - from_[i], plan_.aggregators[i]);
    }
    for (size_t i = 0; i < n; ++i)
      if (!out_runs_[i].empty()) lists.send_words(out_runs_[i].data(), out_runs_[i].size(), plan_.aggregators[i]);

    // The aggregator reads its window and answers.
    Err local = lists.wait();
    if (plan_.my_domain >= 0) {
      char* replies = collective_buffer(1, reply_bytes);
      if (local.ok()) local = read_window(k, in_counts, replies);
      char* at = replies;
      for (int s = 0; s < size; ++s) {
        uint64_t nb = static_cast<uint64_t>(in_counts[2 * static_cast<size_t>(s) + 1]);
        data.send(at, nb, s);  // also after a failure: nobody waits in vain
        at += nb;
      }
    }
    note(std::move(local));
    if (Err e = data.wait()) return e;

    // Unpack what did not land in place.
    if (dense_ == nullptr)
      for (size_t i = 0; i < n; ++i)
        if (to_[i] > from_[i])
          type::unpack(*buffer_.type, buffer_.data, buffer_.count, from_[i], to_[i] - from_[i], in_data_[i].data());
    return {};
  }

  Err read_window(int64_t k, const std::vector<int64_t>& in_counts, char* replies) {
    const size_t me = static_cast<size_t>(plan_.my_domain);
    const uint64_t lo = plan_.window_lo(me, k), hi = plan_.window_hi(me, k);
    pieces_.clear();
    char* at = replies;
    size_t w = 0;
    for (int s = 0; s < f_.comm->size; ++s) {
      uint64_t runs = static_cast<uint64_t>(in_counts[2 * static_cast<size_t>(s)]);
      for (uint64_t r = 0; r < runs; ++r, w += 2) {
        Piece p{in_runs_[w], in_runs_[w + 1], at};
        if (p.offset < lo || p.offset + p.bytes > hi)
          return fail(MPI_ERR_INTERN, "collective read: process %d asked for [%llu, +%llu) outside the window "
                      "[%llu, %llu)", s, static_cast<unsigned long long>(p.offset),
                      static_cast<unsigned long long>(p.bytes), static_cast<unsigned long long>(lo),
                      static_cast<unsigned long long>(hi));
        at += p.bytes;
        pieces_.push_back(p);
      }
    }
    if (pieces_.empty()) return {};
    auto by_offset = [](const Piece& a, const Piece& b) { return a.offset < b.offset; };
    std::vector<Piece> sorted = pieces_;
    if (!std::is_sorted(sorted.begin(), sorted.end(), by_offset)) std::sort(sorted.begin(), sorted.end(), by_offset);

    // Extents: the pieces merged where they touch or overlap.
    extents_.clear();
    uint64_t data_bytes = 0;
    for (const Piece& p : sorted) {
      if (extents_.empty() || p.offset > extents_.back().second) extents_.push_back({p.offset, p.offset + p.bytes});
      else extents_.back().second = std::max(extents_.back().second, p.offset + p.bytes);
    }
    for (const auto& [s, e] : extents_) data_bytes += e - s;
    const uint64_t first = extents_.front().first, end = extents_.back().second;
    char* block = collective_buffer(0, plan_.window);
    // Data sieving: one read of the span, unless it would read more hole
    // than data.
    if (extents_.size() == 1 || end - first - data_bytes <= data_bytes) {
      if (int err = read_range(f_.fd, block + (first - lo), end - first, first))
        return system_error(err, "cannot read (collectively) a range of", f_.path);
      report_->syscalls++;
      report_->bytes += end - first;
    } else {
      for (const auto& [s, e] : extents_) {
        if (int err = read_range(f_.fd, block + (s - lo), e - s, s))
          return system_error(err, "cannot read (collectively) a range of", f_.path);
        report_->syscalls++;
        report_->bytes += e - s;
      }
    }
    for (const Piece& p : pieces_) std::memcpy(p.reply, block + (p.offset - lo), p.bytes);
    return {};
  }

  File& f_;
  const Plan& plan_;
  const FlatAccess& access_;
  const Buffer& buffer_;
  AggregatorReport* report_;
  char* dense_;
  int tag_;
  Err error_;

  std::vector<uint64_t> next_, from_, to_;
  std::vector<std::vector<uint64_t>> out_runs_;
  std::vector<std::vector<char>> in_data_;
  std::vector<uint64_t> in_runs_;
  std::vector<Piece> pieces_;
  std::vector<std::pair<uint64_t, uint64_t>> extents_;
};

}  // namespace

Err read_two_phase(File& f, const Plan& plan, const FlatAccess& access, const Buffer& buffer,
                   AggregatorReport* report) {
  Reader reader(f, plan, access, buffer, report);
  return reader.run();
}

}  // namespace ferry::io
