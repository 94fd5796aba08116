// mpirun's private temporary directory, where the PMIx server keeps its
// files: one per mpirun, so that concurrent jobs never meet, named
// ferry-mpirun.<pid>.XXXXXX under TMPDIR (or /tmp).
#pragma once

#include <string>

namespace ferry::launcher {

class SessionDir {
 public:
  // Creates the directory; throws std::runtime_error with the reason.
  SessionDir();
  // Removes it with whatever PMIx left in it.
  ~SessionDir() { remove(); }
  SessionDir(const SessionDir&) = delete;
  SessionDir& operator=(const SessionDir&) = delete;

  const std::string& path() const { return path_; }

  // Removes the directory now (again: nothing).
  void remove();

  // Removes the directories of mpiruns that died without cleaning up
  // (killed with SIGKILL): this user's, whose pid is gone. Cheap, but not
  // free, so it runs while the ranks start up and mpirun has nothing to do.
  void sweep_stale() const;

 private:
  std::string base_;  // the parent directory
  std::string path_;
  bool removed_ = false;
};

}  // namespace ferry::launcher
