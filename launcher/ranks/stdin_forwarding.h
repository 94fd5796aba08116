// mpirun's stdin goes to rank 0; the other ranks read /dev/null.
//
// Ranks run in process groups of their own (see spawn.h), so they must not
// read mpirun's terminal themselves: the kernel stops a background group
// that reads a terminal (SIGTTIN). mpirun therefore reads its stdin and
// writes it into a pipe that is rank 0's stdin, closing the pipe at EOF.
// What epoll cannot watch (a regular file, /dev/null) has no such problem and
// is handed to rank 0 as is. A terminal is only read while mpirun is in the
// foreground: started in the background, rank 0 gets /dev/null, as a
// background job cannot have the terminal's input; moved to the background
// later, mpirun stops reading until it is continued in the foreground.
#pragma once

#include <cstdint>
#include <string>

namespace ferry::launcher {

class StdinForwarder {
 public:
  // Registers what must be watched with `epoll_fd`; `stdin_tag` and
  // `pipe_tag` are the epoll data values for mpirun's stdin and for the
  // pipe to rank 0.
  StdinForwarder(int epoll_fd, uint64_t stdin_tag, uint64_t pipe_tag);
  ~StdinForwarder();
  StdinForwarder(const StdinForwarder&) = delete;
  StdinForwarder& operator=(const StdinForwarder&) = delete;

  // The fd that rank 0 gets as its stdin, and that of the others.
  int rank0_fd() const { return rank0_fd_; }
  int null_fd() const { return null_fd_; }

  // Rank 0 has been started: mpirun's copy of its pipe end goes.
  void rank0_started();
  void on_stdin_ready();   // readable, hung up or in error
  void on_pipe_ready(uint32_t events);  // writable, or rank 0 closed its end
  void stop();             // rank 0 has exited: stop reading stdin
  void on_continue();      // SIGCONT: perhaps back in the foreground

 private:
  void write_pending();
  void update_interest();
  void watch_stdin(bool watch);
  bool in_foreground() const;

  int epoll_fd_;
  uint64_t stdin_tag_, pipe_tag_;
  int null_fd_ = -1;      // /dev/null, for the other ranks
  int rank0_fd_ = -1;     // what rank 0 gets as fd 0
  int pipe_write_ = -1;   // mpirun's end of rank 0's stdin pipe; -1: not forwarding
  bool is_terminal_ = false;
  bool stdin_open_ = false;     // forwarding, and stdin has not ended
  bool stdin_watched_ = false;  // stdin is in the epoll set
  std::string pending_;   // read from stdin, not yet taken by the pipe
};

}  // namespace ferry::launcher
