#include "runtime/runtime.h"

#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "base/process.h"
#include "coll/device_onepass.h"
#include "coll/select.h"
#include "coll/shm/host.h"
#include "device/device.h"
#include "common/config.h"
#include "common/debug.h"
#include "base/communicator.h"
#include "progress/progress.h"
#include "base/request.h"
#include "mpi.h"
#include "p2p/engine.h"
#include "runtime/dynamic.h"
#include "runtime/peers.h"
#include "runtime/phase_timer.h"
#include "runtime/checkpoint.h"
#include "transport/providers.h"
#include "transport/shm/shm_transport.h"

namespace ferry::runtime {

namespace detail {
bool up = false;
}

namespace {

// The runtime (PMIx, transports, the matching engine) is started by the
// first of MPI_Init and MPI_Session_init and held by the world model and by
// each open session (MPI-4.0 §11.4.1: the models coexist in one process).
struct State {
  bool initialized = false;  // the world model: between MPI_Init and MPI_Finalize
  bool finalized = false;    // MPI_Finalize was called
  bool stopped = false;      // ... and was shut down again (it cannot restart)
  bool stop_at_exit = false; // an atexit handler stops it (sessions only)
  int holds = 0;             // the world model (one) and the open sessions
  int thread_level = MPI_THREAD_SINGLE;
  std::thread::id main_thread;
  pmi::Job job;
  std::unique_ptr<transport::Exchange> exchange;          // outlives the transports
  std::vector<std::unique_ptr<transport::Transport>> transports;  // in preference order
  std::vector<bool> polled;  // transports[i] is a progress source
};
State state;

// The providers' contact cards travel through PMIx.
class PmixExchange final : public transport::Exchange {
 public:
  bool publish(const std::string& key, const std::string& value, std::string* error) override {
    return ok(pmi::publish(key.c_str(), value), error);
  }
  // Peers past the world ranks are processes of other jobs (runtime/peers.h).
  bool lookup(int rank, const std::string& key, std::string* value, std::string* error) override {
    if (rank >= state.job.size) return ok(pmi::lookup(name_of(rank), key.c_str(), value), error);
    return ok(pmi::lookup(rank, key.c_str(), value), error);
  }
  std::optional<std::string> job_value(const std::string& key) override { return pmi::job_string(key.c_str()); }

