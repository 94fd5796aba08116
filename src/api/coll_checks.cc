#include "api/coll_checks.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace ferry::api {
namespace {

// The names of a buffer's three arguments ("sendcount", "sendtype",
// "sendbuf"), which a message names if one is wrong. Every collective call
// passes them before anything fails, so the prefixes the calls use ("",
// "send", "recv") name string constants; others (none today) are copied
// into `out`, three names of at most 64 bytes.
struct TripleNames {
  const char* count;
  const char* type;
  const char* buf;
};

TripleNames names_of(char (&out)[3][64], const char* what) {
  static constexpr TripleNames kPlain{"count", "type", "buf"};
  static constexpr TripleNames kSend{"sendcount", "sendtype", "sendbuf"};
  static constexpr TripleNames kRecv{"recvcount", "recvtype", "recvbuf"};
  // Every collective call comes here with "", "send" or "recv": compared
  // in place, without strcmp (two calls of libc per triple, issue 29).
  if (what[0] == 0) return kPlain;
  auto is = [what](const char (&word)[5]) {
    return what[0] == word[0] && what[1] == word[1] && what[2] == word[2] && what[3] == word[3] && what[4] == 0;
  };
  if (is("send")) return kSend;
  if (is("recv")) return kRecv;
  const char* suffix[3] = {"count", "type", "buf"};
  for (int i = 0; i < 3; ++i) std::snprintf(out[i], sizeof out[i], "%s%s", what, suffix[i]);
  return {out[0], out[1], out[2]};
}

}  // namespace

bool check_root_fully(Call& call, int root, const Communicator* c) {
  if (!call.ok()) return false;
  if (c->inter) {
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->remote_size)) return true;
    return call.fail(MPI_ERR_ROOT, "invalid root %d (MPI_ROOT, MPI_PROC_NULL or a rank of the remote group of %d)",
                     root, c->remote_size);
  }
  if (root >= 0 && root < c->size) return true;
  return call.fail(MPI_ERR_ROOT, "invalid root %d (communicator size %d)", root, c->size);
}

const Datatype* check_triple_fully(Call& call, const void* buf, MPI_Count count, MPI_Datatype type,
                                   const char* what, bool in_place_allowed) {
  if (!call.ok()) return nullptr;
  if (buf == MPI_IN_PLACE) {
    if (!in_place_allowed) check_not_in_place(call, buf, what);
    return nullptr;
  }
  // The usual case passed in check_triple, without spelling the
  // arguments' names; here the checks name what failed.
  char spelled[3][64];
  const TripleNames names = names_of(spelled, what);
  if (!call.count(count, names.count)) return nullptr;
  const Datatype* t = call.datatype(type, names.type);
  if (t == nullptr || !call.movable(t, names.type)) return nullptr;
  if (!call.buffer(buf, count, t, names.buf)) return nullptr;
  return t;
}

const Datatype* check_v_triple(Call& call, const void* buf, coll::CountArray counts, coll::DisplArray displs, int n,
                               MPI_Datatype type, const char* what, bool in_place_allowed) {
  if (!call.ok()) return nullptr;
  if (buf == MPI_IN_PLACE) {
    if (!in_place_allowed) check_not_in_place(call, buf, what);
    return nullptr;
  }
  if (!check_counts(call, counts, displs, n, what)) return nullptr;
  char spelled[3][64];
  const TripleNames names = names_of(spelled, what);
  const Datatype* t = call.datatype(type, names.type);
  if (t == nullptr || !call.movable(t, names.type)) return nullptr;
  // displs[i] extents, modulo 2^64 as addresses are.
  for (int i = 0; i < n; ++i) {
    auto bytes = static_cast<MPI_Aint>(static_cast<uint64_t>(displs[i]) * static_cast<uint64_t>(t->extent));
    if (!call.block(buf, bytes, counts[i], t, what, i)) return nullptr;
  }
  return t;
}

bool check_w_blocks(Call& call, const void* buf, coll::CountArray counts, coll::DisplArray displs,
                    const std::vector<const Datatype*>& types, int n, const char* what) {
  if (!call.ok()) return false;
  for (int i = 0; i < n; ++i)
    if (!call.block(buf, static_cast<MPI_Aint>(displs[i]), counts[i], types[static_cast<size_t>(i)], what, i))
      return false;
  return true;
}

MPI_Count largest_count(coll::CountArray counts, int n) {
  MPI_Count most = 0;
  for (int i = 0; i < n; ++i) most = std::max(most, counts[i]);
  return most;
}

bool check_counts(Call& call, coll::CountArray counts, coll::DisplArray displs, int n, const char* what) {
  if (!call.ok()) return false;
  if (counts.null()) return call.fail(MPI_ERR_ARG, "%scounts is NULL", what);
  if (displs.null()) return call.fail(MPI_ERR_ARG, "%sdispls is NULL", what);
  for (int i = 0; i < n; ++i)
    if (counts[i] < 0)
      return call.fail(MPI_ERR_COUNT, "invalid %scounts[%d] %lld (must be >= 0)", what, i,
                       static_cast<long long>(counts[i]));
  return true;
}

bool check_types(Call& call, const MPI_Datatype types[], coll::CountArray counts, int n, const char* what,
                 std::vector<const Datatype*>* out) {
  if (!call.ok()) return false;
  if (types == nullptr) return call.fail(MPI_ERR_ARG, "%stypes is NULL", what);
  out->assign(static_cast<size_t>(n), nullptr);
  for (int i = 0; i < n; ++i) {
    if (counts[i] == 0 && types[i] == MPI_DATATYPE_NULL) {
      (*out)[i] = find_datatype(MPI_BYTE);
      continue;
    }
    char argument[64];
    std::snprintf(argument, sizeof argument, "%stypes[%d]", what, i);
    const Datatype* t = call.datatype(types[i], argument);
    if (t == nullptr || !call.movable(t, argument)) return false;
    (*out)[i] = t;
  }
  return true;
}

bool check_not_in_place(Call& call, const void* buf, const char* what) {
  if (!call.ok()) return false;
  if (buf == MPI_IN_PLACE) return call.fail(MPI_ERR_ARG, "%sbuf is MPI_IN_PLACE, which is not allowed here", what);
  return true;
}

bool check_not_aliased_fully(Call& call, const void* sendbuf, bool send_has_data, const void* recvbuf,
                             bool recv_has_data) {
  if (!call.ok()) return false;
  if (sendbuf == recvbuf && sendbuf != nullptr && send_has_data && recv_has_data)
    return call.fail(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
  return true;
}

int core_failed(const char* name, Communicator* c, Err e) {
  Call call(name);
  call.use_errhandler_of(c);
  return call.result(std::move(e));
}

int finish_nonblocking(Call& call, Err e, Request* r, MPI_Request* request) {
  *request = r != nullptr ? r->handle : MPI_REQUEST_NULL;
  return call.result(std::move(e));
}

}  // namespace ferry::api
