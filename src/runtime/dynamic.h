// Dynamic processes (MPI-3.1 §10): starting jobs, ports, and the
// intercommunicators between jobs.
//
// Every one of them ends the same way: the two groups' leaders find each
// other through the launcher's name service (PMIx publish/lookup), swap
// their groups' member lists as process names, and each group learns the
// other's; every process adopts the other group's processes as peers
// (runtime/peers.h: a TCP route, since shared memory was set up per job);
// then the leaders agree on a context id over a two-process bridge, as
// MPI_Intercomm_create does over its peer communicator.
//
// A process adopts the other group before it takes part in the context
// agreement, and the agreement ends at any process only after every process
// of both groups has taken part, so no process is sent to before it knows
// the sender.
#pragma once

#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/error.h"
#include "pmi/dynamic.h"

namespace ferry::runtime {

// ---- Ports (runtime/ports.cc) ------------------------------------------------
// MPI_Open_port: a new port name owned by this process. MPI_Close_port.
Err open_port(std::string* port);
Err close_port(const std::string& port);
// MPI_Comm_accept / MPI_Comm_connect: collective over `comm`; `port`
// matters at `root` only. Accept waits for a connector as long as it takes
// (a server's loop); connect gives up with MPI_ERR_PORT when nobody accepts
// within FERRY_PORT_TIMEOUT seconds.
Err accept(const std::string& port, Communicator* comm, int root, Communicator** out);
Err connect(const std::string& port, Communicator* comm, int root, Communicator** out);
// MPI_Comm_join: the two processes at the ends of the connected socket `fd`.
Err join(int fd, Communicator** out);

// MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name (MPI-3.1 §10.4.4).
Err publish_name(const std::string& service, const std::string& port);
Err lookup_name(const std::string& service, std::string* port);
Err unpublish_name(const std::string& service);

// ---- Spawning (runtime/spawn.cc) ---------------------------------------------
// MPI_Comm_spawn(_multiple): collective over `comm`; `apps` matter at `root`.
// *errcodes gets one code per process asked for (at every process: the
// caller copies it out where it wants it).
Err spawn(const std::vector<pmi::SpawnApp>& apps, Communicator* comm, int root, Communicator** out,
          std::vector<int>* errcodes);
// MPI_Comm_get_parent: the intercommunicator to the spawning job, or
// nullptr (not spawned, or it was freed or disconnected).
Communicator* parent();
// At MPI_Init of a spawned job: connects to the parents' MPI_Comm_spawn.
Err connect_to_parent();
// MPI_Comm_disconnect: completes the pending traffic on `comm` (a barrier
// over it) and frees it.
Err disconnect(Communicator* comm);

// Internal: the accept and connect halves on a port key, with a time limit
// for the accepting side (negative: none). Used by spawn and join.
Err accept_on(const std::string& port, Communicator* comm, int root, double timeout_s, Communicator** out);
Err connect_on(const std::string& port, Communicator* comm, int root, Communicator** out);
// Internal: the root's outcome, for its whole group: an error (every
// process returns it) or a text (every process gets it in *text).
Err share_with_group(Communicator* comm, int root, Err at_root, std::string* text);

}  // namespace ferry::runtime
