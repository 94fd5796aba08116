// FERRY_PROFILE's counting in each rank: what the profile tool's wrappers of every MPI function
// (generated, bindings/gen_qmpi.py `profile`) call around the implementation.
//
// Cost: nothing at all when FERRY_PROFILE is unset, because the wrappers are a QMPI tool that is
// then never attached (api/qmpi.cc): the entry points see an empty slot, as without any tool.
// When it is set, a call pays a handful of adds into memory that is already there (no lock, no
// allocation, no system call; no locked add either, but from a second thread under
// MPI_THREAD_MULTIPLE: Threads below) and, when it is timed, two clock reads (see Sampling
// below). The counters sit in a shared mapping of a file (common/profile_layout.h) from MPI_Init
// on, so what a rank counted survives its crash; before MPI_Init (and for calls that come before
// it, MPI_Init itself included) they go to a static area that start() copies into the mapping.
//
// Threads: below MPI_THREAD_MULTIPLE one thread calls MPI at a time, so plain adds are exact. Under
// it (progress::threads_enabled, the same predictable branch the engine lock takes) the thread
// that initialised MPI (MPI_Init, MPI_Init_thread, or the first MPI_Session_init: the counting
// thread) still adds plainly into the counts (where.calls, where.peers), and every other thread
// adds with relaxed atomic adds into a second set of them (where.other_calls, where.other_peers),
// which the launcher adds in (common/profile_layout.h). So both sets stay exact, and a program
// that asks for MPI_THREAD_MULTIPLE but calls from one thread pays no locked add on an untimed
// call (lock xadd: a one-thread 8-byte ping-pong under MPI_THREAD_MULTIPLE paid 4% for them,
// issue 31). Only what every call adds is split (a call's bytes, size bucket or count; a send's
// peer): the times, added by timed calls only (Sampling), stay in one set, atomic under
// MPI_THREAD_MULTIPLE. The second set costs each rank's counter file 336 bytes per function
// counted and 16 per rank of the job: 205 KiB for today's 625 functions.
#pragma once

#include <atomic>
#include <cstdint>

#include "common/profile_layout.h"
#include "profile/clock.h"
#include "progress/progress.h"

