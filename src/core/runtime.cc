#include "core/runtime.h"

#include <sched.h>
#include <sys/random.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "coll/select.h"
#include "common/config.h"
#include "common/debug.h"
#include "core/communicator.h"
#include "progress/progress.h"
#include "core/request.h"
#include "mpi.h"
#include "p2p/engine.h"
#include "p2p/self_transport.h"
#include "p2p/shm/fence.h"
#include "p2p/shm/shm_transport.h"
#include "p2p/tcp/tcp_transport.h"

namespace ferry::runtime {
namespace {

constexpr const char* kCardKey = "ferry.card";
constexpr const char* kSecretKey = "ferry.job.secret";
constexpr const char* kShmKey = "ferry.shm";
// Same-host messages up to this size go eagerly: one copy into the ring,
// one out, buffered at the receiver if unexpected.
constexpr size_t kShmEagerLimit = 64 * 1024;

struct State {
  bool initialized = false;
  bool finalized = false;
  int thread_level = MPI_THREAD_SINGLE;
  std::thread::id main_thread;
  pmi::Job job;
  std::unique_ptr<p2p::SelfTransport> self;
  std::unique_ptr<p2p::tcp::TcpTransport> tcp;
  std::unique_ptr<p2p::shm::ShmTransport> shm;
};
State state;

std::string to_hex(const uint8_t* bytes, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[bytes[i] >> 4];
    s += digits[bytes[i] & 0xf];
  }
  return s;
}

bool from_hex(const std::string& text, uint8_t* bytes, size_t n) {
  if (text.size() != 2 * n) return false;
  for (size_t i = 0; i < n; ++i) {
    unsigned v = 0;
    if (std::sscanf(text.c_str() + 2 * i, "%2x", &v) != 1) return false;
    bytes[i] = static_cast<uint8_t>(v);
  }
  return true;
}

// The value of `field=` in a `;`-separated card.
std::string card_field(const std::string& card, const std::string& field) {
  size_t at = 0;
  while (at < card.size()) {
    size_t end = card.find(';', at);
    if (end == std::string::npos) end = card.size();
    if (card.compare(at, field.size() + 1, field + "=") == 0)
      return card.substr(at + field.size() + 1, end - at - field.size() - 1);
    at = end + 1;
  }
  return {};
}

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

// FERRY_TRANSPORTS: whether same-host peers go through shared memory.
Err shm_allowed(bool* allowed) {
  std::string list = config::value("FERRY_TRANSPORTS");
  bool shm = false;
  bool tcp = false;
  size_t at = 0;
  while (at <= list.size()) {
    size_t end = list.find(',', at);
    if (end == std::string::npos) end = list.size();
    std::string name = list.substr(at, end - at);
    if (name == "shm") shm = true;
    else if (name == "tcp") tcp = true;
    else return fail(MPI_ERR_ARG, "FERRY_TRANSPORTS=%s: unknown transport \"%s\" (expected shm, tcp)", list.c_str(), name.c_str());
    at = end + 1;
  }
  if (!tcp && state.job.local_peers.size() < static_cast<size_t>(state.job.size))
    return fail(MPI_ERR_ARG, "FERRY_TRANSPORTS=%s: ranks on other hosts need tcp", list.c_str());
  *allowed = shm;
  return {};
}

// The shared-memory segment is created and named in our card before the
// fence, so that every local peer can map it right after.
Err create_shm_segment() {
  const pmi::Job& job = state.job;
  auto shm = std::make_unique<p2p::shm::ShmTransport>(job.rank, job.size, job.local_peers, p2p::packet_handler());
  char name[96];
  std::snprintf(name, sizeof name, "/ferry-%016zx-%d-%d", std::hash<std::string>{}(job.nspace), job.rank,
                static_cast<int>(getpid()));
  std::string error;
  if (!shm->create(name, &error)) return fail(MPI_ERR_OTHER, "shared-memory transport: %s", error.c_str());
  if (Err e = pmi::publish(kShmKey, name)) return e;
  state.shm = std::move(shm);
  return {};
}

// After the fence: map every local peer's segment, then (second fence, once
// all have mapped ours) remove our segment's name so nothing outlives the job.
Err attach_shm_segments() {
  const pmi::Job& job = state.job;
  if (state.shm) {
    for (int peer : job.local_peers) {
      if (peer == job.rank) continue;
      std::string name;
      std::string error;
      if (Err e = pmi::lookup(peer, kShmKey, &name)) return e;
      if (!state.shm->attach(peer, name, &error))
        return fail(MPI_ERR_OTHER, "shared-memory transport: rank %d: %s", peer, error.c_str());
    }
  }
  if (Err e = pmi::fence(false)) return e;
  if (state.shm) state.shm->unlink();
  return {};
}

Err setup_transports() {
  const pmi::Job& job = state.job;
  p2p::init(job.rank, job.size);
  state.self = std::make_unique<p2p::SelfTransport>(job.rank, p2p::packet_handler());
  progress::add_source(state.self.get());
  // The self path has no network to protect; its eager limit only bounds
  // how much an early self-send buffers.
  p2p::set_route(job.rank, p2p::Route{state.self.get(), 64 * 1024});
  if (job.size == 1) return {};
  bool use_shm = false;
  if (Err e = shm_allowed(&use_shm)) return e;
  if (use_shm && job.local_peers.size() > 1)
    if (Err e = create_shm_segment()) return e;

  p2p::tcp::TcpOptions options;
  options.my_rank = job.rank;
  options.world_size = job.size;
  options.my_hostname = job.hostname;
  std::string family = config::value("FERRY_TCP_FAMILY");
  if (family == "ipv4") options.family = p2p::tcp::Family::kIpv4;
  else if (family == "ipv6") options.family = p2p::tcp::Family::kIpv6;
  else if (family != "auto") return fail(MPI_ERR_ARG, "FERRY_TCP_FAMILY=%s: expected auto, ipv4 or ipv6", family.c_str());
  options.connect_timeout_ms = static_cast<int>(config::integer("FERRY_CONNECT_TIMEOUT") * 1000);
  options.card_of = [](int rank, std::string* card) { return pmi::lookup(rank, kCardKey, card).ok(); };
  options.fatal = [](const std::string& message) { abort_job(MPI_ERR_OTHER, message); };

  // The job secret: from the launcher, or (under another PMIx server) made
  // by rank 0 and read from its card after the fence.
  auto secret_hex = pmi::job_string(kSecretKey);
  bool secret_from_rank0 = !secret_hex.has_value();
  if (secret_hex) {
    if (!from_hex(*secret_hex, options.secret, sizeof options.secret))
      return fail(MPI_ERR_INTERN, "the launcher's job secret is malformed");
  } else if (job.rank == 0) {
    if (getrandom(options.secret, sizeof options.secret, 0) != sizeof options.secret)
      return fail(MPI_ERR_INTERN, "getrandom failed: %s", std::strerror(errno));
  }

  // Listening socket and card are set up before the fence, so any rank may
  // connect to us as soon as it has our card.
  auto tcp = std::make_unique<p2p::tcp::TcpTransport>(options, p2p::packet_handler());
  std::string card;
  std::string error;
  if (!tcp->listen(config::value("FERRY_TCP_INTERFACE"), &card, &error))
    return fail(MPI_ERR_OTHER, "TCP transport: %s", error.c_str());
  if (secret_from_rank0 && job.rank == 0) card += ";secret=" + to_hex(options.secret, sizeof options.secret);
  if (Err e = pmi::publish(kCardKey, card)) return e;
  if (Err e = pmi::fence(true)) return e;
  if (secret_from_rank0 && job.rank != 0) {
    // Nobody connects before MPI_Init returns, so setting the secret now is
    // in time for every handshake.
    std::string rank0_card;
    if (Err e = pmi::lookup(0, kCardKey, &rank0_card)) return e;
    if (!from_hex(card_field(rank0_card, "secret"), options.secret, sizeof options.secret))
      return fail(MPI_ERR_INTERN, "rank 0 published no job secret");
    tcp->set_secret(options.secret);
  }
  // Every rank takes part in this fence when shm is allowed, whether or not
  // it has local peers (FERRY_TRANSPORTS is the same for the whole job).
  if (use_shm)
    if (Err e = attach_shm_segments()) return e;
  state.tcp = std::move(tcp);
  size_t eager = static_cast<size_t>(config::integer("FERRY_TCP_EAGER_LIMIT"));
  int tcp_peers = 0;
  for (int peer = 0; peer < job.size; ++peer) {
    if (peer == job.rank) continue;
    if (state.shm && state.shm->reaches(peer)) {
      p2p::set_route(peer, p2p::Route{state.shm.get(), kShmEagerLimit});
    } else {
      p2p::set_route(peer, p2p::Route{state.tcp.get(), eager});
      ++tcp_peers;
    }
  }
  // Shared memory is polled first: it is the cheap check. Polling TCP costs
  // a system call (epoll_wait), so a rank whose peers all share its host
  // never polls it; nobody will connect to it.
  if (state.shm) progress::add_source(state.shm.get());
  if (tcp_peers > 0) progress::add_source(state.tcp.get());
  return {};
}

}  // namespace

