// The reductions' entry points (collectives.h): allreduce, reduce,
// reduce_scatter(_block), scan and exscan, MPI-3.1 §5.9-5.11, and
// MPI_Reduce_local. Each asks coll/device_collectives.h first (GPU
// buffers: run on them, or again on host copies), finishes at once where
// there is nothing to combine (no elements, one rank: at_once.h), chooses
// shared memory (through packed data, shm/cells.h) or an algorithm
// (choose.h), and builds the chosen algorithm's schedule (build_*) in the
// launch form asked for (launch.h, run_reduction, which keeps the
// operation alive while a request may apply it).
#include "coll/collectives.h"

#include <vector>

#include "coll/allreduce/algorithms.h"
#include "coll/reduce/algorithms.h"
#include "coll/reduce_scatter/algorithms.h"
#include "coll/scan/algorithms.h"
#include "coll/at_once.h"
#include "coll/choose.h"
#include "coll/device_collectives.h"
#include "coll/device_onepass.h"
#include "coll/hier/algorithms.h"
#include "coll/inter/algorithms.h"
#include "coll/launch.h"
#include "coll/shm/algorithms.h"
#include "coll/typed_buffer.h"
#include "device/device.h"

namespace ferry::coll {
namespace {

void build_allreduce(Schedule& s, Algorithm a, const void* sendbuf, void* recvbuf, MPI_Count count,
                     const Datatype* type, const Op* op) {
  if (count == 0) return;
  if (s.size() == 1) return copy_input(s, sendbuf, recvbuf, count, type);
  switch (a) {
    case Algorithm::kRing: return allreduce_ring(s, sendbuf, recvbuf, count, type, op);
    case Algorithm::kTree: return allreduce_tree(s, sendbuf, recvbuf, count, type, op);
    case Algorithm::kRabenseifner: return allreduce_rabenseifner(s, sendbuf, recvbuf, count, type, op);
    default: return allreduce_recursive_doubling(s, sendbuf, recvbuf, count, type, op);
  }
}

Err do_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                 Communicator* c, Launch how) {
  if (c->inter)
    return run_reduction(c, how, op, [&](Schedule& s) { inter_allreduce(s, sendbuf, recvbuf, count, type, op); });
  if (auto done = at_once("allreduce", c, how, count == 0 || c->size == 1, [&] {
        return count == 0 ? Err() : copy_own(sendbuf, count, type, recvbuf, count, type);
      }))
    return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  hier::Hierarchy* h = nullptr;
  if (Err e = choose_reduction(Operation::kAllreduce, type->bytes(count), type, op, c, how, &a, &seg, &h)) return e;
  if (a == Algorithm::kSharedMemory) {
    if (how.form == Launch::Form::kBlocking) return shm::allreduce(*seg, sendbuf, recvbuf, count, type, op);
    return start_shared(c, how, *seg, {shm::Call::Kind::kAllreduce, sendbuf, recvbuf, count, type, op});
  }
  if (a == Algorithm::kHierarchical) return hier::allreduce(*h, c, sendbuf, recvbuf, count, type, op);
  return run_reduction(c, how, op,
                       [&](Schedule& s) { build_allreduce(s, a, sendbuf, recvbuf, count, type, op); });
}

void build_reduce(Schedule& s, Algorithm a, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                  const Op* op, int root) {
  if (count == 0) return;
  if (s.size() == 1) return copy_input(s, sendbuf, recvbuf, count, type);
  switch (a) {
    case Algorithm::kReduceScatterGather: return reduce_scatter_gather(s, sendbuf, recvbuf, count, type, op, root);
    case Algorithm::kHalves: return reduce_halves(s, sendbuf, recvbuf, count, type, op, root);
    default: return reduce_binomial(s, sendbuf, recvbuf, count, type, op, root);
  }
}

Err do_reduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, int root,
              Communicator* c, Launch how) {
  if (c->inter)
    return run_reduction(c, how, op,
                         [&](Schedule& s) { inter_reduce(s, sendbuf, recvbuf, count, type, op, root); });
  if (auto done = at_once("reduce", c, how, count == 0 || c->size == 1, [&] {
        return count == 0 ? Err() : copy_own(sendbuf, count, type, recvbuf, count, type);
      }))
    return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  hier::Hierarchy* h = nullptr;
  if (Err e = choose_reduction(Operation::kReduce, type->bytes(count), type, op, c, how, &a, &seg, &h)) return e;
  if (a == Algorithm::kSharedMemory) {
    if (how.form == Launch::Form::kBlocking) return shm::reduce(*seg, sendbuf, recvbuf, count, type, op, root);
    return start_shared(c, how, *seg, {shm::Call::Kind::kReduce, sendbuf, recvbuf, count, type, op, root});
  }
  if (a == Algorithm::kHierarchical) return hier::reduce(*h, c, sendbuf, recvbuf, count, type, op, root);
  return run_reduction(c, how, op,
                       [&](Schedule& s) { build_reduce(s, a, sendbuf, recvbuf, count, type, op, root); });
}

