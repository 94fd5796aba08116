// Caching (MPI-3.1 §6.7): keyvals and attributes of communicators and
// datatypes, the deprecated MPI-1 names of the communicator ones (§15), and
// the predefined attributes (§8.1.2). The store lives in core/attribute.
#include "api/api.h"
#include "base/attribute.h"

using namespace ferry;
using attributes::Kind;

namespace {

int create_keyval(const char* name, Kind kind, attributes::CopyFn* copy, attributes::DeleteFn* del, int* keyval,
                  void* extra_state) {
  api::Call call(name);
  if (!call.initialized() || !call.not_null(keyval, "keyval")) return call.raise();
  *keyval = attributes::create_keyval(kind, copy, del, extra_state);
  return MPI_SUCCESS;
}

int free_keyval(const char* name, Kind kind, int* keyval) {
  api::Call call(name);
  if (!call.initialized() || !call.not_null(keyval, "keyval")) return call.raise();
  if (Err e = attributes::free_keyval(kind, *keyval)) return call.result(std::move(e));
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

// Communicator attributes: errors go to the communicator's handler.
int comm_set(const char* name, MPI_Comm comm, int keyval, void* value, attributes::Form form = attributes::Form::kPointer) {
  api::Call call(name);
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  return call.result(attributes::set(Kind::kComm, c, c->handle, keyval, value, form));
}

int comm_get(const char* name, MPI_Comm comm, int keyval, void* value, int* flag,
             attributes::Form as = attributes::Form::kPointer) {
  api::Call call(name);
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(value, "attribute_val") || !call.not_null(flag, "flag")) return call.raise();
  void* found_value = nullptr;
  bool found = false;
  if (Err e = attributes::get(Kind::kComm, c, keyval, &found_value, &found, as)) return call.result(std::move(e));
  // attribute_val is really a void**: it receives the value that was set.
  if (found) *static_cast<void**>(value) = found_value;
  *flag = found ? 1 : 0;
  return MPI_SUCCESS;
}

int comm_delete(const char* name, MPI_Comm comm, int keyval) {
  api::Call call(name);
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  return call.result(attributes::remove(Kind::kComm, c, c->handle, keyval));
}

// Datatype attributes are kept by the datatype object's address.
const Datatype* checked_type(api::Call& call, MPI_Datatype type) {
  if (!call.initialized()) return nullptr;
  return call.datatype(type);
}

}  // namespace

// ---- Communicators --------------------------------------------------------------

extern "C" int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                                       int* keyval, void* extra_state) {
  return create_keyval("MPI_Comm_create_keyval", Kind::kComm, copy_fn, delete_fn, keyval, extra_state);
}
FERRY_ENTRY(Comm_create_keyval)

extern "C" int PMPI_Comm_free_keyval(int* keyval) {
  return free_keyval("MPI_Comm_free_keyval", Kind::kComm, keyval);
}
FERRY_ENTRY(Comm_free_keyval)

extern "C" int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* value) {
  return comm_set("MPI_Comm_set_attr", comm, keyval, value);
}
FERRY_ENTRY(Comm_set_attr)

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag) {
  return comm_get("MPI_Comm_get_attr", comm, keyval, value, flag);
}
FERRY_ENTRY(Comm_get_attr)

extern "C" int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  return comm_delete("MPI_Comm_delete_attr", comm, keyval);
}
FERRY_ENTRY(Comm_delete_attr)

// ---- MPI-1 names (deprecated, MPI-3.1 §15.1) --------------------------------------

extern "C" int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                                  void* extra_state) {
  return create_keyval("MPI_Keyval_create", Kind::kComm, copy_fn, delete_fn, keyval, extra_state);
}
FERRY_ENTRY(Keyval_create)

extern "C" int PMPI_Keyval_free(int* keyval) { return free_keyval("MPI_Keyval_free", Kind::kComm, keyval); }
FERRY_ENTRY(Keyval_free)

extern "C" int PMPI_Attr_put(MPI_Comm comm, int keyval, void* value) {
  return comm_set("MPI_Attr_put", comm, keyval, value);
}
FERRY_ENTRY(Attr_put)

extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void* value, int* flag) {
  return comm_get("MPI_Attr_get", comm, keyval, value, flag);
}
FERRY_ENTRY(Attr_get)

extern "C" int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return comm_delete("MPI_Attr_delete", comm, keyval); }
FERRY_ENTRY(Attr_delete)

// ---- Datatypes ------------------------------------------------------------------

extern "C" int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn, MPI_Type_delete_attr_function* delete_fn,
                                       int* keyval, void* extra_state) {
  return create_keyval("MPI_Type_create_keyval", Kind::kType, copy_fn, delete_fn, keyval, extra_state);
}
FERRY_ENTRY(Type_create_keyval)

extern "C" int PMPI_Type_free_keyval(int* keyval) {
  return free_keyval("MPI_Type_free_keyval", Kind::kType, keyval);
}
FERRY_ENTRY(Type_free_keyval)

namespace {

int type_set(MPI_Datatype type, int keyval, void* value, attributes::Form form) {
  api::Call call("MPI_Type_set_attr");
  const Datatype* t = checked_type(call, type);
  if (t == nullptr) return call.raise();
  return call.result(attributes::set(Kind::kType, t, type, keyval, value, form));
}

int type_get(MPI_Datatype type, int keyval, void* value, int* flag, attributes::Form as) {
  api::Call call("MPI_Type_get_attr");
  const Datatype* t = checked_type(call, type);
  if (t == nullptr || !call.not_null(value, "attribute_val") || !call.not_null(flag, "flag")) return call.raise();
  void* found_value = nullptr;
  bool found = false;
  if (Err e = attributes::get(Kind::kType, t, keyval, &found_value, &found, as)) return call.result(std::move(e));
  if (found) *static_cast<void**>(value) = found_value;
  *flag = found ? 1 : 0;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void* value) {
  return type_set(type, keyval, value, attributes::Form::kPointer);
}
FERRY_ENTRY(Type_set_attr)

extern "C" int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void* value, int* flag) {
  return type_get(type, keyval, value, flag, attributes::Form::kPointer);
}
FERRY_ENTRY(Type_get_attr)

extern "C" int PMPI_Type_delete_attr(MPI_Datatype type, int keyval) {
  api::Call call("MPI_Type_delete_attr");
  const Datatype* t = checked_type(call, type);
  if (t == nullptr) return call.raise();
  return call.result(attributes::remove(Kind::kType, t, type, keyval));
}
FERRY_ENTRY(Type_delete_attr)

// ---- For the Fortran bindings (libmpifort) ------------------------------------------
// MPI-4.0 §19.3.7: the set and get calls with the language of the value, as
// MPICH's libmpi exports them (same names, arguments and form numbers:
// attributes::Form is MPICH's MPIR_Attr_type), and the mark of a keyval
// whose callbacks are Fortran procedures behind C trampolines. mpi.h does not
// declare them, so they are made visible here (libmpi.map exports MPII_*).

extern "C" __attribute__((visibility("default"))) int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void* value, int form) {
  return comm_set("MPI_Comm_set_attr", comm, keyval, value, static_cast<attributes::Form>(form));
}

extern "C" __attribute__((visibility("default"))) int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag, int as) {
  return comm_get("MPI_Comm_get_attr", comm, keyval, value, flag, static_cast<attributes::Form>(as));
}

extern "C" __attribute__((visibility("default"))) int MPII_Type_set_attr(MPI_Datatype type, int keyval, void* value, int form) {
  return type_set(type, keyval, value, static_cast<attributes::Form>(form));
}

extern "C" __attribute__((visibility("default"))) int MPII_Type_get_attr(MPI_Datatype type, int keyval, void* value, int* flag, int as) {
  return type_get(type, keyval, value, flag, static_cast<attributes::Form>(as));
}

extern "C" __attribute__((visibility("default"))) int MPII_Keyval_set_fortran(int keyval) {
  api::Call call("MPI_Comm_create_keyval");
  return call.result(attributes::set_fortran_callbacks(keyval));
}
