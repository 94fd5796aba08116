#include "launcher/ranks/output_forwarding.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ferry::launcher {
namespace {

constexpr size_t kReadSize = 64 * 1024;
// A "line" longer than this is forwarded in pieces: holding more would let
// one rank that never ends its line use unbounded memory.
constexpr size_t kMaxPartial = 1024 * 1024;
// Reads per wake-up before the event loop serves the other ranks again.
constexpr int kReadsPerWakeup = 16;

}  // namespace

bool write_all(OutputSink& sink, const char* data, size_t len) {
  if (sink.deliver) {
    sink.deliver(data, len);
    return true;
  }
  while (len > 0 && !sink.broken) {
    ssize_t n = ::write(sink.fd, data, len);
    if (n > 0) {
      data += n;
      len -= size_t(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      // mpirun's stdout was left non-blocking by whoever shares it: wait
      // for room rather than drop output.
      struct pollfd p = {sink.fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else {
      sink.broken = true;
    }
  }
  return !sink.broken;
}

LineForwarder::LineForwarder(int source, OutputSink* sink, std::string prefix)
    : source_(source), sink_(sink), prefix_(std::move(prefix)) {}

LineForwarder::LineForwarder(LineForwarder&& other) noexcept
    : source_(std::exchange(other.source_, -1)),
      sink_(other.sink_),
      prefix_(std::move(other.prefix_)),
      partial_(std::move(other.partial_)) {}

LineForwarder::~LineForwarder() {
  if (source_ >= 0) ::close(source_);
}

ssize_t LineForwarder::read_some(char* buffer, size_t size) {
  for (;;) {
    ssize_t n = ::read(source_, buffer, size);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if (errno == EAGAIN) return -1;
    return 0;  // a read error ends this stream like EOF
  }
}

bool LineForwarder::on_readable() {
  char buffer[kReadSize];
  for (int i = 0; i < kReadsPerWakeup; ++i) {
    ssize_t n = read_some(buffer, sizeof buffer);
    if (n < 0) return true;
    if (n == 0) return false;
    consume(buffer, size_t(n));
  }
  return true;
}

void LineForwarder::finish(bool end_line) {
  if (source_ >= 0) {
    char buffer[kReadSize];
    // Only what is already in the pipe: a process the rank left behind may
    // keep the pipe open, and mpirun does not wait for it.
    ssize_t n;
    while ((n = read_some(buffer, sizeof buffer)) > 0) consume(buffer, size_t(n));
    ::close(source_);
    source_ = -1;
  }
  if (!partial_.empty()) {
    if (end_line) partial_ += '\n';
    emit(partial_.data(), partial_.size());
    partial_.clear();
  }
}

void LineForwarder::consume(const char* data, size_t len) {
  const char* last_newline = static_cast<const char*>(::memrchr(data, '\n', len));
  if (last_newline == nullptr) {
    partial_.append(data, len);
    if (partial_.size() >= kMaxPartial) {
      emit(partial_.data(), partial_.size());
      partial_.clear();
    }
    return;
  }
  size_t complete = size_t(last_newline - data) + 1;
  if (partial_.empty()) {
    emit(data, complete);
  } else {
    partial_.append(data, complete);
    emit(partial_.data(), partial_.size());
    partial_.clear();
  }
  partial_.append(data + complete, len - complete);
}

void LineForwarder::emit(const char* data, size_t len) {
  if (sink_->broken) return;
  if (prefix_.empty()) {
    write_all(*sink_, data, len);
    return;
  }
  // One write for the whole batch, a prefix at the start of every line.
  std::string out;
  out.reserve(len + prefix_.size() * 8);
  size_t start = 0;
  while (start < len) {
    const char* nl = static_cast<const char*>(std::memchr(data + start, '\n', len - start));
    size_t end = nl == nullptr ? len : size_t(nl - data) + 1;
    out += prefix_;
    out.append(data + start, end - start);
    start = end;
  }
  write_all(*sink_, out.data(), out.size());
}

}  // namespace ferry::launcher
