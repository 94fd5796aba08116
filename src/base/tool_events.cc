#include "base/tool_events.h"

#include <time.h>

#include <mutex>

#include "base/tool_categories.h"

namespace ferry::tool {

std::atomic<int> event_handles[static_cast<int>(EventKind::kCount)];

namespace {

const std::vector<EventType>& types() {
  static const std::vector<EventType> t = {
      {"ferry.p2p.unexpected_message",
       "A message arrived before a receive matched it: {source rank, tag, bytes}",
       kP2p,
       {MPI_INT, MPI_INT, MPI_COUNT},
       {offsetof(UnexpectedMessageData, source), offsetof(UnexpectedMessageData, tag),
        offsetof(UnexpectedMessageData, bytes)},
       sizeof(UnexpectedMessageData)},
      {"ferry.coll.algorithm",
       "A collective call chose its algorithm: {index of its ferry.coll.<operation>.<algorithm> performance "
       "variable, communicator size, bytes per rank}",
       kColl,
       {MPI_INT, MPI_INT, MPI_COUNT},
       {offsetof(CollAlgorithmData, pvar), offsetof(CollAlgorithmData, ranks), offsetof(CollAlgorithmData, bytes)},
       sizeof(CollAlgorithmData)},
      {"ferry.checkpoint.committed",
       "MPIX_Checkpoint committed an epoch: {epoch, ranks}",
       kCheckpoint,
       {MPI_INT, MPI_INT},
       {offsetof(CheckpointCommittedData, epoch), offsetof(CheckpointCommittedData, ranks)},
       sizeof(CheckpointCommittedData)},
  };
  return t;
}

// Registrations, live and retired; retired ones are kept (see retire_handle).
std::mutex handles_mutex;
std::vector<MPIR_T_event_registration_s*>& handles() {
  static std::vector<MPIR_T_event_registration_s*> h;
  return h;
}

void deliver(MPIR_T_event_registration_s* h, MPIR_T_event_instance_s* instance) {
  // MPI-4.0 §15.3.8: the callback must be safe in this context; of those
  // that are, the least strict one runs (it may do the most).
  constexpr int context = MPI_T_CB_REQUIRE_MPI_RESTRICTED;
  for (int level = context; level <= MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE; ++level) {
    auto& cb = h->callbacks[level];
    if (cb.function != nullptr) {
      cb.function(instance, h, static_cast<MPI_T_cb_safety>(context), cb.user_data);
      return;
    }
  }
  ++h->dropped_count;
  if (h->dropped != nullptr) {
    MPI_Count n = h->dropped_count;
    h->dropped_count = 0;
    // The dropped handler has no user data of its own: it gets the one of
    // the handle's callback, if it has one.
    void* user_data = nullptr;
    for (auto& cb : h->callbacks)
      if (cb.function != nullptr) user_data = cb.user_data;
    h->dropped(n, h, 0, static_cast<MPI_T_cb_safety>(context), user_data);
  }
}

}  // namespace

int event_type_count() { return static_cast<int>(types().size()); }

const EventType* event_type(int index) {
  if (index < 0 || index >= event_type_count()) return nullptr;
  return &types()[static_cast<size_t>(index)];
}

int event_type_index(const std::string& name) {
  for (size_t i = 0; i < types().size(); ++i)
    if (types()[i].name == name) return static_cast<int>(i);
  return -1;
}

MPI_Count source_timestamp() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<MPI_Count>(ts.tv_sec) * kTicksPerSecond + ts.tv_nsec;
}

void raise(EventKind kind, const void* data) {
  int event = static_cast<int>(kind);
  MPIR_T_event_instance_s instance{event, source_timestamp(), static_cast<const unsigned char*>(data)};
  // The callbacks run without the list's lock: one may free a handle.
  std::vector<MPIR_T_event_registration_s*> live;
  {
    std::lock_guard lock(handles_mutex);
    for (MPIR_T_event_registration_s* h : handles())
      if (h->event == event && !h->freed.load(std::memory_order_relaxed)) live.push_back(h);
  }
  for (MPIR_T_event_registration_s* h : live)
    if (!h->freed.load(std::memory_order_acquire)) deliver(h, &instance);
}

MPIR_T_event_registration_s* register_handle(int event) {
  auto* h = new MPIR_T_event_registration_s;
  h->event = event;
  std::lock_guard lock(handles_mutex);
  handles().push_back(h);
  event_handles[event].fetch_add(1, std::memory_order_relaxed);
  return h;
}

void retire_handle(MPIR_T_event_registration_s* handle) {
  std::lock_guard lock(handles_mutex);
  if (handle->freed.exchange(true)) return;
  event_handles[handle->event].fetch_sub(1, std::memory_order_relaxed);
}

bool is_live_handle(const MPIR_T_event_registration_s* handle) {
  std::lock_guard lock(handles_mutex);
  for (MPIR_T_event_registration_s* h : handles())
    if (h == handle) return !h->freed.load(std::memory_order_relaxed);
  return false;
}

}  // namespace ferry::tool