namespace ferry::profile {

namespace layout = profile_layout;

// Where the counters are now: the static area, then the mapping. Only start() changes them.
struct Where {
  layout::Call* calls = nullptr;
  layout::Peer* peers = nullptr;      // nullptr until start(): no world yet
  uint64_t* peer_rma_bytes = nullptr;
  uint64_t* peer_rma_ops = nullptr;
  int world_size = 0;
  uint64_t* coll_table = nullptr;  // the collective choices, as installed in coll (choice_counters.h)
  layout::OtherThreadsCall* other_calls = nullptr;  // the other threads' counts (Threads above)
  layout::Peer* other_peers = nullptr;
};
extern Where where;

// Whether this thread is the counting thread (Threads above): set by start() on the first thread
// that calls it. Initial-exec, so that asking is one %fs-relative load (the general model calls
// __tls_get_addr in a shared library); where libmpi is opened with dlopen (mpi4py), its one byte
// comes from glibc's surplus of static TLS.
inline thread_local constinit bool counting_thread __attribute__((tls_model("initial-exec"))) = false;

// Whether this thread adds plainly into where.calls and where.peers: every thread below
// MPI_THREAD_MULTIPLE, the counting thread under it. The second test runs only under it.
inline bool counts_plainly() { return !progress::threads_enabled || counting_thread; }

// The number of functions counted: QMPI's plus the MPI-IO ones (set by the generated wrappers).
constexpr int kMaxCalls = 1024;

inline uint64_t now() { return clock::ticks(); }

// `atomic`: whether another thread may add to `counter` at once, read once by the caller for all
// its adds (progress::threads_enabled for the counters every thread shares; the other threads'
// set for note_call's and note_message's, Threads above).
inline void add(uint64_t& counter, uint64_t amount, bool atomic) {
  if (atomic)
    std::atomic_ref<uint64_t>(counter).fetch_add(amount, std::memory_order_relaxed);
  else
    counter += amount;
}
inline void add(uint64_t& counter, uint64_t amount) { add(counter, amount, progress::threads_enabled); }

// A call's counts into `c` (a Call, or another thread's OtherThreadsCall): `bytes` < 0 when the
// call moves no data.
template <class Counts>
inline void count_call(Counts& c, int64_t bytes, bool atomic) {
  if (bytes < 0) return add(c.count, 1, atomic);
  add(c.bytes, uint64_t(bytes), atomic);
  add(c.sizes[layout::bucket(uint64_t(bytes))], 1, atomic);
}

// A call of function `index` (QMPI's enumerator, or past it for the MPI-IO functions); `bytes` < 0
// when the call moves no data (no size histogram entry). Every call is counted, timed or not: one
// that moves data in its size bucket, the others in `count` (common/profile_layout.h Call).
inline void note_call(int index, int64_t bytes) {
  if (counts_plainly()) return count_call(where.calls[index], bytes, false);
  count_call(where.other_calls[index], bytes, true);
}

// note_call of a call that moves `bytes` >= 0, when the caller has seen counts_plainly(): the
// wrappers' inline path for MPI_Send, MPI_Recv and the like, two plain adds in the Call's first
// line for a short message.
inline void note_sized_call(int index, uint64_t bytes) {
  layout::Call& c = where.calls[index];
  c.bytes += bytes;
  c.sizes[layout::bucket(bytes)] += 1;
}

// Sampling: which calls are timed. Two reads of the TSC cost 15-100 ns in this project's VMs (a few
// on bare metal), which is 6-13% of an 8-byte ping-pong if every MPI_Send and MPI_Recv is timed. So
// a function is timed on every call only while its calls are long next to that (mean of its timed
// calls >= long_ticks, 5 us: at most ~2% added), and its first kWarmup calls, which learn that
// mean; shorter ones are timed on one call in kSampleGap on average (256: a timed call's clock
// reads, 17-30 ns each here, and its bookkeeping, 76 instructions for MPI_Send and 496 for
// MPI_Recv, whose late-partner wait takes the receive off its inline path, then add under 3
// instructions and 0.3 ns per call; at 64, 9 instructions per MPI_Send + MPI_Recv pair and
// 5 clock reads in 64 pairs), at gaps drawn at random so
// that a program's own period (every other receive waiting for a late partner) cannot line up
// with the sampling. The report counts the forced calls (warm-up, slow phase) once each and scales
// only the sampled ones to the calls that were not forced: forced_ticks + sampled ticks x
// (count - forced) / sampled (common/profile_layout.h). Exact where every call was timed; scaling
// every timed call instead made the first, slowest calls (first contact, a late partner) stand for
// ~174 calls each and put 8-byte MPI_Recv loops at 10x their time (issue 31). Until a function's
// first sample only its forced calls count: a lower bound.
// The countdown of untimed calls before a function's next timed one is its Call's untimed_left,
// in the line the call counts into.
struct Sampling {
  static constexpr uint64_t kWarmup = 32;
  static constexpr uint32_t kSampleGap = 256;
  uint64_t long_ticks = 0;        // set by attach(), from the clock's rate
  uint32_t random = 0x9e3779b9u;  // xorshift32 state: gaps, not security
};
extern Sampling sampling;

// Whether this call of function `index` is to be timed (then: now() around it, note_time after).
// Always inline: LTO left it a call in MPI_Wait's wrapper (13 instructions per call, 5 inline).
inline __attribute__((always_inline)) bool timing_due(int index) {
  std::atomic_ref<uint32_t> skip(where.calls[index].untimed_left);  // threads may race here: a lost update
  uint32_t left = skip.load(std::memory_order_relaxed);  // only moves a sample by a call
  if (left == 0) return true;
  skip.store(left - 1, std::memory_order_relaxed);
  return false;
}

// The time of a timed call of function `index`, and when to time it next.
// Whether this call was forced is decided from the counts it was chosen under, before its own add
// (what the previous note_time decided; with threads, a race may class one call wrongly).
inline bool forced_timing(uint64_t timed, uint64_t total) {
  return timed < Sampling::kWarmup || total >= sampling.long_ticks * timed;
}
inline void note_time(int index, uint64_t ticks) {
  layout::Call& c = where.calls[index];
  uint64_t timed = std::atomic_ref<uint64_t>(c.timed).load(std::memory_order_relaxed);
  uint64_t total = std::atomic_ref<uint64_t>(c.ticks).load(std::memory_order_relaxed);
  if (forced_timing(timed, total)) {
    add(c.forced, 1);
    add(c.forced_ticks, ticks);
  }
  add(c.timed, 1);
  add(c.ticks, ticks);
  timed += 1, total += ticks;
  uint32_t skip = 0;
  if (!forced_timing(timed, total)) {
    std::atomic_ref<uint32_t> state(sampling.random);
    uint32_t x = state.load(std::memory_order_relaxed);
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    state.store(x, std::memory_order_relaxed);
    skip = x % (2 * Sampling::kSampleGap - 1);  // 0 .. 2 gap - 2 skipped: one call in kSampleGap timed
  }
  std::atomic_ref<uint32_t>(c.untimed_left).store(skip, std::memory_order_relaxed);
}

// `ticks` of a measured call of function `index` spent waiting for a late partner
// (src/profile/late_partners.h). `weight`: the calls it stands for, 1 but for a sampled
// nonblocking or persistent collective's Wait (kSampleOneIn of them, src/profile/companions.h):
// its ticks count that many times, and so does the call in `waits`, so that the report's
// estimate (common/profile_layout.h) is of the weighted mean over the measured calls.
// Called before the call's note_time, so that its counts say whether the call was forced: the
// report counts a forced call's wait as it was and scales the others' to the calls not counted
// so. A weighted wait is a sample even in a forced call: how many calls it stands for is only
// kSampleOneIn on average (the companions' gaps are drawn), and counted as it was, a 4,000-call
// MPI_Iallreduce + MPI_Wait loop whose every Wait was timed reported 9 samples of 512 as 4,640
// calls' waits (1.15x).
inline void note_wait(int index, uint64_t ticks, uint64_t weight = 1) {
  layout::Call& c = where.calls[index];
  add(c.wait_ticks, ticks * weight);
  add(c.waits, weight);
  if (weight == 1 && forced_timing(std::atomic_ref<uint64_t>(c.timed).load(std::memory_order_relaxed),
                                   std::atomic_ref<uint64_t>(c.ticks).load(std::memory_order_relaxed))) {
    add(c.forced_wait_ticks, ticks * weight);
    add(c.forced_waits, weight);
  }
}

// A point-to-point message of `bytes` to world rank `peer` (a send's start).
inline void note_message(int peer, uint64_t bytes) {
  if (unsigned(peer) >= unsigned(where.world_size)) return;  // MPI_PROC_NULL, or a peer of another job
  bool plain = counts_plainly();
  layout::Peer& p = plain ? where.peers[peer] : where.other_peers[peer];
  add(p.bytes, bytes, !plain);
  add(p.messages, 1, !plain);
}

// note_message when the caller has seen counts_plainly() (as note_sized_call).
inline void note_message_alone(int peer, uint64_t bytes) {
  if (unsigned(peer) >= unsigned(where.world_size)) return;
  layout::Peer& p = where.peers[peer];
  p.bytes += bytes;
  p.messages += 1;
}

// A one-sided operation moving `bytes` (the origin's side) on world rank `peer`'s window memory.
// One set for every thread (no second one as for messages: one-sided calls from several threads
// at once are rare), so atomic under MPI_THREAD_MULTIPLE, whoever calls.
inline void note_one_sided(int peer, uint64_t bytes) {
  if (unsigned(peer) >= unsigned(where.world_size)) return;  // MPI_PROC_NULL
  add(where.peer_rma_bytes[peer], bytes);
  add(where.peer_rma_ops[peer], 1);
}

// Set when the profile tool is attached: the generated MPI_File_ entry points then go through
// the profile's wrappers (MPI-IO is outside QMPI, as in MPICH).
extern bool io_enabled;

// The profile tool's attachment (the process's first MPI call): chooses the clock.
void attach();

// MPI_Init's (or MPI_Init_thread's, or MPI_Session_init's) return: maps this rank's file in FERRY_PROFILE_DIR, moves the
// counts so far into it, installs the collective choice table and writes the job's facts.
// `names[i]` names function i, for the report. Prints one line and counts on in memory only if
// the file cannot be made.
void start(const char* const* names, int num_calls);

// MPI_Finalize's start: the end time and each peer's transport (routes are all known by then).
void finishing();
// MPI_Finalize's return: marks the file complete.
void finished();
// The same around MPI_Session_finalize, for a program that uses sessions only (a program that
// called MPI_Init finishes at MPI_Finalize). A session opened after it marks the file running
// again (start()).
void session_finishing();
void session_finished();

}  // namespace ferry::profile
