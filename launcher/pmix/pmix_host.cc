#include "launcher/pmix/pmix_host.h"

#include <dirent.h>
#include <hwloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>

#include "common/checkpoint_event.h"
#include "common/config.h"
#include "common/debug.h"
#include "launcher/clock.h"

namespace ferry::launcher {
namespace {

// The one server of this process; the module's upcalls have no user pointer
// except per client, so they find it here.
PmixHost* g_server = nullptr;

// PMIx's own reason for a status, for error messages.
std::string pmix_error(pmix_status_t status) { return PMIx_Error_string(status); }

// Waits for PMIx operations that finish through a pmix_op_cbfunc_t on
// PMIx's thread. Only used while starting, before there is an event loop.
class Completion {
 public:
  explicit Completion(int pending) : pending_(pending) {}

  static void callback(pmix_status_t status, void* cbdata) {
    auto* self = static_cast<Completion*>(cbdata);
    std::lock_guard lock(self->mutex_);
    if (status != PMIX_SUCCESS && self->status_ == PMIX_SUCCESS) self->status_ = status;
    if (--self->pending_ == 0) self->done_.notify_one();
  }

  // An operation that failed before it was queued never calls back.
  void not_queued(pmix_status_t status) { callback(status, this); }

  pmix_status_t wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    return status_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  int pending_;
  pmix_status_t status_ = PMIX_SUCCESS;
};

// A client's "server object" is its job's id (upper 32 bits) and its rank.
void* server_object_of(int job_id, int rank) {
  return reinterpret_cast<void*>(intptr_t(job_id) << 32 | intptr_t(uint32_t(rank)));
}
int rank_of(void* server_object) { return int(uint32_t(reinterpret_cast<intptr_t>(server_object))); }
int job_of(void* server_object) { return int(reinterpret_cast<intptr_t>(server_object) >> 32); }

ServerEvent event_of(ServerEvent::Kind kind, void* server_object) {
  ServerEvent e{kind, rank_of(server_object)};
  e.job = job_of(server_object);
  return e;
}

// A line on stderr for a request mpirun refuses from PMIx's thread (the
// status alone would not say why).
void refuse(const pmix_proc_t* proc, const char* what, const char* why) {
  std::fprintf(stderr, "mpirun: %s from rank %u of %s: %s\n", what, proc != nullptr ? proc->rank : 0u,
               proc != nullptr ? proc->nspace : "?", why);
}

// ---- Upcalls from PMIx's thread ------------------------------------------

pmix_status_t client_connected(const pmix_proc_t* proc, void* server_object, pmix_info_t[], size_t,
                               pmix_op_cbfunc_t cbfunc, void* cbdata) {
  g_server->post(event_of(ServerEvent::Kind::kConnected, server_object));
  // The client stays blocked in PMIx_Init until this is called.
  if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  return PMIX_SUCCESS;
}

pmix_status_t client_finalized(const pmix_proc_t* proc, void* server_object, pmix_op_cbfunc_t cbfunc,
                               void* cbdata) {
  g_server->post(event_of(ServerEvent::Kind::kFinalized, server_object));
  if (g_server->serves_spawns()) g_server->names().forget(*proc);
  else g_server->forward(g_server->forwarded().finalized(*proc));
  if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  return PMIX_SUCCESS;
}

// PMIx_Abort(code, msg, procs, nprocs). The runtime always aborts the whole
// job (procs == NULL), and the rank prints its own diagnostic and exits with
// `code` once released; the event loop ends the others.
pmix_status_t abort_job(const pmix_proc_t* proc, void* server_object, int status, const char msg[],
                        pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  // Posted before the caller is released, so the event loop learns of the
  // abort before it can see the rank exit.
  ServerEvent e = event_of(ServerEvent::Kind::kAbort, server_object);
  e.code = status;
  g_server->post(e);
  if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  return PMIX_SUCCESS;
}

void free_fence_data(void* data) { std::free(data); }

// Every participant of a fence lives on this host, so by the time PMIx calls
// up, the data of all of them is in `data`: hand it straight back. `data`
// belongs to PMIx, and PMIx reads the reply only later (the callback moves to
// its own thread), so the reply is a copy that PMIx returns through
// free_fence_data once it is done with it.
pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
                    char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  bool one_job = true;
  for (size_t i = 1; i < nprocs; ++i) one_job = one_job && PMIX_CHECK_NSPACE(procs[i].nspace, procs[0].nspace);
  bool distributed = nprocs > 0 && g_server->distributed_fences(procs[0].nspace);
  if (distributed && !one_job) {
    // The daemon tree counts fences of one job at a time.
    refuse(&procs[0], "PMIx_Fence", "a fence across jobs that span several hosts is not supported yet");
    return PMIX_ERR_NOT_SUPPORTED;
  }
  if (distributed) {
    // Other hosts take part: the event loop gathers their data through the
    // daemon tree and answers with complete_fence().
    ServerEvent e{ServerEvent::Kind::kFence, -1};
    e.nspace = procs[0].nspace;
    e.data.assign(data, ndata);
    e.reply = {cbfunc, cbdata};
    g_server->post(e);
    return PMIX_SUCCESS;
  }
  char* copy = nullptr;
  if (ndata > 0) {
    copy = static_cast<char*>(std::malloc(ndata));
    if (copy == nullptr) return PMIX_ERR_NOMEM;
    std::memcpy(copy, data, ndata);
  }
  FERRY_DEBUG(kLaunch, "fence completed (%zu bytes of collected data)", ndata);
  cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, copy != nullptr ? free_fence_data : nullptr, copy);
  return PMIX_SUCCESS;
}

