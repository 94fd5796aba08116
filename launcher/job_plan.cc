#include "launcher/job_plan.h"

#include <cstdint>

#include "launcher/tree/wire.h"

namespace ferry::launcher {
namespace {

// Identifies a plan of this layout: a daemon of another build refuses it
// instead of misreading it.
constexpr uint32_t kPlanMagic = 0x46504c33;  // "FPL3"

}  // namespace

int JobPlan::node_at(int position) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].position == position) return int(i);
  return -1;
}

std::string encode_plan(const JobPlan& plan) {
  wire::Encoder e(wire::Type::kHello);  // the frame type is not used
  e.u32(kPlanMagic).str(plan.nspace).str(plan.secret).u32(uint32_t(plan.num_ranks));
  e.u32(uint32_t(plan.universe_size));
  e.u32(uint32_t(plan.nodes.size()));
  for (const PlanNode& n : plan.nodes) {
    e.str(n.host).u32(uint32_t(n.position)).u8(n.oversubscribed ? 1 : 0).u32(uint32_t(n.ranks.size()));
    for (int r : n.ranks) e.u32(uint32_t(r));
  }
  e.u32(uint32_t(plan.fanout)).u32(uint32_t(plan.num_daemons)).str(plan.program_path);
  e.str(plan.remote_start.launch_agent).u8(plan.remote_start.accept_new_host_keys ? 1 : 0);
  e.u32(uint32_t(plan.remote_start.timeout_ms)).u8(plan.direct_modex ? 1 : 0);
  e.u32(uint32_t(plan.program_args.size()));
  for (const std::string& a : plan.program_args) e.str(a);
  e.u32(uint32_t(plan.environment.size()));
  for (const auto& [name, value] : plan.environment) e.str(name).str(value);
  e.str(plan.working_dir).u8(plan.working_dir_given ? 1 : 0).u8(plan.tag_output ? 1 : 0);
  e.u8(uint8_t(plan.map_by)).u8(uint8_t(plan.bind_to)).u8(plan.report_bindings ? 1 : 0);
  const TrainingJob& t = plan.training;
  e.u8(t.enabled ? 1 : 0).str(t.master_addr).u32(uint32_t(t.master_port)).u32(uint32_t(t.restart_count));
  e.u32(uint32_t(t.max_restarts)).str(t.run_id).u32(uint32_t(t.num_hosts)).u8(plan.hold_master_port ? 1 : 0);
  e.str(plan.profile_collect_dir);
  return e.finish().substr(wire::kFrameHeader);
}

bool decode_plan(const std::string& data, JobPlan* plan) {
  wire::Decoder d(data);
  if (d.u32() != kPlanMagic) return false;
  plan->nspace = d.str();
  plan->secret = d.str();
  plan->num_ranks = int(d.u32());
  plan->universe_size = int(d.u32());
  uint32_t num_nodes = d.u32();
  if (!d.ok() || plan->num_ranks < 0 || num_nodes > 1u << 20) return false;
  plan->nodes.resize(num_nodes);
  for (PlanNode& n : plan->nodes) {
    n.host = d.str();
    n.position = int(d.u32());
    n.oversubscribed = d.u8() != 0;
    uint32_t count = d.u32();
    if (!d.ok() || count > uint32_t(plan->num_ranks)) return false;
    n.ranks.resize(count);
    // Ranks index per-rank tables (job_info.cc): one out of range is not
    // a plan of this build.
    for (int& r : n.ranks) {
      uint32_t v = d.u32();
      if (v >= uint32_t(plan->num_ranks)) return false;
      r = int(v);
    }
  }
  plan->fanout = int(d.u32());
  plan->num_daemons = int(d.u32());
  plan->program_path = d.str();
  plan->remote_start.launch_agent = d.str();
  plan->remote_start.accept_new_host_keys = d.u8() != 0;
  plan->remote_start.timeout_ms = int(d.u32());
  plan->direct_modex = d.u8() != 0;
  uint32_t num_args = d.u32();
  if (!d.ok() || num_args > 1u << 20) return false;
  plan->program_args.resize(num_args);
  for (std::string& a : plan->program_args) a = d.str();
  uint32_t num_env = d.u32();
  if (!d.ok() || num_env > 1u << 20) return false;
  plan->environment.resize(num_env);
  for (auto& [name, value] : plan->environment) {
    name = d.str();
    value = d.str();
  }
  plan->working_dir = d.str();
  plan->working_dir_given = d.u8() != 0;
  plan->tag_output = d.u8() != 0;
  plan->map_by = MapBy(d.u8());
  plan->bind_to = BindTo(d.u8());
  plan->report_bindings = d.u8() != 0;
  TrainingJob& t = plan->training;
  t.enabled = d.u8() != 0;
  t.master_addr = d.str();
  t.master_port = int(d.u32());
  t.restart_count = int(d.u32());
  t.max_restarts = int(d.u32());
  t.run_id = d.str();
  t.num_hosts = int(d.u32());
  plan->hold_master_port = d.u8() != 0;
  plan->profile_collect_dir = d.str();
  return d.ok() && plan->fanout > 0;
}

int tree_parent(int position, int fanout) { return position == 0 ? -1 : (position - 1) / fanout; }

std::vector<int> tree_children(int position, int fanout, int num_daemons) {
  std::vector<int> children;
  // In 64 bits: position * fanout overflows int for a large FERRY_LAUNCH_FANOUT.
  int64_t first = int64_t(position) * fanout + 1;
  for (int64_t c = first; c < first + fanout && c <= num_daemons; ++c) children.push_back(int(c));
  return children;
}

}  // namespace ferry::launcher
