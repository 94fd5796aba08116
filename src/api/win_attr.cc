// What windows share with the other MPI objects: error handlers (MPI-4.0
// §9.3.2), keyvals and attributes (§7.7) with the predefined MPI_WIN_BASE,
// _SIZE, _DISP_UNIT, _CREATE_FLAVOR and _MODEL (§12.2.6).
#include "api/api.h"
#include "base/attribute.h"
#include "base/errhandler.h"
#include "rma/window.h"

using namespace ferry;
using attributes::Kind;

namespace {

bool predefined_keyval(int keyval) {
  return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
         keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

}  // namespace

extern "C" int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* fn, MPI_Errhandler* errhandler) {
  api::Call call("MPI_Win_create_errhandler");
  if (!call.initialized() || !call.not_null(errhandler, "errhandler")) return call.raise();
  if (fn == nullptr) {
    call.fail(MPI_ERR_ARG, "win_errhandler_fn is NULL");
    return call.raise();
  }
  *errhandler = errhandlers::create_for_windows(fn);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_create_errhandler)

extern "C" int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  api::Call call("MPI_Win_set_errhandler");
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  if (!errhandlers::is_valid(errhandler)) {
    call.fail(MPI_ERR_ARG, "invalid error handler 0x%x", static_cast<unsigned>(errhandler));
    return call.raise();
  }
  if (!errhandlers::fits(errhandler, errhandlers::Kind::kWin)) {
    call.fail(MPI_ERR_ARG, "error handler 0x%x was not made for windows (use MPI_Win_create_errhandler)",
              static_cast<unsigned>(errhandler));
    return call.raise();
  }
  errhandlers::set(w->errhandler, errhandler);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_set_errhandler)

extern "C" int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  api::Call call("MPI_Win_get_errhandler");
  rma::Window* w = call.win(win);
  if (w == nullptr || !call.not_null(errhandler, "errhandler")) return call.raise();
  *errhandler = errhandlers::get(w->errhandler);  // a reference of the caller's own
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_get_errhandler)

extern "C" int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  api::Call call("MPI_Win_call_errhandler");
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  std::string message = "MPI_Win_call_errhandler: " + error_code::text(errorcode);
  rma::windows::invoke_errhandler(w, errorcode, message);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_call_errhandler)

extern "C" int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy_fn, MPI_Win_delete_attr_function* delete_fn,
                                      int* keyval, void* extra_state) {
  api::Call call("MPI_Win_create_keyval");
  if (!call.initialized() || !call.not_null(keyval, "win_keyval")) return call.raise();
  *keyval = attributes::create_keyval(Kind::kWin, copy_fn, delete_fn, extra_state);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_create_keyval)

extern "C" int PMPI_Win_free_keyval(int* keyval) {
  api::Call call("MPI_Win_free_keyval");
  if (!call.initialized() || !call.not_null(keyval, "win_keyval")) return call.raise();
  if (predefined_keyval(*keyval)) {
    call.fail(MPI_ERR_KEYVAL, "keyval 0x%x is predefined and cannot be freed", static_cast<unsigned>(*keyval));
    return call.raise();
  }
  if (Err e = attributes::free_keyval(Kind::kWin, *keyval)) return call.result(std::move(e));
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_free_keyval)

namespace {

int win_set(MPI_Win win, int keyval, void* value, attributes::Form form) {
  api::Call call("MPI_Win_set_attr");
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  if (predefined_keyval(keyval)) {
    call.fail(MPI_ERR_KEYVAL, "keyval 0x%x is predefined and cannot be set", static_cast<unsigned>(keyval));
    return call.raise();
  }
  return call.result(attributes::set(Kind::kWin, w, w->handle, keyval, value, form));
}

int win_get(MPI_Win win, int keyval, void* value, int* flag, attributes::Form as) {
  api::Call call("MPI_Win_get_attr");
  rma::Window* w = call.win(win);
  if (w == nullptr || !call.not_null(value, "attribute_val") || !call.not_null(flag, "flag")) return call.raise();
  auto& v = w->attribute_values;
  void* answer = nullptr;
  switch (keyval) {
    case MPI_WIN_BASE: answer = w->base; break;
    case MPI_WIN_SIZE: v.size = w->size; answer = &v.size; break;
    case MPI_WIN_DISP_UNIT: v.disp_unit = w->disp_unit; answer = &v.disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v.flavor = static_cast<int>(w->flavor); answer = &v.flavor; break;
    case MPI_WIN_MODEL: v.model = MPI_WIN_UNIFIED; answer = &v.model; break;
    default: {
      void* found_value = nullptr;
      bool found = false;
      if (Err e = attributes::get(Kind::kWin, w, keyval, &found_value, &found, as))
        return call.result(std::move(e));
      if (found) *static_cast<void**>(value) = found_value;
      *flag = found ? 1 : 0;
      return MPI_SUCCESS;
    }
  }
  *static_cast<void**>(value) = answer;
  *flag = 1;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Win_set_attr(MPI_Win win, int keyval, void* value) {
  return win_set(win, keyval, value, attributes::Form::kPointer);
}
FERRY_ENTRY(Win_set_attr)

extern "C" int PMPI_Win_get_attr(MPI_Win win, int keyval, void* value, int* flag) {
  return win_get(win, keyval, value, flag, attributes::Form::kPointer);
}
FERRY_ENTRY(Win_get_attr)

// For the Fortran bindings: MPII_Comm_set_attr's twins (api/attribute.cc; exported, though mpi.h does not
// declare them).
extern "C" __attribute__((visibility("default"))) int MPII_Win_set_attr(MPI_Win win, int keyval, void* value, int form) {
  return win_set(win, keyval, value, static_cast<attributes::Form>(form));
}

extern "C" __attribute__((visibility("default"))) int MPII_Win_get_attr(MPI_Win win, int keyval, void* value, int* flag, int as) {
  return win_get(win, keyval, value, flag, static_cast<attributes::Form>(as));
}

extern "C" int PMPI_Win_delete_attr(MPI_Win win, int keyval) {
  api::Call call("MPI_Win_delete_attr");
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  if (predefined_keyval(keyval)) {
    call.fail(MPI_ERR_KEYVAL, "keyval 0x%x is predefined and cannot be deleted", static_cast<unsigned>(keyval));
    return call.raise();
  }
  return call.result(attributes::remove(Kind::kWin, w, w->handle, keyval));
}
FERRY_ENTRY(Win_delete_attr)
