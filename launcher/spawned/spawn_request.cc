#include "launcher/spawned/spawn_request.h"

#include <sys/stat.h>

#include <cstring>

#include "common/config.h"
#include "common/hostfile.h"
#include "launcher/options.h"
#include "launcher/tree/wire.h"

namespace ferry::launcher {
namespace {

// The string value of `key` in `info`, if there.
const char* string_of(const pmix_info_t info[], size_t ninfo, const char* key) {
  for (size_t i = 0; i < ninfo; ++i)
    if (std::strncmp(info[i].key, key, PMIX_MAX_KEYLEN) == 0 && info[i].value.type == PMIX_STRING)
      return info[i].value.data.string;
  return nullptr;
}

// An app's setting: its own info first, then the job's.
const char* setting(const pmix_app_t& app, const pmix_info_t job_info[], size_t ninfo, const char* key) {
  if (const char* v = string_of(app.info, app.ninfo, key)) return v;
  return string_of(job_info, ninfo, key);
}

std::vector<std::string> split_hosts(const std::string& list) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string name = list.substr(start, end - start);
    // Trim blanks, and ":N" slot counts (Open MPI's host info accepts them).
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (size_t colon = name.find(':'); colon != std::string::npos) name.erase(colon);
    if (!name.empty()) names.push_back(name);
    start = end + 1;
  }
  return names;
}

// The PATH a spawned process will search: its app's env, else -x/-genv,
// else mpirun's own.
std::optional<std::string> path_for(const SpawnApp& app,
                                    const std::vector<std::pair<std::string, std::string>>& environment) {
  for (const std::string& e : app.env)
    if (e.rfind("PATH=", 0) == 0) return e.substr(5);
  for (const auto& [name, value] : environment)
    if (name == "PATH") return value;
  return config::environment("PATH");
}

}  // namespace

void SpawnRequest::answer(pmix_status_t status, const std::string& nspace) {
  if (callback == nullptr) return;
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, nspace.c_str());
  // PMIx moves the answer to its own thread before using it.
  callback(status, status == PMIX_SUCCESS ? ns : nullptr, cbdata);
  callback = nullptr;
}

SpawnParse read_spawn_request(const pmix_proc_t& parent, const pmix_info_t job_info[], size_t ninfo,
                              const pmix_app_t apps[], size_t napps) {
  SpawnParse parsed;
  SpawnRequest& r = parsed.request;
  r.parent_nspace = parent.nspace;
  r.parent_rank = int(parent.rank);
  for (size_t a = 0; a < napps; ++a) {
    const pmix_app_t& in = apps[a];
    SpawnApp app;
    if (in.cmd != nullptr) app.cmd = in.cmd;
    for (char** arg = in.argv; arg != nullptr && *arg != nullptr; ++arg) app.argv.emplace_back(*arg);
    if (app.cmd.empty() && !app.argv.empty()) app.cmd = app.argv[0];
    if (app.argv.empty()) app.argv.push_back(app.cmd);
    for (char** e = in.env; e != nullptr && *e != nullptr; ++e) app.env.emplace_back(*e);
    if (in.cwd != nullptr) app.wdir = in.cwd;
    if (const char* wdir = setting(in, job_info, ninfo, PMIX_WDIR)) app.wdir = wdir;
    if (const char* path = setting(in, job_info, ninfo, PMIX_PREFIX)) app.search_path = path;
    if (const char* hosts = setting(in, job_info, ninfo, PMIX_HOST)) app.hosts = split_hosts(hosts);
    if (const char* hostfile = setting(in, job_info, ninfo, PMIX_HOSTFILE)) {
      app.hostfile = hostfile;
      hosts::HostListResult list = hosts::read_hostfile(hostfile);
      if (!list.error.empty() && parsed.problem.empty()) {
        parsed.problem = list.error;
        parsed.status = PMIX_ERR_BAD_PARAM;
      }
      for (const hosts::HostEntry& h : list.hosts) app.hosts.push_back(h.name);
    }
    app.maxprocs = in.maxprocs;
    r.apps.push_back(std::move(app));
  }
  return parsed;
}

std::optional<SpawnRefusal> resolve_programs(std::vector<SpawnApp>& apps,
                                             const std::vector<std::pair<std::string, std::string>>& environment) {
  for (SpawnApp& app : apps) {
    if (app.cmd.empty()) return SpawnRefusal{PMIX_ERR_JOB_NO_EXE_SPECIFIED, "no program given"};
    if (app.maxprocs < 1)
      return SpawnRefusal{PMIX_ERR_BAD_PARAM, "'" + app.cmd + "': maxprocs is " + std::to_string(app.maxprocs)};
    struct stat st;
    if (!app.wdir.empty() && (::stat(app.wdir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)))
      return SpawnRefusal{PMIX_ERR_JOB_WDIR_NOT_FOUND, "working directory '" + app.wdir + "' does not exist"};
    // A relative path means one from where the process will run.
    std::string program = app.cmd;
    if (program.find('/') != std::string::npos && program[0] != '/' && !app.wdir.empty())
      program = app.wdir + "/" + program;
    std::optional<std::string> path = path_for(app, environment);
    if (!app.search_path.empty()) path = app.search_path + (path ? ":" + *path : "");
    Resolved found = resolve_program(program, path);
    if (!found.error.empty()) {
      bool missing = found.error.find("not found") != std::string::npos ||
                     found.error.find("does not exist") != std::string::npos;
      return SpawnRefusal{missing ? PMIX_ERR_JOB_EXE_NOT_FOUND : PMIX_ERR_JOB_APP_NOT_EXECUTABLE, found.error};
    }
    app.cmd = found.path;
    if (app.cmd[0] != '/' && !app.wdir.empty()) app.cmd = app.wdir + "/" + app.cmd;  // a relative PATH entry
  }
  return std::nullopt;
}

void encode_app(wire::Encoder& e, const SpawnApp& a) {
  e.str(a.cmd).strings(a.argv).strings(a.env).str(a.wdir).str(a.search_path).strings(a.hosts).str(a.hostfile);
  e.i32(a.maxprocs);
}

SpawnApp decode_app(wire::Decoder& d) {
  SpawnApp a;
  a.cmd = d.str();
  a.argv = d.strings();
  a.env = d.strings();
  a.wdir = d.str();
  a.search_path = d.str();
  a.hosts = d.strings();
  a.hostfile = d.str();
  a.maxprocs = d.i32();
  return a;
}

}  // namespace ferry::launcher
