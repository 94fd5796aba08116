// Spawning (MPI-3.1 §10.3): MPI_Comm_spawn(_multiple), MPI_Comm_get_parent,
// and MPI_Comm_disconnect.
//
// The root asks the launcher to start the job (PMIx_Spawn); the new job's
// MPI_Init connects to the parents over a port named after the child job
// itself ("ferry-spawn:<namespace>"), which both sides know without telling
// each other, and the parents accept on it: the same rendezvous as
// MPI_Comm_connect/accept (runtime/ports.cc).
#include <mutex>

#include "base/datatype.h"
#include "coll/collectives.h"
#include "common/config.h"
#include "common/debug.h"
#include "mpi.h"
#include "runtime/dynamic.h"
#include "runtime/runtime.h"

namespace ferry::runtime {
namespace {

std::string spawn_port(const std::string& child_nspace) { return "ferry-spawn:" + child_nspace; }

// The intercommunicator to the parents, and its handle: a handle that no
// longer finds this object means it was freed (get_parent gives
// MPI_COMM_NULL then, MPI-3.1 §10.3.2).
struct Parent {
  std::mutex mutex;
  Communicator* comm = nullptr;
  MPI_Comm handle = MPI_COMM_NULL;
};
Parent parent_comm;

}  // namespace

Err spawn(const std::vector<pmi::SpawnApp>& apps, Communicator* comm, int root, Communicator** out,
          std::vector<int>* errcodes) {
  *out = nullptr;
  int total = 0;
  std::string child;
  Err at_root;
  if (comm->rank == root) {
    for (const pmi::SpawnApp& a : apps) total += a.maxprocs;
    at_root = pmi::spawn(apps, &child);
  }
  // Every process learns the outcome, and the number of processes asked for.
  const Datatype* ints = find_datatype(MPI_INT);
  if (comm->size > 1)
    if (Err e = coll::bcast(&total, 1, ints, root, comm)) return e;
  errcodes->assign(static_cast<size_t>(total), MPI_SUCCESS);
  // Every process learns the outcome: the child job's namespace, or the error.
  std::string text = child;
  Err shared = share_with_group(comm, root, std::move(at_root), &text);
  if (shared) {
    errcodes->assign(static_cast<size_t>(total), MPI_ERR_SPAWN);
    return shared;
  }
  double timeout = static_cast<double>(config::integer("FERRY_PORT_TIMEOUT"));
  Err e = accept_on(spawn_port(text), comm, root, timeout, out);
  if (e) {
    errcodes->assign(static_cast<size_t>(total), MPI_ERR_SPAWN);
    if (e.mpi_class() == MPI_ERR_PORT)
      return fail(MPI_ERR_SPAWN, "the spawned processes (job %s) did not reach MPI_Init within %.0f s "
                                 "(FERRY_PORT_TIMEOUT)", text.c_str(), timeout);
    return e;
  }
  FERRY_DEBUG(kComm, "spawned %d processes as job %s", total, text.c_str());
  return {};
}

Err connect_to_parent() {
  if (job().singleton) return {};
  std::optional<pmi::ProcessName> parent = pmi::parent();
  if (!parent) return {};
  Communicator* inter = nullptr;
  if (Err e = connect_on(spawn_port(job().nspace), &communicators::world(), 0, &inter)) return e;
  inter->name = "MPI_COMM_PARENT";
  std::lock_guard lock(parent_comm.mutex);
  parent_comm.comm = inter;
  parent_comm.handle = inter->handle;
  return {};
}

Communicator* parent() {
  std::lock_guard lock(parent_comm.mutex);
  if (parent_comm.comm == nullptr || communicators::find(parent_comm.handle) != parent_comm.comm) return nullptr;
  return parent_comm.comm;
}

Err disconnect(Communicator* comm) {
  // MPI-3.1 §10.5.4: pending communication completes before the
  // communicator goes; the other side's too, so both wait for each other.
  if (Err e = coll::barrier(comm)) return e;
  {
    std::lock_guard lock(parent_comm.mutex);
    if (comm == parent_comm.comm) parent_comm.comm = nullptr;
  }
  return communicators::free_communicator(comm);
}

}  // namespace ferry::runtime
