// The zero-copy rendezvous of the verbs transport: the p2p layer's
// single-copy protocol (p2p/engine.h, kFlagDirect) with RDMA READ.
//
// The sender exposes its buffer: the registration cache registers it (or
// finds it registered: no cost on the second send of one buffer) and the
// rkey goes to the receiver as the request's registration key. The receiver
// reads the data into its own registered buffer with RDMA READ, in pieces
// of at most kMaxReadBytes, only the last signaled (RC completes in order),
// and answers "done"; the sender then conceals (releases) its registration.
#include <cstring>

#include "transport/verbs/verbs_transport.h"

namespace ferry::transport::verbs {

bool VerbsTransport::expose(int peer, const MemoryRef& local, size_t n, RemoteBuffer* remote) {
  (void)peer;
  if (local.kind != MemoryKind::kHost || n == 0) return false;  // device memory needs GPUDirect (not done)
  std::string error;
  RegistrationCache::Entry* e = cache_->acquire(local.data, n, &error);
  if (e == nullptr) return false;  // the message goes through ready/data packets instead
  remote->address = reinterpret_cast<uintptr_t>(local.data);
  remote->kind = MemoryKind::kHost;
  remote->key_bytes = kKeyBytes;
  std::memcpy(remote->key, &e->region.rkey, sizeof(uint32_t));
  // Exposures of one cached region share its rkey: conceal finds the entry
  // by it (the key that travels holds nothing but the rkey).
  auto& [entry, count] = exposed_[e->region.rkey];
  entry = e;
  ++count;
  return true;
}

void VerbsTransport::conceal(const RemoteBuffer& remote) {
  uint32_t rkey = 0;
  std::memcpy(&rkey, remote.key, sizeof rkey);
  auto it = exposed_.find(rkey);
  if (it == exposed_.end()) return;
  RegistrationCache::Entry* e = it->second.first;
  if (--it->second.second == 0) exposed_.erase(it);
  cache_->release(e);
}

// The rendezvous' reads share the one-sided queue (one_sided.cc).
Started VerbsTransport::start_read(OneSided* op) { return queue_one_sided(op, Opcode::kRead); }

}  // namespace ferry::transport::verbs