 private:
  static bool ok(const Err& e, std::string* error) {
    if (e.ok()) return true;
    *error = e.message();
    return false;
  }
};

// The cores this host's ranks share. Not this rank's affinity: mpirun may
// have bound each rank to one core, and the ranks are then not
// oversubscribed. A container's cpuset (cgroup v2) limits them all.
int available_cores() {
  int online = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  std::FILE* f = std::fopen("/sys/fs/cgroup/cpuset.cpus.effective", "r");
  if (f == nullptr) return online;
  int count = 0, first = 0, last = 0;
  char sep = 0;
  // "0-3,8,10-11"
  while (std::fscanf(f, "%d", &first) == 1) {
    last = first;
    if (std::fscanf(f, "%c", &sep) == 1 && sep == '-') {
      if (std::fscanf(f, "%d", &last) != 1) break;
      if (std::fscanf(f, "%c", &sep) != 1) sep = 0;
    }
    count += last - first + 1;
    if (sep != ',') break;
  }
  std::fclose(f);
  return count > 0 ? count : online;
}

// FERRY_WAIT=auto: ranks that outnumber the cores must not spin, or the rank
// they wait for cannot run.
Err choose_wait_policy() {
  std::string wait = config::value("FERRY_WAIT");
  int spin = static_cast<int>(config::integer("FERRY_SPIN_US"));
  int local = static_cast<int>(state.job.local_peers.size());
  int cores = available_cores();
  progress::WaitPolicy policy;
  if (wait == "spin") policy = progress::WaitPolicy::kSpin;
  else if (wait == "block") policy = progress::WaitPolicy::kBlock;
  else if (wait == "auto")
    policy = local > cores ? progress::WaitPolicy::kBlock : progress::WaitPolicy::kSpinThenBlock;
  else
    return fail(MPI_ERR_ARG, "FERRY_WAIT=%s: expected spin, block or auto", wait.c_str());
  progress::set_wait_policy(policy, spin, static_cast<int>(config::integer("FERRY_SLEEP_MS")));
  FERRY_DEBUG(kProgress, "%d ranks on this host, %d cores: waits %s", local, cores,
              policy == progress::WaitPolicy::kBlock ? "block in the kernel"
              : policy == progress::WaitPolicy::kSpin ? "spin"
                                                      : "spin, then block");
  return {};
}

// Start-up and routes are loops over the providers (transport/providers.h):
// each enabled one opens its transport, which publishes its card before the
// fence and connects after it; a second fence lets them drop what only
// start-up needed. A peer's traffic goes to the first transport that
// reaches it. FERRY_TRANSPORTS is the same for the whole job, so every rank
// takes the same fences.
Err setup_transports(PhaseTimer& phases) {
  const pmi::Job& job = state.job;
  p2p::init(job.rank, job.size);
  std::vector<const transport::Provider*> enabled;
  std::string error;
  std::string list = config::value("FERRY_TRANSPORTS");
  if (!transport::enabled_providers(list, &enabled, &error)) return fail(MPI_ERR_ARG, "%s", error.c_str());

  transport::JobLayout layout;
  layout.rank = job.rank;
  layout.size = job.size;
  layout.nspace = job.nspace;
  layout.hostname = job.hostname;
  layout.local_peers = job.local_peers;
  layout.fatal = [](const std::string& message) { abort_job(MPI_ERR_OTHER, message); };
  layout.singleton = job.singleton;
  layout.index_of = adopted_index;
  state.exchange = std::make_unique<PmixExchange>();
  bool settles = false;
  for (const transport::Provider* provider : enabled) {
    auto t = provider->open(layout, p2p::packet_handler(), &error);
    if (!error.empty()) return fail(MPI_ERR_OTHER, "%s transport: %s", provider->name, error.c_str());
    if (t) state.transports.push_back(std::move(t));
    settles = settles || provider->settles;
  }
  phases.mark("open");
  // A job of one process publishes its card too (no fence needed: nobody
  // of this job waits for it), so that jobs it spawns or connects to can
  // reach it.
  if (job.size > 1 || !job.singleton) {
    for (auto& t : state.transports)
      if (!t->publish(*state.exchange, &error)) return fail(MPI_ERR_OTHER, "%s transport: %s", t->name(), error.c_str());
    phases.mark("publish");
    if (job.size > 1)
      if (Err e = pmi::fence(true)) return e;
    phases.mark("fence");
    for (auto& t : state.transports)
      if (!t->connect(*state.exchange, &error)) return fail(MPI_ERR_OTHER, "%s transport: %s", t->name(), error.c_str());
    phases.mark("connect");
    if (settles && job.size > 1) {
      if (Err e = pmi::fence(false)) return e;
      for (auto& t : state.transports) t->settled();
      phases.mark("settle fence");
    }
  }

  std::vector<bool> carries(state.transports.size(), false);
  for (int peer = 0; peer < job.size; ++peer) {
    size_t i = 0;
    std::optional<transport::Reach> reach;
    for (; i < state.transports.size() && !(reach = state.transports[i]->reach(peer)); ++i) {
    }
    if (!reach)
      return fail(MPI_ERR_ARG, "FERRY_TRANSPORTS=%s: no transport reaches rank %d (ranks on other hosts need tcp)",
                  list.c_str(), peer);
    p2p::set_route(peer, p2p::Route{state.transports[i].get(), *reach});
    carries[i] = true;
    FERRY_DEBUG(kP2p, "peer %d via %s", peer, state.transports[i]->name());
  }
  // Only transports that carry traffic are polled: polling TCP costs a
  // system call (epoll_wait), so a rank whose peers all share its host
  // never polls it; nobody will connect to it.
  state.polled = carries;
  for (size_t i = 0; i < state.transports.size(); ++i)
    if (carries[i]) progress::add_source(state.transports[i].get());
  // Shared-memory collectives (coll/shm/host.h) among the ranks shm
  // reaches; their re-check source goes after the transports.
  transport::shm::ShmTransport* shm = nullptr;
  for (size_t i = 0; i < state.transports.size(); ++i)
    if (carries[i] && shm == nullptr)
      shm = dynamic_cast<transport::shm::ShmTransport*>(state.transports[i].get());
  coll::shm::install(shm, job.rank);
  phases.mark("routes");
  return {};
}

}  // namespace

namespace {

int clamp_level(int level) {
  return level < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : level > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : level;
}

// A model asks for `level` while the runtime is up: it gets at least that,
// and the level the runtime already runs at if higher (a session opened
// beside MPI_THREAD_MULTIPLE reports it, as MPICH's does). Raising the
// level is safe here, because at the lower level no other thread is inside
// the library now.
int raise_level(int level) {
  level = clamp_level(level);
  if (level > state.thread_level) {
    state.thread_level = level;
    // Never off again: a file's thread may already drive progress
    // (progress::enable_locking).
    progress::threads_enabled = progress::threads_enabled || level == MPI_THREAD_MULTIPLE;
  }
  return state.thread_level;
}

// Threads may open and close sessions at the same time (MPI-4.0 §11.3.1).
std::mutex holds_mutex;

Err start(int requested_thread_level, int* provided) {
  if (auto problem = config::validate()) return fail(MPI_ERR_ARG, "%s", problem->c_str());
  if (auto problem = coll::validate_settings()) return fail(MPI_ERR_ARG, "%s", problem->c_str());
  std::optional<device::Mode> cuda = device::mode_from_config();
  if (!cuda) return fail(MPI_ERR_ARG, "FERRY_CUDA=%s is none of auto, on, off", config::value("FERRY_CUDA").c_str());
  debug::configure();
  PhaseTimer phases("MPI_Init");
  // Before PMIx_Init starts PMIx's thread (transport/providers.h).
  transport::prepare_providers();
  if (Err e = pmi::init(&state.job)) return e;
  phases.mark("pmix");
  char identity[32];
  std::snprintf(identity, sizeof identity, "rank %d", state.job.rank);
  debug::set_identity(identity);

  state.thread_level = clamp_level(requested_thread_level);
  *provided = state.thread_level;
  progress::threads_enabled = state.thread_level == MPI_THREAD_MULTIPLE;
  state.main_thread = std::this_thread::get_id();

  process::Facts facts;
  facts.world_size = state.job.size;
  facts.universe_size = state.job.universe_size;
  facts.appnum = state.job.appnum;
  facts.hostname = state.job.hostname;
  facts.thread_level = state.thread_level;
  facts.host_ranks = static_cast<int>(state.job.local_peers.size());
  facts.host_cores = available_cores();
  process::set_facts(facts);
  process::set_abort(abort_job);

  if (Err e = choose_wait_policy()) return e;
  // GPU buffers (device/device.h): before any buffer is looked at.
  if (std::string why; !device::load(*cuda, &why)) return fail(MPI_ERR_OTHER, "%s", why.c_str());
  phases.mark("device");
  if (Err e = setup_transports(phases)) return e;
  communicators::create_predefined(state.job.rank, state.job.size);
  detail::up = true;
  // A spawned job's MPI_Init is collective with its parents' MPI_Comm_spawn
  // (MPI-3.1 §10.3.2): it connects to them before returning.
  if (Err e = connect_to_parent()) {
    detail::up = false;
    return e;
  }
  phases.mark("communicators");
  phases.report();
  FERRY_DEBUG(kInit, "initialized: %d ranks, %zu on host %s", state.job.size, state.job.local_peers.size(),
              state.job.hostname.c_str());
  return {};
}

// Takes the runtime down once nothing holds it. Collective over the job
// (the fence), as MPI_Finalize is.
Err stop() {
  PhaseTimer phases("MPI_Finalize");
  checkpoint::finish_background_work();
  {
    // Everything we sent must leave before the connections close.
    progress::Lock lock;
    progress::wait_until(lock, [] {
      for (auto& t : state.transports)
        if (t->has_pending_sends()) return false;
      return true;
    });
  }
  phases.mark("drain");
  // No rank closes its connections while another may still read from them.
  Err e = pmi::fence(false);
  phases.mark("fence");
  detail::up = false;
  state.stopped = true;
  progress::remove_all_sources();
  coll::shm::uninstall();
  while (!state.transports.empty()) state.transports.pop_back();
  state.exchange.reset();
  p2p::finalize();
  coll::gpu::onepass::close_mappings();
  device::unload();
  communicators::destroy_all();
  phases.mark("teardown");
  pmi::finalize();
  phases.mark("pmix");
  phases.report();
  return e;
}

// A process that used only sessions and finalized them all: the runtime
// stayed up so that a later MPI_Session_init (or MPI_Init) finds it; it
// goes down as the process exits. A process that exits with a session open
// skips this, as one that never calls MPI_Finalize does.
void stop_at_exit() {
  if (detail::up && state.holds == 0) (void)stop();
}

}  // namespace

Err init(int requested_thread_level, int* provided) {
  std::lock_guard<std::mutex> lock(holds_mutex);
  if (state.initialized || state.finalized)
    return fail(MPI_ERR_OTHER, "MPI is already %s", state.finalized ? "finalized" : "initialized");
  if (state.stopped) return fail(MPI_ERR_OTHER, "the runtime was already shut down in this process");
  if (!detail::up) {
    if (Err e = start(requested_thread_level, provided)) return e;
  } else {
    *provided = raise_level(requested_thread_level);
  }
  ++state.holds;
  state.initialized = true;
  return {};
}

Err finalize() {
  // MPI-3.1 §8.7.1: before anything else, the attributes of MPI_COMM_SELF
  // (then MPI_COMM_WORLD) are deleted, so libraries that cache state there
  // can still communicate from their delete callbacks.
  Err attributes_error = communicators::delete_predefined_attributes();
  std::lock_guard<std::mutex> lock(holds_mutex);
  state.initialized = false;
  state.finalized = true;
  // MPI-4.0 §11.4.1: sessions still open keep the runtime up; the last
  // MPI_Session_finalize takes it down.
  Err e = --state.holds == 0 ? stop() : Err{};
  return attributes_error ? std::move(attributes_error) : std::move(e);
}

Err open_session(int requested_thread_level, int* provided) {
  std::lock_guard<std::mutex> lock(holds_mutex);
  if (state.stopped)
    return fail(MPI_ERR_OTHER, "the runtime of this process was shut down by MPI_Finalize and cannot start again");
  if (!detail::up) {
    if (Err e = start(requested_thread_level, provided)) return e;
  } else {
    *provided = raise_level(requested_thread_level);
  }
  if (!state.stop_at_exit) {
    state.stop_at_exit = true;
    std::atexit(stop_at_exit);
  }
  ++state.holds;
  return {};
}

Err close_session() {
  std::lock_guard<std::mutex> lock(holds_mutex);
  if (state.holds <= 0 || !detail::up) return fail(MPI_ERR_SESSION, "no session is open");
  // After MPI_Finalize nothing else will take the runtime down.
  if (--state.holds == 0 && state.finalized) return stop();
  return {};
}

bool initialized() { return state.initialized; }
bool finalized() { return state.finalized; }
int thread_level() { return state.thread_level; }
bool is_main_thread() { return std::this_thread::get_id() == state.main_thread; }
const pmi::Job& job() { return state.job; }

Err route_adopted(int index, const pmi::ProcessName& name) {
  progress::Lock lock;
  for (size_t i = 0; i < state.transports.size(); ++i) {
    std::optional<transport::Reach> reach = state.transports[i]->adopt(index);
    if (!reach) continue;
    p2p::set_route(index, p2p::Route{state.transports[i].get(), *reach});
    if (!state.polled[i]) {
      state.polled[i] = true;
      progress::add_source(state.transports[i].get());
    }
    FERRY_DEBUG(kP2p, "peer %d (rank %d of job %s) via %s", index, name.rank, name.nspace.c_str(),
                state.transports[i]->name());
    return {};
  }
  return fail(MPI_ERR_OTHER, "no transport reaches rank %d of job %s (processes of other jobs need tcp in FERRY_TRANSPORTS)",
              name.rank, name.nspace.c_str());
}

void abort_job(int exit_code, const std::string& message) {
  std::string line = "ferry: rank " + std::to_string(state.job.rank) + ": " + message + "\n";
  ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  pmi::abort(exit_code, message.c_str());
  _exit(exit_code & 0xff);
}

}  // namespace ferry::runtime
