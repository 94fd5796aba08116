#include "launcher/event_loop.h"

#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace ferry::launcher {
namespace {

// The loop's own fds: kind 0, which no owner may take.
constexpr uint64_t kSignalsData = 0;
constexpr uint64_t kTimerData = uint64_t(1) << 8;
constexpr uint64_t kIntervalData = uint64_t(2) << 8;

// A batch holds at most this many events; the rest wait for the next one.
constexpr int kBatch = 64;

int checked(int fd) {
  if (fd < 0) throw std::runtime_error(std::string("cannot set up the event loop: ") + strerror(errno));
  return fd;
}

}  // namespace

EventLoop::EventLoop() : epoll_fd_(checked(::epoll_create1(EPOLL_CLOEXEC))) {}

EventLoop::~EventLoop() {
  if (timer_fd_ >= 0) ::close(timer_fd_);
  if (interval_fd_ >= 0) ::close(interval_fd_);
  if (signal_fd_ >= 0) ::close(signal_fd_);
  ::close(epoll_fd_);
}

void EventLoop::on(uint8_t kind, FdHandler handler) {
  if (kind == 0) throw std::invalid_argument("EventLoop::on: kind 0 is the loop's own");
  handlers_[kind] = std::move(handler);
}

void EventLoop::watch(int fd, uint64_t data, uint32_t events) {
  epoll_event ev = {};
  ev.events = events;
  ev.data.u64 = data;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
    throw std::runtime_error(std::string("epoll_ctl: ") + strerror(errno));
}

void EventLoop::change(int fd, uint64_t data, uint32_t events) {
  epoll_event ev = {};
  ev.events = events;
  ev.data.u64 = data;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev);
}

void EventLoop::unwatch(int fd) { ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr); }

void EventLoop::handle_signals(const sigset_t& signals, SignalHandler on_signal, ExitHandler on_child_exit) {
  signal_fd_ = checked(::signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK));
  on_signal_ = std::move(on_signal);
  on_child_exit_ = std::move(on_child_exit);
  watch(signal_fd_, kSignalsData);
}

void EventLoop::on_timer(std::function<void()> handler) {
  if (timer_fd_ < 0) {
    timer_fd_ = checked(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    watch(timer_fd_, kTimerData);
  }
  on_timer_ = std::move(handler);
}

void EventLoop::arm_timer(int ms) {
  itimerspec when = {};
  when.it_value.tv_sec = ms / 1000;
  when.it_value.tv_nsec = long(ms % 1000) * 1000000L;
  ::timerfd_settime(timer_fd_, 0, &when, nullptr);
}

void EventLoop::every(int ms, std::function<void()> handler) {
  if (interval_fd_ < 0) {
    interval_fd_ = checked(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    watch(interval_fd_, kIntervalData);
  }
  on_interval_ = std::move(handler);
  itimerspec when = {};
  when.it_value.tv_sec = ms / 1000;
  when.it_value.tv_nsec = long(ms % 1000) * 1000000L;
  when.it_interval = when.it_value;
  ::timerfd_settime(interval_fd_, 0, &when, nullptr);
}

bool EventLoop::Batch::has(uint8_t kind) const {
  for (const epoll_event& e : events_)
    if (kind != 0 && uint8_t(e.data.u64 & 0xff) == kind) return true;
  return false;
}

bool EventLoop::Batch::has_signals() const {
  for (const epoll_event& e : events_)
    if (e.data.u64 == kSignalsData) return true;
  return false;
}

void EventLoop::before_each_batch(std::function<void(const Batch&)> look) { look_ = std::move(look); }

bool EventLoop::run_once() {
  epoll_event events[kBatch];
  int n;
  while ((n = ::epoll_wait(epoll_fd_, events, kBatch, -1)) < 0)
    if (errno != EINTR) return false;
  if (look_) {
    Batch batch;
    batch.events_ = std::span<const epoll_event>(events, size_t(n));
    look_(batch);
  }
  for (int i = 0; i < n; ++i) {
    uint64_t data = events[i].data.u64;
    if (data == kSignalsData) {
      read_signals();
    } else if (data == kTimerData) {
      read_timer();
    } else if (data == kIntervalData) {
      read_interval();
    } else if (const FdHandler& handler = handlers_[data & 0xff]) {
      handler(data, events[i].events);
    }
  }
  return true;
}

void EventLoop::read_signals() {
  signalfd_siginfo info;
  while (::read(signal_fd_, &info, sizeof info) == ssize_t(sizeof info)) {
    int sig = int(info.ssi_signo);
    if (sig != SIGCHLD) {
      on_signal_(sig);
      continue;
    }
    // Signals of several exits merge into one: every exited child is
    // collected at each.
    int status;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) on_child_exit_(pid, status);
  }
}

void EventLoop::read_timer() {
  uint64_t expirations;
  if (::read(timer_fd_, &expirations, sizeof expirations) < 0) return;  // EAGAIN: armed anew since it fired
  on_timer_();
}

void EventLoop::read_interval() {
  uint64_t expirations;
  if (::read(interval_fd_, &expirations, sizeof expirations) < 0) return;
  on_interval_();
}

}  // namespace ferry::launcher
