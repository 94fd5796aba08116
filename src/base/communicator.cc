// Communicator objects: the predefined two, the handle table of the others,
// and their end (MPI_Comm_free). Construction is in comm_create.cc.
#include "base/communicator.h"
#include "base/comm_lookup.h"

#include <memory>
#include <mutex>

#include "base/attribute.h"
#include "base/communicator_retirements.h"
#include "base/context_id.h"
#include "base/errhandler.h"
#include "base/group.h"
#include "base/handles.h"
#include "progress/progress.h"
#include "base/request.h"
#include "base/revocation.h"

namespace ferry::communicators {

Communicator* predefined[2] = {nullptr, nullptr};
std::atomic<uint64_t> retirements{0};

namespace {

Communicator world_comm;
Communicator self_comm;
Communicator session_comm;  // hidden: the parent of MPI_Comm_create_from_group
std::unique_ptr<context_ids::Allocator> slots;

// Dynamic communicators by handle index: looked up by every MPI call, from
// any thread, without a lock (base/handles.h).
handle::Table<Communicator> table;

// Takes a handle out of the table, for good (communicator_retirements.h).
void retire(MPI_Comm h) {
  retirements.fetch_add(1, std::memory_order_relaxed);
  table.remove(handle::index_of(h));
}

// Freed communicators that requests still refer to. Guarded by the engine
// lock, which also guards the requests that any_of() looks at.
std::vector<Communicator*> zombies;

void destroy(Communicator* c) {
  // A slot whose communicator this process revoked stays taken (base/revocation.h).
  if (c->context != context_ids::kNoContext && revocation::forget(*c))
    slots->release(context_ids::slot_of_context(c->context));
  errhandlers::release(c->errhandler);
  if (c->group != nullptr) groups::release(c->group);
  if (c->remote_group != nullptr) groups::release(c->remote_group);
  delete c;
}

void sweep_locked() {
  for (size_t i = 0; i < zombies.size();) {
    if (requests::any_of(zombies[i])) {
      ++i;
      continue;
    }
    destroy(zombies[i]);
    zombies[i] = zombies.back();
    zombies.pop_back();
  }
}

std::vector<int> identity(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

}  // namespace

void create_predefined(int world_rank, int world_size) {
  slots = std::make_unique<context_ids::Allocator>();
  slots->reserve(context_ids::kWorldSlot);
  slots->reserve(context_ids::kSelfSlot);
  slots->reserve(context_ids::kBridgeSlot);

  world_comm = Communicator{};
  world_comm.handle = MPI_COMM_WORLD;
  world_comm.context = context_ids::p2p_context(context_ids::kWorldSlot);
  world_comm.rank = world_rank;
  world_comm.size = world_size;
  world_comm.name = "MPI_COMM_WORLD";
  world_comm.group = groups::make(identity(world_size), world_rank);

  self_comm = Communicator{};
  self_comm.handle = MPI_COMM_SELF;
  self_comm.context = context_ids::p2p_context(context_ids::kSelfSlot);
  self_comm.rank = 0;
  self_comm.size = 1;
  self_comm.world_ranks = {world_rank};
  self_comm.name = "MPI_COMM_SELF";
  self_comm.group = groups::make({world_rank}, world_rank);
  predefined[0] = &world_comm;
  predefined[1] = &self_comm;

  slots->reserve(context_ids::kSessionSlot);
  session_comm = Communicator{};
  session_comm.handle = MPI_COMM_NULL;
  session_comm.context = context_ids::p2p_context(context_ids::kSessionSlot);
  session_comm.rank = world_rank;
  session_comm.size = world_size;
  session_comm.name = "the sessions' hidden world";
  session_comm.group = groups::make(identity(world_size), world_rank);

  revocation::reset();
  for (const Communicator* c : {&world_comm, &self_comm, &session_comm}) (void)revocation::settle(*c);
}

Err delete_predefined_attributes() {
  Err self_error = attributes::delete_all(attributes::Kind::kComm, &self_comm, MPI_COMM_SELF);
  Err world_error = attributes::delete_all(attributes::Kind::kComm, &world_comm, MPI_COMM_WORLD);
  return self_error ? std::move(self_error) : std::move(world_error);
}

void destroy_all() {
  for (Communicator* c : table.all()) {
    retire(c->handle);
    destroy(c);
  }
  retirements.fetch_add(1, std::memory_order_relaxed);  // MPI_COMM_SELF's world rank table goes below
  {
    progress::Lock lock;
    for (Communicator* c : zombies) destroy(c);
    zombies.clear();
  }
  predefined[0] = predefined[1] = nullptr;
  for (Communicator* c : {&world_comm, &self_comm, &session_comm}) {
    if (c->group != nullptr) groups::release(c->group);
    *c = Communicator{};
  }
}

Communicator* find(MPI_Comm h) {
  if (h == MPI_COMM_WORLD) return world_comm.handle == MPI_COMM_WORLD ? &world_comm : nullptr;
  if (h == MPI_COMM_SELF) return self_comm.handle == MPI_COMM_SELF ? &self_comm : nullptr;
  if (handle::is_dynamic(h, handle::Object::kCommunicator)) return table.get(handle::index_of(h));
  return nullptr;
}

Communicator& world() { return world_comm; }
Communicator& self() { return self_comm; }
Communicator& session_world() { return session_comm; }

uint32_t context_limit() {
  uint32_t limit = slots ? slots->limit() : context_ids::kSelfSlot + 1;
  return context_ids::p2p_context(limit);
}

context_ids::Allocator& allocator() { return *slots; }

Communicator* make(Communicator* parent, Group* group, uint32_t slot) {
  auto* c = new Communicator;
  c->context = slot == context_ids::kNoSlot ? context_ids::kNoContext : context_ids::p2p_context(slot);
  c->group = group;
  c->rank = group->rank;
  c->size = group->size();
  // The identity map stays implicit (as MPI_COMM_WORLD's), so duplicates of
  // the world cost no per-rank memory on the fast path.
  bool is_world_order = c->size == world_comm.size;
  for (int i = 0; i < c->size && is_world_order; ++i) is_world_order = group->members[static_cast<size_t>(i)] == i;
  if (!is_world_order) c->world_ranks = group->members;
  c->errhandler = errhandlers::get(*parent);
  c->handle = handle::make_dynamic(handle::Object::kCommunicator, table.add(c));
  return c;
}

void discard(Communicator* c) {
  // The intercommunicator first: while it is settled, a revoke notice on
  // another thread may mark its local group (base/revocation.h).
  Communicator* local = c->local;
  retire(c->handle);
  destroy(c);
  if (local != nullptr) discard(local);
}

void sweep() {
  progress::Lock lock;
  sweep_locked();
}

Err free_communicator(Communicator* c) {
  if (Err e = attributes::delete_all(attributes::Kind::kComm, c, c->handle)) return e;
  retire(c->handle);
  if (c->local != nullptr) {
    retire(c->local->handle);
    c->local->handle = MPI_COMM_NULL;
  }
  progress::Lock lock;
  zombies.push_back(c);
  if (c->local != nullptr) zombies.push_back(c->local);
  sweep_locked();
  return {};
}

void shadow(const Communicator& c, int tag, int local_tag, Communicator* copy, Communicator* local_copy) {
  copy->context = c.context;
  copy->rank = c.rank;
  copy->size = c.size;
  copy->world_ranks = c.world_ranks;
  copy->handle = c.handle;
  copy->fixed_collective_tag = tag;
  copy->shadow_of = &c;
  if (!c.inter) return;
  copy->inter = true;
  copy->remote_size = c.remote_size;
  shadow(*c.local, local_tag, -1, local_copy, nullptr);
  copy->local = local_copy;
}

int compare(const Communicator& a, const Communicator& b) {
  if (&a == &b) return MPI_IDENT;
  if (a.inter || b.inter) {
    // MPI-3.1 §6.4.1: intercommunicators compare both their groups.
    if (a.inter != b.inter) return MPI_UNEQUAL;
    int local = groups::compare(a.group->members, b.group->members);
    int remote = groups::compare(a.remote_group->members, b.remote_group->members);
    if (local == MPI_UNEQUAL || remote == MPI_UNEQUAL) return MPI_UNEQUAL;
    return local == MPI_IDENT && remote == MPI_IDENT ? MPI_CONGRUENT : MPI_SIMILAR;
  }
  switch (groups::compare(a.group->members, b.group->members)) {
    case MPI_IDENT:
      return MPI_CONGRUENT;
    case MPI_SIMILAR:
      return MPI_SIMILAR;
    default:
      return MPI_UNEQUAL;
  }
}

}  // namespace ferry::communicators
