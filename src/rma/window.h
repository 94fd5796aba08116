// A window (MPI-4.0 §12.2): the object behind an MPI_Win, what every rank
// knows about every other rank's part of it, and the table of live windows.
//
// How a target's memory is reached is decided once, at creation, per target
// (`Reach`), and is the same for every call after:
//   - kMapped: the target's window memory is mapped into this process (a
//     segment Ferry allocated: MPI_Win_allocate, _allocate_shared, or
//     MPI_Alloc_mem memory given to MPI_Win_create, rma/alloc_mem.h), or it
//     is this process's own memory. Put and get are loads and stores.
//   - kCma: the target is on this host but its memory is its own (user
//     memory of MPI_Win_create that MPI_Alloc_mem did not give, memory
//     attached to a dynamic window): copies
//     go through cross-memory attach (process_vm_readv/writev), started by
//     the origin alone.
//   - kMessages: the target is on another host (or FERRY_RMA_SHM=off):
//     active messages on the window's private communicator, executed by the
//     target's service (rma/active_message.h); where the transport reaches
//     the target's memory (verbs), puts, gets and some atomics go through
//     the NIC instead (rma/rdma.h).
// Whatever the reach, an accumulate on a target's memory is applied the same
// way by whoever applies it (rma/accumulate.h), so origins that reach one
// target differently still see element-wise atomicity (MPI-4.0 §12.7.1).
//
// Every host's ranks of a window share one small control segment
// (rma/control.h): the passive-target lock word and the accumulate lock of
// each local rank live there, so an origin on the host takes a lock with one
// atomic instruction and never waits for the target to enter MPI.
//
// MPI_Win is an int in MPICH's ABI: a dynamic handle of object kWindow, so
// MPI_Win_c2f/f2c (identity macros in mpi.h) need nothing from here.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/error.h"
#include "base/handles.h"
#include "base/info.h"
#include "mpi.h"
#include "rma/alloc_mem.h"
#include "rma/control.h"
#include "transport/shm/segment.h"

namespace ferry::rma {

class Service;
namespace rdma {
struct State;
}

enum class Flavor { kCreate = MPI_WIN_FLAVOR_CREATE, kAllocate = MPI_WIN_FLAVOR_ALLOCATE,
                    kDynamic = MPI_WIN_FLAVOR_DYNAMIC, kShared = MPI_WIN_FLAVOR_SHARED };

enum class Reach : uint8_t { kMapped, kCma, kMessages };

// One rank's part of the window, as this process sees it.
struct Target {
  Reach reach = Reach::kMessages;
  bool local = false;         // on this host: its lock words are in our control segment
  bool in_segment = false;    // its memory is in a segment Ferry allocated (CPU atomics apply)
  char* mapped = nullptr;     // kMapped: its window memory at this address here
  uint64_t base = 0;          // its window's base in its own address space
  uint64_t size = 0;
  int disp_unit = 1;
  pid_t pid = 0;
  Slot* slot = nullptr;       // local: its lock words (rma/control.h)
};

// An attached region of a dynamic window (MPI_Win_attach).
struct Region {
  uint64_t base;
  uint64_t size;
};

// Whether [address, address + bytes) is all attached memory. Regions
// attached back to back cover a range together: one array attached in
// pieces is still one array to the program (MPICH's
// win_dynamic_rma_flush_get reads and writes across such a border).
bool attached(const std::vector<Region>& regions, uint64_t address, uint64_t bytes);

// What the origin side knows of its epochs (rma/epochs.h).
enum class LockState : uint8_t { kNone, kShared, kExclusive };

struct Epochs {
  bool fence = false;              // between fences that open an access epoch
  bool lock_all = false;
  bool started = false;            // MPI_Win_start ... MPI_Win_complete
  std::vector<int> start_group;    // its targets (window ranks)
  bool posted = false;             // MPI_Win_post ... MPI_Win_wait/test
  std::vector<int> post_group;     // its origins
  std::vector<LockState> locks;    // per target
  std::vector<bool> nocheck;       // per target: locked with MPI_MODE_NOCHECK (no lock word taken)
  int locks_held = 0;
  bool lock_all_nocheck = false;
};

struct Window {
  MPI_Win handle = MPI_WIN_NULL;
  Flavor flavor = Flavor::kCreate;
  Communicator* comm = nullptr;    // private duplicate: the window's messages never match the program's
  void* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  std::vector<Target> targets;     // by window rank
  std::vector<Region> regions;     // dynamic: what this rank attached
  Info info;                       // the hints in effect (MPI_Win_get_info)
  bool no_locks = false;
  std::string name;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  Epochs epochs;
  // Where MPI_Win_get_attr's predefined values point (MPI-4.0 §12.2.6).
  struct {
    MPI_Aint size;
    int disp_unit;
    int flavor;
    int model;
  } attribute_values{};

  transport::shm::Segment memory;   // kAllocate/kShared on one host: every local rank's memory
  transport::shm::Segment control;  // this host's control segment
  std::vector<alloc_mem::Mapping> peer_memory;  // kCreate: same-host ranks' MPI_Alloc_mem memory, by rank
  std::vector<char> private_memory; // kAllocate/kShared memory no other rank maps (owned)
  void* private_aligned = nullptr;
  std::shared_ptr<Service> service; // active messages, when some target needs them
  std::shared_ptr<rdma::State> rdma; // targets reached through the NIC (with the service)

  int rank() const { return comm->rank; }
  int size_of_group() const { return comm->size; }
};

// Same-host targets are reached in memory unless FERRY_RMA_SHM=off or the
// job was told to keep same-host traffic off shared memory (FERRY_TRANSPORTS
// without shm): then everything goes by active messages.
bool same_host_direct();

namespace windows {

namespace detail {
extern handle::Table<Window> live;  // window.cc; read inline by find()
}

// The window behind a handle, or nullptr (MPI_WIN_NULL, freed or invalid).
// Inline: every window call asks, and the fast path (rma/direct.h) twice
// per put and flush.
inline Window* find(MPI_Win h) {
  if (!handle::is_dynamic(h, handle::Object::kWindow)) return nullptr;
  return detail::live.get(handle::index_of(h));
}
// Registers a new window and gives it its handle; false when the table is full.
bool add(Window* w);
// Takes the window's handle out of the table for good, after bumping `retirements`.
void remove(Window* w);

// How many window handles have been removed: what a cache of handle -> window needs to know that
// it is still current (FERRY_PROFILE's wrappers keep one for the one-sided calls, as for sends:
// base/communicator_retirements.h). Bumped before the handle leaves the table, so that a thread
// given the handle's next window (after the table's lock and the program's own synchronization)
// sees the bump.
extern std::atomic<uint64_t> retirements;
// MPI_Finalize: windows the program did not free stop their services.
void finalize();

// MPI_WIN_NULL's stand-in for errors without a window: the calls' errors
// then go to MPI_COMM_WORLD's handler. Applies w's handler to `code`.
int invoke_errhandler(Window* w, int code, const std::string& message);

}  // namespace windows

}  // namespace ferry::rma
