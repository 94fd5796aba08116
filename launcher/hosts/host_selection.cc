#include "launcher/hosts/host_selection.h"

#include <algorithm>

#include "launcher/hosts/slurm_allocation.h"

namespace ferry::launcher {
namespace {

// Every list merged into one, in order: a host named in two places gets
// the slots of both (as within one hostfile).
hosts::HostListResult merge_all(const std::vector<hosts::HostListResult>& lists) {
  hosts::HostListResult merged;
  for (const hosts::HostListResult& list : lists)
    for (const hosts::HostEntry& entry : list.hosts)
      if (std::string error = hosts::add_host(merged.hosts, entry); !error.empty()) return {{}, error};
  return merged;
}

// -H with a hostfile: keep the hostfile's hosts that -H names, in the
// hostfile's order; a count given with -H ("node1:2") replaces the file's.
hosts::HostListResult filter(const hosts::HostListResult& from_files, const hosts::HostListResult& from_option,
                             const std::vector<std::string>& hostfiles) {
  for (const hosts::HostEntry& wanted : from_option.hosts) {
    auto known = [&](const hosts::HostEntry& h) { return h.name == wanted.name; };
    if (std::none_of(from_files.hosts.begin(), from_files.hosts.end(), known)) {
      std::string files;
      for (const std::string& f : hostfiles) files += (files.empty() ? "" : ", ") + f;
      return {{}, "-H names '" + wanted.name + "', which is not in the hostfile (" + files +
                      "); with a hostfile, -H picks hosts from it"};
    }
  }
  hosts::HostListResult out;
  for (const hosts::HostEntry& h : from_files.hosts) {
    auto it = std::find_if(from_option.hosts.begin(), from_option.hosts.end(),
                           [&](const hosts::HostEntry& w) { return w.name == h.name; });
    if (it == from_option.hosts.end()) continue;
    hosts::HostEntry kept = h;
    if (it->slots_given) {
      if (h.max_slots != 0 && it->slots > h.max_slots)
        return {{}, "-H " + h.name + ":" + std::to_string(it->slots) + " is above its max_slots=" +
                        std::to_string(h.max_slots) + " (" + h.origin + ")"};
      kept.slots = it->slots;
      kept.slots_given = true;
    }
    out.hosts.push_back(std::move(kept));
  }
  return out;
}

}  // namespace

hosts::HostListResult select_hosts(const std::vector<std::string>& hostfiles,
                                   const std::vector<std::string>& host_lists, const EnvironmentLookup& lookup) {
  std::vector<hosts::HostListResult> files, options;
  for (const std::string& path : hostfiles) {
    files.push_back(hosts::read_hostfile(path));
    if (!files.back().error.empty()) return files.back();
  }
  for (const std::string& spec : host_lists) {
    options.push_back(hosts::parse_host_option(spec));
    if (!options.back().error.empty()) return options.back();
  }
  hosts::HostListResult from_files = merge_all(files);
  hosts::HostListResult from_option = merge_all(options);
  if (!from_files.error.empty()) return from_files;
  if (!from_option.error.empty()) return from_option;

  if (!hostfiles.empty() && !host_lists.empty()) return filter(from_files, from_option, hostfiles);
  if (!hostfiles.empty()) return from_files;
  if (!host_lists.empty()) return from_option;
  // Explicit hosts win over the allocation, as in Hydra; Open MPI's -H
  // inside an allocation would also have to name allocated hosts.
  if (std::optional<hosts::HostListResult> slurm = slurm_allocation(lookup)) return *slurm;
  return {};
}

}  // namespace ferry::launcher
