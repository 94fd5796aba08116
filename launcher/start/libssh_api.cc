#include "launcher/start/libssh_api.h"

#include <dlfcn.h>

namespace ferry::launcher {
namespace {

// libssh's soname since 0.6 (2014).
constexpr const char* kLibrary = "libssh.so.4";

struct Loaded {
  LibSsh functions;
  std::string error;  // empty: loaded
};

Loaded load() {
  Loaded loaded;
  void* handle = ::dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    loaded.error = std::string("cannot load libssh: ") + ::dlerror();
    return loaded;
  }
  LibSsh& f = loaded.functions;
#define FERRY_LIBSSH_RESOLVE(name)                                                    \
  f.name = reinterpret_cast<decltype(f.name)>(::dlsym(handle, #name));               \
  if (f.name == nullptr) {                                                            \
    loaded.error = std::string("cannot use ") + kLibrary + ": it has no " #name;      \
    return loaded;                                                                    \
  }
  FERRY_LIBSSH_FUNCTIONS(FERRY_LIBSSH_RESOLVE)
#undef FERRY_LIBSSH_RESOLVE
  // Its crypto setup is not safe to race; ssh_init only counts after the
  // first call (which libssh's constructor may already have made).
  f.ssh_init();
  return loaded;
}

}  // namespace

const LibSsh* libssh(std::string* error) {
  // Loaded once, by whichever thread comes first; the handle stays open.
  static const Loaded loaded = load();
  if (!loaded.error.empty()) {
    *error = loaded.error;
    return nullptr;
  }
  return &loaded.functions;
}

}  // namespace ferry::launcher
