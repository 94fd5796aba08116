#include "base/tool_categories.h"

#include "base/tool_events.h"
#include "base/tool_pvars.h"
#include "base/tool_variables.h"

namespace ferry::tool {
namespace {

constexpr CategoryInfo kInfo[kCategories] = {
    {"ferry", "Ferry's general settings; the other categories are its subcategories"},
    {"ferry.transport", "Transports (shm, tcp, self): their settings and what each moved"},
    {"ferry.p2p", "Point-to-point matching: unexpected messages and the rendezvous protocol"},
    {"ferry.coll", "Collective algorithms: how they are chosen and which were chosen"},
    {"ferry.checkpoint", "Checkpoint/restart (MPIX_Checkpoint): settings and commits"},
    {"ferry.launch", "The launcher's settings (mpirun and its node daemons; read-only in a process)"},
};

template <class Of>
std::vector<int> members(int count, int index, Of category_of) {
  std::vector<int> out;
  for (int i = 0; i < count; ++i)
    if (category_of(i) == index) out.push_back(i);
  return out;
}

}  // namespace

const CategoryInfo& category(int index) { return kInfo[index]; }

int category_index(std::string_view name) {
  for (int i = 0; i < kCategories; ++i)
    if (name == kInfo[i].name) return i;
  return -1;
}

std::vector<int> category_cvars(int index) {
  return members(control_variable_count(), index, [](int i) { return control_variable(i)->category; });
}

std::vector<int> category_pvars(int index) {
  return members(performance_variable_count(), index, [](int i) { return performance_variable(i)->category; });
}

std::vector<int> category_events(int index) {
  return members(event_type_count(), index, [](int i) { return event_type(i)->category; });
}

std::vector<int> subcategories(int index) {
  std::vector<int> out;
  if (index == kGeneral)
    for (int i = kGeneral + 1; i < kCategories; ++i) out.push_back(i);
  return out;
}

}  // namespace ferry::tool
