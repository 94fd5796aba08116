#include "profile/late_partners.h"

#include <algorithm>

#include "base/communicator.h"
#include "base/request.h"
#include "coll/choice_counters.h"
#include "coll/collectives.h"
#include "p2p/pt2pt.h"
#include "profile/companions.h"
#include "profile/counters.h"
#include "progress/progress.h"

namespace ferry::profile::late_partners {

Wait wait_for_match(MPI_Request request) {
  Request* r = requests::find(request);
  if (r == nullptr || !r->active) return {};
  if (r->kind == Request::Kind::kCollective) return wait_for_partners(r);
  if (r->kind != Request::Kind::kRecv || r->partitioned != nullptr) return {};
  progress::Lock lock;
  if (r->matched || r->complete) return {};
  uint64_t start = now();
  // The same wait as the receive's own (a failure or revocation completes it), ending earlier.
  progress::wait_until(lock, [r] { return r->matched || r->complete; });
  return {now() - start, 1};
}

Wait wait_for_partners(Request* r) {
  progress::Lock lock;
  uint64_t weight = companions::weight(r);
  if (weight == 0) return {0, 0};
  if (companions::partners_there(r)) return {0, weight};
  uint64_t start = now();
  // Its companion barrier completes, or the collective itself does: the call's own wait, ending
  // no later.
  progress::wait_until(lock, [r] { return companions::partners_there(r); });
  return {now() - start, weight};
}

namespace {

// A started receive whose message's match the profile can see: `matched` means its sender sent.
bool plain_receive(const Request* r) { return r->kind == Request::Kind::kRecv && r->partitioned == nullptr; }

// The live, active request behind `handle`, or nullptr (engine lock held).
Request* active(MPI_Request handle) {
  Request* r = handle != MPI_REQUEST_NULL ? requests::find(handle) : nullptr;
  return r != nullptr && r->active ? r : nullptr;
}

// Ticks until `done` holds of the requests, 0 if it held at once. The same wait the call then
// does (progress::wait_until: a failure or revocation completes a request), for a condition that
// holds no later than the call's own, so it only ends earlier.
template <class Done>
uint64_t wait_for(progress::Lock& lock, Done done) {
  if (done()) return 0;
  uint64_t start = now();
  progress::wait_until(lock, done);
  return now() - start;
}

// How many calls a measure of a call on these requests stands for: the largest weight of its
// sampled collectives; 0 when it has collectives, none sampled, and no receive (nothing of it
// measured: a 0 of weight 1 would pull the sampled calls' estimate down); else 1, as every timed
// call was before collectives were sampled. A collective not sampled is left out of the wait
// (its partners_there holds). A product of the weights would stand for calls almost never
// measured (two communicators sampled alike: 1 in 512, weighted 512 x 512) and could overflow
// (engine lock held).
uint64_t weight_of(int n, const MPI_Request* handles) {
  uint64_t sampled = 0;
  bool unsampled = false, receives = false;
  for (int i = 0; i < n; ++i) {
    const Request* r = active(handles[i]);
    if (r == nullptr) continue;
    if (r->kind == Request::Kind::kCollective) {
      uint64_t w = companions::weight(r);
      sampled = std::max(sampled, w);
      unsampled = unsampled || w == 0;
    } else {
      receives = receives || plain_receive(r);
    }
  }
  if (sampled != 0) return sampled;
  return unsampled && !receives ? 0 : 1;
}

}  // namespace

Wait wait_for_all_matched(int n, const MPI_Request* handles) {
  if (n <= 0 || handles == nullptr) return {0, 1};  // the call itself says what is wrong
  progress::Lock lock;
  uint64_t weight = weight_of(n, handles);
  if (weight == 0) return {0, 0};
  // Resumes at the first receive still unmatched (matched and complete stay
  // set until the call retires the request), as pt2pt::wait_all does: one
  // look per poll, not n.
  int first = 0;
  return {wait_for(lock, [n, handles, &first] {
            for (; first < n; ++first) {
              const Request* r = active(handles[first]);
              if (r == nullptr) continue;
              if (plain_receive(r) && !r->matched && !r->complete) return false;
              if (r->kind == Request::Kind::kCollective && !companions::partners_there(r)) return false;
            }
            return true;
          }),
          weight};
}

Wait wait_for_any_matched(int n, const MPI_Request* handles) {
  if (n <= 0 || handles == nullptr) return {0, 1};
  progress::Lock lock;
  bool any_active = false;
  for (int i = 0; i < n && !any_active; ++i) any_active = active(handles[i]) != nullptr;
  if (!any_active) return {0, 1};  // the call returns at once
  uint64_t weight = weight_of(n, handles);
  if (weight == 0) return {0, 0};
  return {wait_for(lock, [n, handles] {
            for (int i = 0; i < n; ++i)
              if (const Request* r = active(handles[i]);
                  r != nullptr && (r->complete || (plain_receive(r) && r->matched) ||
                                   (r->kind == Request::Kind::kCollective && companions::partners_there(r))))
                return true;
            return false;
          }),
          weight};
}

bool synchronize(MPI_Comm comm) {
  Communicator* c = communicators::find(comm);
  if (c == nullptr) return false;
  // An intercommunicator's barrier lets nobody go before every process of both groups has
  // arrived (coll/inter/barrier.cc; MPI-4.0 §6.3 asks this of the other group), so the wait is
  // until both groups are there, as an intracommunicator's is until all of it is.
  // The profile's own barrier is not one of the program's calls: its choice of algorithm is
  // counted nowhere (neither MPI_T's counters and events nor the profile's table), and other
  // threads' choices still are.
  coll::UncountedChoices uncounted;
  (void)coll::barrier(c);
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
