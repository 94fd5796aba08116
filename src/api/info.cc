// Info objects (MPI-3.1 §9). The objects themselves live in core/info.
// MPI-4.0 §10: every info call works before MPI_Init and after
// MPI_Finalize too, so none checks initialization.
#include <algorithm>
#include <cstring>

#include "api/api.h"
#include "base/info.h"

using namespace ferry;

namespace {

const Info* checked_info(api::Call& call, MPI_Info handle) {
  if (!call.ok()) return nullptr;
  const Info* info = find_info(handle);
  if (info == nullptr) {
    if (handle == MPI_INFO_NULL) call.fail(MPI_ERR_INFO, "info is MPI_INFO_NULL");
    else call.fail(MPI_ERR_INFO, "invalid info handle 0x%x", static_cast<unsigned>(handle));
  }
  return info;
}

// For the calls that change an object: MPI_INFO_ENV describes the start of
// the program and stays as it is.
Info* checked_mutable_info(api::Call& call, MPI_Info handle) {
  if (checked_info(call, handle) == nullptr) return nullptr;
  Info* info = infos::find_mutable(handle);
  if (info == nullptr) call.fail(MPI_ERR_INFO, "MPI_INFO_ENV is predefined and cannot be modified");
  return info;
}

bool checked_key(api::Call& call, const char* key) {
  if (!call.ok()) return false;
  if (Err e = check_info_key(key)) return call.fail(std::move(e));
  return true;
}

}  // namespace

extern "C" int PMPI_Info_create(MPI_Info* info) {
  api::Call call("MPI_Info_create");
  if (!call.not_null(info, "info")) return call.raise();
  *info = infos::create();
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_create)

extern "C" int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  api::Call call("MPI_Info_set");
  Info* i = checked_mutable_info(call, info);
  if (!checked_key(call, key)) return call.raise();
  if (Err e = check_info_value(value)) return call.result(std::move(e));
  i->set(key, value);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_set)

extern "C" int PMPI_Info_delete(MPI_Info info, const char* key) {
  api::Call call("MPI_Info_delete");
  Info* i = checked_mutable_info(call, info);
  if (!checked_key(call, key)) return call.raise();
  if (!i->remove(key)) {
    call.fail(MPI_ERR_INFO_NOKEY, "key \"%s\" is not in info 0x%x", key, static_cast<unsigned>(info));
    return call.raise();
  }
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_delete)

extern "C" int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  api::Call call("MPI_Info_get");
  const Info* i = checked_info(call, info);
  if (!checked_key(call, key) || !call.not_null(value, "value") || !call.not_null(flag, "flag"))
    return call.raise();
  if (valuelen < 0) {
    call.fail(MPI_ERR_ARG, "invalid valuelen %d (must be >= 0)", valuelen);
    return call.raise();
  }
  const std::string* v = i->get(key);
  *flag = v != nullptr;
  if (v != nullptr) {
    // valuelen counts characters without the terminator (MPI-3.1 §9): value
    // holds valuelen + 1 bytes, and a longer value is truncated.
    size_t n = std::min(v->size(), static_cast<size_t>(valuelen));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  }
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_get)

extern "C" int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  api::Call call("MPI_Info_get_valuelen");
  const Info* i = checked_info(call, info);
  if (!checked_key(call, key) || !call.not_null(valuelen, "valuelen") || !call.not_null(flag, "flag"))
    return call.raise();
  const std::string* v = i->get(key);
  *flag = v != nullptr;
  if (v != nullptr) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_get_valuelen)

extern "C" int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  api::Call call("MPI_Info_get_nkeys");
  const Info* i = checked_info(call, info);
  if (!call.not_null(nkeys, "nkeys")) return call.raise();
  *nkeys = static_cast<int>(i->size());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_get_nkeys)

extern "C" int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  api::Call call("MPI_Info_get_nthkey");
  const Info* i = checked_info(call, info);
  if (!call.not_null(key, "key")) return call.raise();
  if (n < 0 || static_cast<size_t>(n) >= i->size()) {
    call.fail(MPI_ERR_ARG, "n %d is out of range (info 0x%x has %zu keys)", n, static_cast<unsigned>(info),
              i->size());
    return call.raise();
  }
  const std::string& k = i->key(static_cast<size_t>(n));
  std::memcpy(key, k.c_str(), k.size() + 1);  // at most MPI_MAX_INFO_KEY characters and the terminator
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_get_nthkey)

extern "C" int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  api::Call call("MPI_Info_dup");
  const Info* i = checked_info(call, info);
  if (!call.not_null(newinfo, "newinfo")) return call.raise();
  *newinfo = infos::create(*i);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_dup)

extern "C" int PMPI_Info_free(MPI_Info* info) {
  api::Call call("MPI_Info_free");
  if (!call.not_null(info, "info")) return call.raise();
  if (Err e = infos::free(*info)) return call.result(std::move(e));
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_free)

extern "C" int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  api::Call call("MPI_Info_get_string");
  const Info* i = checked_info(call, info);
  if (!checked_key(call, key) || !call.not_null(buflen, "buflen") || !call.not_null(flag, "flag"))
    return call.raise();
  if (*buflen < 0) {
    call.fail(MPI_ERR_ARG, "invalid *buflen %d (must be >= 0)", *buflen);
    return call.raise();
  }
  if (*buflen > 0 && !call.not_null(value, "value")) return call.raise();
  const std::string* v = i->get(key);
  *flag = v != nullptr;
  if (v == nullptr) return MPI_SUCCESS;  // MPI-4.0 §10: value and buflen stay as they are
  // MPI-4.0 §10: buflen counts the terminator. With *buflen 0 the call only
  // reports the length; a shorter buffer gets the first *buflen - 1
  // characters and the terminator. *buflen ends as the whole length + 1.
  if (*buflen > 0) {
    size_t n = std::min(v->size(), static_cast<size_t>(*buflen - 1));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  }
  *buflen = static_cast<int>(v->size()) + 1;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_get_string)

extern "C" int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  api::Call call("MPI_Info_create_env");
  if (!call.not_null(info, "info")) return call.raise();
  if (argc < 0) {
    call.fail(MPI_ERR_ARG, "invalid argc %d (must be >= 0)", argc);
    return call.raise();
  }
  if (argc > 0 && !call.not_null(argv, "argv")) return call.raise();
  std::vector<std::string> command_line;
  for (int a = 0; a < argc && argv[a] != nullptr; ++a) command_line.emplace_back(argv[a]);
  *info = infos::create(infos::startup_info(command_line));
  return MPI_SUCCESS;
}
FERRY_ENTRY(Info_create_env)
