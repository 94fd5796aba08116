// Argument checks shared by the data-movement collectives (coll_bcast.cc,
// coll_gather.cc, ...), on top of api::Call.
//
// What can be checked is what one rank sees: its own counts, types, buffers
// and root. Mismatches between ranks (different counts, types, roots) cannot
// be seen locally without extra messages; the collective's schedule reports
// a message longer than the receiving rank expects as MPI_ERR_TRUNCATE. Each
// check records the first error in `call` and returns false once one has
// failed.
#pragma once

#include <vector>

#include "api/api.h"
#include "base/request.h"
#include "coll/collectives.h"
#include "coll/count_array.h"
#include "profile/companions.h"

namespace ferry::api {

// The checks below are inline for the case that passes (a few compares:
// a collective of no data costs little else, issue 29), and out of line
// (coll_checks.cc) for every other, which names what failed.

// The arguments of the usual call, seen valid in a few compares without a
// Call (issue 29): a collective's entry point whose arguments all pass these
// runs the core at once and builds its Call only if the core fails
// (core_result); nullptr (false) means only "not at a glance": the entry
// point's full checks then decide, and name what is wrong. Each answers
// true only where its full check passes, which uses it as its own first test.
//
// An intracommunicator of an initialized runtime (Call::comm, intracomm).
FERRY_INLINE Communicator* usual_intracomm(MPI_Comm handle) {
  if (!runtime::active()) [[unlikely]]
    return nullptr;
  Communicator* c = communicators::find_inline(handle);
  return c != nullptr && !c->inter ? c : nullptr;
}
// A builtin datatype (MPI_FLOAT, ...; find_datatype's inline case, in one
// compare of the handle's kind and object) that can be moved
// (Call::datatype, Call::movable). Others are not usual here.
FERRY_INLINE const Datatype* usual_type(MPI_Datatype handle) {
  const auto h = static_cast<uint32_t>(handle);
  if ((h >> 26) != (handle::kKindBuiltin << 4 | static_cast<uint32_t>(handle::Object::kDatatype))) return nullptr;
  const Datatype* t = datatypes::builtin[h & 0xff];
  return t != nullptr && t->handle == handle && t->committed && t->supported ? t : nullptr;
}
// A (buffer, count, datatype) triple that check_triple passes at once.
FERRY_INLINE const Datatype* usual_triple(const void* buf, MPI_Count count, MPI_Datatype type) {
  if (buf == MPI_IN_PLACE || count < 0) return nullptr;
  const Datatype* t = usual_type(type);
  return t != nullptr && Call::buffer_fits(buf, count, t) ? t : nullptr;
}
// A predefined operation (MPI_SUM, ...) that check_op has found defined for
// `type`, a builtin type (usual_type): its bit in builtin_ops::known.
FERRY_INLINE const Op* usual_op(MPI_Op handle, const Datatype* type) {
  const auto h = static_cast<uint32_t>(handle);
  if ((h >> 26) != (handle::kKindBuiltin << 4 | static_cast<uint32_t>(handle::Object::kOp))) return nullptr;
  const uint32_t i = handle::index_of(handle);
  const uint32_t slot = static_cast<uint32_t>(type->handle) & 0xff;
  if (i == 0 || i >= builtin_ops::kOps) return nullptr;
  if ((builtin_ops::known[i][slot / 64].load(std::memory_order_relaxed) & (uint64_t{1} << (slot % 64))) == 0)
    return nullptr;
  return &builtin_ops::predefined[i];
}
// The usual send and receive triples of allgather and alltoall (no
// MPI_IN_PLACE), not the same memory when both hold data.
struct UsualPair {
  Communicator* comm = nullptr;
  const Datatype* sendtype = nullptr;
  const Datatype* recvtype = nullptr;
};
FERRY_INLINE bool usual_pair(MPI_Comm comm, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             const void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, UsualPair* u) {
  u->comm = usual_intracomm(comm);
  u->sendtype = usual_triple(sendbuf, sendcount, sendtype);
  u->recvtype = usual_triple(recvbuf, recvcount, recvtype);
  return u->comm != nullptr && u->sendtype != nullptr && u->recvtype != nullptr &&
         (sendbuf != recvbuf || sendcount == 0 || recvcount == 0);
}

// What a blocking call that passed the usual checks answers for its core's
// `e`: MPI_SUCCESS, or the error raised on c's handler, named for the call.
int core_failed(const char* name, Communicator* c, Err e);
FERRY_INLINE int core_result(const char* name, Communicator* c, Err&& e) {
  if (e.ok()) [[likely]]
    return MPI_SUCCESS;
  return core_failed(name, c, std::move(e));
}

bool check_root_fully(Call& call, int root, const Communicator* c);
// `root` must be a rank of the communicator (MPI_ERR_ROOT); on an
// intercommunicator, MPI_ROOT, MPI_PROC_NULL or a rank of the remote group.
inline bool check_root(Call& call, int root, const Communicator* c) {
  if (call.ok() && !c->inter && root >= 0 && root < c->size) [[likely]] return true;
  return check_root_fully(call, root, c);
}

const Datatype* check_triple_fully(Call& call, const void* buf, MPI_Count count, MPI_Datatype type,
                                   const char* what, bool in_place_allowed);
// One (buffer, count, datatype) triple: count >= 0 (MPI_ERR_COUNT), a valid
// datatype that point-to-point can move (MPI_ERR_TYPE), and a buffer whose
// data does not start at address 0 (Call::buffer, MPI_ERR_BUFFER).
// MPI_IN_PLACE is rejected (MPI_ERR_ARG) unless `in_place_allowed`; the
// rank's own send arguments are then not looked at (MPI-3.1 §5.2.1: they are ignored). Returns the
// datatype, or nullptr for MPI_IN_PLACE or after an error.
inline const Datatype* check_triple(Call& call, const void* buf, MPI_Count count, MPI_Datatype type,
                                    const char* what, bool in_place_allowed = false) {
  if (call.ok()) [[likely]]
    if (const Datatype* t = usual_triple(buf, count, type)) [[likely]]
      return t;
  return check_triple_fully(call, buf, count, type, what, in_place_allowed);
}

// The v forms' (buffer, counts, displacements, datatype): the arrays as
// check_counts, the datatype as check_triple, and every block as
// Call::block, at displs[i] extents from buf. Returns the datatype, or
// nullptr for MPI_IN_PLACE or after an error.
const Datatype* check_v_triple(Call& call, const void* buf, coll::CountArray counts, coll::DisplArray displs, int n,
                               MPI_Datatype type, const char* what, bool in_place_allowed = false);

// The w forms' blocks (after check_types): block i is counts[i] elements
// of types[i] at displs[i] bytes from buf, checked as Call::block.
bool check_w_blocks(Call& call, const void* buf, coll::CountArray counts, coll::DisplArray displs,
                    const std::vector<const Datatype*>& types, int n, const char* what);

// The largest of n counts (which check_counts has checked).
MPI_Count largest_count(coll::CountArray counts, int n);

// The counts and displacements of the v and w forms: `counts` and `displs`
// must not be NULL (MPI_ERR_ARG), and every count must be >= 0
// (MPI_ERR_COUNT).
bool check_counts(Call& call, coll::CountArray counts, coll::DisplArray displs, int n, const char* what);

// The per-peer datatypes of MPI_Alltoallw, translated into `out`: each must
// be valid and movable (MPI_ERR_TYPE), except that an empty block may name
// MPI_DATATYPE_NULL (it then moves as MPI_BYTE).
bool check_types(Call& call, const MPI_Datatype types[], coll::CountArray counts, int n, const char* what,
                 std::vector<const Datatype*>* out);

// MPI_IN_PLACE in an argument where the standard does not allow it.
bool check_not_in_place(Call& call, const void* buf, const char* what);

bool check_not_aliased_fully(Call& call, const void* sendbuf, bool send_has_data, const void* recvbuf,
                             bool recv_has_data);
// The send and the receive buffer of one rank must not be the same memory
// unless MPI_IN_PLACE is used (MPI-3.1 §5.2.2; MPI_ERR_BUFFER).
inline bool check_not_aliased(Call& call, const void* sendbuf, bool send_has_data, const void* recvbuf,
                              bool recv_has_data) {
  if (call.ok() && (sendbuf != recvbuf || !send_has_data || !recv_has_data)) [[likely]]
    return true;
  return check_not_aliased_fully(call, sendbuf, send_has_data, recvbuf, recv_has_data);
}

// Gather and scatter (and their v forms) are mirror images: one buffer that
// every rank passes (gather's send, scatter's receive; MPI_IN_PLACE allowed
// at the root) and one that only the root's arguments describe (with counts
// and displacements in the v forms; not looked at elsewhere).
struct RootedBuffer {
  const void* buf;
  MPI_Count count;       // ignored in the v forms
  bool v_form;           // per-rank `counts` and `displs` instead of `count`
  coll::CountArray counts;
  coll::DisplArray displs;
  MPI_Datatype type;
  const char* what;      // "send" or "recv", for messages
};
struct RootedArgs {
  Communicator* comm = nullptr;
  const Datatype* everyone_type = nullptr;
  const Datatype* root_type = nullptr;
};
// check_rooted's usual case (gather, scatter): an intracommunicator, a
// root of it, the buffer every rank passes and, at the root, the root's
// as usual_triple (no MPI_IN_PLACE), and not the same memory at the root.
// The root's is not looked at elsewhere (a->root_type stays nullptr), as
// in check_rooted.
FERRY_INLINE bool usual_rooted(MPI_Comm comm, int root, const void* everyone_buf, MPI_Count everyone_count,
                               MPI_Datatype everyone_type, const void* root_buf, MPI_Count root_count,
                               MPI_Datatype root_type, RootedArgs* a) {
  a->comm = usual_intracomm(comm);
  if (a->comm == nullptr || root < 0 || root >= a->comm->size) return false;
  a->everyone_type = usual_triple(everyone_buf, everyone_count, everyone_type);
  if (a->everyone_type == nullptr) return false;
  if (a->comm->rank != root) return true;
  a->root_type = usual_triple(root_buf, root_count, root_type);
  return a->root_type != nullptr && (everyone_buf != root_buf || everyone_count == 0 || root_count == 0);
}
// Checks the communicator, the root (MPI_ERR_ROOT), both buffers as above,
// and that they are not the same memory without MPI_IN_PLACE.
// Inline (FERRY_INLINE, api.h) into each form, whose v_form is a constant.
FERRY_INLINE RootedArgs check_rooted(Call& call, MPI_Comm comm, int root, const RootedBuffer& everyone,
                                     const RootedBuffer& at_root) {
  RootedArgs a;
  a.comm = call.comm(comm);
  if (a.comm != nullptr) check_root(call, root, a.comm);
  if (!call.ok()) return a;
  // On an intercommunicator the root's own group passes MPI_ROOT (the root)
  // or MPI_PROC_NULL (nothing is significant), the other group the root's
  // rank (only `everyone` is significant); MPI_IN_PLACE is not allowed.
  const bool inter = a.comm->inter;
  if (inter && root == MPI_PROC_NULL) return a;
  const bool is_root = inter ? root == MPI_ROOT : a.comm->rank == root;
  if (!inter || !is_root)
    a.everyone_type = check_triple(call, everyone.buf, everyone.count, everyone.type, everyone.what, is_root && !inter);
  if (!is_root) return a;
  MPI_Count root_count = at_root.count;
  const int blocks = a.comm->peer_count();
  if (at_root.v_form) {
    a.root_type = check_v_triple(call, at_root.buf, at_root.counts, at_root.displs, blocks, at_root.type, at_root.what);
    // Whether the root's buffer holds data at all, for the aliasing check.
    if (call.ok()) root_count = largest_count(at_root.counts, blocks);
  } else {
    a.root_type = check_triple(call, at_root.buf, root_count, at_root.type, at_root.what);
  }
  if (!inter && everyone.buf != MPI_IN_PLACE)
    check_not_aliased(call, everyone.buf, everyone.count > 0, at_root.buf, root_count > 0);
  return a;
}

// The nonblocking forms hand out the request, or MPI_REQUEST_NULL when the
// call failed before it started.
int finish_nonblocking(Call& call, Err e, Request* r, MPI_Request* request);

// The three forms of each collective (MPI-4.0 §6.12, §6.13): MPI_X, MPI_IX
// and MPI_X_init, each also as MPI_X_c with MPI_Count counts. One checking
// function per collective serves all six entry points; it ends in launch().
enum class Form { kBlocking, kNonblocking, kPersistent };

// After the collective's own checks: the request (not for the blocking
// form) and the _init calls' info (a valid handle or MPI_INFO_NULL; no
// hint changes what a persistent collective does yet). Then runs
// `core(coll::Launch)` as `form` says and hands out its request. A
// nonblocking one started is told to FERRY_PROFILE (a flag's test when it
// is off), which counts it on the communicator found here rather than look
// it up again (profile/companions.h; `barrier`: MPI_Ibarrier's). The
// hook is here, not in coll/, because profile/ sits above coll/
// (src/layers.txt): coll/ could reach it only through a function the
// profile installs, called at each of coll/'s exits that hand out a
// nonblocking request (run_nonblocking, start_shared, at_once, the
// intercommunicator and GPU forms), where this is one inlined flag test at
// the one place every nonblocking collective passes.
// Inline (FERRY_INLINE) into each form, whose `form` is then a constant.
template <typename Core>
FERRY_INLINE int launch(Call& call, Form form, MPI_Info info, MPI_Request* request, Core&& core, bool barrier = false) {
  if (form != Form::kBlocking) call.not_null(request, "request");
  if (form == Form::kPersistent && call.ok()) checked_hints(call, info);
  if (!call.ok()) return call.raise();
  if (form == Form::kBlocking) return call.result(core(coll::Launch{}));
  Request* r = nullptr;
  Err e = core(form == Form::kNonblocking ? coll::nonblocking(&r) : coll::persistent(&r));
  if (profile::companions::watching()) [[unlikely]]
    if (form == Form::kNonblocking && e.ok()) profile::companions::nonblocking_started(call.communicator(), r, barrier);
  return finish_nonblocking(call, std::move(e), r, request);
}

}  // namespace ferry::api
