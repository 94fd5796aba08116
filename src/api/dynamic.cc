// Process creation and management (MPI-3.1 §10): spawning, ports, service
// names, join and disconnect. The semantics live in runtime/dynamic.h.
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/api.h"
#include "api/coll_checks.h"
#include "base/info.h"
#include "runtime/dynamic.h"

using namespace ferry;

namespace {

MPI_Comm handle_of(const Communicator* c) { return c != nullptr ? c->handle : MPI_COMM_NULL; }

bool name_argument(api::Call& call, const char* text, const char* argument, size_t limit) {
  if (!call.not_null(text, argument)) return false;
  if (std::strlen(text) >= limit)
    return call.fail(MPI_ERR_ARG, "%s is longer than %zu characters", argument, limit - 1);
  return true;
}

// MPI-3.1 §10.3.4: "path" lists directories to look for the program in;
// the first that holds an executable of that name gives the command.
std::string resolve(const std::string& command, const std::string* path) {
  if (path == nullptr || command.find('/') != std::string::npos) return command;
  size_t at = 0;
  while (at <= path->size()) {
    size_t end = path->find(':', at);
    if (end == std::string::npos) end = path->size();
    std::string candidate = path->substr(at, end - at) + "/" + command;
    if (end > at && access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return command;
}

// One program of a spawn, read at the root. False (with the call failed) on
// a bad argument.
bool read_app(api::Call& call, const char* command, char* argv[], int maxprocs, MPI_Info info, int index,
              pmi::SpawnApp* app) {
  if (!call.not_null(command, "command")) return false;
  if (maxprocs <= 0)
    return call.fail(MPI_ERR_ARG, "maxprocs%s = %d: must be positive", index >= 0 ? "[i]" : "", maxprocs);
  const Info* hints = api::checked_hints(call, info);
  if (hints == nullptr) return false;
  app->maxprocs = maxprocs;
  if (argv != MPI_ARGV_NULL)
    for (char** a = argv; *a != nullptr; ++a) app->argv.emplace_back(*a);
  if (const std::string* v = hints->get("host")) app->host = *v;
  if (const std::string* v = hints->get("hostfile")) app->hostfile = *v;
  if (const std::string* v = hints->get("wdir")) app->wdir = *v;
  app->command = resolve(command, hints->get("path"));
  return true;
}

// array_of_errcodes is an OUT argument of every process of the group, not
// one "significant only at root" (MPI-3.1 §10.3.2, §10.3.3): every process
// gets one code per process the root asked for (MPICH fills it everywhere
// too, and mpi4py checks it everywhere).
void copy_errcodes(const std::vector<int>& codes, int errcodes[]) {
  if (errcodes == MPI_ERRCODES_IGNORE) return;
  for (size_t i = 0; i < codes.size(); ++i) errcodes[i] = codes[i];
}

}  // namespace

extern "C" int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root,
                               MPI_Comm comm, MPI_Comm* intercomm, int errcodes[]) {
  api::Call call("MPI_Comm_spawn");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !api::check_root(call, root, c) || !call.not_null(intercomm, "intercomm"))
    return call.raise();
  std::vector<pmi::SpawnApp> apps(1);
  // Arguments matter at the root only (MPI-3.1 §10.3.2).
  if (c->rank == root && !read_app(call, command, argv, maxprocs, info, -1, &apps[0])) return call.raise();
  Communicator* created = nullptr;
  std::vector<int> codes;
  Err e = runtime::spawn(apps, c, root, &created, &codes);
  copy_errcodes(codes, errcodes);
  *intercomm = handle_of(created);
  return call.result(std::move(e));
}
FERRY_ENTRY(Comm_spawn)

extern "C" int PMPI_Comm_spawn_multiple(int count, char* commands[], char** argvs[], const int maxprocs[],
                                        const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm* intercomm,
                                        int errcodes[]) {
  api::Call call("MPI_Comm_spawn_multiple");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !api::check_root(call, root, c) || !call.not_null(intercomm, "intercomm"))
    return call.raise();
  std::vector<pmi::SpawnApp> apps;
  if (c->rank == root) {
    if (count <= 0) {
      call.fail(MPI_ERR_ARG, "count = %d: must be positive", count);
      return call.raise();
    }
    if (!call.not_null(commands, "array_of_commands") || !call.not_null(maxprocs, "array_of_maxprocs") ||
        !call.not_null(infos, "array_of_info"))
      return call.raise();
    apps.resize(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i)
      if (!read_app(call, commands[i], argvs == MPI_ARGVS_NULL ? MPI_ARGV_NULL : argvs[i], maxprocs[i], infos[i], i,
                    &apps[static_cast<size_t>(i)]))
        return call.raise();
  }
  Communicator* created = nullptr;
  std::vector<int> codes;
  Err e = runtime::spawn(apps, c, root, &created, &codes);
  copy_errcodes(codes, errcodes);
  *intercomm = handle_of(created);
  return call.result(std::move(e));
}
FERRY_ENTRY(Comm_spawn_multiple)

