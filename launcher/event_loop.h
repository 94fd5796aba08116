// The event loop that mpirun (job.cc) and every node daemon (node_daemon.cc)
// run: one epoll set, the signals they handle read from a signalfd (SIGCHLD
// reaps every child that exited), and one timer. The owner keeps its own
// reason to go on waiting and calls run_once() while it holds.
//
// An event goes to the handler of its kind: the low byte of its epoll data.
// The bits above are the watcher's own, so that the parts which watch their
// own fds (LocalRanks, DaemonTree, StdinForwarder) are handed epoll_fd() and
// a kind, and tell their fds apart by an index there. Kind 0 is the loop's.
#pragma once

#include <signal.h>
#include <sys/epoll.h>
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <functional>
#include <span>

namespace ferry::launcher {

class EventLoop {
 public:
  EventLoop();  // throws std::runtime_error
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  int epoll_fd() const { return epoll_fd_; }

  // Events whose data has `kind` (1 to 255) in its low byte go to `handler`;
  // an event of a kind without a handler is left alone.
  using FdHandler = std::function<void(uint64_t data, uint32_t events)>;
  void on(uint8_t kind, FdHandler handler);
  void watch(int fd, uint64_t data, uint32_t events = EPOLLIN);  // throws std::runtime_error
  void change(int fd, uint64_t data, uint32_t events);
  void unwatch(int fd);

  // Reads `signals` (blocked already, before any thread started: see
  // take_over_signals in job.h) from a signalfd. On SIGCHLD every child that
  // has exited is reaped and goes to `on_child_exit` with its wait status;
  // any other signal goes to `on_signal`. Throws std::runtime_error.
  using SignalHandler = std::function<void(int sig)>;
  using ExitHandler = std::function<void(pid_t pid, int wait_status)>;
  void handle_signals(const sigset_t& signals, SignalHandler on_signal, ExitHandler on_child_exit);

  // One timer: arm_timer(ms) has `handler` called once, `ms` from now;
  // arming it again moves that time. Throws std::runtime_error.
  void on_timer(std::function<void()> handler);
  void arm_timer(int ms);

  // A second, periodic timer: `handler` is called every `ms` from now on
  // (once per wait however many periods passed: a slow loop never queues
  // them). Throws std::runtime_error.
  void every(int ms, std::function<void()> handler);

  // What one wait brought, for a look before any of it is handled.
  class Batch {
   public:
    bool has(uint8_t kind) const;
    bool has_signals() const;

   private:
    friend class EventLoop;
    std::span<const epoll_event> events_;
  };
  // `look` sees every batch first: for news that must be known before the
  // batch's other events are handled.
  void before_each_batch(std::function<void(const Batch&)> look);

  // Waits for events (through EINTR) and handles them in the order epoll
  // gives them. Returns false when the wait failed; errno says why.
  bool run_once();

 private:
  void read_signals();
  void read_timer();
  void read_interval();

  int epoll_fd_ = -1;
  int signal_fd_ = -1;
  int timer_fd_ = -1;
  int interval_fd_ = -1;
  std::array<FdHandler, 256> handlers_;
  SignalHandler on_signal_;
  ExitHandler on_child_exit_;
  std::function<void()> on_timer_;
  std::function<void()> on_interval_;
  std::function<void(const Batch&)> look_;
};

}  // namespace ferry::launcher
