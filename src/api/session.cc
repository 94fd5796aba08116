// Sessions (MPI-4.0 §11.3): init and finalize, psets, the session's info and
// its error handler. Errors go to the session's handler (MPI-4.0 §9.3);
// where there is no valid session, to the initial one (MPI_COMM_WORLD's).
#include <cstdio>
#include <cstring>

#include "api/api.h"
#include "base/errhandler.h"
#include "base/group.h"
#include "runtime/runtime.h"
#include "runtime/session.h"

using namespace ferry;

namespace {

// Raises the call's error on `s`'s handler, or on the initial one.
int raise_on(api::Call& call, sessions::Session* s) {
  if (call.ok()) return MPI_SUCCESS;
  Err e = call.take_error();
  std::string message = std::string(call.name()) + ": " + e.message();
  int code = error_code::make(e.mpi_class(), message);
  if (s != nullptr) return errhandlers::invoke_session(s->errhandler, s->handle, code, message);
  if (runtime::active()) return errhandlers::invoke(nullptr, code, message);
  // Nothing is started: no job to abort. Say it and return the code.
  std::fprintf(stderr, "ferry: %s\n", message.c_str());
  return code;
}

sessions::Session* checked_session(api::Call& call, MPI_Session handle) {
  if (!call.ok()) return nullptr;
  sessions::Session* s = sessions::find(handle);
  if (s == nullptr) {
    if (handle == MPI_SESSION_NULL) call.fail(MPI_ERR_SESSION, "session is MPI_SESSION_NULL");
    else call.fail(MPI_ERR_SESSION, "invalid session handle 0x%x", static_cast<unsigned>(handle));
  }
  return s;
}

// An info argument that may be MPI_INFO_NULL.
const Info* optional_info(api::Call& call, MPI_Info handle) { return api::checked_hints(call, handle); }

bool checked_pset_name(api::Call& call, const char* name) {
  if (!call.not_null(name, "pset_name")) return false;
  return true;
}

}  // namespace

extern "C" int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  api::Call call("MPI_Session_init");
  const Info* hints = optional_info(call, info);
  if (!call.not_null(session, "session")) return raise_on(call, nullptr);
  if (call.ok() && !errhandlers::is_valid(errhandler))
    call.fail(MPI_ERR_ARG, "invalid errhandler 0x%x", static_cast<unsigned>(errhandler));
  if (call.ok() && !errhandlers::fits(errhandler, errhandlers::Kind::kSession))
    call.fail(MPI_ERR_ARG, "errhandler 0x%x was made for communicators or files, not sessions "
                           "(MPI_Session_create_errhandler makes one)",
              static_cast<unsigned>(errhandler));
  if (!call.ok()) return raise_on(call, nullptr);
  sessions::Session* s = nullptr;
  if (Err e = sessions::init(*hints, errhandler, &s)) {
    // MPI-4.0 §11.3.1: the handler given applies to errors of the call itself.
    std::string message = std::string(call.name()) + ": " + e.message();
    int code = error_code::make(e.mpi_class(), message);
    // With nothing started there is no job for a fatal handler to end.
    bool fatal = errhandler == MPI_ERRORS_ARE_FATAL || errhandler == MPI_ERRORS_ABORT;
    if (errhandler == MPI_ERRORS_RETURN || (fatal && !runtime::active())) {
      std::fprintf(stderr, "ferry: %s\n", message.c_str());
      return code;
    }
    return errhandlers::invoke_handler(errhandler, code, message);
  }
  *session = s->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Session_init)

extern "C" int PMPI_Session_finalize(MPI_Session* session) {
  api::Call call("MPI_Session_finalize");
  if (!call.not_null(session, "session")) return raise_on(call, nullptr);
  sessions::Session* s = checked_session(call, *session);
  if (s == nullptr) return raise_on(call, nullptr);
  *session = MPI_SESSION_NULL;
  if (Err e = sessions::finalize(s)) {
    call.fail(std::move(e));
    return raise_on(call, nullptr);
  }
  return MPI_SUCCESS;
}
FERRY_ENTRY(Session_finalize)

extern "C" int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  api::Call call("MPI_Session_get_info");
  sessions::Session* s = checked_session(call, session);
  if (s == nullptr) return raise_on(call, nullptr);
  if (!call.not_null(info_used, "info_used")) return raise_on(call, s);
  *info_used = infos::create(s->info);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Session_get_info)

extern "C" int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  api::Call call("MPI_Session_get_num_psets");
  sessions::Session* s = checked_session(call, session);
  if (s == nullptr) return raise_on(call, nullptr);
  optional_info(call, info);
  if (!call.not_null(npset_names, "npset_names")) return raise_on(call, s);
  *npset_names = static_cast<int>(sessions::pset_names().size());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Session_get_num_psets)

