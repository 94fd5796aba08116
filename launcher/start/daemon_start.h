// Starting the node daemons of a job (ferryd, next to mpirun) on their
// hosts, through remote_start: in the order of the daemon tree, each once
// its parent is up (the parent's address goes on its command line), several
// at a time so that start-up time grows slowly with the number of hosts.
#pragma once

#include <string>

#include "launcher/job_plan.h"
#include "launcher/start/remote_start.h"

namespace ferry::launcher {

// Returns once every daemon has started and connected to its parent, or
// the first error (one line, "mpirun: <host>: ..."; `failed_host`, if
// given, is set to that host); daemons already started then end by
// themselves when mpirun goes. `port`: where mpirun listens for its own
// children.
std::string start_node_daemons(const JobPlan& plan, int port, const RemoteStartOptions& options,
                               std::string* failed_host = nullptr);

// The ready line a daemon prints: "ferryd ready PORT ADDR[,ADDR...]".
std::string ready_line(int port, const std::vector<std::string>& addresses);
bool parse_ready_line(const std::string& line, int* port, std::string* addresses);

}  // namespace ferry::launcher