// A rank asks for data of a process this server does not host, and did not
// get it through a fence (a process of a spawned job on another host): the
// question goes to mpirun, which passes it to that process's host.
pmix_status_t direct_modex(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                           pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  g_server->forward(g_server->forwarded().direct_modex(*proc, info, ninfo, cbfunc, cbdata));
  return PMIX_SUCCESS;
}

// PMIx_Spawn (MPI_Comm_spawn): read on this thread, started by the event
// loop (job.cc), which answers through the request's callback.
pmix_status_t spawn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                    size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
  SpawnParse parsed = read_spawn_request(*proc, job_info, ninfo, apps, napps);
  if (!g_server->serves_spawns()) {
    // A node daemon's client: mpirun starts the job and answers.
    g_server->forward(g_server->forwarded().spawn(parsed, cbfunc, cbdata));
    return PMIX_SUCCESS;
  }
  ServerEvent e{ServerEvent::Kind::kSpawn, int(proc->rank)};
  e.spawn = std::make_shared<SpawnParse>(std::move(parsed));
  e.spawn->request.callback = cbfunc;
  e.spawn->request.cbdata = cbdata;
  g_server->post(e);
  return PMIX_SUCCESS;
}

// MPI_Publish_name, _Lookup_name, _Unpublish_name: mpirun's NameService,
// through the daemon tree for the clients of a node daemon. A status other
// than PMIX_SUCCESS goes to the client without the callback.
pmix_status_t publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                      void* cbdata) {
  if (!g_server->serves_spawns()) {
    g_server->forward(g_server->forwarded().publish(*proc, info, ninfo, cbfunc, cbdata));
    return PMIX_SUCCESS;
  }
  pmix_status_t status = g_server->names().publish(*proc, info, ninfo);
  if (status != PMIX_SUCCESS) return status;
  if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  return PMIX_SUCCESS;
}

pmix_status_t lookup(const pmix_proc_t* proc, char** keys, const pmix_info_t info[], size_t ninfo,
                     pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
  if (!g_server->serves_spawns()) {
    g_server->forward(g_server->forwarded().lookup(*proc, keys, info, ninfo, cbfunc, cbdata));
    return PMIX_SUCCESS;
  }
  g_server->names().lookup(*proc, keys, info, ninfo, cbfunc, cbdata);
  return PMIX_SUCCESS;
}

pmix_status_t unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t info[], size_t ninfo,
                        pmix_op_cbfunc_t cbfunc, void* cbdata) {
  if (!g_server->serves_spawns()) {
    g_server->forward(g_server->forwarded().unpublish(*proc, keys, info, ninfo, cbfunc, cbdata));
    return PMIX_SUCCESS;
  }
  pmix_status_t status = g_server->names().unpublish(*proc, keys, info, ninfo);
  if (status != PMIX_SUCCESS) return status;
  if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  return PMIX_SUCCESS;
}

