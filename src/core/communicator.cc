#include "core/communicator.h"

#include "core/handles.h"

namespace ferry::communicators {
namespace {

Communicator world_comm;
Communicator self_comm;
handle::Table<Communicator> dynamic_comms;

constexpr uint32_t kWorldContext = 0;  // world: 0 (p2p), 1 (collectives)
constexpr uint32_t kSelfContext = 2;   // self: 2, 3

}  // namespace

void create_predefined(int world_rank, int world_size) {
  world_comm = Communicator{};
  world_comm.handle = MPI_COMM_WORLD;
  world_comm.context = kWorldContext;
  world_comm.rank = world_rank;
  world_comm.size = world_size;
  world_comm.name = "MPI_COMM_WORLD";

  self_comm = Communicator{};
  self_comm.handle = MPI_COMM_SELF;
  self_comm.context = kSelfContext;
  self_comm.rank = 0;
  self_comm.size = 1;
  self_comm.world_ranks = {world_rank};
  self_comm.name = "MPI_COMM_SELF";
}

void destroy_all() {
  world_comm = Communicator{};
  self_comm = Communicator{};
}

Communicator* find(MPI_Comm h) {
  if (h == MPI_COMM_WORLD) return world_comm.handle == MPI_COMM_WORLD ? &world_comm : nullptr;
  if (h == MPI_COMM_SELF) return self_comm.handle == MPI_COMM_SELF ? &self_comm : nullptr;
  if (handle::is_dynamic(h, handle::Object::kCommunicator)) return dynamic_comms.get(handle::index_of(h));
  return nullptr;
}

Communicator& world() { return world_comm; }
Communicator& self() { return self_comm; }

uint32_t context_limit() { return kSelfContext + 2; }

}  // namespace ferry::communicators