Err init(int requested_thread_level, int* provided) {
  if (state.initialized || state.finalized)
    return fail(MPI_ERR_OTHER, "MPI is already %s", state.finalized ? "finalized" : "initialized");
  if (auto problem = config::validate()) return fail(MPI_ERR_ARG, "%s", problem->c_str());
  if (auto problem = coll::validate_settings()) return fail(MPI_ERR_ARG, "%s", problem->c_str());
  debug::configure();
  // The shared-memory transport's membarrier registration (p2p/shm/fence.h)
  // costs a store while the process has one thread and an RCU grace period
  // (5-20 ms here) once it has two: PMIx_Init starts PMIx's thread. Early,
  // it is free, also for a rank that ends up without local peers.
  p2p::shm::fence::enable_asymmetric();
  if (Err e = pmi::init(&state.job)) return e;
  char identity[32];
  std::snprintf(identity, sizeof identity, "rank %d", state.job.rank);
  debug::set_identity(identity);

  state.thread_level = requested_thread_level < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
                       : requested_thread_level > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                                      : requested_thread_level;
  *provided = state.thread_level;
  progress::threads_enabled = state.thread_level == MPI_THREAD_MULTIPLE;
  state.main_thread = std::this_thread::get_id();

  if (Err e = choose_wait_policy()) return e;
  if (Err e = setup_transports()) return e;
  communicators::create_predefined(state.job.rank, state.job.size);
  state.initialized = true;
  FERRY_DEBUG(kInit, "initialized: %d ranks, %zu on host %s", state.job.size, state.job.local_peers.size(),
              state.job.hostname.c_str());
  return {};
}

