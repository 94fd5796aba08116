#include "pmi/checkpoint_request.h"

#include <pmix.h>

#include <atomic>

#include "common/checkpoint_event.h"
#include "common/debug.h"
#include "mpi.h"

namespace ferry::pmi {

namespace {

std::atomic<bool> requested{false};

// Runs on PMIx's progress thread: set the flag, tell PMIx we are done so
// that other handlers of the event (there are none of ours) may run.
void on_due(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t[], size_t, pmix_info_t*, size_t,
            pmix_event_notification_cbfunc_fn_t done, void* done_data) {
  requested.store(true, std::memory_order_release);
  if (done != nullptr) done(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, done_data);
}

}  // namespace

Err watch_checkpoint_requests() {
  pmix_status_t code = checkpoint::kDueEvent;
  // Without a callback the registration is blocking and returns the
  // handler's reference (>= 0) or an error (PMIx 4 pmix.h).
  pmix_status_t rc = PMIx_Register_event_handler(&code, 1, nullptr, 0, on_due, nullptr, nullptr);
  if (rc < 0)
    return fail(MPI_ERR_OTHER, "PMIx_Register_event_handler for checkpoint requests failed: %s",
                PMIx_Error_string(rc));
  FERRY_DEBUG(kPmix, "watching for checkpoint requests (event %d)", static_cast<int>(code));
  return {};
}

bool checkpoint_requested() { return requested.load(std::memory_order_acquire); }

void clear_checkpoint_request() { requested.store(false, std::memory_order_release); }

}  // namespace ferry::pmi
