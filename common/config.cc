#include "config.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

extern char** environ;

namespace ferry::config {
namespace {

// Every FERRY_* variable, with its default and what it does. Keep sorted by
// component; the README's table is generated from `ferry_info`.
constexpr std::array kSettings = {
    Setting{"FERRY_DEBUG", "",
            "Comma-separated topics to trace on stderr: init, pmix, tcp, verbs, p2p, progress, coll, launch, comm, checkpoint, io, cuda, rma, all"},
    Setting{"FERRY_QMPI_TOOL_LIST", "",
            "QMPI tools to attach, colon-separated, in call order (a name twice: two instances, ids 1, 2, ...); "
            "MPICH's MPIR_CVAR_QMPI_TOOL_LIST says the same when this is unset",
            "MPIR_CVAR_QMPI_TOOL_LIST"},
    Setting{"FERRY_PROFILE", "",
            "Path of an HTML report of the job's communication and I/O that mpirun (without mpirun: rank 0) "
            "writes at its end, with its numbers as JSON beside it (report.html: report.json); empty: "
            "nothing is counted (README \"Profiling a job\")"},
    Setting{"FERRY_PROFILE_DIR", "",
            "The directory each rank keeps its FERRY_PROFILE counter file in: set by mpirun; without mpirun "
            "(srun), a directory every rank can write, from which rank 0 writes the report at MPI_Finalize"},
    Setting{"FERRY_WAIT", "auto",
            "How a blocking MPI call waits: spin, block (sleep in the kernel), or auto (block when ranks "
            "outnumber cores on the host, else spin briefly then block)"},
    Setting{"FERRY_SPIN_US", "200",
            "Microseconds a blocking call polls before it sleeps in the kernel (FERRY_WAIT=auto); longer than a "
            "peer's single copy of a 2 MiB exchange on the VM of docs/performance.md, whose wake-up would cost more "
            "than the wait. While a send that a peer copies straight out of this rank's memory is unanswered, and "
            "that copy may outlast this setting (FERRY_YIELD_US where ranks outnumber cores) at a planned 4 GB/s "
            "(a send of more than 800 KiB at the default), waits keep polling until it could have ended, at most "
            "10 ms"},
    Setting{"FERRY_YIELD_US", "1000",
            "Microseconds a blocking call polls, yielding the core between polls, before it sleeps in the kernel "
            "when waits block (ranks outnumber cores, or FERRY_WAIT=block)"},
    Setting{"FERRY_SLEEP_MS", "100",
            "Longest single sleep of a waiting call in the kernel, in milliseconds. A sleep ends as soon as "
            "work arrives; this only bounds what a missed wake-up could cost (tests raise it, so that a "
            "missed wake-up shows as a hang)"},
    Setting{"FERRY_TRANSPORTS", "shm,verbs,tcp",
            "Transports to use, comma-separated, in order of preference: shm (ranks on the same host), verbs "
            "(InfiniBand or RoCE; skipped for tcp when no RDMA device is usable and tcp is listed too) and tcp; "
            "\"tcp\" alone sends same-host traffic over TCP too"},
    Setting{"FERRY_SHM_CMA", "auto",
            "Same-host large messages: on (the receiver copies them straight out of the sender's memory with "
            "process_vm_readv, where the kernel allows it), off (pipelined copy through the shared-memory ring), "
            "or auto (on where a calibration at the first such message finds it faster than the ring)"},
    Setting{"FERRY_SHM_CMA_THRESHOLD", "8k",
            "Smallest same-host contiguous message read with process_vm_readv (FERRY_SHM_CMA), so its standard "
            "send completes once the receiver has read it, as Open MPI's do from 4 KiB (a program whose ranks "
            "both send before they receive, unsafe in MPI's terms, then waits; 64k keeps such sends of up to "
            "64 KiB buffered); smaller ones go through the shared-memory ring. Unset, under FERRY_SHM_CMA=auto, "
            "the first such message's calibration may raise it to the size where a read pays back its system "
            "call (up to 64 KiB, the ring's eager limit); set, it is taken as is"},
    Setting{"FERRY_RMA_SHM", "on",
            "One-sided communication with a same-host target: on (the origin itself loads, stores and updates the "
            "target's window memory: shared memory where Ferry allocated it, MPI_Alloc_mem memory included, "
            "cross-memory attach for other MPI_Win_create memory) or off (active messages that the target executes, "
            "as across hosts; MPI_Alloc_mem gives heap memory); off too when FERRY_TRANSPORTS lacks shm"},
    Setting{"FERRY_RMA_PROGRESS", "thread",
            "Passive-target one-sided communication from another host (or with FERRY_RMA_SHM=off): thread (an origin "
            "whose operation stays unanswered rings the target's doorbell, a UDP datagram, and a thread of the "
            "target's that sleeps on it runs the progress engine, so a target computing without MPI calls delays "
            "nobody) or calls (the target serves only inside its own MPI calls)"},
    Setting{"FERRY_RMA_TEST_RANKS_PER_HOST", "0",
            "Tests only: one-sided communication treats each N consecutive world ranks as one host (ranks of "
            "different groups reach each other by active messages and take locks through the target, as across "
            "hosts); 0: the real hosts"},
    Setting{"FERRY_CUDA", "auto",
            "GPU (CUDA) buffers: auto (load the driver libcuda.so.1 at MPI_Init if it is there, else host buffers "
            "only), on (a missing or unusable driver is a start-up error), or off (never load it)"},
    Setting{"FERRY_CUDA_IPC_THRESHOLD", "0",
            "Smallest same-host contiguous GPU message that the receiver copies straight out of the sender's GPU "
            "memory with CUDA IPC; smaller ones, and any CUDA IPC refuses, are staged through host memory"},
    Setting{"FERRY_CUDA_ONEPASS_THRESHOLD", "1048576",
            "Smallest MPI_Allreduce (bytes; for MPI_Reduce_scatter_block, MPI_Allgather and MPI_Bcast the whole "
            "result's) on a communicator of 2 to 8 ranks of one host that may run in one pass over CUDA IPC: one "
            "kernel per rank reduces its slice of every rank's GPU buffer into every rank's, or each rank copies "
            "the others' blocks (every rank's buffers GPU memory); negative: never"},
    Setting{"FERRY_CUDA_PROFILE", "0",
            "1: time every CUDA driver call Ferry makes and print, per process at MPI_Finalize, how often each "
            "ran and its mean time (a diagnostic; it adds two clock reads per call)"},
    Setting{"FERRY_TCP_EAGER_LIMIT", "65536",
            "Largest TCP message sent eagerly; larger ones use the rendezvous protocol"},
    Setting{"FERRY_TCP_FAMILY", "auto", "Address family for TCP connections: auto, ipv4 or ipv6"},
    Setting{"FERRY_TCP_INTERFACE", "",
            "Address or interface name to publish for TCP (default: all up interfaces, loopback for same-host peers)"},
    Setting{"FERRY_IB_DEVICE", "",
            "RDMA device and port for the verbs transport, as name[:port] (mlx5_0:1); default: the first "
            "active port of the first device"},
    Setting{"FERRY_IB_GID_INDEX", "",
            "GID table index for RoCE (show_gids lists them); default: a RoCE v2 entry, IPv4-mapped first"},
    Setting{"FERRY_IB_SL", "0", "InfiniBand service level of the verbs transport's queue pairs"},
    Setting{"FERRY_IB_TC", "0", "Traffic class (RoCE: DSCP << 2) of the verbs transport's queue pairs"},
    Setting{"FERRY_IB_EAGER_LIMIT", "8192",
            "Largest message the verbs transport sends eagerly (copied through receive buffers of this size); "
            "larger contiguous ones are read by the receiver with RDMA READ from the sender's buffer"},
    Setting{"FERRY_IB_CREDITS", "32",
            "Receive buffers the verbs transport posts per connected peer: eager frames in flight to one rank"},
    Setting{"FERRY_IB_REG_CACHE", "256m",
            "Bytes of memory registrations the verbs transport keeps after use, so a buffer sent again is not "
            "registered again; 0 turns the cache off"},
    Setting{"FERRY_CONNECT_TIMEOUT", "30",
            "Seconds to wait for a connection to a peer (TCP connect, verbs handshake) before failing"},
    Setting{"FERRY_PORT_TIMEOUT", "60",
            "Seconds MPI_Comm_connect waits for an MPI_Comm_accept on its port, and MPI_Comm_spawn for the "
            "spawned processes' MPI_Init, before failing (MPI_ERR_PORT, MPI_ERR_SPAWN)"},
    // Launcher (mpirun and its node daemons).
    Setting{"FERRY_LAUNCH_FANOUT", "8",
            "Children per process in the tree of node daemons (mpirun at the root): how many hosts any one "
            "of them starts and talks to"},
    Setting{"FERRY_LAUNCH_TIMEOUT", "30",
            "Seconds mpirun allows to reach a host and start its node daemon (ssh connect, authentication, start)"},
    Setting{"FERRY_DIRECT_MODEX_RANKS", "16384",
            "From this many ranks on (across hosts), a rank's contact card is fetched from its host when a "
            "peer first needs it, instead of every card reaching every host in MPI_Init's fence (0: never)"},
    // Collective algorithms (src/coll/select.cc): "auto" uses the selection table.
    Setting{"FERRY_ALLREDUCE_ALGORITHM", "auto",
            "Allreduce algorithm: ring, tree, recursive_doubling, rabenseifner, shared_memory, hierarchical or auto"},
    Setting{"FERRY_REDUCE_ALGORITHM", "auto", "Reduce algorithm: binomial, reduce_scatter_gather, shared_memory, hierarchical or auto"},
    Setting{"FERRY_REDUCE_SCATTER_ALGORITHM", "auto",
            "Reduce_scatter algorithm: pairwise, recursive_halving or auto"},
    Setting{"FERRY_REDUCE_SCATTER_BLOCK_ALGORITHM", "auto",
            "Reduce_scatter_block algorithm: pairwise, recursive_halving or auto"},
    Setting{"FERRY_SCAN_ALGORITHM", "auto", "Scan algorithm: recursive_doubling, pipelined_chain, shared_memory or auto"},
    Setting{"FERRY_EXSCAN_ALGORITHM", "auto", "Exscan algorithm: recursive_doubling, pipelined_chain, shared_memory or auto"},
    Setting{"FERRY_COLL_SEGMENT_SIZE", "256k",
            "Bytes per piece in pipelined collective algorithms (allreduce ring and tree, bcast and scan chains); the same on every rank"},
    Setting{"FERRY_COLL_MAX_SEGMENTS", "2",
            "Most segments the allreduce ring cuts one rank's block into (0: no limit); a larger block gets "
            "segments larger than FERRY_COLL_SEGMENT_SIZE; the same on every rank"},
    Setting{"FERRY_COLL_SHM", "auto",
            "Shared-memory collectives among the ranks of a communicator that all share one host (coll/shm): on, "
            "off, or auto (on unless the host's ranks outnumber its cores more than four times; README "
            "\"Collectives\"); the same on every rank"},
    Setting{"FERRY_COLL_SHM_CELL", "16k",
            "Bytes of each rank's cell in a communicator's shared-memory collective segment (four cells per rank); "
            "a collective whose data does not fit uses messages (a blocking bcast, gather, reduce, scan or exscan "
            "may stream through the cells in chunks of at most 64k instead). Unset, where the host's ranks "
            "outnumber its cores, 128k (up to 4 ranks) or 64k (5-16). The same on every rank"},
    Setting{"FERRY_COLL_SHM_AFTER", "4",
            "Blocking collectives a communicator runs by messages before it makes its shared-memory segment "
            "(coll/shm): one made, used a few times and freed never pays for a segment (0: at its first); a "
            "reduction of floating-point data or by a user operation makes it at once; the same on every rank"},
    Setting{"FERRY_COLL_SHM_SEGMENTS", "64",
            "Most shared-memory collective segments a process maps at once (one per communicator that uses them); "
            "communicators beyond it use messages, and a freed communicator's segment makes room (0: none)"},
    Setting{"FERRY_COLL_HIER", "auto",
            "Hierarchical collectives on a communicator spanning hosts (coll/hier: within each host through shared "
            "memory, among one leader per host by messages) where a host has 2 or more of the communicator's ranks: "
            "auto (the selection table's rows: allreduce, barrier, allgather, bcast up to 16 KiB), on (allreduce, "
            "reduce, bcast, barrier and allgather wherever it can run, whatever the size) or off; the same on every "
            "rank"},
    Setting{"FERRY_COLL_TEST_RANKS_PER_HOST", "0",
            "Tests only: the collectives treat each N consecutive world ranks as one host (shared-memory and "
            "hierarchical collectives as across hosts); 0: the real hosts"},
    Setting{"FERRY_BARRIER_ALGORITHM", "auto", "Barrier algorithm: dissemination, shared_memory, hierarchical or auto"},
    Setting{"FERRY_BCAST_ALGORITHM", "auto",
            "Bcast algorithm: binomial, scatter_ring_allgather, pipelined_chain, shared_memory, hierarchical or auto"},
    Setting{"FERRY_GATHER_ALGORITHM", "auto", "Gather algorithm: binomial, linear, shared_memory or auto"},
    Setting{"FERRY_SCATTER_ALGORITHM", "auto", "Scatter algorithm: binomial, linear, shared_memory or auto"},
    Setting{"FERRY_ALLGATHER_ALGORITHM", "auto", "Allgather algorithm: ring, recursive_doubling, bruck, shared_memory, hierarchical or auto"},
    Setting{"FERRY_ALLTOALL_ALGORITHM", "auto", "Alltoall algorithm: pairwise, bruck or auto"},
    // Checkpoint/restart (fault/): mpirun sets these for its ranks; a user may
    // set them by hand to run a program's hooks without mpirun's options.
    Setting{"FERRY_CHECKPOINT_DIR", "",
            "Directory that MPIX_Checkpoint commits epochs to and MPIX_Restore reads; empty: checkpoints go "
            "nowhere (mpirun --checkpoint-dir)"},
    Setting{"FERRY_CHECKPOINT_LOCAL_DIR", "",
            "Node-local directory (each host its own; %h becomes the host name) that MPIX_Checkpoint commits to "
            "with FERRY_CHECKPOINT_REDUNDANCY=partner (mpirun --checkpoint-local-dir)"},
    Setting{"FERRY_CHECKPOINT_REDUNDANCY", "none",
            "none: checkpoints go to FERRY_CHECKPOINT_DIR (shared); partner: to FERRY_CHECKPOINT_LOCAL_DIR, each "
            "rank's files copied to a rank on the next host (mpirun --checkpoint-redundancy)"},
    Setting{"FERRY_CHECKPOINT_TEST_RANKS_PER_HOST", "0",
            "Tests only: partner redundancy treats each N consecutive world ranks as one host named "
            "<host>-fake<K>; 0: the real hosts"},
    Setting{"FERRY_CHECKPOINT_KEEP", "2", "Complete checkpoint epochs kept; older ones are removed (mpirun --checkpoint-keep)"},
    Setting{"FERRY_RESTART_COUNT", "0",
            "How many times the launcher has restarted this job (set by mpirun --max-restarts; Slurm's "
            "SLURM_RESTART_COUNT is used when this is unset)"},
    Setting{"FERRY_RESTART_FROM", "latest",
            "Epoch that MPIX_Restore reads: latest, or an epoch number (mpirun --restart-from, -ckpoint-num)"},
};

const Setting* find(std::string_view name) {
  for (const Setting& s : kSettings)
    if (s.name == name) return &s;
  return nullptr;
}

const Setting& require(std::string_view name) {
  const Setting* s = find(name);
  if (s == nullptr) {
    std::fprintf(stderr, "ferry: internal error: setting %.*s is not registered\n", int(name.size()),
                 name.data());
    std::abort();
  }
  return *s;
}

std::optional<int64_t> parse_integer(std::string_view text) {
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  bool negative = false;
  if (text[0] == '-') {
    negative = true;
    i = 1;
  }
  if (i == text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
  int64_t v = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (v > (INT64_MAX - 9) / 10) return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  if (i < text.size()) {
    int shift = 0;
    switch (std::tolower(static_cast<unsigned char>(text[i]))) {
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      default: return std::nullopt;
    }
    ++i;
    if (i < text.size() && (text[i] == 'b' || text[i] == 'B')) ++i;
    if (i != text.size() || v > (INT64_MAX >> shift)) return std::nullopt;
    v <<= shift;
  }
  return negative ? -v : v;
}

std::optional<bool> parse_flag(std::string_view text) {
  std::string t(text);
  for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (t == "1" || t == "yes" || t == "true" || t == "on") return true;
  if (t == "0" || t == "no" || t == "false" || t == "off" || t.empty()) return false;
  return std::nullopt;
}

bool is_numeric_default(const Setting& s) { return parse_integer(s.default_value).has_value(); }

// Values a tool wrote (set()); they win over the environment. Guarded: a
// tool thread may write while another thread reads.
std::mutex written_mutex;
std::map<std::string, std::string, std::less<>> written;

}  // namespace

std::span<const Setting> all_settings() { return kSettings; }

std::string value(std::string_view name) {
  const Setting& s = require(name);
  {
    std::lock_guard lock(written_mutex);
    if (auto it = written.find(name); it != written.end()) return it->second;
  }
  if (const char* v = std::getenv(std::string(s.name).c_str())) return v;
  if (!s.alias.empty())
    if (const char* v = std::getenv(std::string(s.alias).c_str())) return v;
  return std::string(s.default_value);
}

bool is_set(std::string_view name) {
  const Setting& s = require(name);
  {
    std::lock_guard lock(written_mutex);
    if (written.find(name) != written.end()) return true;
  }
  return std::getenv(std::string(s.name).c_str()) != nullptr ||
         (!s.alias.empty() && std::getenv(std::string(s.alias).c_str()) != nullptr);
}

void set(std::string_view name, std::string text) {
  const Setting& s = require(name);
  std::lock_guard lock(written_mutex);
  written[std::string(s.name)] = std::move(text);
}

int64_t integer(std::string_view name) {
  const Setting& s = require(name);
  if (auto v = parse_integer(value(name))) return *v;
  return parse_integer(s.default_value).value_or(0);
}

bool flag(std::string_view name) {
  const Setting& s = require(name);
  if (auto v = parse_flag(value(name))) return *v;
  return parse_flag(s.default_value).value_or(false);
}

std::optional<std::string> validate() {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    if (!entry.starts_with("FERRY_")) continue;
    size_t eq = entry.find('=');
    std::string_view name = entry.substr(0, eq);
    std::string_view text = eq == std::string_view::npos ? "" : entry.substr(eq + 1);
    const Setting* s = find(name);
    if (s == nullptr) return "unknown setting " + std::string(name) + " (ferry_info lists the settings)";
    if (is_numeric_default(*s) && !parse_integer(text))
      return std::string(name) + "=" + std::string(text) + " is not a number";
  }
  return std::nullopt;
}

std::optional<std::string> environment(const char* name) {
  if (const char* v = std::getenv(name)) return std::string(v);
  return std::nullopt;
}

}  // namespace ferry::config
