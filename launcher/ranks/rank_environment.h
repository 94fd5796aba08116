// The environment each rank starts with: mpirun's own, less what belongs to
// an enclosing job, plus -x/-genv variables, PMIx's connection variables and
// the rank variables that Open MPI and MPICH programs and scripts look for.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ferry::launcher {

// An envp array in malloc'ed memory, because PMIx_server_setup_fork adds to
// it with realloc/free.
class Environment {
 public:
  Environment();
  explicit Environment(char* const* entries);
  ~Environment();
  Environment(const Environment& other);
  Environment& operator=(const Environment&) = delete;

  void set(std::string_view name, std::string_view value);
  std::optional<std::string_view> get(std::string_view name) const;

  char* const* envp() const { return entries_; }
  char*** pmix_handle() { return &entries_; }  // for PMIx_server_setup_fork

 private:
  void append(char* entry);
  char** entries_;
};

// mpirun's environment as the base for every rank. Variables of an
// enclosing PMIx or MPI job (PMIX_* other than PMIX_MCA_*, PMI_*,
// OMPI_COMM_WORLD_*) are dropped: a rank must only see this job's.
// `extra` (-x, -genv) is applied on top, in order.
Environment base_environment(char* const* parent,
                             const std::vector<std::pair<std::string, std::string>>& extra);

// Where a rank sits: its number in the job and on its host.
struct RankPosition {
  int rank = 0;
  int size = 1;
  int local_rank = 0;   // index among its host's ranks
  int local_size = 1;   // ranks on its host
};

// OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE,NODE_RANK}, PMI_RANK,
// PMI_SIZE. One job per host, so the node rank is the local rank.
void add_rank_variables(Environment& env, const RankPosition& where);

}  // namespace ferry::launcher
