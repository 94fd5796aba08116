// Communicator management (MPI-3.1 §6.4, §6.8): construction, freeing,
// comparison, names and info hints. Construction lives in core/comm_create.
#include <cstring>

#include "api/api.h"
#include "runtime/comm_create.h"
#include "base/comm_hints.h"
#include "base/group.h"
#include "base/info.h"
#include "base/request.h"

using namespace ferry;

namespace {

Group* checked_group(api::Call& call, MPI_Group handle) {
  if (!call.ok()) return nullptr;
  Group* g = groups::find(handle);
  if (g == nullptr) {
    if (handle == MPI_GROUP_NULL) call.fail(MPI_ERR_GROUP, "group is MPI_GROUP_NULL");
    else call.fail(MPI_ERR_GROUP, "invalid group handle 0x%x", static_cast<unsigned>(handle));
  }
  return g;
}

MPI_Comm handle_of(const Communicator* c) { return c != nullptr ? c->handle : MPI_COMM_NULL; }

// A dup that failed (a copy callback's error, MPI-3.1 §6.7.2) leaves no
// communicator behind: newcomm is MPI_COMM_NULL, as MPICH sets it, so that a
// caller never holds the handle of a communicator that was discarded.
int failed_dup(api::Call& call, Err e, MPI_Comm* newcomm) {
  *newcomm = MPI_COMM_NULL;
  return call.result(std::move(e));
}

}  // namespace

extern "C" int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  api::Call call("MPI_Comm_dup");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(newcomm, "newcomm")) return call.raise();
  Communicator* created = nullptr;
  if (Err e = communicators::dup(c, nullptr, &created)) return failed_dup(call, std::move(e), newcomm);
  *newcomm = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_dup)

extern "C" int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  api::Call call("MPI_Comm_dup_with_info");
  Communicator* c = call.comm(comm);
  const Info* hints = api::checked_hints(call, info);
  if (c == nullptr || hints == nullptr || !call.not_null(newcomm, "newcomm")) return call.raise();
  Communicator* created = nullptr;
  if (Err e = communicators::dup(c, hints, &created)) return failed_dup(call, std::move(e), newcomm);
  *newcomm = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_dup_with_info)

extern "C" int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  api::Call call("MPI_Comm_idup");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(newcomm, "newcomm") || !call.not_null(request, "request"))
    return call.raise();
  Communicator* created = nullptr;
  Request* r = nullptr;
  if (Err e = communicators::idup(c, &created, &r)) return call.result(std::move(e));
  *newcomm = created->handle;
  *request = r->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_idup)

extern "C" int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  api::Call call("MPI_Comm_idup_with_info");
  Communicator* c = call.comm(comm);
  const Info* hints = api::checked_hints(call, info);
  if (c == nullptr || hints == nullptr || !call.not_null(newcomm, "newcomm") || !call.not_null(request, "request"))
    return call.raise();
  Communicator* created = nullptr;
  Request* r = nullptr;
  if (Err e = communicators::idup(c, &created, &r, hints)) return call.result(std::move(e));
  *newcomm = created->handle;
  *request = r->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_idup_with_info)

extern "C" int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  api::Call call("MPI_Comm_split");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(newcomm, "newcomm")) return call.raise();
  if (color < 0 && color != MPI_UNDEFINED) {
    call.fail(MPI_ERR_ARG, "invalid color %d (must be >= 0 or MPI_UNDEFINED)", color);
    return call.raise();
  }
  Communicator* created = nullptr;
  if (Err e = communicators::split(c, color, key, &created)) return call.result(std::move(e));
  *newcomm = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_split)

extern "C" int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  api::Call call("MPI_Comm_split_type");
  Communicator* c = call.intracomm(comm);
  const Info* hints = api::checked_hints(call, info);
  if (c == nullptr || hints == nullptr || !call.not_null(newcomm, "newcomm")) return call.raise();
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_COMM_TYPE_HW_GUIDED &&
      split_type != MPI_COMM_TYPE_HW_UNGUIDED && split_type != MPI_UNDEFINED) {
    call.fail(MPI_ERR_ARG,
              "invalid split_type %d (MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED "
              "or MPI_UNDEFINED)",
              split_type);
    return call.raise();
  }
  Communicator* created = nullptr;
  Err e;
  if (split_type == MPI_UNDEFINED) {
    e = communicators::split(c, MPI_UNDEFINED, key, &created);
  } else if (split_type == MPI_COMM_TYPE_SHARED) {
    e = communicators::split_shared(c, key, &created);
  } else if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
    // MPI-4.0 §7.4.2: without the key every process gets MPI_COMM_NULL.
    const std::string* resource = hints->get("mpi_hw_resource_type");
    e = communicators::split_hw_guided(c, key, resource != nullptr ? *resource : std::string(), &created);
  } else {
    std::string resource;
    e = communicators::split_hw_unguided(c, key, &resource, &created);
    // MPI-4.0 §7.4.2: the info argument comes back with the level used.
    if (!e && created != nullptr)
      if (Info* writable = infos::find_mutable(info)) writable->set("mpi_hw_resource_type", resource);
  }
  if (e) return call.result(std::move(e));
  *newcomm = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_split_type)

extern "C" int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  api::Call call("MPI_Comm_create");
  Communicator* c = call.comm(comm);
  Group* g = checked_group(call, group);
  if (c == nullptr || g == nullptr || !call.not_null(newcomm, "newcomm")) return call.raise();
  Communicator* created = nullptr;
  if (Err e = communicators::create(c, g, &created)) return call.result(std::move(e));
  *newcomm = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_create)

