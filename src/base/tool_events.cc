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

// The context every event is raised in: inside an MPI call.
constexpr int kContext = MPI_T_CB_REQUIRE_MPI_RESTRICTED;

// What one handle does with one event, decided under the lock (a tool
// thread may change the callbacks meanwhile) and done after it.
struct Delivery {
  MPIR_T_event_registration_s* handle;
  MPIR_T_event_registration_s::Callback callback;  // function null: dropped
  MPI_T_event_dropped_cb_function* dropped = nullptr;
  MPI_Count dropped_count = 0;
};

Delivery plan(MPIR_T_event_registration_s* h) {
  // MPI-4.0 §15.3.8: the callback must be safe in this context; of those
  // that are, the least strict one runs (it may do the most).
  for (int level = kContext; level <= MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE; ++level)
    if (h->callbacks[level].function != nullptr) return {h, h->callbacks[level]};
  Delivery d{h, {}};
  ++h->dropped_count;
  if (h->dropped != nullptr) {
    d.dropped = h->dropped;
    d.dropped_count = h->dropped_count;
    h->dropped_count = 0;
    // The dropped handler has no user data of its own: it gets the one of
    // the handle's callback, if it has one.
    for (auto& cb : h->callbacks)
      if (cb.function != nullptr) d.callback.user_data = cb.user_data;
  }
  return d;
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
  // The callbacks run without the list's lock: one may free a handle, or
  // read the event (MPI_T_event_read takes no lock).
  std::vector<Delivery> deliveries;
  {
    std::lock_guard lock(handles_mutex);
    for (MPIR_T_event_registration_s* h : handles())
      if (h->event == event && !h->freed.load(std::memory_order_relaxed)) deliveries.push_back(plan(h));
  }
  for (const Delivery& d : deliveries) {
    if (d.handle->freed.load(std::memory_order_acquire)) continue;
    auto safety = static_cast<MPI_T_cb_safety>(kContext);
    if (d.callback.function != nullptr) d.callback.function(&instance, d.handle, safety, d.callback.user_data);
    else if (d.dropped != nullptr) d.dropped(d.dropped_count, d.handle, 0, safety, d.callback.user_data);
  }
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

void set_callback(MPIR_T_event_registration_s* handle, int safety, MPI_T_event_cb_function* function,
                  void* user_data) {
  std::lock_guard lock(handles_mutex);
  handle->callbacks[safety] = {function, user_data};
}

void set_dropped_handler(MPIR_T_event_registration_s* handle, MPI_T_event_dropped_cb_function* function) {
  std::lock_guard lock(handles_mutex);
  handle->dropped = function;
}

bool is_live_handle(const MPIR_T_event_registration_s* handle) {
  std::lock_guard lock(handles_mutex);
  for (MPIR_T_event_registration_s* h : handles())
    if (h == handle) return !h->freed.load(std::memory_order_relaxed);
  return false;
}

}  // namespace ferry::tool
