// Ports (MPI-3.1 §10.4): MPI_Open_port, MPI_Comm_accept, MPI_Comm_connect,
// MPI_Comm_join, and the service names of MPI_Publish_name.
//
// The rendezvous on a port goes through the launcher's name service, so it
// needs no socket of its own and works wherever the launcher's processes
// are: the connecting leader publishes a request under the port's key (its
// group's member list, read once), the accepting leader looks it up and
// answers under a key named by the request (its own list, read once). A
// second connector on the same port finds the request key taken and tries
// again until the first has been served.
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

#include "base/datatype.h"
#include "base/context_id.h"
#include "coll/collectives.h"
#include "common/config.h"
#include "common/debug.h"
#include "mpi.h"
#include "runtime/comm_create.h"
#include "runtime/dynamic.h"
#include "runtime/peers.h"
#include "runtime/runtime.h"
#include "transport/providers.h"

namespace ferry::runtime {
namespace {

constexpr const char* kPortPrefix = "ferry-port:";
constexpr const char* kServicePrefix = "mpi.service.";

struct Ports {
  std::mutex mutex;
  std::set<std::string> open;
  uint64_t next_port = 0;
  uint64_t next_request = 0;
};
Ports ports;

std::string request_key(const std::string& port) { return "ferry.request." + port; }
std::string reply_key(const std::string& request_id) { return "ferry.reply." + request_id; }

// Both leaders derive the bridge's tag from the port, so two rendezvous
// between the same leaders on different ports never match each other.
int bridge_tag(const std::string& port) {
  return static_cast<int>(transport::job_tag(port) & 0x3fffffffu);
}

}  // namespace

Err share_with_group(Communicator* comm, int root, Err at_root, std::string* text) {
  const Datatype* ints = find_datatype(MPI_INT);
  const Datatype* chars = find_datatype(MPI_CHAR);
  int header[2] = {MPI_SUCCESS, 0};
  if (comm->rank == root) {
    if (at_root) {
      header[0] = at_root.mpi_class();
      *text = at_root.message();
    }
    header[1] = static_cast<int>(text->size());
  }
  if (comm->size > 1) {
    if (Err e = coll::bcast(header, 2, ints, root, comm)) return e;
    text->resize(static_cast<size_t>(header[1]));
    if (header[1] > 0)
      if (Err e = coll::bcast(text->data(), header[1], chars, root, comm)) return e;
  }
  if (header[0] != MPI_SUCCESS) return Err(header[0], *text);
  return {};
}

namespace {

// A request or a reply: the sender's leader position in its list, then the list.
std::string message_of(Communicator* comm, int root, const std::string& first_line) {
  std::vector<int> members(static_cast<size_t>(comm->size));
  for (int r = 0; r < comm->size; ++r) members[static_cast<size_t>(r)] = comm->world_rank(r);
  return first_line + "\n" + std::to_string(root) + "\n" + names_of(members);
}

bool parse_message(const std::string& text, std::string* first_line, int* leader, std::string* names) {
  size_t a = text.find('\n');
  if (a == std::string::npos) return false;
  size_t b = text.find('\n', a + 1);
  if (b == std::string::npos) return false;
  *first_line = text.substr(0, a);
  *leader = std::atoi(text.substr(a + 1, b - a - 1).c_str());
  *names = text.substr(b + 1);
  return true;
}

// The second half, at every process of one group: adopt the other group
// and agree on a context over the leaders' bridge. `accepting` decides the
// leaders' ranks on the bridge (the acceptor's is 0).
Err finish(Communicator* comm, int root, bool accepting, const std::string& port, const std::string& remote_text,
           Communicator** out) {
  std::string header, names;
  int remote_leader = 0;
  if (!parse_message(remote_text, &header, &remote_leader, &names))
    return fail(MPI_ERR_INTERN, "malformed rendezvous message on port %s", port.c_str());
  std::vector<int> remote;
  if (Err e = adopt_all(names, &remote)) return e;
  if (remote_leader < 0 || remote_leader >= static_cast<int>(remote.size()))
    return fail(MPI_ERR_INTERN, "malformed rendezvous message on port %s", port.c_str());

  // Only the leaders use the bridge; both name it alike.
  Communicator bridge;
  bridge.context = context_ids::p2p_context(context_ids::kBridgeSlot);
  bridge.size = 2;
  bridge.rank = accepting ? 0 : 1;
  int mine = comm->world_rank(root), theirs = remote[static_cast<size_t>(remote_leader)];
  bridge.world_ranks = accepting ? std::vector<int>{mine, theirs} : std::vector<int>{theirs, mine};
  bridge.errhandler = MPI_ERRORS_RETURN;
  return communicators::intercomm_from_bridge(comm, root, &bridge, accepting ? 1 : 0, bridge_tag(port), remote,
                                              out);
}

double port_timeout() { return static_cast<double>(config::integer("FERRY_PORT_TIMEOUT")); }

}  // namespace

Err open_port(std::string* port) {
  if (job().singleton)
    return fail(MPI_ERR_PORT, "a process started without mpirun (a singleton) cannot open ports");
  std::lock_guard lock(ports.mutex);
  char text[96];
  std::snprintf(text, sizeof text, "%s%08x.%d.%llu", kPortPrefix, transport::job_tag(job().nspace), job().rank,
                static_cast<unsigned long long>(ports.next_port++));
  *port = text;
  ports.open.insert(*port);
  return {};
}

Err close_port(const std::string& port) {
  std::lock_guard lock(ports.mutex);
  if (ports.open.erase(port) == 0) return fail(MPI_ERR_PORT, "'%s' is not a port this process opened", port.c_str());
  return {};
}

Err accept_on(const std::string& port, Communicator* comm, int root, double timeout_s, Communicator** out) {
  *out = nullptr;
  std::string remote_text;
  Err at_root;
  if (comm->rank == root) {
    std::string request;
    at_root = pmi::lookup_name(request_key(port), timeout_s < 0 ? -1 : timeout_s, &request);
    if (at_root && at_root.mpi_class() == MPI_ERR_NAME)
      at_root = fail(MPI_ERR_PORT, "nobody connected to port %s within %.0f s", port.c_str(), timeout_s);
    std::string request_id;
    int leader = 0;
    std::string names;
    if (!at_root && !parse_message(request, &request_id, &leader, &names))
      at_root = fail(MPI_ERR_INTERN, "malformed connection request on port %s", port.c_str());
    // The leaders must reach each other before the groups do.
    if (!at_root) {
      std::vector<int> remote;
      at_root = adopt_all(names, &remote);
    }
    if (!at_root) at_root = pmi::publish_name(reply_key(request_id), message_of(comm, root, "reply"), true);
    remote_text = request;
  }
  if (Err e = share_with_group(comm, root, std::move(at_root), &remote_text)) return e;
  FERRY_DEBUG(kComm, "accepted a connection on %s", port.c_str());
  return finish(comm, root, true, port, remote_text, out);
}

Err connect_on(const std::string& port, Communicator* comm, int root, Communicator** out) {
  *out = nullptr;
  std::string remote_text;
  Err at_root;
  if (comm->rank == root) {
    std::string request_id;
    {
      std::lock_guard lock(ports.mutex);
      char text[64];
      std::snprintf(text, sizeof text, "%08x.%d.%llu", transport::job_tag(job().nspace), job().rank,
                    static_cast<unsigned long long>(ports.next_request++));
      request_id = text;
    }
    // Another connector's request may hold the port's key: wait our turn.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(port_timeout());
    while (true) {
      at_root = pmi::publish_name(request_key(port), message_of(comm, root, request_id), true);
      if (!at_root || at_root.mpi_class() != MPI_ERR_NAME || std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (at_root && at_root.mpi_class() == MPI_ERR_NAME)
      at_root = fail(MPI_ERR_PORT, "port %s stayed busy with other connections for %.0f s", port.c_str(),
                     port_timeout());
    if (!at_root) {
      double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
      at_root = pmi::lookup_name(reply_key(request_id), std::max(1.0, left), &remote_text);
      if (at_root) {
        // Nobody took the request: withdraw it, so that a later accept
        // does not answer a connector that is gone.
        (void)pmi::unpublish_name(request_key(port));
        at_root = fail(MPI_ERR_PORT, "nobody accepted on port %s within %.0f s (FERRY_PORT_TIMEOUT)", port.c_str(),
                       port_timeout());
      }
    }
    if (!at_root) {
      std::string header, names;
      int leader = 0;
      std::vector<int> remote;
      if (!parse_message(remote_text, &header, &leader, &names))
        at_root = fail(MPI_ERR_INTERN, "malformed reply on port %s", port.c_str());
      else
        at_root = adopt_all(names, &remote);
    }
  }
  if (Err e = share_with_group(comm, root, std::move(at_root), &remote_text)) return e;
  FERRY_DEBUG(kComm, "connected through %s", port.c_str());
  return finish(comm, root, false, port, remote_text, out);
}

Err accept(const std::string& port, Communicator* comm, int root, Communicator** out) {
  Err at_root;
  if (comm->rank == root) {
    std::lock_guard lock(ports.mutex);
    if (ports.open.count(port) == 0)
      at_root = fail(MPI_ERR_PORT, "'%s' is not an open port of this process (MPI_Open_port)", port.c_str());
  }
  // Every process learns whether the root may go on.
  std::string nothing;
  if (comm->rank == root && at_root) {
    std::string text;
    return share_with_group(comm, root, std::move(at_root), &text);
  }
  return accept_on(port, comm, root, -1, out);
}

Err connect(const std::string& port, Communicator* comm, int root, Communicator** out) {
  if (comm->rank == root && port.rfind(kPortPrefix, 0) != 0) {
    std::string text;
    return share_with_group(comm, root, fail(MPI_ERR_PORT, "'%s' is not a port name (MPI_Open_port makes them)", port.c_str()),
                 &text);
  }
  return connect_on(port, comm, root, out);
}

// Each end opens a port and sends its name over the socket; the end with
// the smaller name accepts, the other connects (MPI-3.1 §10.4.5).
Err join(int fd, Communicator** out) {
  *out = nullptr;
  std::string mine;
  if (Err e = open_port(&mine)) return e;
  auto io = [fd](bool writing, char* data, size_t n) -> bool {
    size_t done = 0;
    while (done < n) {
      ssize_t k = writing ? ::write(fd, data + done, n - done) : ::read(fd, data + done, n - done);
      if (k > 0) done += static_cast<size_t>(k);
      else if (k < 0 && errno == EINTR) continue;
      else return false;
    }
    return true;
  };
  uint32_t length = static_cast<uint32_t>(mine.size()), their_length = 0;
  std::string theirs;
  bool ok = io(true, reinterpret_cast<char*>(&length), sizeof length) && io(true, mine.data(), mine.size()) &&
            io(false, reinterpret_cast<char*>(&their_length), sizeof their_length) && their_length < 4096;
  if (ok) {
    theirs.resize(their_length);
    ok = io(false, theirs.data(), their_length);
  }
  Err e;
  if (!ok) e = fail(MPI_ERR_ARG, "fd %d: the socket failed or its other end is not in MPI_Comm_join", fd);
  else if (mine < theirs) e = accept_on(mine, &communicators::self(), 0, port_timeout(), out);
  else e = connect_on(theirs, &communicators::self(), 0, out);
  (void)close_port(mine);
  return e;
}

Err publish_name(const std::string& service, const std::string& port) {
  return pmi::publish_name(kServicePrefix + service, port);
}

Err lookup_name(const std::string& service, std::string* port) {
  return pmi::lookup_name(kServicePrefix + service, 0, port);
}

Err unpublish_name(const std::string& service) { return pmi::unpublish_name(kServicePrefix + service); }

}  // namespace ferry::runtime
