// The transports a rank can use, in one list: start-up, route selection and
// finalize are loops over it (runtime/runtime.cc), so a new transport plugs
// in with its folder and one line in providers.cc, touching nothing else.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "transport/transport.h"

namespace ferry::transport {

// What a provider is told about the job when the runtime opens it.
struct JobLayout {
  int rank = 0;
  int size = 1;
  std::string nspace;            // the job's name, unique on the host while it runs
  std::string hostname;
  std::vector<int> local_peers;  // world ranks on this host, this one included
  bool singleton = false;        // started without a launcher (no PMIx server)
  // The peer index of rank `rank` of another job (tagged by job_tag),
  // or -1 if the runtime has not adopted that process (MPI-3.1 §10).
  std::function<int(uint32_t job, int rank)> index_of;
  // Ends the job with a message, for failures found during progress (a
  // connection to a peer lost).
  std::function<void(const std::string& message)> fatal;
};

// A job's tag: a 32-bit hash (FNV-1a) of its PMIx namespace, by which a
// transport names the job of a connecting process of another job.
// Namespaces under one launcher are distinct strings; were two to hash
// alike, the second job's processes would be refused as unknown.
uint32_t job_tag(const std::string& nspace);

struct Provider {
  const char* name;
  // FERRY_TRANSPORTS names it; false for self, which is always there.
  bool selectable;
  // Its transports want the second start-up fence (Transport::settled).
  bool settles;
  // Makes this rank's transport: nullptr with an empty error when it has no
  // part to play here (shared memory without a peer on this host).
  std::unique_ptr<Transport> (*open)(const JobLayout& job, PacketHandler* handler, std::string* error);
};

// What is cheap while the process has one thread and costly once it has
// two: runs first in MPI_Init, before PMIx starts its thread.
void prepare_providers();

// Every provider, in the order routes prefer them: the first that reaches a
// peer carries its traffic.
std::span<const Provider> all_providers();

// The providers that FERRY_TRANSPORTS (`list`, comma-separated) enables, in
// preference order, self always first. False with a message for a name that
// is not a provider.
bool enabled_providers(const std::string& list, std::vector<const Provider*>* enabled, std::string* error);

}  // namespace ferry::transport
