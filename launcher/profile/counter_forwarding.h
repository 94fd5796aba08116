// FERRY_PROFILE across hosts without a shared directory (README "Profiling a job"): the ranks of a
// node daemon count into the daemon's own session directory, on their host's disk; once they have
// all ended (exited, crashed or killed alike: the kernel keeps a killed rank's pages), the daemon
// sends their counter files up the daemon tree to mpirun in pieces, and mpirun writes them into
// its own directory, where the report reads them as it reads its own host's ranks' files. A host
// whose daemon is lost sends nothing, and the report says it is partial, as for any missing file.
//
// Memory stays bounded whatever the job's size: a counter file has a fixed size per rank
// (common/profile_layout.h); the sender reads one piece at a time and only while its link upwards
// holds less than kWindowBytes not yet taken by the kernel; a daemon that passes its children's
// frames on stops reading them while its own link upwards is that full (daemon_tree.cc); and mpirun
// writes each piece to disk as it arrives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/tree/daemon_link.h"

namespace ferry::launcher::profile {

constexpr size_t kPieceBytes = 64 * 1024;
constexpr size_t kWindowBytes = 1 << 20;

// A node daemon's side: the files <dir>/<nspace>.rank.<r> of its `ranks`, then kProfileDone for
// its `position` and job `nspace`. A rank without a file (it never reached MPI_Init) is left out.
// One sender per job with ranks here: the first job's, and each spawned job's part on this host
// (its ranks count here too, daemon_spawned_jobs.h), each started once that job's ranks here end.
class CounterFileSender {
 public:
  CounterFileSender(std::string dir, std::string nspace, std::vector<int> ranks, int position);
  ~CounterFileSender();
  CounterFileSender(const CounterFileSender&) = delete;
  CounterFileSender& operator=(const CounterFileSender&) = delete;

  // Queues pieces on `up` while it holds less than kWindowBytes; the owner calls it again when the
  // link has drained. True once everything, kProfileDone last, is queued.
  bool pump(DaemonLink& up);

 private:
  bool open_next();  // false when no file is left

  std::string dir_, nspace_;
  std::vector<int> ranks_;
  int position_;
  size_t next_ = 0;  // index in ranks_ of the file to open next
  int fd_ = -1;      // the file being sent
  std::string name_;
  uint64_t size_ = 0, offset_ = 0;
  uint32_t sent_files_ = 0;
  bool done_ = false;
};

// mpirun's side: writes what the daemons at `positions` send for job `nspace` into `dir`. A file
// appears under its own name only once whole (its pieces go to <name>.part first). mpirun keeps
// one for the first job and one for each spawned job with ranks under daemons; a frame is offered
// to each in turn and taken by the one of its job.
class CounterFileReceiver {
 public:
  CounterFileReceiver(std::string dir, std::string nspace, std::vector<int> positions);

  // kProfileChunk: false if the piece is not of this job (a file of another namespace).
  bool on_piece(std::string_view body);
  // kProfileDone: that position's host has sent everything of this job. Returns the position (-1
  // if the frame is not one of this job, or not awaited) and sets `files` to how many files it sent.
  int on_done(std::string_view body, uint32_t* files);
  // The daemon at `position` is gone: nothing more comes from it.
  void forget(int position);
  // The positions not yet done.
  const std::vector<int>& waiting_for() const { return waiting_; }
  const std::string& nspace() const { return nspace_; }

 private:
  std::string dir_, nspace_;
  std::vector<int> waiting_;
  bool said_write_error_ = false;
};

}  // namespace ferry::launcher::profile
