// mpirun as a PMIx server: the Open PMIx server library answers the ranks'
// PMIx calls on its own thread, and calls up into mpirun (the "host") for
// what needs the launcher: fences, aborts, connection events, spawns, and
// the published names of MPI_Publish_name.
//
// Those upcalls run on PMIx's thread. They never touch the job's state: a
// fence is answered on the spot (one host holds every participant), names
// are kept in a NameService of their own, and everything else becomes a
// ServerEvent that the event loop picks up through an eventfd.
//
// PMIx_Connect/Disconnect among processes of this host are completed by the
// PMIx library itself once all of them have called (then each can PMIx_Get
// the others' committed data from this server's store); the library calls
// up only when some are elsewhere, and that is refused (not supported yet).
#pragma once

#include <hwloc.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "launcher/pmix/forwarded_requests.h"
#include "launcher/pmix/job_info.h"
#include "launcher/pmix/name_service.h"
#include "launcher/pmix/session_dir.h"
#include "launcher/spawned/spawn_request.h"

namespace ferry::launcher {

// How to answer a fence that spans several hosts, once every host's data is
// in (see PmixHost::complete_fence).
struct FenceReply {
  pmix_modex_cbfunc_t callback = nullptr;
  void* cbdata = nullptr;
};

struct ServerEvent {
  // kFinalized: PMIx_Finalize, or (Open PMIx reports it the same way) a
  // connection lost without it. kFence: this host's ranks all entered a
  // fence of a job that spans several hosts. kSpawn: a rank called
  // PMIx_Spawn (only mpirun's server posts it; see serve_spawns).
  // kForward: `data` is a kRequest frame for the daemon tree.
  enum class Kind { kConnected, kFinalized, kAbort, kFence, kSpawn, kForward };
  Kind kind;
  int rank;
  int code = 0;      // kAbort: the status passed to PMIx_Abort
  std::string data{};  // kFence: this host's contribution
  std::string nspace{};  // kFence: whose (the first job's or a spawned job's)
  FenceReply reply{};  // kFence
  int job = 0;       // whose rank: 0 the first job, k the k-th spawned
  std::shared_ptr<SpawnParse> spawn{};  // kSpawn
};

class PmixHost {
 public:
  // Starts the server library in a private temporary directory under
  // TMPDIR (or /tmp), so that concurrent mpiruns never meet. `hostname`:
  // this host's name in the job's node map (empty: PMIx asks the system).
  // Throws std::runtime_error with a one-line reason.
  explicit PmixHost(const std::string& hostname = "");
  // Finalizes the library and removes the temporary directory.
  ~PmixHost();

  // For the end of mpirun, which then leaves with _exit(): removes the
  // temporary directory but does not finalize the library. Open PMIx 4.2's
  // PMIx_server_finalize can crash or hang after ranks died in the middle of
  // a fence (an abort, a killed rank), and a process that is about to end
  // has nothing to gain from it: its thread, sockets and memory go with it.
  void prepare_exit();
  PmixHost(const PmixHost&) = delete;
  PmixHost& operator=(const PmixHost&) = delete;

  // Registers the namespace and this node's ranks as clients; returns once
  // PMIx has taken them in, so that a rank started next finds its data.
  // A job on one node has its fences answered on the spot; one on several
  // nodes posts each fence as a kFence event for the daemon tree. `job_id`:
  // 0 for the job mpirun was started with (the only one that may span
  // nodes), k for the k-th started by PMIx_Spawn; events name it.
  void register_job(const JobDescription& job, int job_id = 0);
  // Forgets a spawned job that could not be started (its clients too).
  void deregister_job(const JobDescription& job);
  // Tells the server of a spawned job that runs on another host (none of
  // its processes here), before any client can ask about it: then a client
  // asking for one of its processes' data makes the server call up for it
  // (direct modex). Unknown, a namespace is taken in from the first answer
  // alone, without its "all local clients registered" mark, and PMIx holds
  // every later question about it forever.
  void know_job(const std::string& nspace, int num_ranks);

  // mpirun's server answers PMIx_Spawn (as kSpawn events) and keeps the
  // published names; a node daemon's forwards both to mpirun (kForward),
  // which is the default.
  void serve_spawns() { serves_spawns_ = true; }
  bool serves_spawns() const { return serves_spawns_; }
  NameService& names() { return names_; }
  // The requests this server sent through the tree and waits for; a
  // daemon sets its tree position before any rank runs.
  ForwardedRequests& forwarded() { return forwarded_; }

  // Ends a kFence: `all_data` is the concatenation of every node's
  // contribution (what PMIx expects back from its host); `ok` false fails
  // the fence for the local ranks (the job is ending).
  static void complete_fence(const FenceReply& reply, const std::string& all_data, bool ok);
  // Whether a fence over `nspace` goes through the daemon tree: the first
  // job's, or a spawned job's (spawned_fences.h), when it spans hosts.
  bool distributed_fences(const char* nspace);

  // Raises ferry::checkpoint::kDueEvent (common/checkpoint_event.h) for
  // this server's ranks of `nspace`: those that registered a handler for it
  // get it; those that did not lose nothing (the event is not cached, so a
  // due event never waits for a later job of the same server).
  void notify_checkpoint_due(const std::string& nspace);

  // Adds the variables a rank needs to reach this server (PMIX_NAMESPACE,
  // PMIX_RANK, the server's URI, ...) to `env`, a malloc'ed environment
  // that PMIx may grow.
  void setup_fork(const std::string& nspace, int rank, char*** env);

  // Readable when take_events() has something.
  int event_fd() const { return event_fd_; }
  std::vector<ServerEvent> take_events();

  // This host's topology (loaded for PMIx; also used for binding), or
  // nullptr if hwloc could not load it.
  hwloc_topology_t topology() const { return static_cast<hwloc_topology_t>(topology_.topology); }

  // Where the server keeps its files (removed by the destructor).
  const SessionDir& session_dir() const { return session_dir_; }

  // Called from PMIx's thread (and any other).
  void post(const ServerEvent& event);
  void forward(std::string frame);  // a kForward event

 private:
  SessionDir session_dir_;         // outlives the server: destroyed last
  pmix_topology_t topology_ = {};  // given to PMIx, destroyed after it
  // The first job's; set before any rank runs, read by PMIx's thread.
  std::string first_nspace_;
  int event_fd_ = -1;
  bool initialized_ = false;
  bool distributed_fences_ = false;
  std::atomic<bool> serves_spawns_ = false;
  NameService names_;
  ForwardedRequests forwarded_;
  std::vector<std::string> spread_jobs_;  // spawned jobs on several hosts (under mutex_)
  std::mutex mutex_;
  std::vector<ServerEvent> events_;
};

}  // namespace ferry::launcher
