#include "transport/tcp/inbound.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "transport/traffic.h"

namespace ferry::transport::tcp {
namespace {

constexpr size_t kHeaderBytes = sizeof(PacketHeader);
// Holds a burst of small packets; a payload larger than what is left of it
// is not staged here (see kDirectReadBytes).
constexpr size_t kBufferBytes = 64 * 1024;
// Once the buffer is empty, a payload with at least this much still to come
// is read straight into its destination: below it, a recv per payload would
// cost more than the copy out of the buffer that batching saves.
constexpr uint64_t kDirectReadBytes = 16 * 1024;
// Reads per receive() call (each up to a buffer, or up to a whole payload)
// before the other connections get their turn.
constexpr int kMaxReads = 64;

bool would_block() { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

}  // namespace

Inbound::Status Inbound::receive(int fd, int peer, PacketHandler* handler) {
  if (!buffer_) buffer_ = std::make_unique<char[]>(kBufferBytes);
  // What a read that finds nothing means: the end of this call's work once
  // something was read, or that nothing had come.
  Status drained = Status::kEmpty;
  for (int round = 0; round < kMaxReads; ++round) {
    if (in_payload_ && begin_ == end_ && header_.payload_bytes - payload_done_ >= kDirectReadBytes) {
      bool all = false;
      ssize_t n = read_payload(fd, peer, handler, &all);
      if (n == 0) return Status::kClosed;
      if (n < 0) return would_block() ? drained : Status::kClosed;
      if (!all) return Status::kRead;
      drained = Status::kRead;
      continue;
    }
    // What deliver() leaves is at most a partial header: moving it to the
    // front costs less than a short read would.
    if (begin_ > 0) {
      std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    size_t space = kBufferBytes - end_;
    ssize_t n = recv(fd, buffer_.get() + end_, space, 0);
    if (n == 0) return Status::kClosed;
    if (n < 0) return would_block() ? drained : Status::kClosed;
    end_ += static_cast<size_t>(n);
    deliver(peer, handler);
    // A short read means the socket is empty: asking again would only cost
    // a system call to hear EAGAIN (epoll reports what comes later).
    if (static_cast<size_t>(n) < space) return Status::kRead;
    drained = Status::kRead;
  }
  return Status::kRead;
}

ssize_t Inbound::read_payload(int fd, int peer, PacketHandler* handler, bool* all) {
  uint64_t remaining = header_.payload_bytes - payload_done_;
  char* target;
  uint64_t want;
  if (payload_done_ < destination_.capacity) {
    target = static_cast<char*>(destination_.data) + payload_done_;
    want = std::min<uint64_t>(remaining, destination_.capacity - payload_done_);
  } else {
    // Bytes beyond the destination's capacity (a truncated receive) are
    // read into the buffer and dropped.
    target = buffer_.get();
    want = std::min<uint64_t>(remaining, kBufferBytes);
  }
  ssize_t n = recv(fd, target, want, 0);
  if (n <= 0) return n;
  payload_done_ += static_cast<uint64_t>(n);
  *all = static_cast<uint64_t>(n) == want;
  if (payload_done_ == header_.payload_bytes) finish_payload(peer, handler);
  return n;
}

void Inbound::finish_payload(int peer, PacketHandler* handler) {
  in_payload_ = false;
  handler->on_payload(peer, header_, destination_);
}

void Inbound::deliver(int peer, PacketHandler* handler) {
  for (;;) {
    size_t avail = end_ - begin_;
    if (!in_payload_) {
      if (avail < kHeaderBytes) break;
      std::memcpy(&header_, buffer_.get() + begin_, kHeaderBytes);
      begin_ += kHeaderBytes;
      traffic::received(traffic::kTcp, header_);
      destination_ = handler->on_header(peer, header_);
      payload_done_ = 0;
      in_payload_ = true;
      if (header_.payload_bytes == 0) finish_payload(peer, handler);
      continue;
    }
    if (avail == 0) break;
    uint64_t take = std::min<uint64_t>(avail, header_.payload_bytes - payload_done_);
    if (payload_done_ < destination_.capacity) {
      uint64_t copy = std::min<uint64_t>(take, destination_.capacity - payload_done_);
      std::memcpy(static_cast<char*>(destination_.data) + payload_done_, buffer_.get() + begin_, copy);
    }
    begin_ += take;
    payload_done_ += take;
    if (payload_done_ == header_.payload_bytes) finish_payload(peer, handler);
  }
  if (begin_ == end_) begin_ = end_ = 0;
}

}  // namespace ferry::transport::tcp