// PMIx calls these only when some of the processes named are not clients
// of this server (another host, or a namespace it does not know): it
// completes a connect among its own clients by itself.
pmix_status_t connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t, pmix_op_cbfunc_t,
                      void*) {
  refuse(nprocs > 0 ? &procs[0] : nullptr, "PMIx_Connect",
         "connecting processes on several hosts, or of a namespace this mpirun does not run, is not supported yet");
  return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t, pmix_op_cbfunc_t,
                         void*) {
  refuse(nprocs > 0 ? &procs[0] : nullptr, "PMIx_Disconnect",
         "disconnecting processes on several hosts is not supported yet");
  return PMIX_ERR_NOT_SUPPORTED;
}

pmix_server_module_t make_module() {
  pmix_server_module_t m;
  std::memset(&m, 0, sizeof m);  // NULL: "not supported" for the rest
  m.client_connected2 = client_connected;
  m.client_finalized = client_finalized;
  m.abort = abort_job;
  m.fence_nb = fence;
  m.direct_modex = direct_modex;
  m.publish = publish;
  m.lookup = lookup;
  m.unpublish = unpublish;
  m.spawn = spawn;
  m.connect = connect;
  m.disconnect = disconnect;
  return m;
}
pmix_server_module_t g_module = make_module();

// The host's hardware topology, which the PMIx server wants at start-up.
// Left to itself, PMIx discovers it with every hwloc plugin and I/O devices,
// which costs ~12 ms of every mpirun; a CPU-and-memory topology without the
// plugins (GL, OpenCL, PCI, XML) and the x86 backend takes ~0.8 ms, and is
// all a one-host job needs. A user's own HWLOC_PLUGINS_BLACKLIST is left alone.
hwloc_topology_t load_topology() {
  const char* kBlacklist = "HWLOC_PLUGINS_BLACKLIST";
  bool set_blacklist = !config::environment(kBlacklist).has_value();
  // Read by hwloc in hwloc_topology_init, before any other thread exists;
  // gone again before the ranks' environment is built.
  if (set_blacklist)
    ::setenv(kBlacklist,
             "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml,"
             "hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero",
             1);
  hwloc_topology_t topology = nullptr;
  int rc = hwloc_topology_init(&topology);
  if (set_blacklist) ::unsetenv(kBlacklist);
  if (rc != 0) return nullptr;
#if HWLOC_API_VERSION >= 0x00020100
  // The x86 backend reads every CPU's cpuid for what Linux's sysfs already
  // tells (cores, packages, caches; it adds cache "Inclusive" attributes):
  // ~0.5 ms of every mpirun, for nothing binding or PMIx looks at. A user's
  // own HWLOC_COMPONENTS is left alone.
  if (!config::environment("HWLOC_COMPONENTS").has_value())
    hwloc_topology_set_components(topology, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#endif
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    return nullptr;
  }
  return topology;
}

// Job data in PMIx's hash store, sent to each rank as it connects, rather
// than in the shared-memory stores (ds21, ds12): the server creates and
// fills their 4 MiB segments when the first rank connects, ~8 ms of every
// rank's PMIx_Init on a small job, for a saving that only pays off with
// hundreds of ranks per host. PMIx takes this as an MCA parameter from the
// environment, read at PMIx_server_init (before any other thread exists);
// the ranks inherit it, which keeps them on the same store. A user's own
// PMIX_MCA_gds wins if it lets PMIx use the hash store: with Debian's PMIx
// 4.2 and this server, ds21 alone leaves the ranks waiting forever in
// PMIx_Init and ds12 alone crashes them, so those are refused up front.
void choose_pmix_data_store() {
  std::optional<std::string> chosen = config::environment("PMIX_MCA_gds");
  if (!chosen.has_value()) {
    ::setenv("PMIX_MCA_gds", "hash", 1);
    return;
  }
  // "a,b": use those; "^a,b": use any but those.
  bool excluding = !chosen->empty() && (*chosen)[0] == '^';
  std::string list = "," + chosen->substr(excluding ? 1 : 0) + ",";
  bool lists_hash = list.find(",hash,") != std::string::npos;
  if (lists_hash == excluding)
    throw std::runtime_error("PMIX_MCA_gds=" + *chosen +
                             ": Ferry's PMIx server needs the hash store (ds12 and ds21 alone hang or crash the "
                             "ranks); unset PMIX_MCA_gds or include hash, e.g. PMIX_MCA_gds=ds21,hash");
}

