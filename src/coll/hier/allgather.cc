// Hierarchical allgather (algorithms.h): each host's blocks gathered at
// its leader, the hosts' runs of blocks exchanged among the leaders (a
// ring allgatherv: hosts may hold different numbers of ranks), and every
// block handed back within each host. The blocks travel packed, in host
// order (a host's ranks need not be consecutive), and each rank puts them
// in rank order at the end.
#include <cstring>
#include <vector>

#include "coll/hier/algorithms.h"
#include "coll/hier/leaders.h"
#include "coll/hier/local.h"
#include "coll/packed_bytes.h"
#include "coll/typed_buffer.h"

namespace ferry::coll::hier {

Err allgather(Hierarchy& h, Communicator* c, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype,
              void* recvbuf, MPI_Count recvcount, const Datatype* recvtype) {
  const size_t block = recvtype->bytes(recvcount);
  const size_t hosts = h.hosts.size();
  std::vector<MPI_Count> bytes(hosts), displs(hosts);
  MPI_Count at = 0;
  for (size_t i = 0; i < hosts; ++i) {
    displs[i] = at;
    bytes[i] = static_cast<MPI_Count>(h.hosts[i].size() * block);
    at += bytes[i];
  }
  std::vector<char> all(static_cast<size_t>(at));
  char* my_run = all.data() + displs[static_cast<size_t>(h.my_host)];

  // My block, packed (in place: it is in recvbuf, MPI-3.1 §5.7).
  std::vector<char> mine(block);
  Err e = sendbuf == MPI_IN_PLACE
              ? copy_typed(element(recvbuf, static_cast<size_t>(h.me) * static_cast<size_t>(recvcount), recvtype),
                           recvcount, *recvtype, mine.data(), static_cast<MPI_Count>(block), *packed_bytes())
              : copy_typed(sendbuf, sendcount, *sendtype, mine.data(), static_cast<MPI_Count>(block), *packed_bytes());

  // Phase 1: my host's blocks to its leader.
  if (h.local) {
    if (Err l = local_gather_bytes(*h.local, mine.data(), block, my_run, 0)) return l;
  } else if (block != 0) {
    std::memcpy(my_run, mine.data(), block);
  }
  // Phase 2: the leaders exchange their hosts' runs.
  if (h.leader()) {
    Err l = leaders_allgatherv(Leaders{c, h.representatives(-1), h.my_host}, all.data(), bytes.data(), displs.data());
    if (!e) e = std::move(l);
  } else {
    take_tag(c);
  }
  // Phase 3: every block to every rank of the host.
  if (h.local) {
    Err l = local_bcast_bytes(*h.local, all.data(), all.size(), 0);
    if (!e) e = std::move(l);
  }
  if (e) return e;
  // Phase 4: host order to rank order.
  for (size_t i = 0; i < hosts; ++i)
    for (size_t k = 0; k < h.hosts[i].size(); ++k) {
      const size_t r = static_cast<size_t>(h.hosts[i][k]);
      if (Err u = copy_typed(all.data() + displs[i] + k * block, static_cast<MPI_Count>(block), *packed_bytes(),
                             element(recvbuf, r * static_cast<size_t>(recvcount), recvtype), recvcount, *recvtype))
        return u;
    }
  return {};
}

}  // namespace ferry::coll::hier
