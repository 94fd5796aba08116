// The life of a rank's counter file (profile/counters.h): made and mapped at MPI_Init's return,
// completed at MPI_Finalize, never unmapped (a call after MPI_Finalize, MPI_Finalized say, still
// counts into it; the kernel writes the pages back whenever the process ends, crash included).
#include "profile/counters.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "coll/choice_counters.h"
#include "coll/select.h"
#include "common/config.h"
#include "p2p/engine.h"
#include "profile/companions.h"
#include "profile/files.h"
#include "profile/report_without_mpirun.h"
#include "runtime/checkpoint.h"
#include "runtime/runtime.h"

namespace ferry::profile {

namespace {

// Counts of the calls before MPI_Init has told us who we are (the other threads' too).
layout::Call early_calls[kMaxCalls];
layout::OtherThreadsCall early_other_calls[kMaxCalls];

char* mapping = nullptr;  // the file's bytes, or nullptr (no file: counting goes on in memory)

layout::Header& header() { return *reinterpret_cast<layout::Header*>(mapping); }
template <class T>
T* part(uint64_t offset) {
  return reinterpret_cast<T*>(mapping + offset);
}

int64_t realtime_ns() {
  timespec t;
  ::clock_gettime(CLOCK_REALTIME, &t);
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

void copy_text(char* to, size_t capacity, const std::string& text) {
  std::strncpy(to, text.c_str(), capacity - 1);
  to[capacity - 1] = '\0';
}

// The CPUs this rank may run on, as ranges ("0-3,8"): its binding, whoever set it.
std::string binding() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return "";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += ',';
    out += std::to_string(c);
    if (last > c) out += '-' + std::to_string(last);
    c = last;
  }
  return out;
}

// Makes and maps <dir>/<namespace>.rank.<r>, or says why not. The job's PMIx namespace keeps apart
// the attempts of a restarted job (ferry.<pid>.r1, ...) and the jobs it spawns (ferry.<pid>.1, ...),
// whose world ranks start at 0 too.
char* map_file(const std::string& dir, const std::string& nspace, int rank, uint64_t bytes, std::string* why) {
  std::string path = dir + "/" + nspace + ".rank." + std::to_string(rank);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    *why = path + ": " + std::strerror(errno);
    return nullptr;
  }
  // posix_fallocate, not ftruncate: a full disk is then an error now, not a SIGBUS later.
  int e = ::posix_fallocate(fd, 0, off_t(bytes));
  void* m = e == 0 ? ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (m == MAP_FAILED) *why = path + ": " + std::strerror(e != 0 ? e : errno);
  ::close(fd);
  return m == MAP_FAILED ? nullptr : static_cast<char*>(m);
}

}  // namespace

Where where = {early_calls, nullptr, nullptr, nullptr, 0, nullptr, early_other_calls, nullptr};
Sampling sampling;
bool io_enabled = false;

namespace {
double ticks_per_second = 1e9;
}

void attach() {
  ticks_per_second = clock::calibrate();
  sampling.long_ticks = uint64_t(5e-6 * ticks_per_second);  // 5 us: see Sampling
  io_enabled = true;
  companions::watch();
}

void start(const char* const* names, int num_calls) {
  // The first thread here (MPI_Init's or MPI_Init_thread's, or the first MPI_Session_init's) is
  // the counting thread from now on (counters.h Threads), whether or not a file is made.
  static std::atomic<bool> claimed{false};
  if (!claimed.exchange(true, std::memory_order_relaxed)) counting_thread = true;
  if (!runtime::active()) return;
  if (mapping != nullptr) {
    // A session opened again after the last one closed: the rank is running again.
    std::atomic_ref<uint32_t>(header().state).store(layout::kRunning, std::memory_order_release);
    return;
  }
  const pmi::Job& job = runtime::job();
  std::string dir = config::value("FERRY_PROFILE_DIR");
  if (dir.empty()) {
    // Without mpirun (srun, a singleton) nobody made a directory for the files: the user names one
    // that every rank can write, and rank 0 writes the report from it at the end
    // (profile/report_without_mpirun.h; README "Profiling a job").
    if (job.rank == 0)
      std::fprintf(stderr,
                   "ferry: FERRY_PROFILE without mpirun: nothing is counted unless FERRY_PROFILE_DIR names a directory "
                   "every rank can write\n");
    return;
  }
  layout::Header h = layout::layout(uint32_t(num_calls), job.size);
  std::string why;
  mapping = map_file(dir, job.nspace, job.rank, h.total_bytes, &why);
  if (mapping == nullptr) {
    std::fprintf(stderr, "ferry: rank %d: FERRY_PROFILE: cannot make the counter file %s; counts are lost\n",
                 job.rank, why.c_str());
    return;
  }
  note_launcher(dir, job.nspace, job.rank);
  h.rank = job.rank;
  h.pid = int32_t(::getpid());
  h.restart_count = runtime::checkpoint::restart_count();
  h.start_ns = realtime_ns();
  h.ticks_per_second = ticks_per_second;
  copy_text(h.host, sizeof h.host, job.hostname);
  copy_text(h.binding, sizeof h.binding, binding());
  std::memcpy(mapping, &h, sizeof h);

  char* name_table = part<char>(h.names_offset);
  for (int i = 0; i < num_calls; ++i)
    if (names[i] != nullptr) copy_text(name_table + size_t(i) * layout::kNameBytes, layout::kNameBytes, names[i]);
  char* coll_names = part<char>(h.coll_names_offset);
  for (int s = 0; s < layout::kCollSlots; ++s) {
    copy_text(coll_names + size_t(s) * layout::kNameBytes, layout::kNameBytes, coll::name(coll::Operation(s)));
    copy_text(coll_names + size_t(layout::kCollSlots + s) * layout::kNameBytes, layout::kNameBytes,
              coll::name(coll::Algorithm(s)));
  }

  // The counts so far (MPI_Init's own is added by its wrapper after this returns).
  auto* calls = part<layout::Call>(h.calls_offset);
  std::memcpy(calls, early_calls, sizeof(layout::Call) * size_t(num_calls));
  auto* other_calls = part<layout::OtherThreadsCall>(h.other_calls_offset);
  std::memcpy(other_calls, early_other_calls, sizeof(layout::OtherThreadsCall) * size_t(num_calls));
  files::move_to(part<layout::File>(h.files_offset), &header().num_files);
  where = {calls,
           part<layout::Peer>(h.peers_offset),
           part<uint64_t>(h.peer_rma_bytes_offset),
           part<uint64_t>(h.peer_rma_ops_offset),
           job.size,
           part<uint64_t>(h.coll_offset),
           other_calls,
           part<layout::Peer>(h.other_peers_offset)};
  coll::set_profile_table(where.coll_table);
}

void finishing() {
  if (mapping == nullptr) return;
  layout::Header& h = header();
  h.end_ns = realtime_ns();
  char* names = part<char>(h.transports_offset);
  for (int peer = 0; peer < h.size; ++peer) {
    const char* t = peer == h.rank ? "self" : p2p::route_name(peer);
    copy_text(names + size_t(peer) * layout::kTransportBytes, layout::kTransportBytes, t != nullptr ? t : "");
  }
}

void finished() {
  if (mapping == nullptr) return;
  std::atomic_ref<uint32_t>(header().state).store(layout::kFinalized, std::memory_order_release);
  write_report_without_mpirun();
}

void session_finishing() {
  if (runtime::initialized()) return;
  // The last session (no world model): its companions end here, as MPI_Finalize's do.
  companions::finish();
  finishing();
}

void session_finished() {
  if (!runtime::initialized()) finished();
}

}  // namespace ferry::profile
