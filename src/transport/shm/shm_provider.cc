// The shared-memory transport joins a job (transport/providers.h): one
// segment per rank, under a name every local peer computes
// (common/shm_names.h), mapped by a peer on first contact.
#include "common/shm_names.h"
#include "transport/shm/shm_transport.h"

namespace ferry::transport::shm {

std::unique_ptr<Transport> ShmTransport::open(const JobLayout& job, PacketHandler* handler, std::string* error) {
  (void)error;
  if (job.local_peers.size() < 2) return nullptr;
  auto shm = std::make_unique<ShmTransport>(job.rank, job.size, job.local_peers, handler);
  shm->nspace_ = job.nspace;
  shm->segment_name_ = shm_names::segment(job.nspace, job.rank);
  shm->fatal_ = job.fatal;
  return shm;
}

// Before the fence, so that every segment exists when a peer first maps it.
// Nothing goes into the card: the names are computed, not looked up (one
// PMIx round trip per pair was most of the start-up of a large job).
bool ShmTransport::publish(Exchange& exchange, std::string* error) {
  (void)exchange;
  return create(segment_name_, error);
}

// Peers are mapped on first contact (ShmTransport::contact).
bool ShmTransport::connect(Exchange& exchange, std::string* error) {
  (void)exchange, (void)error;
  return true;
}

}  // namespace ferry::transport::shm