extern "C" int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len,
                                         char* pset_name) {
  api::Call call("MPI_Session_get_nth_pset");
  sessions::Session* s = checked_session(call, session);
  if (s == nullptr) return raise_on(call, nullptr);
  optional_info(call, info);
  if (!call.not_null(pset_len, "pset_len")) return raise_on(call, s);
  std::vector<std::string> names = sessions::pset_names();
  if (n < 0 || static_cast<size_t>(n) >= names.size()) {
    call.fail(MPI_ERR_ARG, "n %d is out of range (the session has %zu psets)", n, names.size());
    return raise_on(call, s);
  }
  if (*pset_len < 0) {
    call.fail(MPI_ERR_ARG, "invalid pset_len %d (must be >= 0)", *pset_len);
    return raise_on(call, s);
  }
  const std::string& name = names[static_cast<size_t>(n)];
  // MPI-4.0 §11.3.2: with *pset_len 0 the call only says how long the name
  // is, terminator included; otherwise it copies at most *pset_len - 1
  // characters and the terminator. *pset_len always ends as the full length.
  if (*pset_len > 0) {
    if (!call.not_null(pset_name, "pset_name")) return raise_on(call, s);
    size_t copied = std::min(name.size(), static_cast<size_t>(*pset_len - 1));
    std::memcpy(pset_name, name.data(), copied);
    pset_name[copied] = '\0';
  }
  *pset_len = static_cast<int>(name.size()) + 1;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Session_get_nth_pset)

extern "C" int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  api::Call call("MPI_Session_get_pset_info");
  sessions::Session* s = checked_session(call, session);
  if (s == nullptr) return raise_on(call, nullptr);
  if (!checked_pset_name(call, pset_name) || !call.not_null(info, "info")) return raise_on(call, s);
  Info contents;
  if (Err e = sessions::pset_info(pset_name, &contents)) {
    call.fail(std::move(e));
    return raise_on(call, s);
  }
  *info = infos::create(std::move(contents));
  return MPI_SUCCESS;
}
FERRY_ENTRY(Session_get_pset_info)

extern "C" int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  api::Call call("MPI_Group_from_session_pset");
  sessions::Session* s = checked_session(call, session);
  if (s == nullptr) return raise_on(call, nullptr);
  if (!checked_pset_name(call, pset_name) || !call.not_null(newgroup, "newgroup")) return raise_on(call, s);
  groups::Members members;
  if (Err e = sessions::pset_members(pset_name, &members)) {
    call.fail(std::move(e));
    return raise_on(call, s);
  }
  *newgroup = groups::make(std::move(members), runtime::job().rank)->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Group_from_session_pset)

// ---- The session's error handler (MPI-4.0 §9.3.4) -----------------------------

extern "C" int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* fn, MPI_Errhandler* errhandler) {
  api::Call call("MPI_Session_create_errhandler");
  if (!call.not_null(reinterpret_cast<void*>(fn), "session_errhandler_fn") ||
      !call.not_null(errhandler, "errhandler"))
    return raise_on(call, nullptr);
  *errhandler = errhandlers::create_for_sessions(fn);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Session_create_errhandler)

extern "C" int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  api::Call call("MPI_Session_set_errhandler");
  sessions::Session* s = checked_session(call, session);
  if (s == nullptr) return raise_on(call, nullptr);
  if (!errhandlers::is_valid(errhandler))
    call.fail(MPI_ERR_ARG, "invalid errhandler 0x%x", static_cast<unsigned>(errhandler));
  else if (!errhandlers::fits(errhandler, errhandlers::Kind::kSession))
    call.fail(MPI_ERR_ARG, "errhandler 0x%x was made for communicators or files, not sessions",
              static_cast<unsigned>(errhandler));
  if (!call.ok()) return raise_on(call, s);
  errhandlers::set(s->errhandler, errhandler);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Session_set_errhandler)

extern "C" int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  api::Call call("MPI_Session_get_errhandler");
  sessions::Session* s = checked_session(call, session);
  if (s == nullptr) return raise_on(call, nullptr);
  if (!call.not_null(errhandler, "errhandler")) return raise_on(call, s);
  *errhandler = errhandlers::get(s->errhandler);  // the caller's reference (MPI-3.1 §8.3.1)
  return MPI_SUCCESS;
}
FERRY_ENTRY(Session_get_errhandler)

extern "C" int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  api::Call call("MPI_Session_call_errhandler");
  sessions::Session* s = checked_session(call, session);
  if (s == nullptr) return raise_on(call, nullptr);
  if (!error_code::is_valid(errorcode)) {
    call.fail(MPI_ERR_ARG, "invalid errorcode %d", errorcode);
    return raise_on(call, s);
  }
  // MPI-4.0 §9.3.4: the handler runs with this code; the call itself succeeds.
  std::string message = "MPI_Session_call_errhandler: " + error_code::text(errorcode);
  errhandlers::invoke_session(s->errhandler, s->handle, errorcode, message);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Session_call_errhandler)
