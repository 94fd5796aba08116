#include "base/info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "base/handles.h"
#include "base/process.h"

namespace ferry {

const std::string* Info::get(std::string_view key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return &v;
  return nullptr;
}

void Info::set(std::string_view key, std::string_view value) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = value;
      return;
    }
  }
  entries_.emplace_back(key, value);
}

bool Info::remove(std::string_view key) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [key](const auto& e) { return e.first == key; });
  if (it == entries_.end()) return false;
  entries_.erase(it);  // erase, not swap: the others keep their order
  return true;
}

Err check_info_key(const char* key) {
  if (key == nullptr) return fail(MPI_ERR_INFO_KEY, "key is NULL");
  size_t n = std::strlen(key);
  if (n == 0) return fail(MPI_ERR_INFO_KEY, "key is empty");
  if (n > MPI_MAX_INFO_KEY)
    return fail(MPI_ERR_INFO_KEY, "key \"%.32s...\" has %zu characters, more than MPI_MAX_INFO_KEY (%d)", key, n,
                MPI_MAX_INFO_KEY);
  return {};
}

Err check_info_value(const char* value) {
  if (value == nullptr) return fail(MPI_ERR_INFO_VALUE, "value is NULL");
  size_t n = std::strlen(value);
  if (n > MPI_MAX_INFO_VAL)
    return fail(MPI_ERR_INFO_VALUE, "value \"%.32s...\" has %zu characters, more than MPI_MAX_INFO_VAL (%d)", value,
                n, MPI_MAX_INFO_VAL);
  return {};
}

namespace {

// Info objects, created, freed and looked up from any thread (base/handles.h).
handle::Table<Info> table;

// The directory the process started in, taken before main() can chdir.
std::string current_directory() {
  char buf[4096];
  return getcwd(buf, sizeof buf) != nullptr ? std::string(buf) : std::string();
}
const std::string start_directory = current_directory();

// argv as the kernel keeps it: NUL-separated strings (MPI_Init's argc/argv
// may be NULL, and the program may have changed them since).
std::vector<std::string> command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t start = 0; start < all.size();) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

// Built on first use, after MPI_Init (the info calls require it), when the
// job's size, host and thread level are known.
const Info& environment() {
  static const Info env = [] {
    infos::Environment e;
    e.command_line = command_line();
    e.world_size = process::facts().world_size;
    e.host = process::facts().hostname;
    if (e.host.empty()) {
      char host[256] = {};
      if (gethostname(host, sizeof host - 1) == 0) e.host = host;
    }
    struct utsname u;
    if (uname(&u) == 0) e.arch = u.machine;
    e.working_directory = start_directory;
    e.thread_level = process::facts().thread_level;
    return infos::environment_info(e);
  }();
  return env;
}

}  // namespace

const Info* find_info(MPI_Info h) {
  if (h == MPI_INFO_ENV) return &environment();
  return infos::find_mutable(h);
}

namespace infos {

Info* find_mutable(MPI_Info h) {
  if (!handle::is_dynamic(h, handle::Object::kInfo)) return nullptr;
  return table.get(handle::index_of(h));
}

MPI_Info create(Info contents) {
  auto* info = new Info(std::move(contents));
  return handle::make_dynamic(handle::Object::kInfo, table.add(info));
}

Err free(MPI_Info h) {
  if (h == MPI_INFO_NULL) return fail(MPI_ERR_INFO, "info is MPI_INFO_NULL");
  if (h == MPI_INFO_ENV) return fail(MPI_ERR_INFO, "MPI_INFO_ENV is predefined and cannot be freed");
  Info* info = nullptr;
  if (handle::is_dynamic(h, handle::Object::kInfo)) info = table.remove(handle::index_of(h));
  if (info == nullptr) return fail(MPI_ERR_INFO, "invalid info handle 0x%x", static_cast<unsigned>(h));
  delete info;
  return {};
}

size_t live() { return table.live(); }

Info startup_info(const std::vector<std::string>& given) {
  infos::Environment e;
  e.command_line = given.empty() ? command_line() : given;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) e.host = host;
  struct utsname u;
  if (uname(&u) == 0) e.arch = u.machine;
  e.working_directory = start_directory;
  Info info = environment_info(e);
  info.remove("maxprocs");
  info.remove("thread_level");
  return info;
}

Info environment_info(const Environment& env) {
  Info info;
  auto put = [&info](const char* key, std::string value) {
    if (value.empty()) return;
    if (value.size() > MPI_MAX_INFO_VAL) value.resize(MPI_MAX_INFO_VAL);  // §9: values never exceed it
    info.set(key, value);
  };
  if (!env.command_line.empty()) {
    put("command", env.command_line[0]);
    std::string args;
    for (size_t i = 1; i < env.command_line.size(); ++i) {
      if (i > 1) args += ' ';
      args += env.command_line[i];
    }
    put("argv", args);
  }
  put("maxprocs", std::to_string(env.world_size));
  put("host", env.host);
  put("arch", env.arch);
  put("wdir", env.working_directory);
  put("thread_level", thread_level_name(env.thread_level));
  return info;
}

}  // namespace infos

}  // namespace ferry