// The listening TCP sockets of this process.
std::vector<int> tcp_listeners() {
  std::vector<int> fds;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  while (const dirent* entry = ::readdir(dir)) {
    int fd = std::atoi(entry->d_name);
    int listening = 0, protocol = 0;
    socklen_t size = sizeof listening;
    if (fd <= 2 || fd == ::dirfd(dir) ||
        ::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || listening == 0)
      continue;
    size = sizeof protocol;
    if (::getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &size) == 0 && protocol == IPPROTO_TCP)
      fds.push_back(fd);
  }
  ::closedir(dir);
  return fds;
}

// Open PMIx talks to its clients over loopback TCP with Nagle's algorithm on,
// so a reply that follows another one the client has not acknowledged yet
// waits for the client's delayed ACK: 40 ms, whenever a rank has several
// requests in flight (src/pmi asks for a value of every local peer at once).
// Connections inherit TCP_NODELAY from the listening socket, so it is set on
// the listeners that PMIx_server_init opened (those not in `before`), before
// any client can connect.
void disable_nagle_on_new_listeners(const std::vector<int>& before) {
  for (int fd : tcp_listeners()) {
    if (std::find(before.begin(), before.end(), fd) != before.end()) continue;
    int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);  // failing: slower replies, nothing worse
  }
}

}  // namespace

