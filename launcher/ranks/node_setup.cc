#include "launcher/ranks/node_setup.h"

#include <stdexcept>

#include "launcher/ranks/binding.h"

namespace ferry::launcher {

LocalRanksSetup node_setup(const JobPlan& plan, int node, hwloc_topology_t topology, bool end_lines) {
  const PlanNode& here = plan.nodes.at(size_t(node));
  LocalRanksSetup setup;
  setup.nspace = plan.nspace;
  setup.ranks = here.ranks;
  setup.num_ranks = plan.num_ranks;
  setup.program_path = plan.program_path;
  setup.argv = plan.program_args;
  setup.working_dir = plan.working_dir;
  setup.tag_output = plan.tag_output;
  setup.end_lines = end_lines;
  setup.report_bindings = plan.report_bindings;
  setup.hostname = here.host;
  setup.training = plan.training;
  setup.training_place.group_rank = node;
  if (topology == nullptr) {
    if (plan.bind_to != BindTo::kDefault && plan.bind_to != BindTo::kNone)
      throw std::runtime_error("mpirun: " + here.host + ": cannot bind ranks: hwloc found no topology");
    return setup;
  }
  BindingResult bound =
      compute_bindings(topology, plan.map_by, plan.bind_to, int(here.ranks.size()), here.oversubscribed);
  if (!bound.error.empty()) {
    // Name the host when it is not mpirun's own: the rules are per host.
    std::string error = bound.error;
    if (here.position > 0 && error.rfind("mpirun: ", 0) == 0)
      error = "mpirun: " + here.host + ": " + error.substr(8);
    throw std::runtime_error(error);
  }
  setup.bindings = std::move(bound.bindings);
  return setup;
}

JobDescription job_description(const JobPlan& plan, int node) {
  JobDescription job;
  job.nspace = plan.nspace;
  job.num_ranks = plan.num_ranks;
  job.secret = plan.secret;
  job.universe_size = plan.universe_size;
  for (const PlanNode& n : plan.nodes) job.nodes.push_back({n.host, n.ranks});
  job.this_node = node;
  return job;
}

}  // namespace ferry::launcher
