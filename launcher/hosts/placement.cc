// Rank placement as Open MPI and Hydra users expect it:
//  - map-by slot (and core, socket, numa, which differ only inside a host):
//    each host's slots are filled in host order, rank 0 on the first host;
//  - map-by node: one rank per host in turn, skipping hosts whose slots are
//    used up;
//  - -ppn/--npernode N (Hydra's -ppn): N ranks on the first host, N on the
//    next, ...; the count replaces the hosts' slots.
// More ranks than slots (or than N per host) need --oversubscribe. Then
// slot mapping spreads the rest evenly, as Open MPI's byslot mapper does
// (the first hosts get one more), node mapping keeps going round, and -ppn
// starts another round; max_slots is never exceeded.
#include "launcher/hosts/placement.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>

namespace ferry::launcher {
namespace {

// Ranks are ints (MPI) and every rank costs some memory here; a bound far
// above any real job keeps a typo such as slots=1000000 from exhausting it.
constexpr int64_t kMaxJobRanks = int64_t(1) << 22;

std::string ranks_text(int64_t n) { return std::to_string(n) + (n == 1 ? " rank" : " ranks"); }
std::string slots_text(int64_t n) { return std::to_string(n) + (n == 1 ? " slot" : " slots"); }

int64_t cap_of(const hosts::HostEntry& h) { return h.max_slots > 0 ? h.max_slots : INT64_MAX; }
int64_t slots_of(const hosts::HostEntry& h) { return std::clamp<int64_t>(h.slots, 0, cap_of(h)); }

// Where the hosts were written, compactly: "hosts:1-3,7, -H".
std::string describe_sources(const std::vector<hosts::HostEntry>& list) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<int>> lines;
  for (const hosts::HostEntry& h : list) {
    std::string source = h.origin;
    int line = -1;
    size_t colon = h.origin.rfind(':');
    if (colon != std::string::npos && colon + 1 < h.origin.size() &&
        h.origin.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      source = h.origin.substr(0, colon);
      line = std::stoi(h.origin.substr(colon + 1));
    }
    if (!lines.count(source)) order.push_back(source);
    if (line >= 0) lines[source].push_back(line);
    else lines[source];
  }
  std::string out;
  for (const std::string& source : order) {
    if (!out.empty()) out += ", ";
    out += source;
    std::vector<int>& ls = lines[source];
    std::sort(ls.begin(), ls.end());
    std::string ranges;
    int pieces = 0;
    for (size_t i = 0; i < ls.size(); ++pieces) {
      size_t j = i;
      while (j + 1 < ls.size() && ls[j + 1] <= ls[j] + 1) ++j;
      if (pieces == 4) {
        ranges += ",...";
        break;
      }
      ranges += (ranges.empty() ? ":" : ",") + std::to_string(ls[i]);
      if (ls[j] != ls[i]) ranges += "-" + std::to_string(ls[j]);
      i = j + 1;
    }
    out += ranges;
  }
  return out;
}

PlacementResult failure(const std::string& what) {
  PlacementResult r;
  r.error = "mpirun: " + what;
  return r;
}

// A run of consecutive ranks on one host.
struct Block {
  size_t host;
  int64_t count;
};

// Hands out `remaining` ranks one per host in turn among the hosts for
// which `room(h)` stays positive. Returns what could not be placed.
template <typename Room>
int64_t round_robin(size_t hosts, int64_t remaining, std::vector<int64_t>& count, Room room,
                    std::vector<Block>* blocks) {
  std::vector<size_t> active;
  for (size_t h = 0; h < hosts; ++h)
    if (room(h) > 0) active.push_back(h);
  while (remaining > 0 && !active.empty()) {
    std::vector<size_t> still;
    for (size_t h : active) {
      if (remaining == 0) break;
      ++count[h];
      --remaining;
      if (blocks) blocks->push_back({h, 1});
      if (room(h) > 0) still.push_back(h);
    }
    active = std::move(still);
  }
  return remaining;
}

// -ppn N: rounds of N ranks per host; more than one round only with
// --oversubscribe.
std::string map_per_node(const PlacementRequest& req, int64_t n, std::vector<int64_t>& count,
                         std::vector<Block>& blocks) {
  const int64_t ppn = req.ranks_per_node;
  const int64_t hosts = int64_t(req.hosts.size());
  if (n > ppn * hosts && !req.oversubscribe)
    return ranks_text(n) + " requested but --ppn " + std::to_string(ppn) + " on " + std::to_string(hosts) +
           (hosts == 1 ? " host" : " hosts") + " (" + describe_sources(req.hosts) + ") places only " +
           std::to_string(ppn * hosts) + "; add hosts or use --oversubscribe";
  int64_t remaining = n;
  while (remaining > 0) {
    for (size_t h = 0; h < req.hosts.size() && remaining > 0; ++h) {
      int64_t take = std::min(ppn, remaining);
      if (count[h] + take > cap_of(req.hosts[h]))
        return "--ppn " + std::to_string(ppn) + " puts " + std::to_string(count[h] + take) + " ranks on '" +
               req.hosts[h].name + "' but its max_slots is " + std::to_string(req.hosts[h].max_slots) + " (" +
               req.hosts[h].origin + ")";
      count[h] += take;
      remaining -= take;
      blocks.push_back({h, take});
    }
  }
  return "";
}

std::string map_by_slot_or_node(const PlacementRequest& req, int64_t n, std::vector<int64_t>& count,
                                std::vector<Block>& blocks) {
  const std::vector<hosts::HostEntry>& list = req.hosts;
  int64_t total_slots = 0, total_cap = 0;
  for (const hosts::HostEntry& h : list) {
    total_slots += slots_of(h);
    total_cap = cap_of(h) == INT64_MAX || total_cap == INT64_MAX ? INT64_MAX : total_cap + cap_of(h);
  }
  if (n > total_slots && !req.oversubscribe)
    return ranks_text(n) + " requested but the hosts have only " + slots_text(total_slots) + " (" +
           describe_sources(list) + "); add slots or use --oversubscribe";
  if (n > total_cap)
    return ranks_text(n) + " requested but the hosts' max_slots allow only " + std::to_string(total_cap) + " (" +
           describe_sources(list) + ")";
  auto free_slots = [&](size_t h) { return slots_of(list[h]) - count[h]; };
  auto below_cap = [&](size_t h) { return cap_of(list[h]) - count[h]; };

  if (req.map_by == MapBy::kNode) {
    int64_t left = round_robin(list.size(), n, count, free_slots, &blocks);
    round_robin(list.size(), left, count, below_cap, &blocks);  // oversubscribed
    return "";
  }
  // Slot order: fill each host, then spread the rest evenly over the hosts
  // with room below max_slots, numbered host by host (Open MPI's byslot).
  int64_t remaining = n;
  for (size_t h = 0; h < list.size() && remaining > 0; ++h) {
    int64_t take = std::min(slots_of(list[h]), remaining);
    if (take == 0) continue;
    count[h] = take;
    remaining -= take;
    blocks.push_back({h, take});
  }
  std::vector<int64_t> filled = count;
  round_robin(list.size(), remaining, count, below_cap, nullptr);
  for (size_t h = 0; h < list.size(); ++h)
    if (count[h] > filled[h]) blocks.push_back({h, count[h] - filled[h]});
  return "";
}

}  // namespace

