#include "launcher/ranks/stdin_forwarding.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ferry::launcher {
namespace {

// Held back from stdin beyond what the pipe holds: enough to keep rank 0
// fed, bounded so that a rank that never reads does not make mpirun slurp
// all of its input.
constexpr size_t kMaxPending = 64 * 1024;

}  // namespace

StdinForwarder::StdinForwarder(int epoll_fd, uint64_t stdin_tag, uint64_t pipe_tag)
    : epoll_fd_(epoll_fd), stdin_tag_(stdin_tag), pipe_tag_(pipe_tag) {
  null_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd_ < 0) throw std::runtime_error(std::string("cannot open /dev/null: ") + strerror(errno));
  rank0_fd_ = null_fd_;

  is_terminal_ = ::isatty(0);
  if (is_terminal_ && !in_foreground()) return;  // background job: /dev/null

  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.u64 = stdin_tag_;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, 0, &ev) != 0) {
    // EPERM: a regular file or /dev/null, which never block: rank 0 reads it
    // directly, from where mpirun's own offset is.
    rank0_fd_ = errno == EPERM ? 0 : null_fd_;
    return;
  }
  stdin_open_ = true;
  stdin_watched_ = true;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
  rank0_fd_ = fds[0];
  pipe_write_ = fds[1];
  ::fcntl(pipe_write_, F_SETFL, O_NONBLOCK);  // mpirun's end only
  ev.events = 0;  // EPOLLOUT only while data waits; errors are always reported
  ev.data.u64 = pipe_tag_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, pipe_write_, &ev);
}

StdinForwarder::~StdinForwarder() {
  stop();
  if (rank0_fd_ > 0 && rank0_fd_ != null_fd_) ::close(rank0_fd_);
  if (null_fd_ >= 0) ::close(null_fd_);
}

void StdinForwarder::rank0_started() {
  if (pipe_write_ >= 0 && rank0_fd_ > 0) {
    ::close(rank0_fd_);
    rank0_fd_ = -1;
  }
}

void StdinForwarder::stop() {
  stdin_open_ = false;
  watch_stdin(false);
  if (pipe_write_ >= 0) {
    ::close(pipe_write_);  // also leaves the epoll set
    pipe_write_ = -1;
  }
  pending_.clear();
}

// Reading the terminal from the background would stop mpirun (SIGTTIN).
bool StdinForwarder::in_foreground() const { return ::tcgetpgrp(0) == ::getpgrp(); }

void StdinForwarder::on_continue() {
  if (stdin_open_) update_interest();
}

void StdinForwarder::on_stdin_ready() {
  if (is_terminal_ && !in_foreground()) {  // put in the background (Ctrl-Z, bg)
    watch_stdin(false);                    // until the next SIGCONT
    return;
  }
  // mpirun's stdin stays blocking (its file description is shared with the
  // shell); epoll said it is ready, so this one read does not block.
  char buffer[kMaxPending];
  ssize_t n = ::read(0, buffer, kMaxPending - pending_.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {  // EOF, or an error such as EIO from a hung-up terminal
    stdin_open_ = false;
    watch_stdin(false);
  } else {
    pending_.append(buffer, size_t(n));
  }
  write_pending();
}

void StdinForwarder::on_pipe_ready(uint32_t events) {
  if (events & (EPOLLERR | EPOLLHUP)) {  // rank 0 closed its stdin
    stop();
    return;
  }
  write_pending();
}

void StdinForwarder::write_pending() {
  if (pipe_write_ < 0) return;
  while (!pending_.empty()) {
    ssize_t n = ::write(pipe_write_, pending_.data(), pending_.size());
    if (n > 0) {
      pending_.erase(0, size_t(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      break;
    } else {
      stop();  // EPIPE: rank 0 does not read any more
      return;
    }
  }
  if (pending_.empty() && !stdin_open_) {
    stop();  // rank 0 sees EOF
    return;
  }
  update_interest();
}

// Read stdin only while there is room; ask for EPOLLOUT only while data waits.
void StdinForwarder::update_interest() {
  struct epoll_event ev = {};
  ev.data.u64 = pipe_tag_;
  ev.events = pending_.empty() ? 0u : uint32_t(EPOLLOUT);
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, pipe_write_, &ev);
  watch_stdin(stdin_open_ && pending_.size() < kMaxPending);
}

// Leaving the epoll set (rather than asking for no events) matters: a
// hung-up stdin reports EPOLLHUP whatever is asked for.
void StdinForwarder::watch_stdin(bool watch) {
  if (watch == stdin_watched_) return;
  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.u64 = stdin_tag_;
  ::epoll_ctl(epoll_fd_, watch ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, 0, &ev);
  stdin_watched_ = watch;
}

}  // namespace ferry::launcher