PmixHost::PmixHost(const std::string& hostname) {
  double t0 = monotonic_ms();
  event_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (event_fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + strerror(errno));
  g_server = this;

  std::string server_nspace = "ferry-mpirun." + std::to_string(::getpid());
  pmix_rank_t server_rank = 0;
  bool no = false;
  const size_t ninfo = 10;
  pmix_info_t* info;
  PMIX_INFO_CREATE(info, ninfo);
  size_t n = 0;
  choose_pmix_data_store();
  topology_.topology = load_topology();
  topology_.source = const_cast<char*>("hwloc:" HWLOC_VERSION);
  if (topology_.topology != nullptr) {
    // By pointer: loading the value the usual way would copy the topology,
    // and PMIx keeps using the pointer it is given after init.
    PMIX_LOAD_KEY(info[n].key, PMIX_TOPOLOGY2);
    info[n].value.type = PMIX_TOPO;
    info[n].value.data.topo = &topology_;
    ++n;
  }
  // Only this mpirun's ranks may connect: no system-wide or session-wide
  // rendezvous (another mpirun, or a resource manager's server, would collide
  // with it) and no tool or remote connections.
  PMIx_Info_load(&info[n++], PMIX_SERVER_TMPDIR, session_dir_.path().c_str(), PMIX_STRING);
  PMIx_Info_load(&info[n++], PMIX_SYSTEM_TMPDIR, session_dir_.path().c_str(), PMIX_STRING);
  PMIx_Info_load(&info[n++], PMIX_SERVER_SYSTEM_SUPPORT, &no, PMIX_BOOL);
  PMIx_Info_load(&info[n++], PMIX_SERVER_SESSION_SUPPORT, &no, PMIX_BOOL);
  PMIx_Info_load(&info[n++], PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
  PMIx_Info_load(&info[n++], PMIX_SERVER_REMOTE_CONNECTIONS, &no, PMIX_BOOL);
  PMIx_Info_load(&info[n++], PMIX_SERVER_NSPACE, server_nspace.c_str(), PMIX_STRING);
  PMIx_Info_load(&info[n++], PMIX_SERVER_RANK, &server_rank, PMIX_PROC_RANK);
  if (!hostname.empty()) PMIx_Info_load(&info[n++], PMIX_HOSTNAME, hostname.c_str(), PMIX_STRING);
  const std::vector<int> listeners = tcp_listeners();
  pmix_status_t rc = PMIx_server_init(&g_module, info, n);
  if (topology_.topology != nullptr) info[0].value.type = PMIX_UNDEF;  // not PMIx's to free
  PMIX_INFO_FREE(info, ninfo);
  if (rc != PMIX_SUCCESS) {
    if (topology_.topology != nullptr)
      hwloc_topology_destroy(static_cast<hwloc_topology_t>(topology_.topology));
    ::close(event_fd_);
    g_server = nullptr;
    throw std::runtime_error("cannot start the PMIx server: " + pmix_error(rc));
  }
  initialized_ = true;
  disable_nagle_on_new_listeners(listeners);
  FERRY_DEBUG(kLaunch, "PMIx server started in %.1f ms, tmpdir %s (%s)", monotonic_ms() - t0,
              session_dir_.path().c_str(), PMIx_Get_version());
}

// Reached when starting the job failed, before any rank ran: then
// finalizing is safe.
PmixHost::~PmixHost() {
  if (initialized_) PMIx_server_finalize();
  if (topology_.topology != nullptr)
    hwloc_topology_destroy(static_cast<hwloc_topology_t>(topology_.topology));
  if (event_fd_ >= 0) ::close(event_fd_);
  g_server = nullptr;
}

void PmixHost::prepare_exit() { session_dir_.remove(); }

void PmixHost::register_job(const JobDescription& job, int job_id) {
  double t0 = monotonic_ms();
  if (job_id == 0) {
    first_nspace_ = job.nspace;
    distributed_fences_ = job.nodes.size() > 1;
  } else if (job.nodes.size() > 1) {
    std::lock_guard lock(mutex_);
    spread_jobs_.push_back(job.nspace);
  }
  const std::vector<int>& local_ranks = job.nodes.at(size_t(job.this_node)).ranks;
  JobInfo info(job);
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, job.nspace.c_str());

  // The namespace and all clients are queued at once and waited for
  // together: PMIx's thread handles them in order.
  Completion done(1 + int(local_ranks.size()));
  pmix_status_t rc = PMIx_server_register_nspace(ns, int(local_ranks.size()), info.info(), info.size(),
                                                 Completion::callback, &done);
  if (rc != PMIX_SUCCESS) done.not_queued(rc);
  uid_t uid = ::geteuid();
  gid_t gid = ::getegid();
  for (int r : local_ranks) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, job.nspace.c_str(), pmix_rank_t(r));
    // The job and rank ride along as the "server object" of the client.
    rc = PMIx_server_register_client(&proc, uid, gid, server_object_of(job_id, r), Completion::callback, &done);
    if (rc != PMIX_SUCCESS) done.not_queued(rc);
  }
  rc = done.wait();
  if (rc != PMIX_SUCCESS) throw std::runtime_error("cannot register the job with PMIx: " + pmix_error(rc));
  FERRY_DEBUG(kLaunch, "job %s registered in %.1f ms: %zu of its %d ranks on %s", job.nspace.c_str(),
              monotonic_ms() - t0, local_ranks.size(), job.num_ranks,
              job.nodes[size_t(job.this_node)].hostname.c_str());
}

void PmixHost::deregister_job(const JobDescription& job) {
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, job.nspace.c_str());
  const std::vector<int>& local_ranks = job.nodes.at(size_t(job.this_node)).ranks;
  Completion done(1 + int(local_ranks.size()));
  for (int r : local_ranks) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, job.nspace.c_str(), pmix_rank_t(r));
    PMIx_server_deregister_client(&proc, Completion::callback, &done);
  }
  PMIx_server_deregister_nspace(ns, Completion::callback, &done);
  done.wait();
}

bool PmixHost::distributed_fences(const char* nspace) {
  if (first_nspace_ == nspace) return distributed_fences_;
  std::lock_guard lock(mutex_);
  return std::find(spread_jobs_.begin(), spread_jobs_.end(), nspace) != spread_jobs_.end();
}

