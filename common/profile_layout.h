// FERRY_PROFILE: the layout of one rank's counter file, the contract between the rank that
// counts (src/profile/) and the launcher that reads every rank's file and writes the report
// (launcher/profile/profile_*.cc).
//
// Why a file and not a message at MPI_Finalize: the counters live in a shared mapping of a file in
// the job's session directory from MPI_Init on, so a rank that crashes, is killed or never reaches
// MPI_Finalize still leaves what it counted, and the launcher (which outlives every rank) reads it;
// `state` says whether the rank finished. The file describes itself (the names of the calls and of
// the collective operations and algorithms are in it), so the launcher needs no table of MPI's
// functions and a rank built from another revision is still read correctly as long as `version`
// matches.
//
// A rank's file is <FERRY_PROFILE_DIR>/<PMIx namespace>.rank.<world rank>.
//
// One writer per file (its rank; under MPI_THREAD_MULTIPLE several threads of it, see
// src/profile/counters.h), plain 64-bit stores: a reader may see a counter one update behind.
// Under MPI_THREAD_MULTIPLE the calls and messages of the threads other than the one that
// initialised MPI are counted apart (other_calls, other_peers), and the reader adds them in.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::profile_layout {

constexpr uint64_t kMagic = 0x314c4946524f5250ull;  // "PROFIL1" little-endian
constexpr uint32_t kVersion = 6;  // 6: the other threads' counts (other_calls_offset, other_peers_offset)

// Message and access sizes in log2 buckets: bucket 0 holds 0 bytes, bucket b (1..kBuckets-2)
// holds [2^(b-1), 2^b), the last everything from 2^(kBuckets-2) up.
constexpr int kBuckets = 40;
inline int bucket(uint64_t bytes) {
  if (bytes == 0) return 0;
  int b = 64 - __builtin_clzll(bytes);  // 1 for 1 byte, 2 for 2-3, ...
  return b < kBuckets - 1 ? b : kBuckets - 1;
}

constexpr int kNameBytes = 48;    // an MPI function's name with its NUL (the longest is 32 characters)
constexpr int kMaxFiles = 64;     // MPI-IO files counted by name; later ones share the last slot
constexpr int kFileNameBytes = 256;
constexpr int kCollSlots = 16;    // collective operations and algorithms (coll/select.h), names in the file
constexpr int kTransportBytes = 8;

enum State : uint32_t { kRunning = 0, kFinalized = 1 };

// One MPI function's counts, laid out for the call that counts them (src/profile/counters.h): a
// call that moves data adds to `bytes` and to one size bucket, and a call of up to 31 bytes
// (buckets 0-5) finds both, and the sampling countdown, in the first 64 bytes of its Call (the
// array starts on a 64-byte boundary and a Call is seven lines long). So a call's count is not a
// counter of its own: `count` counts the calls that move no data (bytes < 0 in note_call), and the
// function's calls are count + the sum of `sizes` (the launcher adds them up when it reads a file).
// `bytes`: count x datatype size of the call's (send) buffer argument as the program passed it (a
// receive's posted size, a collective's per-call contribution).
// Times are in ticks of the rank's clock (Header::ticks_per_second; src/profile/clock.h), summed
// over the `timed` calls of all of them (short calls are sampled, src/profile/counters.h). Of
// those, `forced` calls (`forced_ticks`) were timed because they had to be (the warm-up, the slow
// phase) and the rest on a sample: the function's time is forced_ticks + (ticks - forced_ticks) x
// (calls - forced) / (timed - forced). The forced calls are a function's first and slowest, so
// they count once each; scaled like the sample they would stand for hundreds of fast calls.
// `wait_ticks`: of those ticks, the part spent waiting for a late partner (src/profile/late_partners.h
// says what is measured for which call), summed over the `waits` calls it was measured on (a
// sampled nonblocking collective's Wait counts in both as the calls it stands for, counters.h
// note_wait): the function's wait is forced_wait_ticks + the rest x (calls - forced_waits) /
// (waits - forced_waits), as for its time; forced_waits counts the forced calls whose wait was
// measured with weight 1 (a weighted one is a sample, and an unmeasured one is stood for by it).
// `untimed_left`: the rank's sampling state (counters.h Sampling), not a count: calls left before
// the next timed one.
struct alignas(64) Call {
  uint32_t untimed_left;
  uint32_t reserved;
  uint64_t bytes;
  uint64_t sizes[kBuckets];
  uint64_t count;
  uint64_t timed;
  uint64_t ticks;
  uint64_t wait_ticks;
  uint64_t waits;
  // The part of timed, ticks, waits and wait_ticks from the calls timed because they had to be
  // (counters.h Sampling): only timed calls touch these.
  uint64_t forced;
  uint64_t forced_ticks;
  uint64_t forced_waits;
  uint64_t forced_wait_ticks;
};
static_assert(sizeof(Call) == 7 * 64 && offsetof(Call, sizes) + 6 * 8 == 64);

