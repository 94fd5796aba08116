#include "io/block_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "base/type_pack.h"

#include "io/errors.h"
#include "progress/progress.h"

namespace ferry::io {
namespace {

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

BlockPipeline::BlockPipeline(File& f, const Plan& plan, Direction direction, AggregatorReport* report)
    : f_(f), plan_(plan), direction_(direction), report_(report) {
  if (plan.my_domain < 0) return;
  // Taken once for the call: the worker may be using one while the other
  // is filled, so neither may move.
  blocks_[0] = collective_buffer(0, plan.window, &report->held);
  if (plan.double_buffered) blocks_[1] = collective_buffer(3, plan.window, &report->held);
}

namespace {

// The memory runs of the buffer against the file runs, in step: each
// memory run is copied to (or from) the file runs it covers.
struct OwnPieces final : type::RunVisitor {
  OwnPieces(Direction direction, const std::vector<uint64_t>& runs, char* block, uint64_t lo)
      : writing(direction == Direction::kWrite), runs(runs), block(block), lo(lo) {}
  bool writing;
  const std::vector<uint64_t>& runs;
  char* block;
  uint64_t lo;
  size_t i = 0;       // the file run being filled (or emptied)
  uint64_t used = 0;  // its bytes done
  void run(uint64_t address, uint64_t bytes) override {
    char* memory = reinterpret_cast<char*>(address);
    while (bytes > 0 && 2 * i < runs.size()) {
      const uint64_t length = runs[2 * i + 1];
      const uint64_t n = std::min(bytes, length - used);
      char* at = block + (runs[2 * i] + used - lo);
      if (writing) std::memcpy(at, memory, n);
      else std::memcpy(memory, at, n);
      memory += n;
      bytes -= n;
      used += n;
      if (used == length) {
        ++i;
        used = 0;
      }
    }
  }
};

}  // namespace

void copy_own_pieces(Direction direction, const Buffer& buffer, uint64_t from, uint64_t bytes,
                     const std::vector<uint64_t>& runs, char* block, uint64_t lo) {
  if (bytes == 0) return;
  OwnPieces pieces(direction, runs, block, lo);
  type::for_each_run(*buffer.type, reinterpret_cast<uint64_t>(buffer.data), buffer.count, from, bytes, pieces);
}

BlockPipeline::~BlockPipeline() {
  for (Transfer& t : transfers_)
    if (t.round >= 0) (void)finish(t.round);
}

void BlockPipeline::Transfer::run() {
  const uint64_t t0 = now_ns();
  for (const Extent& e : extents) {
    char* at = block + (e.offset - lo);
    err = direction == Direction::kWrite ? write_range(fd, at, e.bytes, e.offset) : read_range(fd, at, e.bytes, e.offset);
    if (err != 0) {
      failed = e;
      break;
    }
    syscalls++;
    bytes += e.bytes;
  }
  ns = now_ns() - t0;
}

void BlockPipeline::start(int64_t k, uint64_t window_lo, std::vector<Extent> extents) {
  Transfer& t = transfers_[slot(k)];
  t.fd = f_.fd;
  t.direction = direction_;
  t.block = block(k);
  t.lo = window_lo;
  t.extents = std::move(extents);
  t.round = k;
  t.request = nullptr;
  t.err = 0;
  t.syscalls = t.bytes = t.ns = 0;
  if (t.extents.empty() || !plan_.double_buffered) return;
  // Were the worker not to start, the transfer runs at finish() instead.
  if (Err e = worker::start_task(f_, &t, &t.request)) t.request = nullptr;
}

Err BlockPipeline::finish(int64_t k) {
  if (k < 0) return {};
  Transfer& t = transfers_[slot(k)];
  if (t.round != k) return {};
  t.round = -1;
  if (t.extents.empty()) return {};
  if (t.request != nullptr) {
    // The worker still reads from (or fills) the block: wait, driving
    // progress meanwhile (other rounds' messages move).
    const uint64_t t0 = now_ns();
    {
      progress::Lock lock;
      Request* r = t.request;
      progress::wait_until(lock, [r] { return r->complete; });
      requests::release(r);
    }
    t.request = nullptr;
    report_->waited_ns += now_ns() - t0;
  } else {
    t.run();
    report_->waited_ns += t.ns;
  }
  report_->transfer_ns += t.ns;
  report_->syscalls += t.syscalls;
  report_->bytes += t.bytes;
  if (t.err == 0) return {};
  char what[128];
  if (direction_ == Direction::kWrite)
    std::snprintf(what, sizeof what, "cannot write %llu bytes at offset %llu of",
                  static_cast<unsigned long long>(t.failed.bytes), static_cast<unsigned long long>(t.failed.offset));
  else
    std::snprintf(what, sizeof what, "cannot read (collectively) %llu bytes at offset %llu of",
                  static_cast<unsigned long long>(t.failed.bytes), static_cast<unsigned long long>(t.failed.offset));
  return system_error(t.err, what, f_.path);
}

}  // namespace ferry::io
