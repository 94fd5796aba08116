#include "fault/partner.h"

#include <map>

namespace ferry::fault {

std::vector<int> choose_partners(const std::vector<std::string>& host_of_rank) {
  // The ranks of each host, hosts in order of their lowest rank.
  std::map<std::string, size_t> index_of_host;
  std::vector<std::vector<int>> ranks_of_host;
  std::vector<size_t> position(host_of_rank.size());
  for (size_t r = 0; r < host_of_rank.size(); ++r) {
    auto [it, added] = index_of_host.emplace(host_of_rank[r], ranks_of_host.size());
    if (added) ranks_of_host.emplace_back();
    position[r] = ranks_of_host[it->second].size();
    ranks_of_host[it->second].push_back(static_cast<int>(r));
  }
  if (ranks_of_host.size() < 2) return {};
  std::vector<int> partner(host_of_rank.size());
  for (size_t r = 0; r < host_of_rank.size(); ++r) {
    const std::vector<int>& next = ranks_of_host[(index_of_host[host_of_rank[r]] + 1) % ranks_of_host.size()];
    partner[r] = next[position[r] % next.size()];
  }
  return partner;
}

std::string expand_host(const std::string& pattern, const std::string& host) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'h') {
      out += host;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

}  // namespace ferry::fault
