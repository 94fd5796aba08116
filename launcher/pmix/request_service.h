// mpirun's answers to the requests that node daemons' servers forward
// (forwarded_requests.h): published names from its NameService, spawns
// from the event loop's SpawnedJobs, and direct modex questions passed on
// to the host that runs the process asked about. Also what any server does
// when a direct modex reaches it: it asks its own PMIx library for the
// process's data (PMIx_server_dmodex_request) and answers with the blob.
//
// Answers may be ready on PMIx's thread or a lookup's timer thread, so
// they go out through `send`, which hands frames to the event loop.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "launcher/pmix/forwarded_requests.h"
#include "launcher/pmix/pmix_host.h"

namespace ferry::launcher {

class RequestService {
 public:
  // `send`: a kRequest or kReply frame for the event loop to route (any
  // thread). `spawn`: starts a job and answers through its request's
  // callback (event loop). `position_of`: the tree position of the host
  // running process `rank` of `nspace`, or -1 when mpirun runs no such
  // process.
  using Send = std::function<void(std::string frame)>;
  using Spawn = std::function<void(SpawnParse&)>;
  using PositionOf = std::function<int(const std::string& nspace, int rank)>;
  RequestService(PmixHost& server, Send send, Spawn spawn, PositionOf position_of);

  // A request that reached mpirun (target 0); called on the event loop.
  void serve(const Request& request);

 private:
  void reply(const Request& request, pmix_status_t status, std::string payload = "");

  PmixHost& server_;
  Send send_;
  Spawn spawn_;
  PositionOf position_of_;
};

// Answers a direct modex for a process of this host from this server's
// PMIx library (possibly later, once the process has committed its data);
// the kReply frame goes to `send`.
void answer_direct_modex(const Request& request, RequestService::Send send);

}  // namespace ferry::launcher