void PmixHost::know_job(const std::string& nspace, int num_ranks) {
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, nspace.c_str());
  pmix_info_t info[2];
  auto size = uint32_t(num_ranks);
  PMIX_INFO_LOAD(&info[0], PMIX_JOBID, nspace.c_str(), PMIX_STRING);
  PMIX_INFO_LOAD(&info[1], PMIX_JOB_SIZE, &size, PMIX_UINT32);
  Completion done(1);
  pmix_status_t rc = PMIx_server_register_nspace(ns, 0, info, 2, Completion::callback, &done);
  if (rc != PMIX_SUCCESS) done.not_queued(rc);
  rc = done.wait();
  PMIX_INFO_DESTRUCT(&info[0]);
  PMIX_INFO_DESTRUCT(&info[1]);
  FERRY_DEBUG(kLaunch, "job %s (%d processes elsewhere) made known here: %s", nspace.c_str(), num_ranks,
              pmix_error(rc).c_str());
}

void PmixHost::notify_checkpoint_due(const std::string& nspace) {
  // Every rank of the namespace on this host (PMIx Standard v4 §7.1.2: a
  // custom range names the processes that may receive the event).
  pmix_proc_t ranks;
  PMIX_LOAD_PROCID(&ranks, nspace.c_str(), PMIX_RANK_WILDCARD);
  pmix_info_t* info;
  PMIX_INFO_CREATE(info, 2);
  PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &ranks, PMIX_PROC);
  bool no_cache = true;
  PMIX_INFO_LOAD(&info[1], PMIX_EVENT_DO_NOT_CACHE, &no_cache, PMIX_BOOL);
  // The info array lives until PMIx's thread is done with it.
  auto done = [](pmix_status_t, void* cbdata) {
    pmix_info_t* array = static_cast<pmix_info_t*>(cbdata);
    PMIX_INFO_FREE(array, 2);
  };
  pmix_status_t rc = PMIx_Notify_event(checkpoint::kDueEvent, nullptr, PMIX_RANGE_CUSTOM, info, 2, done, info);
  if (rc != PMIX_SUCCESS) {
    PMIX_INFO_FREE(info, 2);
    // PMIX_OPERATION_SUCCEEDED: done at once, no callback.
    if (rc != PMIX_OPERATION_SUCCEEDED)
      FERRY_DEBUG(kLaunch, "cannot raise the checkpoint event for %s: %s", nspace.c_str(), pmix_error(rc).c_str());
    return;
  }
  FERRY_DEBUG(kLaunch, "checkpoint due: event raised for the ranks of %s here", nspace.c_str());
}

void PmixHost::setup_fork(const std::string& nspace, int rank, char*** env) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace.c_str(), pmix_rank_t(rank));
  pmix_status_t rc = PMIx_server_setup_fork(&proc, env);
  if (rc != PMIX_SUCCESS)
    throw std::runtime_error("cannot prepare rank " + std::to_string(rank) + " for PMIx: " + pmix_error(rc));
}

void PmixHost::complete_fence(const FenceReply& reply, const std::string& all_data, bool ok) {
  char* copy = nullptr;
  if (ok && !all_data.empty()) {
    copy = static_cast<char*>(std::malloc(all_data.size()));
    if (copy == nullptr) ok = false;
    else std::memcpy(copy, all_data.data(), all_data.size());
  }
  FERRY_DEBUG(kLaunch, "fence across hosts %s (%zu bytes of collected data)", ok ? "completed" : "failed",
              all_data.size());
  if (!ok) {
    reply.callback(PMIX_ERR_COMM_FAILURE, nullptr, 0, reply.cbdata, nullptr, nullptr);
    return;
  }
  reply.callback(PMIX_SUCCESS, copy, copy != nullptr ? all_data.size() : 0, reply.cbdata,
                 copy != nullptr ? free_fence_data : nullptr, copy);
}

void PmixHost::forward(std::string frame) {
  ServerEvent e{ServerEvent::Kind::kForward, -1};
  e.data = std::move(frame);
  post(e);
}

void PmixHost::post(const ServerEvent& event) {
  {
    std::lock_guard lock(mutex_);
    events_.push_back(event);
  }
  uint64_t one = 1;
  ssize_t ignored = ::write(event_fd_, &one, sizeof one);
  (void)ignored;
}

std::vector<ServerEvent> PmixHost::take_events() {
  uint64_t count;
  ssize_t ignored = ::read(event_fd_, &count, sizeof count);
  (void)ignored;
  std::lock_guard lock(mutex_);
  return std::exchange(events_, {});
}

}  // namespace ferry::launcher