// The counts of a Call that every call adds to (its bytes, its size bucket or `count`), as the
// threads other than the rank's counting thread add them under MPI_THREAD_MULTIPLE
// (src/profile/counters.h, Threads): the function's calls, bytes and sizes are its Call's plus
// these. Their times, which only timed calls add, stay in the Call.
struct OtherThreadsCall {
  uint64_t bytes;
  uint64_t sizes[kBuckets];
  uint64_t count;
};

// The point-to-point messages a rank sent to one world rank: a send adds to both, in one line.
// A Peer of other_peers: those its other threads sent (as OtherThreadsCall).
struct Peer {
  uint64_t bytes;
  uint64_t messages;  // persistent sends at each start
};

// One MPI-IO file (by the name given to MPI_File_open), as Darshan's MPI-IO module counts.
struct File {
  char name[kFileNameBytes];
  uint64_t opens;
  uint64_t bytes_read, bytes_written;
  uint64_t reads, writes;                          // data access calls
  uint64_t collective_accesses, independent_accesses;
  uint64_t ticks;                                  // in every MPI_File_ call on it, open and close too
  uint64_t sizes[kBuckets];                        // access sizes, reads and writes
  uint64_t aggregations;                           // two-phase collective accesses it aggregated
  uint64_t aggregated_bytes;                       // moved to or from the file as their aggregator
};

struct Header {
  uint64_t magic;
  uint32_t version;
  uint32_t state;             // State; kFinalized once MPI_Finalize returned
  int32_t rank, size;         // in MPI_COMM_WORLD
  int32_t pid, restart_count;
  int64_t start_ns, end_ns;   // CLOCK_REALTIME at MPI_Init's return and MPI_Finalize's start (0: not yet)
  double ticks_per_second;    // of the times below
  char host[64];
  char binding[64];           // the CPUs this rank may run on (sched_getaffinity), "0-3,8"
  uint32_t num_calls;         // entries of the names and calls arrays
  uint32_t num_files;         // File slots in use
  uint64_t names_offset;      // char[num_calls][kNameBytes]
  uint64_t calls_offset;      // Call[num_calls]
  uint64_t peers_offset;      // Peer[size]: point-to-point bytes and messages sent to each world rank
  uint64_t peer_rma_bytes_offset;  // uint64_t[size]: one-sided bytes to each target (put, get, accumulate, ...)
  uint64_t peer_rma_ops_offset;    // uint64_t[size]: one-sided operations on each
  uint64_t transports_offset;     // char[size][kTransportBytes]: the transport that reaches each
  uint64_t files_offset;          // File[kMaxFiles]
  uint64_t coll_names_offset;     // char[2][kCollSlots][kNameBytes]: operations, then algorithms
  uint64_t coll_offset;           // uint64_t[kCollSlots op][kCollSlots algorithm][kBuckets bytes]
  uint64_t other_calls_offset;    // OtherThreadsCall[num_calls]: added to calls' counts
  uint64_t other_peers_offset;    // Peer[size]: added to peers'
  uint64_t total_bytes;           // of the whole file
};

// Where each part lies in a file for `num_calls` functions and `size` ranks.
inline Header layout(uint32_t num_calls, int32_t size) {
  auto align = [](uint64_t n) { return (n + 63) & ~uint64_t(63); };
  Header h{};
  h.magic = kMagic;
  h.version = kVersion;
  h.size = size;
  h.num_calls = num_calls;
  uint64_t at = align(sizeof(Header));
  h.names_offset = at;
  at = align(at + uint64_t(num_calls) * kNameBytes);
  h.calls_offset = at;
  at = align(at + uint64_t(num_calls) * sizeof(Call));
  h.peers_offset = at;
  at = align(at + uint64_t(size) * sizeof(Peer));
  h.peer_rma_bytes_offset = at;
  at = align(at + uint64_t(size) * 8);
  h.peer_rma_ops_offset = at;
  at = align(at + uint64_t(size) * 8);
  h.transports_offset = at;
  at = align(at + uint64_t(size) * kTransportBytes);
  h.files_offset = at;
  at = align(at + kMaxFiles * sizeof(File));
  h.coll_names_offset = at;
  at = align(at + 2 * kCollSlots * kNameBytes);
  h.coll_offset = at;
  at = align(at + uint64_t(kCollSlots) * kCollSlots * kBuckets * 8);
  h.other_calls_offset = at;
  at = align(at + uint64_t(num_calls) * sizeof(OtherThreadsCall));
  h.other_peers_offset = at;
  at = align(at + uint64_t(size) * sizeof(Peer));
  h.total_bytes = at;
  return h;
}

}  // namespace ferry::profile_layout
