// Partner redundancy (SCR's PARTNER scheme): with checkpoints on node-local
// storage, each rank's files are also copied to a rank on another host, so
// that losing one host's storage loses no epoch.
//
// The partner of a rank is on the next host: hosts are numbered in the
// order of their lowest rank, and the i-th rank of host h (by rank) copies
// to the rank at position i mod n of host (h + 1) mod H, where n is how many
// ranks that host has. With equal hosts this is "same local rank, next
// host"; a host with fewer ranks holds more copies. Every rank computes the
// same map from the same host names, so no one has to announce it.
#pragma once

#include <string>
#include <vector>

namespace ferry::fault {

// `host_of_rank[r]`: the name of rank r's host. Returns the partner of each
// rank, or an empty vector when the ranks are on fewer than two hosts (a
// copy on the same host survives nothing that the original does not).
std::vector<int> choose_partners(const std::vector<std::string>& host_of_rank);

// The node-local checkpoint directory of a host: `pattern` with every "%h"
// replaced by `host` (so that one mpirun option can name a different
// directory per host on a shared file system, as the test bed needs).
std::string expand_host(const std::string& pattern, const std::string& host);

}  // namespace ferry::fault
