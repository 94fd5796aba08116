// The shared-memory transport joins a job (transport/providers.h): one
// segment per rank, named in its card, mapped by every local peer.
#include <sys/random.h>
#include <unistd.h>

#include <cstdio>
#include <functional>

#include "transport/shm/shm_transport.h"

namespace ferry::transport::shm {
namespace {

constexpr const char* kSegmentKey = "ferry.shm";

}  // namespace

std::unique_ptr<Transport> ShmTransport::open(const JobLayout& job, PacketHandler* handler, std::string* error) {
  (void)error;
  if (job.local_peers.size() < 2) return nullptr;
  auto shm = std::make_unique<ShmTransport>(job.rank, job.size, job.local_peers, handler);
  // The job, the rank and the process name a segment; a random part keeps
  // the name new when a job killed during start-up (before the segment's
  // name was dropped) left a segment behind and pids have since wrapped
  // round to the same mpirun and rank pids: shm_open(O_EXCL) then failed
  // with "File exists", a start-up failure that came and went under load.
  uint32_t nonce = 0;
  if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != sizeof nonce) nonce = static_cast<uint32_t>(getpid()) * 2654435761u;
  char name[112];
  std::snprintf(name, sizeof name, "/ferry-%016zx-%d-%d-%08x", std::hash<std::string>{}(job.nspace), job.rank,
                static_cast<int>(getpid()), nonce);
  shm->segment_name_ = name;
  return shm;
}

// Before the fence, so that every local peer can map the segment right after.
bool ShmTransport::publish(Exchange& exchange, std::string* error) {
  return create(segment_name_, error) && exchange.publish(kSegmentKey, segment_name_, error);
}

bool ShmTransport::connect(Exchange& exchange, std::string* error) {
  for (int peer : local_peers_) {
    if (peer == my_rank_) continue;
    std::string name;
    if (!exchange.lookup(peer, kSegmentKey, &name, error)) return false;
    if (!attach(peer, name, error)) {
      *error = "rank " + std::to_string(peer) + ": " + *error;
      return false;
    }
  }
  return true;
}

}  // namespace ferry::transport::shm
