#include "coll/hier/structure.h"

#include <algorithm>
#include <string>

#include "base/revocation.h"
#include "coll/allgather/algorithms.h"
#include "coll/schedule.h"
#include "coll/shm/host.h"
#include "common/config.h"
#include "common/debug.h"
#include "device/device.h"

namespace ferry::coll::hier {
namespace {

enum class Mode : uint8_t { kAuto, kOn, kOff };

Mode mode() {
  static const Mode m = [] {
    std::string v = config::value("FERRY_COLL_HIER");
    if (v == "auto" || v.empty()) return Mode::kAuto;
    return config::flag("FERRY_COLL_HIER") ? Mode::kOn : Mode::kOff;
  }();
  return m;
}

// What coll/shm's hierarchy_slot holds.
struct State {
  bool decided = false;
  std::unique_ptr<Hierarchy> hierarchy;  // nullptr: no hierarchical collectives
};

// Phase 1: every rank's host leader, by allgather over c; then the hosts.
bool learn_hosts(Communicator* c, Hierarchy* h) {
  int leader = c->rank;
  for (int r = 0; r < c->rank; ++r)
    if (shm::shares_memory(c->world_rank(r))) {
      leader = r;
      break;
    }
  std::vector<int> leaders(static_cast<size_t>(c->size));
  Schedule s(c);
  const Datatype* ints = find_datatype(MPI_INT);
  allgather_bruck(s, &leader, 1, ints, leaders.data(), 1, ints);
  if (Err e = s.run()) {
    if (debug::on(debug::kColl)) debug::print("no hierarchical collectives: %s", e.message().c_str());
    return false;
  }
  h->host_of.assign(static_cast<size_t>(c->size), -1);
  h->local_index.assign(static_cast<size_t>(c->size), 0);
  for (int r = 0; r < c->size; ++r) {
    const int l = leaders[static_cast<size_t>(r)];
    if (l == r) {
      h->host_of[static_cast<size_t>(r)] = static_cast<int>(h->hosts.size());
      h->hosts.emplace_back();
    }
    const int host = h->host_of[static_cast<size_t>(l)];
    h->host_of[static_cast<size_t>(r)] = host;
    h->local_index[static_cast<size_t>(r)] = static_cast<int>(h->hosts[static_cast<size_t>(host)].size());
    h->hosts[static_cast<size_t>(host)].push_back(r);
  }
  h->me = c->rank;
  h->my_host = h->host_of[static_cast<size_t>(c->rank)];
  for (int r = 1; r < c->size; ++r)
    h->chain_crossings += h->host_of[static_cast<size_t>(r)] != h->host_of[static_cast<size_t>(r - 1)];
  return true;
}

std::unique_ptr<Hierarchy> make(Communicator* c) {
  auto h = std::make_unique<Hierarchy>();
  if (!learn_hosts(c, h.get())) return nullptr;
  size_t most = 0;
  for (const auto& host : h->hosts) most = std::max(most, host.size());
  // Every rank alone on its host: the leaders' phase is the flat algorithm.
  if (most < 2) {
    if (debug::on(debug::kColl))
      debug::print("no hierarchical collectives: %zu hosts, one rank each", h->hosts.size());
    return nullptr;
  }
  // Phase 2: each host's segment, agreed over c.
  if (!shm::segment_among(c, h->locals(), h->my_local(), &h->local)) return nullptr;
  if (debug::on(debug::kColl)) {
    std::string ranks;
    for (const auto& host : h->hosts) ranks += (ranks.empty() ? "" : " ") + std::to_string(host.size());
    debug::print("hierarchical collectives: %zu hosts (ranks per host: %s), this rank %s of host %d", h->hosts.size(),
                 ranks.c_str(), h->my_local() == 0 ? "leader" : "member", h->my_host);
  }
  return h;
}

}  // namespace


std::vector<int> Hierarchy::representatives(int rank) const {
  std::vector<int> reps;
  reps.reserve(hosts.size());
  const int root_host = rank >= 0 ? host_of[static_cast<size_t>(rank)] : -1;
  for (size_t i = 0; i < hosts.size(); ++i)
    reps.push_back(static_cast<int>(i) == root_host ? rank : hosts[i][0]);
  return reps;
}

bool forced() { return mode() == Mode::kOn; }

Hierarchy* hierarchy_for(Communicator* c, Launch how) {
  // Only what every rank of c answers alike decides whether to make it:
  // the form, the communicator, the setting, and whether c spans hosts
  // (every rank sees a rank off its host, or none does).
  if (how.form != Launch::Form::kBlocking || device::enabled() || c->inter || c->size < 3 ||
      c->has_fixed_collective_tag() || mode() == Mode::kOff)
    return nullptr;
  if (revocation::is_revoked(c->context)) [[unlikely]] return nullptr;
  std::shared_ptr<void>& slot = shm::hierarchy_slot(c);
  if (!slot) {
    auto st = std::make_shared<State>();
    bool spans = false;
    for (int r = 0; r < c->size && !spans; ++r) spans = !shm::shares_memory(c->world_rank(r));
    st->decided = !spans;
    slot = st;
  }
  auto* st = static_cast<State*>(slot.get());
  if (!st->decided) {
    st->decided = true;
    st->hierarchy = make(c);
  }
  return st->hierarchy.get();
}

}  // namespace ferry::coll::hier
