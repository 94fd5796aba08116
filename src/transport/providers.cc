#include "transport/providers.h"

#include "transport/self/self_transport.h"
#include "transport/shm/fence.h"
#include "transport/shm/shm_transport.h"
#include "transport/tcp/tcp_transport.h"
#include "transport/verbs/verbs_transport.h"

namespace ferry::transport {
namespace {

// Same-host before network: shared memory is the cheap path, and polling it
// costs no system call. RDMA before sockets where there is a device.
const Provider kProviders[] = {
    {"self", false, false, SelfTransport::open},
    {"shm", true, false, shm::ShmTransport::open},
    {"verbs", true, false, verbs::VerbsTransport::open},
    {"tcp", true, false, tcp::TcpTransport::open},
};

}  // namespace

void prepare_providers() {
  // The shared-memory transport's membarrier registration (shm/fence.h)
  // costs a store while the process has one thread and an RCU grace period
  // (5-20 ms here) once it has two. Early it is free, also for a rank that
  // ends up without local peers.
  shm::fence::enable_asymmetric();
}

std::span<const Provider> all_providers() { return kProviders; }

bool enabled_providers(const std::string& list, std::vector<const Provider*>* enabled, std::string* error) {
  std::vector<std::string> names;
  for (size_t at = 0; at <= list.size();) {
    size_t end = list.find(',', at);
    if (end == std::string::npos) end = list.size();
    names.push_back(list.substr(at, end - at));
    at = end + 1;
  }
  for (const std::string& name : names) {
    bool known = false;
    for (const Provider& p : kProviders) known = known || (p.selectable && name == p.name);
    if (!known) {
      std::string expected;
      for (const Provider& p : kProviders)
        if (p.selectable) expected += (expected.empty() ? "" : ", ") + std::string(p.name);
      *error = "FERRY_TRANSPORTS=" + list + ": unknown transport \"" + name + "\" (expected " + expected + ")";
      return false;
    }
  }
  enabled->clear();
  for (const Provider& p : kProviders) {
    bool named = false;
    for (const std::string& name : names) named = named || name == p.name;
    if (!p.selectable || named) enabled->push_back(&p);
  }
  return true;
}

uint32_t job_tag(const std::string& nspace) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : nspace) hash = (hash ^ c) * 16777619u;
  return hash;
}

}  // namespace ferry::transport
