// Starting a command on a host through a launch agent (`--launch-agent
// "ssh -x"`, a kubectl or srun wrapper, ...), run as Open MPI's
// plm_rsh_agent is: AGENT-WORDS... HOST 'the quoted command', the remote
// command as one argument for the far side's shell. The agent's stdin,
// stdout and stderr are ours; the first line of its stdout is the answer.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "launcher/start/first_line.h"
#include "launcher/start/remote_start_ways.h"
#include "launcher/start/shell_quote.h"

extern char** environ;

namespace ferry::launcher {
namespace {

constexpr int kGraceMs = 1000;   // for the agent to exit by itself once the line is in
constexpr int kTermWaitMs = 200; // between SIGTERM and SIGKILL

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  size_t at = 0;
  while ((at = text.find_first_not_of(" \t", at)) != std::string::npos) {
    size_t end = text.find_first_of(" \t", at);
    words.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end;
  }
  return words;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The agent's exit status within `wait_ms`, or nothing. ECHILD (a reaper
// elsewhere in mpirun took it) also gives nothing rather than a hang.
std::optional<int> wait_for_exit(pid_t pid, int wait_ms, bool* gone) {
  Deadline deadline(wait_ms);
  while (true) {
    int status = 0;
    pid_t rc = ::waitpid(pid, &status, WNOHANG);
    if (rc == pid || (rc < 0 && errno != EINTR)) {
      *gone = true;
      return rc == pid ? std::optional<int>(status) : std::nullopt;
    }
    if (deadline.passed()) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Ends the agent (and so its connection) and reaps it.
void stop_agent(pid_t pid) {
  bool gone = false;
  ::kill(pid, SIGTERM);
  wait_for_exit(pid, kTermWaitMs, &gone);
  if (gone) return;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

class AgentStart {
 public:
  AgentStart(const RemoteCommand& command, const RemoteStartOptions& options)
      : command_(command), options_(options), deadline_(options.timeout_ms) {}
  ~AgentStart() {
    close_fd(stdin_fd_);
    close_fd(stdout_fd_);
    close_fd(stderr_fd_);
  }
  AgentStart(const AgentStart&) = delete;
  AgentStart& operator=(const AgentStart&) = delete;

  RemoteStartResult run();

 private:
  std::string spawn();  // the error, or ""
  bool pump(int wait_ms);
  RemoteStartResult failure(const std::string& what) { return remote_start_error(command_, what); }

  const RemoteCommand& command_;
  const RemoteStartOptions& options_;
  Deadline deadline_;
  std::string agent_name_;  // "launch agent ssh", for messages
  pid_t pid_ = -1;
  // Stdin is a socket, not a pipe: send(MSG_NOSIGNAL) to an agent that quit
  // gives EPIPE, never SIGPIPE.
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  size_t stdin_written_ = 0;
  FirstLine output_;
};

std::string AgentStart::spawn() {
  std::vector<std::string> words = split_words(options_.launch_agent);
  if (words.empty()) return "the launch agent is empty";
  agent_name_ = "launch agent " + words.front();
  words.push_back(command_.host);
  words.push_back(shell_command(command_.argv));
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  // All close-on-exec: threads starting other hosts must not inherit them.
  int stdin_pair[2], stdout_pipe[2], stderr_pipe[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, stdin_pair) != 0) {
    return std::string("cannot create a socket pair: ") + std::strerror(errno);
  }
  if (::pipe2(stdout_pipe, O_CLOEXEC) != 0 || ::pipe2(stderr_pipe, O_CLOEXEC) != 0) {
    int error = errno;
    ::close(stdin_pair[0]);
    ::close(stdin_pair[1]);
    return std::string("cannot create a pipe: ") + std::strerror(error);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, stdin_pair[1], 0);
  posix_spawn_file_actions_adddup2(&actions, stdout_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, stderr_pipe[1], 2);
  // mpirun blocks the signals it reads through a signalfd and ignores
  // SIGPIPE; the agent must start with neither.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  int rc = ::posix_spawnp(&pid_, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(stdin_pair[1]);
  ::close(stdout_pipe[1]);
  ::close(stderr_pipe[1]);
  stdin_fd_ = stdin_pair[0];
  stdout_fd_ = stdout_pipe[0];
  stderr_fd_ = stderr_pipe[0];
  if (rc != 0) {
    pid_ = -1;
    return "cannot run " + agent_name_ + ": " + std::strerror(rc);
  }
  for (int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (command_.stdin_data.empty()) close_fd(stdin_fd_);
  return "";
}

// One round of feeding stdin and reading stdout and stderr, waiting at most
// `wait_ms` for something to happen; false if nothing did.
bool AgentStart::pump(int wait_ms) {
  pollfd fds[3] = {{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}, {stdin_fd_, POLLOUT, 0}};
  if (::poll(fds, 3, wait_ms) <= 0) return false;
  char buffer[4096];
  if (fds[0].revents != 0) {
    ssize_t n = ::read(stdout_fd_, buffer, sizeof buffer);
    if (n > 0) {
      output_.add_stdout({buffer, size_t(n)});
    } else if (n == 0 || errno != EAGAIN) {
      close_fd(stdout_fd_);
      output_.stdout_ended();
    }
  }
  if (fds[1].revents != 0) {
    ssize_t n = ::read(stderr_fd_, buffer, sizeof buffer);
    if (n > 0) {
      output_.add_stderr({buffer, size_t(n)});
    } else if (n == 0 || errno != EAGAIN) {
      close_fd(stderr_fd_);
    }
  }
  if (fds[2].revents != 0) {
    const std::string& input = command_.stdin_data;
    ssize_t n = ::send(stdin_fd_, input.data() + stdin_written_, input.size() - stdin_written_, MSG_NOSIGNAL);
    if (n > 0) stdin_written_ += size_t(n);
    // All written (EOF for the command), or the agent stopped reading.
    if (stdin_written_ == input.size() || (n < 0 && errno != EAGAIN)) close_fd(stdin_fd_);
  }
  return true;
}

RemoteStartResult AgentStart::run() {
  std::string error = spawn();
  if (!error.empty()) return failure(error);
  while (!output_.complete() && stdout_fd_ >= 0 && !deadline_.passed()) pump(deadline_.remaining_ms());

  if (output_.complete()) {
    close_fd(stdin_fd_);
    close_fd(stdout_fd_);
    close_fd(stderr_fd_);
    // A daemon that detached lets the agent end at once; one that did not
    // is cut off, as the libssh path closes its channel.
    bool gone = false;
    wait_for_exit(pid_, std::min(kGraceMs, deadline_.remaining_ms()), &gone);
    if (!gone) stop_agent(pid_);
    RemoteStartResult result;
    result.ok = true;
    result.first_line = output_.line();
    return result;
  }
  if (stdout_fd_ >= 0) {  // the deadline passed
    stop_agent(pid_);
    return failure(output_.no_line_within(agent_name_, deadline_));
  }
  // Stdout ended without a line: collect the rest of stderr and the status.
  bool gone = false;
  std::optional<int> status;
  while (!gone && !deadline_.passed()) {
    if (stderr_fd_ >= 0) pump(std::min(10, deadline_.remaining_ms()));
    status = wait_for_exit(pid_, stderr_fd_ >= 0 ? 0 : std::min(10, deadline_.remaining_ms()), &gone);
  }
  if (!gone) stop_agent(pid_);
  // What is left in the pipe; bounded, as a process the agent started may
  // still hold it open and keep writing.
  for (int round = 0; round < 64 && stderr_fd_ >= 0 && pump(0); ++round) {
  }
  if (status && WIFSIGNALED(*status)) {
    return failure(output_.ended_without_line(agent_name_ + " (killed by signal " +
                                              std::to_string(WTERMSIG(*status)) + ")", std::nullopt));
  }
  return failure(output_.ended_without_line(
      agent_name_, status && WIFEXITED(*status) ? std::optional<int>(WEXITSTATUS(*status)) : std::nullopt));
}

}  // namespace

RemoteStartResult start_with_agent(const RemoteCommand& command, const RemoteStartOptions& options) {
  return AgentStart(command, options).run();
}

}  // namespace ferry::launcher