void build_reduce_scatter(Schedule& s, Algorithm a, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                          size_t total, const Datatype* type, const Op* op) {
  if (total == 0) return;
  if (s.size() == 1) return copy_input(s, sendbuf, recvbuf, recvcounts[0], type);
  switch (a) {
    case Algorithm::kPairwise: return reduce_scatter_pairwise(s, sendbuf, recvbuf, recvcounts, type, op);
    default: return reduce_scatter_recursive_halving(s, sendbuf, recvbuf, recvcounts, type, op);
  }
}

Err do_reduce_scatter(Operation o, const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type,
                      const Op* op, Communicator* c, Launch how) {
  if (c->inter)
    return run_reduction(c, how, op,
                         [&](Schedule& s) { inter_reduce_scatter(s, sendbuf, recvbuf, recvcounts, type, op); });
  size_t total = 0;
  for (int r = 0; r < c->size; ++r) total += static_cast<size_t>(recvcounts[r]);
  if (auto done = at_once(name(o), c, how, total == 0 || c->size == 1, [&] {
        return total == 0 ? Err() : copy_own(sendbuf, recvcounts[0], type, recvbuf, recvcounts[0], type);
      }))
    return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  // Nothing to choose for a call with nothing to combine (persistent, GPU).
  if (total != 0 && c->size > 1)
    if (Err e = choose_reduction(o, total * type->size, type, op, c, how, &a, &seg)) return e;
  if (a == Algorithm::kSharedMemory)
    return shm::reduce_scatter(*seg, sendbuf, recvbuf, recvcounts, static_cast<MPI_Count>(total), type, op);
  return run_reduction(c, how, op, [&](Schedule& s) {
    build_reduce_scatter(s, a, sendbuf, recvbuf, recvcounts, total, type, op);
  });
}

void build_scan(Schedule& s, Algorithm a, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                const Op* op, bool exclusive) {
  if (count == 0) return;
  // One rank: the scan is the input; the exscan is undefined (MPI-3.1 §5.11.2).
  if (s.size() == 1) return exclusive ? void() : copy_input(s, sendbuf, recvbuf, count, type);
  if (a == Algorithm::kPipelinedChain) return scan_pipelined_chain(s, sendbuf, recvbuf, count, type, op, exclusive);
  scan_recursive_doubling(s, sendbuf, recvbuf, count, type, op, exclusive);
}

Err do_scan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, bool exclusive,
            Communicator* c, Launch how) {
  if (c->inter) return fail(MPI_ERR_COMM, "scans are not defined on intercommunicators (MPI-3.1 §5.11)");
  // One rank: the scan is the input; the exscan is undefined (MPI-3.1 §5.11.2).
  if (auto done = at_once(exclusive ? "exscan" : "scan", c, how, count == 0 || c->size == 1, [&] {
        return count == 0 || exclusive ? Err() : copy_own(sendbuf, count, type, recvbuf, count, type);
      }))
    return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  // No hierarchical scan: the hierarchy only says where the hosts are (Query::chain_crossings).
  hier::Hierarchy* h = nullptr;
  if (count != 0 && c->size > 1)
    if (Err e = choose_reduction(exclusive ? Operation::kExscan : Operation::kScan, type->bytes(count), type, op, c,
                                 how, &a, &seg, &h))
      return e;
  if (a == Algorithm::kSharedMemory) return shm::scan(*seg, sendbuf, recvbuf, count, type, op, exclusive);
  return run_reduction(c, how, op,
                       [&](Schedule& s) { build_scan(s, a, sendbuf, recvbuf, count, type, op, exclusive); });
}

}  // namespace

