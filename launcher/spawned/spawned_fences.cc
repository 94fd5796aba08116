#include "launcher/spawned/spawned_fences.h"

#include "common/debug.h"
#include "launcher/tree/wire.h"

namespace ferry::launcher {

void SpawnedFences::local(const std::string& nspace, std::string data, FenceReply reply) {
  uint64_t sequence = local_count_[nspace]++;
  waiting_[{nspace, sequence}] = reply;
  if (position_ == 0) {
    add(nspace, sequence, data);
    return;
  }
  send_(0, wire::Encoder(wire::Type::kJobFence).str(nspace).u64(sequence).str(data).finish());
}

void SpawnedFences::contribute(std::string_view body) {
  wire::Decoder d(body);
  std::string nspace = d.str();
  uint64_t sequence = d.u64();
  std::string data = d.str();
  if (d.ok()) add(nspace, sequence, data);
}

void SpawnedFences::add(const std::string& nspace, uint64_t sequence, std::string_view data) {
  auto hosts = hosts_.find(nspace);
  if (hosts == hosts_.end()) return;
  Gathered& g = gathered_[{nspace, sequence}];
  g.data.append(data);
  if (++g.contributions < int(hosts->second.size())) return;
  std::string body = wire::Encoder(wire::Type::kJobFenceRelease)
                         .str(nspace)
                         .u64(sequence)
                         .u8(1)
                         .str(g.data)
                         .finish()
                         .substr(wire::kFrameHeader);
  gathered_.erase({nspace, sequence});
  FERRY_DEBUG(kLaunch, "fence %llu of %s complete on its %zu hosts", (unsigned long long)sequence, nspace.c_str(),
              hosts->second.size());
  // To each host, the target first: daemons on the way pass it on.
  for (int p : hosts->second) {
    if (p == 0) release(body);
    else send_(p, wire::Encoder(wire::Type::kJobFenceRelease).u32(uint32_t(p)).raw(body).finish());
  }
}

void SpawnedFences::release(std::string_view body) {
  wire::Decoder d(body);
  std::string nspace = d.str();
  uint64_t sequence = d.u64();
  bool ok = d.u8() != 0;
  std::string all = d.str();
  if (!d.ok()) return;
  auto it = waiting_.find({nspace, sequence});
  if (it == waiting_.end()) return;
  PmixHost::complete_fence(it->second, all, ok);
  waiting_.erase(it);
}

void SpawnedFences::fail_all() {
  for (auto& [key, reply] : waiting_) PmixHost::complete_fence(reply, "", false);
  waiting_.clear();
}

}  // namespace ferry::launcher
