#include "runtime/peers.h"

#include <mutex>
#include <sstream>

#include "mpi.h"
#include "runtime/runtime.h"
#include "transport/providers.h"

namespace ferry::runtime {
namespace {

// Processes of other jobs, by index - world size. Read by transports during
// progress (adopted_index) and by the runtime: locked.
struct Adopted {
  std::mutex mutex;
  std::vector<pmi::ProcessName> names;
  std::vector<uint32_t> tags;
};
Adopted adopted;

}  // namespace

pmi::ProcessName name_of(int index) {
  const pmi::Job& j = job();
  if (index < j.size) return pmi::ProcessName{j.nspace, index};
  std::lock_guard lock(adopted.mutex);
  return adopted.names[static_cast<size_t>(index - j.size)];
}

int adopted_index(uint32_t tag, int rank) {
  std::lock_guard lock(adopted.mutex);
  for (size_t i = 0; i < adopted.names.size(); ++i)
    if (adopted.tags[i] == tag && adopted.names[i].rank == rank) return job().size + static_cast<int>(i);
  return -1;
}

Err adopt(const pmi::ProcessName& name, int* index) {
  const pmi::Job& j = job();
  if (name.nspace == j.nspace) {
    if (name.rank < 0 || name.rank >= j.size)
      return fail(MPI_ERR_INTERN, "rank %d is not in this job (size %d)", name.rank, j.size);
    *index = name.rank;
    return {};
  }
  {
    std::lock_guard lock(adopted.mutex);
    for (size_t i = 0; i < adopted.names.size(); ++i)
      if (adopted.names[i] == name) {
        *index = j.size + static_cast<int>(i);
        return {};
      }
    adopted.names.push_back(name);
    adopted.tags.push_back(transport::job_tag(name.nspace));
    *index = j.size + static_cast<int>(adopted.names.size() - 1);
  }
  return route_adopted(*index, name);
}

std::string names_of(const std::vector<int>& members) {
  std::string text;
  for (int m : members) {
    pmi::ProcessName n = name_of(m);
    text += n.nspace + " " + std::to_string(n.rank) + "\n";
  }
  return text;
}

Err adopt_all(const std::string& names, std::vector<int>* members) {
  members->clear();
  std::istringstream in(names);
  pmi::ProcessName n;
  while (in >> n.nspace >> n.rank) {
    int index = 0;
    if (Err e = adopt(n, &index)) return e;
    members->push_back(index);
  }
  return {};
}

}  // namespace ferry::runtime