PlacementResult place_ranks(const PlacementRequest& request, bool (*is_local)(const std::string&)) {
  if (request.num_ranks < 0) return failure("the number of ranks must not be negative");
  if (request.ranks_per_node < 0) return failure("--ppn must not be negative");

  PlacementResult result;
  Placement& p = result.placement;
  if (request.hosts.empty()) {
    // This host alone: no slot limit, more ranks than cores only share them.
    int n = request.num_ranks > 0 ? request.num_ranks : std::max(request.ranks_per_node, 1);
    PlacedNode node;
    node.host.name = "localhost";
    node.host.slots = n;
    node.host.origin = "this host";
    node.local = true;
    for (int r = 0; r < n; ++r) node.ranks.push_back(r);
    p.nodes.push_back(std::move(node));
    p.node_of_rank.assign(size_t(n), 0);
    return result;
  }

  int64_t n = request.num_ranks;
  if (n == 0) {
    // Open MPI: one rank per slot, or N per host with --npernode.
    if (request.ranks_per_node > 0) {
      n = int64_t(request.ranks_per_node) * int64_t(request.hosts.size());
    } else {
      for (const hosts::HostEntry& h : request.hosts) n += slots_of(h);
    }
  }
  if (n == 0) return failure("the hosts (" + describe_sources(request.hosts) + ") have no slots");
  if (n > kMaxJobRanks)
    return failure(ranks_text(n) + " is more than one job can run (at most " + std::to_string(kMaxJobRanks) + ")");

  std::vector<int64_t> count(request.hosts.size(), 0);
  std::vector<Block> blocks;
  std::string error = request.ranks_per_node > 0 ? map_per_node(request, n, count, blocks)
                                                 : map_by_slot_or_node(request, n, count, blocks);
  if (!error.empty()) return failure(error);

  // One node per host that runs ranks, in host order; ranks by block order.
  std::vector<size_t> node_of_host(request.hosts.size(), SIZE_MAX);
  for (size_t h = 0; h < request.hosts.size(); ++h) {
    if (count[h] == 0) continue;
    node_of_host[h] = p.nodes.size();
    PlacedNode node;
    node.host = request.hosts[h];
    node.local = is_local(node.host.name);
    p.nodes.push_back(std::move(node));
    if (count[h] > slots_of(request.hosts[h])) p.oversubscribed = true;
  }
  int rank = 0;
  p.node_of_rank.reserve(size_t(n));
  for (const Block& b : blocks) {
    size_t node = node_of_host[b.host];
    for (int64_t k = 0; k < b.count; ++k, ++rank) {
      p.nodes[node].ranks.push_back(rank);
      p.node_of_rank.push_back(int(node));
    }
  }
  return result;
}

}  // namespace ferry::launcher
