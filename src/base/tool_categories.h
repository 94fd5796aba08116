// The categories of MPI_T (MPI-4.0 §15.3.9): how Ferry groups its control
// variables, performance variables and events for a tool.
//
//   ferry              general settings; the parent of the others
//   ferry.transport    shm, tcp, self: settings and traffic counters
//   ferry.p2p          matching: unexpected queue, rendezvous, its event
//   ferry.coll         algorithm settings, choice counters and event
//   ferry.checkpoint   checkpoint/restart settings and the commit event
//   ferry.launch       the launcher's settings (read-only in a process)
//
// The set is fixed for the life of the process, so MPI_T_category_changed
// always answers the same number: a tool's cached lists stay valid.
#pragma once

#include <string_view>
#include <vector>

namespace ferry::tool {

enum Category : int { kGeneral, kTransport, kP2p, kColl, kCheckpoint, kLaunch, kCategories };

struct CategoryInfo {
  const char* name;
  const char* doc;
};
const CategoryInfo& category(int index);  // index in [0, kCategories)
int category_index(std::string_view name);  // -1: none of that name

// What a category holds, in index order (MPI_T_category_get_cvars/pvars/
// events/categories).
std::vector<int> category_cvars(int index);
std::vector<int> category_pvars(int index);
std::vector<int> category_events(int index);
std::vector<int> subcategories(int index);

}  // namespace ferry::tool
