// Info objects (MPI-3.1 §9): ordered (key, value) string pairs that hint an
// implementation, and MPI_INFO_ENV, the environment the program started in
// (§8.8).
//
// Other parts read hints through find_info() and Info::get():
//
//   if (const Info* i = find_info(handle))
//     if (const std::string* v = i->get("mpi_assert_no_any_tag")) ...
//
// Objects are created and freed from any thread; as the standard says, one
// object must not be modified by one thread while another uses it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "mpi.h"

namespace ferry {

class Info {
 public:
  // The value of `key`, or nullptr.
  const std::string* get(std::string_view key) const;
  // Adds `key`, or replaces its value where it keeps its place (the order of
  // keys is the order they were first set in).
  void set(std::string_view key, std::string_view value);
  // False when `key` was not set.
  bool remove(std::string_view key);

  size_t size() const { return entries_.size(); }
  const std::string& key(size_t n) const { return entries_[n].first; }
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// MPI's limits on keys and values: a key is 1 to MPI_MAX_INFO_KEY characters
// (MPI_ERR_INFO_KEY), a value at most MPI_MAX_INFO_VAL (MPI_ERR_INFO_VALUE).
Err check_info_key(const char* key);
Err check_info_value(const char* value);

// The info object behind a handle (MPI_INFO_ENV included), or nullptr for
// MPI_INFO_NULL and invalid handles.
const Info* find_info(MPI_Info handle);

namespace infos {

// A user-created object that may be modified, or nullptr (MPI_INFO_ENV is
// read-only).
Info* find_mutable(MPI_Info handle);
MPI_Info create(Info contents = {});
// Fails with MPI_ERR_INFO for MPI_INFO_NULL, MPI_INFO_ENV and unknown handles.
Err free(MPI_Info handle);
size_t live();  // user-created objects not freed yet

// What MPI_INFO_ENV holds (MPI-3.1 §8.8), from what the process knows about
// itself; empty strings are left out.
struct Environment {
  std::vector<std::string> command_line;  // argv[0] first
  int world_size = 1;
  std::string host;
  std::string arch;
  std::string working_directory;
  int thread_level = MPI_THREAD_SINGLE;
};
Info environment_info(const Environment& env);
// MPI_Info_create_env (MPI-4.0 §11.2.4): what is known the same before
// MPI_Init, during and after MPI_Finalize: command and argv (from
// `command_line`, else the process's own), host, arch and wdir. maxprocs
// and thread_level are left out: they are known only while the runtime is
// up, and the info must not change with it.
Info startup_info(const std::vector<std::string>& command_line);

}  // namespace infos

}  // namespace ferry
