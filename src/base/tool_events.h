// MPI_T events (MPI-4.0 §15.3.8): what Ferry reports to a tool as it
// happens, and the one source whose clock stamps them.
//
// Event types (each with its element layout, MPI_T_event_get_info):
//   ferry.p2p.unexpected_message   a message arrived before its receive
//       {int source (rank in its communicator), int tag, MPI_Count bytes}
//   ferry.coll.algorithm           a collective chose its algorithm
//       {int pvar (index of the ferry.coll.<op>.<algorithm> counter),
//        int ranks, MPI_Count bytes}
//   ferry.checkpoint.committed     MPIX_Checkpoint committed an epoch
//       {int epoch, int ranks}
// Source 0, "ferry.clock": the monotonic clock in nanoseconds, ordered.
//
// Delivery: an event is raised inside an MPI call (often with the engine
// lock held), so the callbacks run there and then, in a context of safety
// MPI_T_CB_REQUIRE_MPI_RESTRICTED: a handle's callback registered at that
// level or a stricter one runs (the least strict of those); a handle with
// none of them loses the event, and its dropped handler is told at once.
// When no tool has a handle on a type, raising it costs one relaxed load.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mpi.h"

namespace ferry::tool {

enum class EventKind : int { kUnexpectedMessage, kCollAlgorithm, kCheckpointCommitted, kCount };

struct UnexpectedMessageData {
  int source;
  int tag;
  MPI_Count bytes;
};
struct CollAlgorithmData {
  int pvar;
  int ranks;
  MPI_Count bytes;
};
struct CheckpointCommittedData {
  int epoch;
  int ranks;
};

struct EventType {
  std::string name;
  std::string doc;
  int category;
  std::vector<MPI_Datatype> types;
  std::vector<MPI_Aint> displacements;
  size_t extent;  // bytes of the whole record (MPI_T_event_copy)
};
int event_type_count();
const EventType* event_type(int index);  // nullptr: out of range
int event_type_index(const std::string& name);

extern std::atomic<int> event_handles[static_cast<int>(EventKind::kCount)];
// The cheap test before building an event's data.
inline bool wanted(EventKind kind) {
  return event_handles[static_cast<int>(kind)].load(std::memory_order_relaxed) > 0;
}
// Delivers `data` (the kind's record) to every handle on that kind.
void raise(EventKind kind, const void* data);

// The raise sites' one line each.
inline void note_unexpected_message(int source, int tag, uint64_t bytes) {
  if (!wanted(EventKind::kUnexpectedMessage)) return;
  UnexpectedMessageData d{source, tag, static_cast<MPI_Count>(bytes)};
  raise(EventKind::kUnexpectedMessage, &d);
}
inline void note_algorithm(int pvar, int ranks, uint64_t bytes) {
  if (!wanted(EventKind::kCollAlgorithm)) return;
  CollAlgorithmData d{pvar, ranks, static_cast<MPI_Count>(bytes)};
  raise(EventKind::kCollAlgorithm, &d);
}
inline void note_checkpoint_committed(int epoch, int ranks) {
  if (!wanted(EventKind::kCheckpointCommitted)) return;
  CheckpointCommittedData d{epoch, ranks};
  raise(EventKind::kCheckpointCommitted, &d);
}

// The event source.
constexpr int kSourceCount = 1;
constexpr const char* kSourceName = "ferry.clock";
constexpr const char* kSourceDoc = "The monotonic clock (CLOCK_MONOTONIC), in nanoseconds";
constexpr MPI_Count kTicksPerSecond = 1000000000;
MPI_Count source_timestamp();

}  // namespace ferry::tool

// The C handle types of mpi.h: a registration (MPI_T_event_handle_alloc)
// and one occurrence as its callback sees it.
struct MPIR_T_event_registration_s {
  int event = -1;
  std::atomic<bool> freed{false};
  // One callback per safety level (MPI_T_CB_REQUIRE_NONE .. _ASYNC_SIGNAL_SAFE).
  struct Callback {
    MPI_T_event_cb_function* function = nullptr;
    void* user_data = nullptr;
  } callbacks[4];
  MPI_T_event_dropped_cb_function* dropped = nullptr;
  MPI_Count dropped_count = 0;
};
struct MPIR_T_event_instance_s {
  int event;
  MPI_Count timestamp;
  const unsigned char* data;
};

namespace ferry::tool {
// A registration of `event` (a valid index); counted in event_handles.
MPIR_T_event_registration_s* register_handle(int event);
// Stops delivery; the memory stays (a raise in another thread may still
// hold it), so a stale handle is an error, not a crash.
void retire_handle(MPIR_T_event_registration_s* handle);
bool is_live_handle(const MPIR_T_event_registration_s* handle);
// MPI_T_event_register_callback (a null function removes the level's) and
// MPI_T_event_set_dropped_handler; safe while events are being raised.
void set_callback(MPIR_T_event_registration_s* handle, int safety, MPI_T_event_cb_function* function,
                  void* user_data);
void set_dropped_handler(MPIR_T_event_registration_s* handle, MPI_T_event_dropped_cb_function* function);
}  // namespace ferry::tool