// allreduce past no_data_now (collectives.h).
Err allreduce_with_data(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                        Communicator* c, Launch how) {
  // Every rank asks, whatever its buffers: the one pass runs only if all can.
  if (!c->inter && gpu::onepass::big_enough(type->bytes(count)))
    if (std::optional<Err> done = gpu::onepass::allreduce(sendbuf, recvbuf, count, type, op, c, how))
      return std::move(*done);
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::allreduce(sendbuf, recvbuf, count, type, op, c, how);
      }))
    return std::move(*staged);
  return do_allreduce(sendbuf, recvbuf, count, type, op, c, how);
}

Err reduce_local(const void* in, void* inout, MPI_Count count, const Datatype* type, const Op* op) {
  if (device::enabled())
    if (gpu::Outcome staged = gpu::reduce_local(in, inout, count, type, op)) return std::move(*staged);
  apply(*op, in, inout, count, *type);
  return {};
}

Err iallreduce_both_groups(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                           Communicator* inter, Request** request) {
  return run_reduction(inter, nonblocking(request), op, [&](Schedule& s) {
    inter_allreduce_both_groups(s, sendbuf, recvbuf, count, type, op);
  });
}

// reduce past no_data_now (collectives.h).
Err reduce_with_data(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, int root,
                     Communicator* c, Launch how) {
  // (An intercommunicator's other group may pass no type: MPI_PROC_NULL.)
  if (!c->inter && type->contiguous) [[likely]]
    if (shm::CommSegment* seg = shared_now(Operation::kReduce, type->bytes(count), type->bytes(count), c, how))
        [[likely]]
      return shm::reduce(*seg, sendbuf, recvbuf, count, type, op, root);
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::reduce(sendbuf, recvbuf, count, type, op, root, c, how);
      }))
    return std::move(*staged);
  return do_reduce(sendbuf, recvbuf, count, type, op, root, c, how);
}

// reduce_scatter past no_data_now (collectives.h).
Err reduce_scatter_with_data(const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type,
                             const Op* op, Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, c, how);
      }))
    return std::move(*staged);
  return do_reduce_scatter(Operation::kReduceScatter, sendbuf, recvbuf, recvcounts, type, op, c, how);
}

// The schedule reads the counts while it is built, so a local array will do.
// reduce_scatter_block past no_data_now (collectives.h).
Err reduce_scatter_block_with_data(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type,
                                   const Op* op, Communicator* c, Launch how) {
  if (!c->inter && gpu::onepass::big_enough(type->bytes(recvcount) * static_cast<size_t>(c->size)))
    if (std::optional<Err> done = gpu::onepass::reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, c, how))
      return std::move(*done);
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, c, how);
      }))
    return std::move(*staged);
  std::vector<MPI_Count> counts(static_cast<size_t>(c->size), recvcount);
  return do_reduce_scatter(Operation::kReduceScatterBlock, sendbuf, recvbuf, counts.data(), type, op, c, how);
}

// scan past no_data_now (collectives.h).
Err scan_with_data(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                   Communicator* c, Launch how, bool exclusive) {
  // The table's first choice without asking it (choose.h, shared_now): on
  // 2 ranks the long way was about 390 of a rank's 1,170-1,220
  // instructions per 8-byte scan (issue 29, rooted_instructions).
  const Operation operation = exclusive ? Operation::kExscan : Operation::kScan;
  if (!c->inter && type->contiguous) [[likely]]
    if (shm::CommSegment* seg = shared_now(operation, type->bytes(count), type->bytes(count), c, how)) [[likely]]
      return shm::scan(*seg, sendbuf, recvbuf, count, type, op, exclusive);
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::scan(sendbuf, recvbuf, count, type, op, exclusive, c, how);
      }))
    return std::move(*staged);
  return do_scan(sendbuf, recvbuf, count, type, op, exclusive, c, how);
}

}  // namespace ferry::coll