extern "C" int PMPI_Comm_get_parent(MPI_Comm* parent) {
  api::Call call("MPI_Comm_get_parent");
  if (!call.initialized() || !call.not_null(parent, "parent")) return call.raise();
  *parent = handle_of(runtime::parent());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_get_parent)

extern "C" int PMPI_Open_port(MPI_Info info, char* port_name) {
  api::Call call("MPI_Open_port");
  if (!call.initialized() || api::checked_hints(call, info) == nullptr || !call.not_null(port_name, "port_name"))
    return call.raise();
  std::string port;
  if (Err e = runtime::open_port(&port)) return call.result(std::move(e));
  std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", port.c_str());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Open_port)

extern "C" int PMPI_Close_port(const char* port_name) {
  api::Call call("MPI_Close_port");
  if (!call.initialized() || !name_argument(call, port_name, "port_name", MPI_MAX_PORT_NAME)) return call.raise();
  return call.result(runtime::close_port(port_name));
}
FERRY_ENTRY(Close_port)

namespace {

int accept_or_connect(const char* name, bool accepting, const char* port_name, MPI_Info info, int root,
                      MPI_Comm comm, MPI_Comm* newcomm) {
  api::Call call(name);
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !api::check_root(call, root, c) || !call.not_null(newcomm, "newcomm"))
    return call.raise();
  std::string port;
  if (c->rank == root) {
    if (api::checked_hints(call, info) == nullptr || !name_argument(call, port_name, "port_name", MPI_MAX_PORT_NAME))
      return call.raise();
    port = port_name;
  }
  Communicator* created = nullptr;
  Err e = accepting ? runtime::accept(port, c, root, &created) : runtime::connect(port, c, root, &created);
  *newcomm = handle_of(created);
  return call.result(std::move(e));
}

}  // namespace

extern "C" int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  return accept_or_connect("MPI_Comm_accept", true, port_name, info, root, comm, newcomm);
}
FERRY_ENTRY(Comm_accept)

extern "C" int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  return accept_or_connect("MPI_Comm_connect", false, port_name, info, root, comm, newcomm);
}
FERRY_ENTRY(Comm_connect)

extern "C" int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  api::Call call("MPI_Comm_join");
  if (!call.initialized() || !call.not_null(intercomm, "intercomm")) return call.raise();
  if (fd < 0) {
    call.fail(MPI_ERR_ARG, "fd = %d is not a file descriptor", fd);
    return call.raise();
  }
  Communicator* created = nullptr;
  Err e = runtime::join(fd, &created);
  *intercomm = handle_of(created);
  return call.result(std::move(e));
}
FERRY_ENTRY(Comm_join)

extern "C" int PMPI_Comm_disconnect(MPI_Comm* comm) {
  api::Call call("MPI_Comm_disconnect");
  if (!call.initialized() || !call.not_null(comm, "comm")) return call.raise();
  Communicator* c = call.comm(*comm);
  if (c == nullptr) return call.raise();
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
    call.fail(MPI_ERR_COMM, "comm is %s, which cannot be disconnected", *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    return call.raise();
  }
  if (Err e = runtime::disconnect(c)) return call.result(std::move(e));
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_disconnect)

extern "C" int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  api::Call call("MPI_Publish_name");
  if (!call.initialized() || api::checked_hints(call, info) == nullptr ||
      !name_argument(call, service_name, "service_name", 256) ||
      !name_argument(call, port_name, "port_name", MPI_MAX_PORT_NAME))
    return call.raise();
  return call.result(runtime::publish_name(service_name, port_name));
}
FERRY_ENTRY(Publish_name)

extern "C" int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  api::Call call("MPI_Lookup_name");
  if (!call.initialized() || api::checked_hints(call, info) == nullptr ||
      !name_argument(call, service_name, "service_name", 256) || !call.not_null(port_name, "port_name"))
    return call.raise();
  std::string port;
  if (Err e = runtime::lookup_name(service_name, &port)) return call.result(std::move(e));
  std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", port.c_str());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Lookup_name)

extern "C" int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  api::Call call("MPI_Unpublish_name");
  if (!call.initialized() || api::checked_hints(call, info) == nullptr ||
      !name_argument(call, service_name, "service_name", 256) || !call.not_null(port_name, "port_name"))
    return call.raise();
  return call.result(runtime::unpublish_name(service_name));
}
FERRY_ENTRY(Unpublish_name)
