// A PMIx_Spawn as mpirun reads it: the apps to start and where, copied out
// of PMIx's arrays on PMIx's thread so that the event loop can take its
// time, and the callback that answers the spawning process.
//
// Where MPI_Comm_spawn's info keys (MPI-3.1 §10.3.4) arrive: libmpi passes
// them as these PMIx attributes, in the app's info (or the job's, for all
// apps), and mpirun reads them so:
//   host      PMIX_HOST      comma-separated host names; each must be in
//                            mpirun's allocation (only mpirun's own host
//                            can be used for now)
//   hostfile  PMIX_HOSTFILE  a hostfile (Open MPI or Hydra form) whose
//                            hosts are used as `host`'s
//   wdir      PMIX_WDIR      the children's working directory (else the
//                            app's cwd, which PMIx_Spawn fills with the
//                            caller's)
//   path      PMIX_PREFIX    colon-separated directories searched for the
//                            command before the children's PATH
// The app's env entries ("NAME=value") are set in every child of the app.
#pragma once

#include <pmix_server.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ferry::launcher {
namespace wire {
class Encoder;
class Decoder;
}  // namespace wire

struct SpawnApp {
  std::string cmd;                 // as given: a path or a name to search
  std::vector<std::string> argv;   // program first
  std::vector<std::string> env;    // "NAME=value"
  std::string wdir;                // empty: mpirun's
  std::string search_path;         // PMIX_PREFIX: searched before PATH
  std::vector<std::string> hosts;  // PMIX_HOST, PMIX_HOSTFILE's; empty: any
  std::string hostfile;            // PMIX_HOSTFILE as given, for messages
  int maxprocs = 0;
};

// An app in the daemon tree's frames (the forwarded PMIx_Spawn, a spawned
// job's start on a daemon): every field, in this order.
void encode_app(wire::Encoder& e, const SpawnApp& a);
SpawnApp decode_app(wire::Decoder& d);

struct SpawnRequest {
  std::string parent_nspace;       // the process that called PMIx_Spawn
  int parent_rank = 0;
  std::vector<SpawnApp> apps;
  pmix_spawn_cbfunc_t callback = nullptr;
  void* cbdata = nullptr;

  // Answers the spawning process (once): `nspace` on success, else the
  // status alone.
  void answer(pmix_status_t status, const std::string& nspace = "");
};

// Copies PMIx_Spawn's arguments. A hostfile that cannot be read gives an
// app without hosts and a `problem` line, which the event loop answers
// with (nothing is started).
struct SpawnParse {
  SpawnRequest request;
  std::string problem;  // non-empty: refuse with `status`
  pmix_status_t status = PMIX_SUCCESS;
};
SpawnParse read_spawn_request(const pmix_proc_t& parent, const pmix_info_t job_info[], size_t ninfo,
                              const pmix_app_t apps[], size_t napps);

// Why a spawn is not started: the status the spawning process gets, and
// the reason for mpirun's line.
struct SpawnRefusal {
  pmix_status_t status;
  std::string why;
};

// Resolves each app's program in place, on the host that will run it
// (mpirun's, or a node daemon's): `path` first, then the app's PATH, else
// `environment`'s (-x, -genv), else this process's; app.cmd becomes the
// path to run. Checks wdir and maxprocs too.
std::optional<SpawnRefusal> resolve_programs(std::vector<SpawnApp>& apps,
                                             const std::vector<std::pair<std::string, std::string>>& environment);

}  // namespace ferry::launcher
