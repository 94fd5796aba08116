// Error classes, error strings and error handlers (MPI-3.1 §8.3-8.5), and
// the MPI-1 names of the error handler calls.
#include <cstdio>
#include <cstring>

#include "api/api.h"
#include "base/errhandler.h"

using namespace ferry;

extern "C" int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  api::Call call("MPI_Error_string");
  if (!call.not_null(string, "string") || !call.not_null(resultlen, "resultlen")) return call.raise();
  if (!error_code::is_valid(errorcode)) {
    call.fail(MPI_ERR_ARG, "invalid error code %d", errorcode);
    return call.raise();
  }
  std::string text = error_code::text(errorcode);
  std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", text.c_str());
  *resultlen = static_cast<int>(std::strlen(string));
  return MPI_SUCCESS;
}
FERRY_ENTRY(Error_string)

extern "C" int PMPI_Error_class(int errorcode, int* errorclass) {
  api::Call call("MPI_Error_class");
  if (!call.not_null(errorclass, "errorclass")) return call.raise();
  if (!error_code::is_valid(errorcode)) {
    call.fail(MPI_ERR_ARG, "invalid error code %d", errorcode);
    return call.raise();
  }
  *errorclass = error_code::class_of(errorcode);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Error_class)

// User-defined error classes, codes and strings (MPI-3.1 §8.5).
extern "C" int PMPI_Add_error_class(int* errorclass) {
  api::Call call("MPI_Add_error_class");
  if (!call.initialized() || !call.not_null(errorclass, "errorclass")) return call.raise();
  return call.result(error_code::add_class(errorclass));
}
FERRY_ENTRY(Add_error_class)

extern "C" int PMPI_Add_error_code(int errorclass, int* errorcode) {
  api::Call call("MPI_Add_error_code");
  if (!call.initialized() || !call.not_null(errorcode, "errorcode")) return call.raise();
  return call.result(error_code::add_code(errorclass, errorcode));
}
FERRY_ENTRY(Add_error_code)

extern "C" int PMPI_Add_error_string(int errorcode, const char* string) {
  api::Call call("MPI_Add_error_string");
  if (!call.initialized() || !call.not_null(string, "string")) return call.raise();
  size_t length = std::strlen(string);
  if (length >= MPI_MAX_ERROR_STRING) {
    call.fail(MPI_ERR_ARG, "string is %zu characters long (at most MPI_MAX_ERROR_STRING - 1 = %d)", length,
              MPI_MAX_ERROR_STRING - 1);
    return call.raise();
  }
  return call.result(error_code::set_string(errorcode, string));
}
FERRY_ENTRY(Add_error_string)

// MPICH's MPIX_Delete_error_class/_code/_string (MPICH 4.0.2; MPI-4.1 made
// them MPI_Remove_error_*): undo MPI_Add_error_class/_code/_string.

extern "C" int PMPIX_Delete_error_class(int errorclass) {
  api::Call call("MPIX_Delete_error_class");
  if (!call.initialized()) return call.raise();
  return call.result(error_code::delete_class(errorclass));
}
FERRY_ENTRY_X(Delete_error_class)

extern "C" int PMPIX_Delete_error_code(int errorcode) {
  api::Call call("MPIX_Delete_error_code");
  if (!call.initialized()) return call.raise();
  return call.result(error_code::delete_code(errorcode));
}
FERRY_ENTRY_X(Delete_error_code)

extern "C" int PMPIX_Delete_error_string(int errorcode) {
  api::Call call("MPIX_Delete_error_string");
  if (!call.initialized()) return call.raise();
  return call.result(error_code::delete_string(errorcode));
}
FERRY_ENTRY_X(Delete_error_string)

namespace {

// The MPI-2 calls and their MPI-1 names (MPI_Errhandler_set/_get/_create,
// removed in MPI-3.0, which MPICH still exports) share these.
int set_errhandler(const char* name, MPI_Comm comm, MPI_Errhandler errhandler) {
  api::Call call(name);
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  if (!errhandlers::is_valid(errhandler)) {
    call.fail(MPI_ERR_ARG, "invalid error handler 0x%x", static_cast<unsigned>(errhandler));
    return call.raise();
  }
  if (!errhandlers::fits(errhandler, errhandlers::Kind::kComm)) {
    call.fail(MPI_ERR_ARG, "error handler 0x%x was made for files or sessions, not communicators",
              static_cast<unsigned>(errhandler));
    return call.raise();
  }
  errhandlers::set(*c, errhandler);
  return MPI_SUCCESS;
}

int get_errhandler(const char* name, MPI_Comm comm, MPI_Errhandler* errhandler) {
  api::Call call(name);
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(errhandler, "errhandler")) return call.raise();
  // The caller gets a reference of its own (MPI-3.1 §8.3.1), freed with MPI_Errhandler_free.
  *errhandler = errhandlers::get(*c);
  return MPI_SUCCESS;
}

int create_errhandler(const char* name, MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  api::Call call(name);
  if (!call.initialized() || !call.not_null(reinterpret_cast<void*>(fn), "comm_errhandler_fn") ||
      !call.not_null(errhandler, "errhandler"))
    return call.raise();
  *errhandler = errhandlers::create(fn);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return set_errhandler("MPI_Comm_set_errhandler", comm, errhandler);
}
FERRY_ENTRY(Comm_set_errhandler)

extern "C" int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return get_errhandler("MPI_Comm_get_errhandler", comm, errhandler);
}
FERRY_ENTRY(Comm_get_errhandler)

extern "C" int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  return create_errhandler("MPI_Comm_create_errhandler", fn, errhandler);
}
FERRY_ENTRY(Comm_create_errhandler)

extern "C" int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return set_errhandler("MPI_Errhandler_set", comm, errhandler);
}
FERRY_ENTRY(Errhandler_set)

extern "C" int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return get_errhandler("MPI_Errhandler_get", comm, errhandler);
}
FERRY_ENTRY(Errhandler_get)

extern "C" int PMPI_Errhandler_create(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  return create_errhandler("MPI_Errhandler_create", fn, errhandler);
}
FERRY_ENTRY(Errhandler_create)

extern "C" int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  api::Call call("MPI_Errhandler_free");
  if (!call.initialized() || !call.not_null(errhandler, "errhandler")) return call.raise();
  if (!errhandlers::is_valid(*errhandler)) {
    call.fail(MPI_ERR_ARG, "invalid error handler 0x%x", static_cast<unsigned>(*errhandler));
    return call.raise();
  }
  errhandlers::release(*errhandler);
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Errhandler_free)

extern "C" int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  api::Call call("MPI_Comm_call_errhandler");
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  std::string message = "MPI_Comm_call_errhandler: " + error_code::text(errorcode);
  errhandlers::invoke(c, errorcode, message);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_call_errhandler)