Err finalize() {
  // MPI-3.1 §8.7.1: before anything else, the attributes of MPI_COMM_SELF
  // (then MPI_COMM_WORLD) are deleted, so libraries that cache state there
  // can still communicate from their delete callbacks.
  Err attributes_error = communicators::delete_predefined_attributes();
  {
    // Everything we sent must leave before the connections close.
    progress::Lock lock;
    progress::wait_until(lock, [] {
      return !(state.tcp && state.tcp->has_pending_sends()) && !(state.shm && state.shm->has_pending_sends()) &&
             !state.self->has_pending_sends();
    });
  }
  // No rank closes its connections while another may still read from them.
  Err e = pmi::fence(false);
  state.initialized = false;
  state.finalized = true;
  progress::remove_all_sources();
  state.tcp.reset();
  state.shm.reset();
  state.self.reset();
  p2p::finalize();
  communicators::destroy_all();
  pmi::finalize();
  return attributes_error ? std::move(attributes_error) : std::move(e);
}

bool initialized() { return state.initialized; }
bool finalized() { return state.finalized; }
int thread_level() { return state.thread_level; }
bool is_main_thread() { return std::this_thread::get_id() == state.main_thread; }
const pmi::Job& job() { return state.job; }

void abort_job(int exit_code, const std::string& message) {
  std::string line = "ferry: rank " + std::to_string(state.job.rank) + ": " + message + "\n";
  ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  pmi::abort(exit_code, message.c_str());
  _exit(exit_code & 0xff);
}

}  // namespace ferry::runtime