extern "C" int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  api::Call call("MPI_Comm_create_group");
  Communicator* c = call.intracomm(comm);
  Group* g = checked_group(call, group);
  if (c == nullptr || g == nullptr || !call.tag(tag, false) || !call.not_null(newcomm, "newcomm"))
    return call.raise();
  Communicator* created = nullptr;
  if (Err e = communicators::create_group(c, g, tag, &created)) return call.result(std::move(e));
  *newcomm = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_create_group)

extern "C" int PMPI_Comm_free(MPI_Comm* comm) {
  api::Call call("MPI_Comm_free");
  if (!call.initialized() || !call.not_null(comm, "comm")) return call.raise();
  Communicator* c = call.comm(*comm);
  if (c == nullptr) return call.raise();
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
    call.fail(MPI_ERR_COMM, "%s cannot be freed", *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    return call.raise();
  }
  if (Err e = communicators::free_communicator(c)) return call.result(std::move(e));
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_free)

extern "C" int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  api::Call call("MPI_Comm_compare");
  Communicator* c1 = call.comm(comm1);
  Communicator* c2 = call.comm(comm2);
  if (c1 == nullptr || c2 == nullptr || !call.not_null(result, "result")) return call.raise();
  *result = communicators::compare(*c1, *c2);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_compare)

extern "C" int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  api::Call call("MPI_Comm_test_inter");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(flag, "flag")) return call.raise();
  *flag = c->inter ? 1 : 0;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_test_inter)

// MPI-3.1 §6.8: names are local, at most MPI_MAX_OBJECT_NAME - 1 characters
// (longer ones are truncated), and not copied by MPI_Comm_dup.
extern "C" int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  api::Call call("MPI_Comm_set_name");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(comm_name, "comm_name")) return call.raise();
  c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_set_name)

extern "C" int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  api::Call call("MPI_Comm_get_name");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(comm_name, "comm_name") || !call.not_null(resultlen, "resultlen"))
    return call.raise();
  std::memcpy(comm_name, c->name.c_str(), c->name.size() + 1);
  *resultlen = static_cast<int>(c->name.size());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_get_name)

// MPI-3.1 §6.4.4: hints given again replace their old values; the others
// stay. Keys Ferry does not recognize are ignored (base/comm_hints.h).
extern "C" int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  api::Call call("MPI_Comm_set_info");
  Communicator* c = call.comm(comm);
  const Info* hints = api::checked_hints(call, info);
  if (c == nullptr || hints == nullptr) return call.raise();
  Info merged = c->hints;
  comm_hints::merge(*hints, &merged);
  comm_hints::assign(*c, std::move(merged));
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_set_info)

extern "C" int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  api::Call call("MPI_Comm_get_info");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(info_used, "info_used")) return call.raise();
  // A new object the caller frees (MPI-3.1 §6.4.4).
  *info_used = infos::create(c->hints);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_get_info)

extern "C" int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  api::Call call("MPI_Comm_remote_size");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(size, "size")) return call.raise();
  if (!c->inter) {
    call.fail(MPI_ERR_COMM, "the communicator is not an intercommunicator");
    return call.raise();
  }
  *size = c->remote_size;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_remote_size)

extern "C" int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  api::Call call("MPI_Comm_remote_group");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(group, "group")) return call.raise();
  if (!c->inter) {
    call.fail(MPI_ERR_COMM, "the communicator is not an intercommunicator");
    return call.raise();
  }
  groups::retain(c->remote_group);
  *group = c->remote_group->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_remote_group)

extern "C" int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                     int tag, MPI_Comm* newintercomm) {
  api::Call call("MPI_Intercomm_create");
  Communicator* local = call.intracomm(local_comm);
  if (local == nullptr || !call.not_null(newintercomm, "newintercomm")) return call.raise();
  if (local_leader < 0 || local_leader >= local->size)
    call.fail(MPI_ERR_RANK, "invalid local_leader %d (local_comm has %d ranks)", local_leader, local->size);
  call.tag(tag, false);
  Communicator* peer = nullptr;
  // peer_comm and remote_leader are significant at the local leader only.
  if (call.ok() && local->rank == local_leader) {
    peer = call.comm(peer_comm);
    if (peer != nullptr && (remote_leader < 0 || remote_leader >= peer->peer_count()))
      call.fail(MPI_ERR_RANK, "invalid remote_leader %d (peer_comm has %d ranks)", remote_leader, peer->peer_count());
    if (call.ok() && !peer->inter && remote_leader == peer->rank)
      call.fail(MPI_ERR_ARG, "remote_leader %d is the local leader itself (the groups must be disjoint)",
                remote_leader);
    call.use_errhandler_of(local);
  }
  if (!call.ok()) return call.raise();
  Communicator* created = nullptr;
  if (Err e = communicators::intercomm_create(local, local_leader, peer, remote_leader, tag, &created))
    return call.result(std::move(e));
  *newintercomm = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Intercomm_create)

extern "C" int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  api::Call call("MPI_Intercomm_merge");
  Communicator* c = call.comm(intercomm);
  if (c == nullptr || !call.not_null(newintracomm, "newintracomm")) return call.raise();
  if (!c->inter) {
    call.fail(MPI_ERR_COMM, "the communicator is not an intercommunicator");
    return call.raise();
  }
  Communicator* created = nullptr;
  if (Err e = communicators::intercomm_merge(c, high != 0, &created)) return call.result(std::move(e));
  *newintracomm = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Intercomm_merge)
