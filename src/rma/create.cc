#include "rma/create.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>

#include "base/attribute.h"
#include "base/errhandler.h"
#include "coll/collectives.h"
#include "common/config.h"
#include "common/debug.h"
#include "device/device.h"
#include "pmi/pmix_client.h"
#include "progress/progress.h"
#include "rma/active_message.h"
#include "rma/alloc_mem.h"
#include "rma/doorbell.h"
#include "rma/epochs.h"
#include "rma/rdma.h"
#include "runtime/comm_create.h"

namespace ferry::rma {

uint64_t machine_key() {
  static const uint64_t key = [] {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    std::string text = name;
    std::ifstream boot("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(boot, id);
    return static_cast<uint64_t>(std::hash<std::string>()(text + "/" + id));
  }();
  return key;
}
namespace {

struct Card {
  uint64_t host;
  uint64_t base;
  uint64_t size;
  int32_t disp_unit;
  int32_t pid;
  // MPI_Win_create on MPI_Alloc_mem memory (rma/alloc_mem.h): the file
  // that holds it (-1: none), where base lies in it and its length.
  int32_t memfd;
  int32_t reserved;
  uint64_t memfd_offset;
  uint64_t memfd_length;
};

// MPI_Win_create: which targets' memory every rank of their host maps
// (rma/alloc_mem.h), as 0/1 per window rank, and the mappings this rank
// made. All or none of a host's ranks map a target, agreed by an
// allreduce: a rank that could not map it would take the accumulate lock
// while the others use CPU atomics, and the two do not exclude each other.
// Collective when any rank's card names a file (all ranks see all cards).
Err map_peer_memory(Window& w, const std::vector<Card>& cards, const std::vector<int>& locals,
                    std::vector<int>* shared) {
  int n = w.comm->size;
  shared->clear();
  bool any = false;
  for (const Card& c : cards) any = any || c.memfd >= 0;
  if (!any) return {};
  shared->assign(static_cast<size_t>(n), 1);
  w.peer_memory.resize(static_cast<size_t>(n));
  for (int r : locals) {
    const Card& card = cards[static_cast<size_t>(r)];
    size_t at = static_cast<size_t>(r);
    std::string why;
    if (card.memfd < 0) {
      (*shared)[at] = 0;
    } else if (r != w.rank() && !w.peer_memory[at].map(card.pid, card.memfd, card.memfd_length, &why)) {
      (*shared)[at] = 0;
      FERRY_DEBUG(kRma, "MPI_Win_create: cannot map rank %d's memory (%s); cross-memory attach instead", r,
                  why.c_str());
    }
  }
  std::vector<int> agreed(static_cast<size_t>(n), 0);
  if (Err e = coll::allreduce(shared->data(), agreed.data(), n, find_datatype(MPI_INT), find_op(MPI_MIN), w.comm))
    return e;
  *shared = std::move(agreed);
  for (int r = 0; r < n; ++r)
    if (!(*shared)[static_cast<size_t>(r)]) w.peer_memory[static_cast<size_t>(r)] = alloc_mem::Mapping();
  return {};
}

struct Names {
  char control[64];
  char memory[64];
  uint64_t memory_bytes;
};

// Ranks with the same key share memory (machine_key, create.h).
// FERRY_RMA_TEST_RANKS_PER_HOST splits a host into groups of world ranks,
// so that tests on one machine run the paths of a job across hosts.
uint64_t host_key(int world_rank) {
  static const int64_t fake = config::integer("FERRY_RMA_TEST_RANKS_PER_HOST");
  uint64_t key = machine_key();
  if (fake > 0) return key + 1 + static_cast<uint64_t>(world_rank / fake);
  return key;
}

std::string segment_name(const char* what) {
  static std::atomic<unsigned> counter{0};
  char name[64];
  std::snprintf(name, sizeof name, "/ferry-rma-%s-%d-%u", what, static_cast<int>(getpid()), counter++);
  return name;
}

const Datatype& bytes_type() { return *find_datatype(MPI_BYTE); }

template <typename T>
Err all_to_all(Window& w, const T& mine, std::vector<T>* all) {
  all->resize(static_cast<size_t>(w.comm->size));
  return coll::allgather(&mine, sizeof(T), &bytes_type(), all->data(), sizeof(T), &bytes_type(), w.comm);
}

void read_hints(Window& w, const Info* hints) {
  Info in = hints != nullptr ? *hints : Info();
  set_hints(w, in);
}

// The common part of every flavor; `memory_bytes` > 0 asks for window
// memory in a segment (the allocating flavors).
Err build(Communicator* c, Flavor flavor, void* base, MPI_Aint size, int disp_unit, const Info* hints,
          bool noncontig, Window** out) {
  *out = nullptr;
  auto w = std::make_unique<Window>();
  w->flavor = flavor;
  if (Err e = communicators::dup(c, nullptr, &w->comm)) return e;
  read_hints(*w, hints);
  w->size = size;
  w->disp_unit = disp_unit;
  w->base = base;
  int n = w->comm->size;
  int me = w->comm->rank;
  auto give_up = [&](Err e) {
    (void)communicators::free_communicator(w->comm);
    return e;
  };

  // Step 1: cards.
  Card mine{host_key(w->comm->world_rank(me)), reinterpret_cast<uint64_t>(base), static_cast<uint64_t>(size), disp_unit,
            static_cast<int32_t>(getpid()), -1, 0, 0, 0};
  alloc_mem::Place place{};
  if (flavor == Flavor::kCreate && size > 0 && same_host_direct() &&
      alloc_mem::find(base, static_cast<size_t>(size), &place)) {
    mine.memfd = place.fd;
    mine.memfd_offset = place.offset;
    mine.memfd_length = place.length;
  }
  std::vector<Card> cards;
  if (Err e = all_to_all(*w, mine, &cards)) return give_up(std::move(e));
  std::vector<int> locals;
  for (int r = 0; r < n; ++r)
    if (cards[static_cast<size_t>(r)].host == mine.host) locals.push_back(r);
  int leader = locals.front();
  bool allocating = flavor == Flavor::kAllocate || flavor == Flavor::kShared;
  if (flavor == Flavor::kShared && static_cast<int>(locals.size()) != n)
    return give_up(fail(MPI_ERR_RMA_SHARED, "the communicator spans more than one host; MPI_Win_allocate_shared "
                        "needs processes that can share memory"));

  // Where each local rank's memory lies in the host's segment.
  std::vector<uint64_t> offsets(static_cast<size_t>(n), 0);
  uint64_t memory_bytes = 0;
  if (allocating) {
    for (int r : locals) {
      // Contiguous unless asked otherwise; a page each then, so that a
      // rank's memory can be placed near it.
      uint64_t align = noncontig ? 4096 : (flavor == Flavor::kShared ? 1 : 64);
      memory_bytes = (memory_bytes + align - 1) / align * align;
      offsets[static_cast<size_t>(r)] = memory_bytes;
      memory_bytes += cards[static_cast<size_t>(r)].size;
    }
  }

  // Step 2: the host's segments.
  Names names{};
  std::string error;
  Err made;
  if (me == leader) {
    std::string control = segment_name("ctl");
    size_t control_bytes = sizeof(Slot) * static_cast<size_t>(n);
    if (!w->control.create(control, control_bytes, &error) || !w->control.back(0, control_bytes, &error))
      made = fail(MPI_ERR_NO_MEM, "cannot make the window's control segment: %s", error.c_str());
    std::snprintf(names.control, sizeof names.control, "%s", control.c_str());
    if (made.ok() && allocating) {
      std::string memory = segment_name("mem");
      size_t bytes = std::max<uint64_t>(memory_bytes, 1);
      if (!w->memory.create(memory, bytes, &error) || !w->memory.back(0, bytes, &error))
        made = fail(MPI_ERR_NO_MEM, "cannot allocate %llu bytes of window memory: %s",
                    static_cast<unsigned long long>(memory_bytes), error.c_str());
      std::snprintf(names.memory, sizeof names.memory, "%s", memory.c_str());
      names.memory_bytes = bytes;
    }
  }
  std::vector<Names> all_names;
  Err shared = all_to_all(*w, names, &all_names);
  if (shared.ok() && me != leader) {
    const Names& theirs = all_names[static_cast<size_t>(leader)];
    if (!w->control.attach(theirs.control, sizeof(Slot) * static_cast<size_t>(n), &error))
      made = fail(MPI_ERR_OTHER, "cannot map the window's control segment: %s", error.c_str());
    else if (allocating && !w->memory.attach(theirs.memory, theirs.memory_bytes, &error))
      made = fail(MPI_ERR_OTHER, "cannot map the window's memory: %s", error.c_str());
  }
  w->control.done_backing();
  w->memory.done_backing();
  // Everyone has mapped (or failed): the names can go.
  Err synced = coll::barrier(w->comm);
  if (me == leader) {
    w->control.unlink();
    w->memory.unlink();
  }
  if (!shared.ok()) return give_up(std::move(shared));
  if (!synced.ok()) return give_up(std::move(synced));
  // Agree on the outcome: a rank that could not map fails everywhere.
  int bad = made.ok() ? 0 : 1, any_bad = 0;
  if (Err e = coll::allreduce(&bad, &any_bad, 1, find_datatype(MPI_INT), find_op(MPI_MAX), w->comm))
    return give_up(std::move(e));
  if (!made.ok()) return give_up(std::move(made));
  if (any_bad) return give_up(fail(MPI_ERR_OTHER, "another process could not set up its part of the window"));

  // Step 3: the allocating flavors' bases, each in its owner's address space.
  if (allocating) {
    w->base = w->memory.data() + offsets[static_cast<size_t>(me)];
    uint64_t my_base = reinterpret_cast<uint64_t>(w->base);
    std::vector<uint64_t> bases;
    if (Err e = all_to_all(*w, my_base, &bases)) return give_up(std::move(e));
    for (int r = 0; r < n; ++r) cards[static_cast<size_t>(r)].base = bases[static_cast<size_t>(r)];
  }

  bool direct = same_host_direct();
  std::vector<int> shared_by_host;  // kCreate: targets whose memory is mapped on their host
  if (flavor == Flavor::kCreate && direct)
    if (Err e = map_peer_memory(*w, cards, locals, &shared_by_host)) return give_up(std::move(e));
  bool any_messages = false;
  int mapped = 0, cma = 0, messages = 0;
  w->targets.resize(static_cast<size_t>(n));
  auto* slots = reinterpret_cast<Slot*>(w->control.data());
  for (int r = 0; r < n; ++r) {
    Target& t = w->targets[static_cast<size_t>(r)];
    const Card& card = cards[static_cast<size_t>(r)];
    t.base = card.base;
    t.size = card.size;
    t.disp_unit = card.disp_unit;
    t.pid = card.pid;
    t.local = card.host == mine.host;
    t.slot = t.local ? &slots[r] : nullptr;
    bool shared_here = !shared_by_host.empty() && shared_by_host[static_cast<size_t>(r)] != 0;
    t.in_segment = (allocating || shared_here) && t.local;
    if (r == me) {
      t.reach = Reach::kMapped;
      t.mapped = flavor == Flavor::kDynamic ? nullptr : static_cast<char*>(w->base);
      if (flavor == Flavor::kDynamic) t.base = 0;
    } else if (t.local && (direct || flavor == Flavor::kShared) && allocating) {
      t.reach = Reach::kMapped;
      t.mapped = w->memory.data() + offsets[static_cast<size_t>(r)];
      ++mapped;
    } else if (t.local && shared_here) {
      t.reach = Reach::kMapped;
      t.mapped = w->peer_memory[static_cast<size_t>(r)].data() + card.memfd_offset;
      ++mapped;
    } else if (t.local && direct) {
      t.reach = Reach::kCma;
      ++cma;
    } else {
      t.reach = Reach::kMessages;
      any_messages = true;
      ++messages;
    }
  }
  static const char* const kCalls[] = {"", "MPI_Win_create", "MPI_Win_allocate", "MPI_Win_create_dynamic",
                                       "MPI_Win_allocate_shared"};
  FERRY_DEBUG(kRma, "%s on %d ranks: other ranks' memory reached by mapping %d, by cross-memory attach %d, by "
              "active messages %d", kCalls[static_cast<int>(flavor)], n, mapped, cma, messages);
  if (flavor == Flavor::kDynamic) {
    w->base = MPI_BOTTOM;
    w->size = 0;
  }
  w->epochs.locks.assign(static_cast<size_t>(n), LockState::kNone);
  w->epochs.nocheck.assign(static_cast<size_t>(n), false);
  // The service answers other ranks' messages: needed where any rank
  // reaches any other by message (the same decision on every rank: it
  // depends on hosts and settings only), or a same-host rank's memory is
  // its own (a process whose kernel refuses cross-memory attach falls back).
  bool spans_hosts = static_cast<int>(locals.size()) != n;
  (void)any_messages;
  if (spans_hosts || !direct) {
    w->service = std::make_shared<Service>(*w);
    // Every rank's doorbell, which this rank's origins ring when a target
    // computes without calling MPI (rma/doorbell.h). Opening it turns the
    // engine lock on: no Lock of this thread is alive here.
    doorbell::Address mine;
    (void)doorbell::open(&mine);
    std::vector<doorbell::Address> addresses;
    if (Err e = all_to_all(*w, mine, &addresses)) return give_up(std::move(e));
    std::vector<doorbell::Bell> bells(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r)
      if (w->targets[static_cast<size_t>(r)].reach == Reach::kMessages)
        bells[static_cast<size_t>(r)] = doorbell::resolve(addresses[static_cast<size_t>(r)]);
    w->service->set_bells(std::move(bells));
    w->service->start();
    if (Err e = rdma::setup(*w, hints)) return give_up(std::move(e));
  }
  if (!windows::add(w.get())) return give_up(fail(MPI_ERR_OTHER, "too many windows"));
  *out = w.release();
  return {};
}

}  // namespace

namespace {

// GPU memory in a window is refused, not staged (README, "One-sided
// communication"): every rank's accesses would fault on it.
bool gpu_memory(const void* base) {
  return base != nullptr && device::enabled() && device::memory_of(base) == device::Memory::kDevice;
}

}  // namespace

Err create(Communicator* c, void* base, MPI_Aint size, int disp_unit, const Info* hints, Window** out) {
  // Collective: every rank must know whether any refused, so the check's
  // outcome is agreed before anything is built.
  int mine = size > 0 && gpu_memory(base) ? 1 : 0, any = 0;
  if (Err e = coll::allreduce(&mine, &any, 1, find_datatype(MPI_INT), find_op(MPI_MAX), c)) return e;
  if (any != 0) {
    *out = nullptr;
    if (mine) return fail(MPI_ERR_BASE, "base %p is GPU memory, which windows do not support (host or managed "
                          "memory only)", base);
    return fail(MPI_ERR_BASE, "another rank's window memory is GPU memory, which windows do not support");
  }
  return build(c, Flavor::kCreate, base, size, disp_unit, hints, false, out);
}

Err allocate(Communicator* c, MPI_Aint size, int disp_unit, const Info* hints, bool shared, void** base,
             Window** out) {
  bool noncontig = false;
  if (hints != nullptr)
    if (const std::string* v = hints->get("alloc_shared_noncontig")) noncontig = *v == "true";
  Err e = build(c, shared ? Flavor::kShared : Flavor::kAllocate, nullptr, size, disp_unit, hints, noncontig, out);
  *base = e.ok() ? (*out)->base : nullptr;
  if (e.ok() && size == 0) *base = nullptr;  // MPICH gives NULL for an empty part
  if (e.ok() && size == 0 && !shared) (*out)->base = nullptr;
  return e;
}

Err create_dynamic(Communicator* c, const Info* hints, Window** out) {
  return build(c, Flavor::kDynamic, MPI_BOTTOM, 0, 1, hints, false, out);
}

Err free_window(Window* w) {
  if (w->epochs.locks_held > 0 || w->epochs.lock_all || w->epochs.started || w->epochs.posted)
    return fail(MPI_ERR_RMA_SYNC, "an epoch is still open on the window (unlock, complete or wait first)");
  if (Err e = quiesce(*w)) return e;
  // Attributes' delete callbacks run first (MPI-4.0 §7.7.2); one's error
  // fails the call and keeps the window.
  if (Err e = attributes::delete_all(attributes::Kind::kWin, w, w->handle)) return e;
  // Nobody's operations on this window are in flight after this.
  Err e = coll::barrier(w->comm);
  rdma::teardown(*w);
  if (w->service != nullptr) w->service->stop();
  errhandlers::release(w->errhandler);
  windows::remove(w);
  (void)communicators::free_communicator(w->comm);
  delete w;
  return e;
}

Err attach(Window& w, void* base, MPI_Aint size) {
  if (w.flavor != Flavor::kDynamic)
    return fail(MPI_ERR_RMA_FLAVOR, "the window was not made with MPI_Win_create_dynamic");
  if (size < 0) return fail(MPI_ERR_SIZE, "invalid size %ld", static_cast<long>(size));
  if (size > 0 && gpu_memory(base))
    return fail(MPI_ERR_BASE, "base %p is GPU memory, which windows do not support (host or managed memory only)",
                base);
  uint64_t b = reinterpret_cast<uint64_t>(base);
  // The service reads the regions, perhaps on the doorbell's thread.
  progress::Lock lock;
  for (const Region& r : w.regions)
    if (b < r.base + r.size && r.base < b + static_cast<uint64_t>(size))
      return fail(MPI_ERR_RMA_ATTACH, "memory at %p overlaps memory already attached", base);
  w.regions.push_back({b, static_cast<uint64_t>(size)});
  return {};
}

Err detach(Window& w, const void* base) {
  if (w.flavor != Flavor::kDynamic)
    return fail(MPI_ERR_RMA_FLAVOR, "the window was not made with MPI_Win_create_dynamic");
  uint64_t b = reinterpret_cast<uint64_t>(base);
  progress::Lock lock;
  for (size_t i = 0; i < w.regions.size(); ++i)
    if (w.regions[i].base == b) {
      w.regions.erase(w.regions.begin() + static_cast<long>(i));
      return {};
    }
  return fail(MPI_ERR_RMA_ATTACH, "no memory attached at %p", base);
}

Err shared_query(const Window& w, int rank, MPI_Aint* size, int* disp_unit, void** base) {
  if (w.flavor != Flavor::kShared && w.flavor != Flavor::kAllocate)
    return fail(MPI_ERR_RMA_FLAVOR, "the window's memory is not shared (made with MPI_Win_create or "
                "MPI_Win_create_dynamic)");
  if (rank == MPI_PROC_NULL) {
    for (const Target& t : w.targets)
      if (t.size > 0 && t.mapped != nullptr) {
        *size = static_cast<MPI_Aint>(t.size);
        *disp_unit = t.disp_unit;
        *base = t.mapped;
        return {};
      }
    *size = 0;
    *disp_unit = w.targets.empty() ? 1 : w.targets[0].disp_unit;
    *base = nullptr;
    return {};
  }
  const Target& t = w.targets[static_cast<size_t>(rank)];
  if (t.mapped == nullptr && t.size > 0)
    return fail(MPI_ERR_RMA_SHARED, "rank %d's memory is on another host", rank);
  *size = static_cast<MPI_Aint>(t.size);
  *disp_unit = t.disp_unit;
  *base = t.size > 0 ? t.mapped : nullptr;
  return {};
}

void set_hints(Window& w, const Info& hints) {
  // MPI-4.0 §12.2.7: get_info returns the hints in effect, with their
  // defaults where the program set none.
  auto value = [&](const char* key, const char* fallback) {
    const std::string* v = hints.get(key);
    if (v == nullptr) v = w.info.get(key);
    w.info.set(key, v != nullptr ? *v : std::string(fallback));
  };
  value("no_locks", "false");
  value("accumulate_ordering", "rar,raw,war,waw");
  value("accumulate_ops", "same_op_no_op");
  value("same_size", "false");
  value("same_disp_unit", "false");
  value("alloc_shared_noncontig", "false");
  value("mpi_minimum_memory_alignment", "64");
  w.no_locks = *w.info.get("no_locks") == "true";
}

}  // namespace ferry::rma
