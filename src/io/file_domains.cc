// Collective IO, phase 2: who aggregates which part of the file (ROMIO's
// ADIOI_Calc_aggregator and ADIOI_Calc_file_domains, read as one step).
//
// Cost: one allgather of twelve 64-bit words per process; the rest is local
// arithmetic over the processes, the same on every one of them.
//
// Steered by cb_nodes and cb_config_list (how many aggregators, default
// one per host), striping_unit (where domains begin) and cb_buffer_size
// with ferry_cb_double_buffer (how many rounds: windows of a third of it
// when double-buffered, else of a half). Process 0's values are used everywhere: the plan must
// be the same on every process, or the rounds would not match.
#include <sys/vfs.h>

#include <algorithm>
#include <map>

#include "base/datatype.h"
#include "coll/collectives.h"
#include "io/two_phase.h"
#include "runtime/runtime.h"

namespace ferry::io {
namespace {

constexpr int kWords = sizeof(RankRange) / sizeof(int64_t);
static_assert(sizeof(RankRange) == kWords * sizeof(int64_t));

// The host of this process, named by the lowest world rank on it: every
// process of a host reads the same PMIx locality (PMIX_LOCAL_PEERS).
int64_t my_host() {
  const std::vector<int>& peers = runtime::job().local_peers;
  if (peers.empty()) return runtime::job().rank;
  return *std::min_element(peers.begin(), peers.end());
}

uint64_t round_up(uint64_t v, uint64_t unit) { return (v + unit - 1) / unit * unit; }

}  // namespace

uint64_t mean_piece(const FlatAccess& access) {
  // A sample is enough to tell 1 KiB pieces from 256 KiB ones, and bounds
  // the cost for an access of millions of runs: 64 KiB of it first (at
  // most 16 Ki runs of 4 bytes), more only while the pieces look long.
  struct Pieces final : type::RunVisitor {
    uint64_t pieces = 0, end = ~uint64_t{0};
    void run(uint64_t offset, uint64_t bytes) override {
      if (offset != end) ++pieces;  // else it continues the last one
      end = offset + bytes;
    }
  } count;
  uint64_t counted = 0;
  for (uint64_t sample : {uint64_t{64} << 10, uint64_t{512} << 10, uint64_t{4} << 20}) {
    const uint64_t upto = std::min(access.bytes(), sample);
    access.runs(counted, upto, count);
    counted = upto;
    if (counted == access.bytes() || (count.pieces >= 2 && counted / count.pieces < kDirectPiece)) break;
  }
  return count.pieces == 0 ? 0 : counted / count.pieces;
}

bool on_local_file_system(int fd) {
  struct statfs fs {};
  if (::fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<uint64_t>(fs.f_type)) {
    case 0xEF53:      // ext2, ext3, ext4
    case 0x58465342:  // XFS
    case 0x9123683E:  // Btrfs
    case 0x01021994:  // tmpfs
    case 0xF2F52010:  // F2FS
    case 0x2FC12FC1:  // ZFS
    case 0x794C7630:  // overlayfs (containers), over one of these
      return true;
    default:  // NFS, Lustre, GPFS, BeeGFS, CephFS, ...: ROMIO's rule alone
      return false;
  }
}

Err exchange_ranges(File& f, const FlatAccess& access, int64_t flags, Use use, RankRange* mine,
                    std::vector<RankRange>* all) {
  const Hints& h = f.tuning;
  *mine = RankRange{flags,
                    static_cast<int64_t>(access.first()),
                    static_cast<int64_t>(access.end()),
                    static_cast<int64_t>(access.bytes()),
                    my_host(),
                    static_cast<int64_t>(h.cb_buffer_size),
                    h.cb_nodes,
                    h.per_host,
                    static_cast<int64_t>(use),
                    static_cast<int64_t>(h.striping_unit),
                    h.double_buffer == Use::kDisable ? 0 : 1,
                    f.local_fs && use == Use::kAutomatic ? static_cast<int64_t>(mean_piece(access)) : 0};
  all->resize(static_cast<size_t>(f.comm->size));
  return coll::allgather(mine, kWords, find_datatype(MPI_INT64_T), all->data(), kWords, find_datatype(MPI_INT64_T),
                         f.comm);
}

void plan_domains(File& f, std::vector<RankRange> ranges, Plan* plan) {
  const int size = f.comm->size;
  const RankRange& zero = ranges[0];
  // The collective buffer, cb_buffer_size in all, is divided between the
  // blocks and one landing area (io/two_phase_write.cc says why a landing
  // area rather than receiving into the block): double-buffered (as
  // ROMIO's GPFS driver does for its threaded IO: one round's block is
  // written or read on the I/O worker while the other takes the next
  // round) two blocks and the landing area, a third each; else one block
  // and the landing area, a half each. Windows are whole pages where they
  // can be, so that every block but a domain's last is written in whole
  // pages; the landing area takes the rest (at least a window).
  const uint64_t budget = static_cast<uint64_t>(zero.cb_buffer_size);
  plan->double_buffered = zero.double_buffer != 0 && budget >= 3;
  const uint64_t parts = plan->double_buffered ? 3 : 2;
  const uint64_t blocks = parts - 1;
  constexpr uint64_t kPage = 4096;
  plan->window = std::max<uint64_t>(budget / parts, 1);
  if (plan->window >= kPage) plan->window -= plan->window % kPage;
  // A cb_buffer_size of 1 byte is the one budget that cannot be kept: a
  // block of 1 and a landing area of 1.
  plan->landing = std::max<uint64_t>(budget > blocks * plan->window ? budget - blocks * plan->window : 0, 1);

  // The aggregate access: processes with no data do not stretch it.
  bool any = false;
  for (const RankRange& r : ranges) {
    if (r.bytes == 0) continue;
    plan->total_bytes += static_cast<uint64_t>(r.bytes);
    plan->first = any ? std::min(plan->first, static_cast<uint64_t>(r.first)) : static_cast<uint64_t>(r.first);
    plan->end = std::max(plan->end, static_cast<uint64_t>(r.end));
    any = true;
  }

  // Aggregators: the processes of each host in rank order, taken round
  // robin over the hosts (so that consecutive domains sit on different
  // hosts, and N per host are the first N of each), as many as cb_nodes
  // says, else per_host on every host.
  std::map<int64_t, std::vector<int>> by_host;
  std::vector<int64_t> host_order;
  for (int r = 0; r < size; ++r) {
    auto [it, fresh] = by_host.try_emplace(ranges[static_cast<size_t>(r)].host);
    if (fresh) host_order.push_back(it->first);
    it->second.push_back(r);
  }
  plan->hosts = static_cast<int>(host_order.size());
  std::vector<int> candidates;
  candidates.reserve(static_cast<size_t>(size));
  for (size_t depth = 0; candidates.size() < static_cast<size_t>(size); ++depth)
    for (int64_t host : host_order) {
      const std::vector<int>& members = by_host[host];
      if (depth < members.size()) candidates.push_back(members[depth]);
    }
  // Depth-first over the hosts, so per_host on every host is a prefix.
  int64_t wanted = 0;
  if (zero.cb_nodes > 0) wanted = zero.cb_nodes;
  else
    for (int64_t host : host_order) wanted += std::min<int64_t>(zero.per_host, by_host[host].size());
  wanted = std::clamp<int64_t>(wanted, 1, size);
  candidates.resize(static_cast<size_t>(wanted));
  plan->aggregators = std::move(candidates);

  // File domains: the aggregate range cut into equal parts whose inner
  // boundaries fall on multiples of striping_unit (a stripe, or a page, is
  // then written by one aggregator only: no false sharing of locks or
  // pages between them).
  const size_t n = plan->aggregators.size();
  const uint64_t unit = static_cast<uint64_t>(zero.striping_unit);
  const uint64_t span = plan->end - plan->first;
  const uint64_t share = span == 0 ? 0 : (span + n - 1) / n;
  plan->domain_lo.resize(n);
  plan->domain_hi.resize(n);
  uint64_t lo = plan->first;
  for (size_t i = 0; i < n; ++i) {
    uint64_t hi = i + 1 == n ? plan->end : std::min(plan->end, round_up(plan->first + share * (i + 1), unit));
    hi = std::max(hi, lo);
    plan->domain_lo[i] = lo;
    plan->domain_hi[i] = hi;
    lo = hi;
  }

  // Rounds: the largest domain, one buffer at a time.
  uint64_t largest = 0;
  for (size_t i = 0; i < n; ++i) largest = std::max(largest, plan->domain_hi[i] - plan->domain_lo[i]);
  plan->rounds = static_cast<int64_t>((largest + plan->window - 1) / plan->window);
  for (size_t i = 0; i < n; ++i)
    if (plan->aggregators[i] == f.comm->rank) plan->my_domain = static_cast<int>(i);
  plan->ranges = std::move(ranges);
}

}  // namespace ferry::io
