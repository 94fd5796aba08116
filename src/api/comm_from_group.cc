// Communicators from groups alone (MPI-4.0 §7.4.2, §7.6.2): the Sessions
// model's constructors. Errors are raised on the handler the call was given
// (the new communicator's), as MPICH does; the core is in
// runtime/comm_from_group.cc.
#include <cstring>

#include "api/api.h"
#include "base/comm_hints.h"
#include "base/errhandler.h"
#include "base/group.h"
#include "runtime/comm_create.h"

using namespace ferry;

namespace {

Group* checked_group(api::Call& call, MPI_Group handle, const char* argument) {
  if (!call.ok()) return nullptr;
  Group* g = groups::find(handle);
  if (g == nullptr) {
    if (handle == MPI_GROUP_NULL) call.fail(MPI_ERR_GROUP, "%s is MPI_GROUP_NULL", argument);
    else call.fail(MPI_ERR_GROUP, "invalid %s handle 0x%x", argument, static_cast<unsigned>(handle));
  }
  return g;
}

bool checked_stringtag(api::Call& call, const char* stringtag) {
  if (!call.not_null(stringtag, "stringtag")) return false;
  size_t n = std::strlen(stringtag);
  if (n >= MPI_MAX_STRINGTAG_LEN)
    return call.fail(MPI_ERR_ARG, "stringtag is %zu characters long (at most %d)", n, MPI_MAX_STRINGTAG_LEN - 1);
  return true;
}

bool checked_errhandler(api::Call& call, MPI_Errhandler errhandler) {
  if (!call.ok()) return false;
  if (!errhandlers::is_valid(errhandler))
    return call.fail(MPI_ERR_ARG, "invalid errhandler 0x%x", static_cast<unsigned>(errhandler));
  if (!errhandlers::fits(errhandler, errhandlers::Kind::kComm))
    return call.fail(MPI_ERR_ARG, "errhandler 0x%x was made for files or sessions, not communicators",
                     static_cast<unsigned>(errhandler));
  return true;
}

// Raises on `errhandler` where it is valid, else on the initial handler.
int raise_on(api::Call& call, MPI_Errhandler errhandler) {
  if (!errhandlers::is_valid(errhandler) || !errhandlers::fits(errhandler, errhandlers::Kind::kComm))
    return call.raise();
  Err e = call.take_error();
  std::string message = std::string(call.name()) + ": " + e.message();
  return errhandlers::invoke_handler(errhandler, error_code::make(e.mpi_class(), message), message);
}

// The new communicator takes the call's handler and info hints.
MPI_Comm hand_out(Communicator* c, MPI_Errhandler errhandler, const Info* hints) {
  if (c == nullptr) return MPI_COMM_NULL;
  errhandlers::set(*c, errhandler);
  comm_hints::assign(*c, comm_hints::filter(*hints));
  return c->handle;
}

}  // namespace

extern "C" int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                           MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  api::Call call("MPI_Comm_create_from_group");
  if (!call.initialized()) return call.raise();
  Group* g = checked_group(call, group, "group");
  const Info* hints = api::checked_hints(call, info);
  if (g == nullptr || hints == nullptr || !checked_stringtag(call, stringtag) ||
      !checked_errhandler(call, errhandler) || !call.not_null(newcomm, "newcomm"))
    return raise_on(call, errhandler);
  Communicator* created = nullptr;
  if (Err e = communicators::create_from_group(g, stringtag, &created)) {
    *newcomm = MPI_COMM_NULL;
    call.fail(std::move(e));
    return raise_on(call, errhandler);
  }
  *newcomm = hand_out(created, errhandler, hints);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_create_from_group)

extern "C" int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                                 int remote_leader, const char* stringtag, MPI_Info info,
                                                 MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  api::Call call("MPI_Intercomm_create_from_groups");
  if (!call.initialized()) return call.raise();
  Group* local = checked_group(call, local_group, "local_group");
  Group* remote = checked_group(call, remote_group, "remote_group");
  const Info* hints = api::checked_hints(call, info);
  if (local == nullptr || remote == nullptr || hints == nullptr || !checked_stringtag(call, stringtag) ||
      !checked_errhandler(call, errhandler) || !call.not_null(newintercomm, "newintercomm"))
    return raise_on(call, errhandler);
  if (local_leader < 0 || local_leader >= local->size())
    call.fail(MPI_ERR_RANK, "invalid local_leader %d (local_group has %d processes)", local_leader, local->size());
  else if (remote_leader < 0 || remote_leader >= remote->size())
    call.fail(MPI_ERR_RANK, "invalid remote_leader %d (remote_group has %d processes)", remote_leader,
              remote->size());
  if (!call.ok()) return raise_on(call, errhandler);
  Communicator* created = nullptr;
  if (Err e = communicators::intercomm_create_from_groups(local, local_leader, remote, remote_leader, stringtag,
                                                          &created)) {
    *newintercomm = MPI_COMM_NULL;
    call.fail(std::move(e));
    return raise_on(call, errhandler);
  }
  *newintercomm = hand_out(created, errhandler, hints);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Intercomm_create_from_groups)
