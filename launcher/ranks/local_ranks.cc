#include "launcher/ranks/local_ranks.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "common/debug.h"
#include "common/shm_names.h"
#include "launcher/pmix/pmix_host.h"
#include "launcher/ranks/spawn.h"

namespace ferry::launcher {

LocalRanks::LocalRanks(int epoll_fd, uint8_t stdout_kind, uint8_t stderr_kind, LocalRanksSetup setup,
                       const RankDefaults& defaults, std::function<OutputSink*(int, int)> sink_for)
    : epoll_fd_(epoll_fd),
      stdout_kind_(stdout_kind),
      stderr_kind_(stderr_kind),
      setup_(std::move(setup)),
      defaults_(defaults),
      sink_for_(std::move(sink_for)),
      ranks_(setup_.ranks.size()) {
  for (const std::string& a : setup_.argv) argv_.push_back(const_cast<char*>(a.c_str()));
  argv_.push_back(nullptr);
}

LocalRanks::~LocalRanks() {
  for (Rank& r : ranks_)
    if (r.running) {
      ::kill(-r.pid, SIGKILL);
      ::waitpid(r.pid, nullptr, 0);
    }
  // A rank's shared-memory files stay named while it runs (its peers map
  // them on first contact, common/shm_names.h) and it removes them in
  // MPI_Finalize; those of a rank that died or was killed before are
  // removed here, once it has gone.
  int left = 0;
  for (size_t i = 0; i < ranks_.size(); ++i)
    if (ranks_[i].pid > 0) left += shm_names::remove_rank_files(setup_.nspace, setup_.ranks[i]);
  if (left > 0) FERRY_DEBUG(kLaunch, "removed %d shared-memory files left by the ranks of %s", left, setup_.nspace.c_str());
}

void LocalRanks::watch(int fd, uint64_t data) {
  epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.u64 = data;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
    throw std::runtime_error(std::string("epoll_ctl: ") + strerror(errno));
}

void LocalRanks::start(int index, const Environment& base, PmixHost& server, int stdin_fd) {
  const int r = setup_.ranks[size_t(index)];
  Environment env(base);
  int local_size = setup_.local_size > 0 ? setup_.local_size : int(setup_.ranks.size());
  const RankPosition where{r, setup_.num_ranks, setup_.first_local_rank + index, local_size};
  add_rank_variables(env, where);
  add_training_variables(env, where, setup_.training_place, setup_.training);
  server.setup_fork(setup_.nspace, r, env.pmix_handle());

  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    throw std::runtime_error(std::string("pipe: ") + strerror(errno));
  }
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);  // our ends only: a rank's
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);  // writes must block when full
  const RankBinding* binding =
      size_t(index) < setup_.bindings.size() && setup_.bindings[size_t(index)].bound
          ? &setup_.bindings[size_t(index)]
          : nullptr;
  RankLaunch launch{setup_.program_path.c_str(),
                    argv_.data(),
                    env.envp(),
                    stdin_fd,
                    out[1],
                    err[1],
                    setup_.working_dir.empty() ? nullptr : setup_.working_dir.c_str(),
                    &defaults_.signals.original_mask,
                    defaults_.signals.default_sigpipe,
                    defaults_.file_limit ? &*defaults_.file_limit : nullptr,
                    binding != nullptr ? &binding->cpus : nullptr,
                    &defaults_.inherited_fds};
  SpawnResult started = spawn_rank(launch);
  ::close(out[1]);
  ::close(err[1]);

  Rank& rank = ranks_[size_t(index)];
  std::string prefix;
  if (setup_.tag_output)
    prefix = "[" + (setup_.job_tag.empty() ? "" : setup_.job_tag + ",") + std::to_string(r) + "] ";
  rank.out.emplace(out[0], sink_for_(index, 1), prefix);
  rank.err.emplace(err[0], sink_for_(index, 2), prefix);
  if (started.pid < 0) throw std::runtime_error(std::string(started.step) + ": " + strerror(started.error));
  if (setup_.report_bindings && size_t(index) < setup_.bindings.size()) {
    // Open MPI's format, from the process that started the rank.
    std::string line = "[" + setup_.hostname + ":" + std::to_string(::getpid()) + "] MCW rank " +
                       std::to_string(r) + " " + setup_.bindings[size_t(index)].description + "\n";
    write_all(*sink_for_(index, 2), line.data(), line.size());
  }
  rank.pid = started.pid;
  rank.running = true;
  ++running_;
  uint64_t tag = uint64_t(index) << 8 | uint64_t(setup_.event_group) << 40;
  watch(rank.out->fd(), uint64_t(stdout_kind_) | tag);
  watch(rank.err->fd(), uint64_t(stderr_kind_) | tag);
  // A child whose exec failed has exited (127); it is reaped as usual.
  if (started.error != 0)
    throw std::runtime_error(std::string(started.step) + " " + setup_.program_path + ": " +
                             strerror(started.error));
  FERRY_DEBUG(kLaunch, "rank %d started: pid %d", r, int(started.pid));
}

void LocalRanks::on_output(uint64_t event_data) {
  auto index = size_t(event_data >> 8 & 0xffffffffu);
  if (index >= ranks_.size()) return;
  Rank& rank = ranks_[index];
  std::optional<LineForwarder>& stream = uint8_t(event_data & 0xff) == stdout_kind_ ? rank.out : rank.err;
  if (!stream) return;  // closed earlier in this batch
  // EOF: the rank (and whatever shares its output) closed the pipe, so
  // its last line is complete as it is.
  if (!stream->on_readable()) {
    stream->finish(setup_.end_lines);
    stream.reset();
  }
}

std::optional<LocalRanks::Exit> LocalRanks::reaped(pid_t pid, int wait_status) {
  for (size_t i = 0; i < ranks_.size(); ++i) {
    Rank& rank = ranks_[i];
    if (rank.pid != pid || !rank.running) continue;
    rank.running = false;
    --running_;
    // Everything the rank wrote is in its pipes by now.
    for (std::optional<LineForwarder>* stream : {&rank.out, &rank.err})
      if (*stream) {
        (*stream)->finish(setup_.end_lines);
        stream->reset();
      }
    return Exit{setup_.ranks[i], pid, wait_status};
  }
  return std::nullopt;
}

void LocalRanks::signal(int sig, int spared_rank) {
  for (size_t i = 0; i < ranks_.size(); ++i)
    if (ranks_[i].running && setup_.ranks[i] != spared_rank) ::kill(-ranks_[i].pid, sig);
}

void LocalRanks::kill_leftovers() {
  for (const Rank& r : ranks_)
    if (r.pid > 0) ::kill(-r.pid, SIGKILL);
}

}  // namespace ferry::launcher
