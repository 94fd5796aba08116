#include "profile/late_partners.h"

#include "base/communicator.h"
#include "base/request.h"
#include "coll/choice_counters.h"
#include "coll/collectives.h"
#include "p2p/pt2pt.h"
#include "profile/counters.h"
#include "progress/progress.h"

namespace ferry::profile::late_partners {

uint64_t wait_for_match(MPI_Request request) {
  Request* r = requests::find(request);
  if (r == nullptr || r->kind != Request::Kind::kRecv || r->partitioned != nullptr || !r->active) return 0;
  progress::Lock lock;
  if (r->matched || r->complete) return 0;
  uint64_t start = now();
  // The same wait as the receive's own (a failure or revocation completes it), ending earlier.
  progress::wait_until(lock, [r] { return r->matched || r->complete; });
  return now() - start;
}

bool synchronize(MPI_Comm comm) {
  Communicator* c = communicators::find(comm);
  if (c == nullptr || c->inter) return false;
  // The profile's own barrier is not one of the program's choices of algorithm.
  coll::set_profile_table(nullptr);
  (void)coll::barrier(c);
  coll::set_profile_table(where.coll_table);
  return true;
}

namespace {
thread_local uint64_t matched_at = 0;
void note_matched() { matched_at = now(); }
}  // namespace

void begin_receive() {
  matched_at = 0;
  pt2pt::recv_matched_hook = note_matched;
}

uint64_t end_receive(uint64_t start) {
  pt2pt::recv_matched_hook = nullptr;
  return matched_at > start ? matched_at - start : 0;
}

}  // namespace ferry::profile::late_partners
