#include "runtime/fault_tolerance.h"

#include <cstdint>

#include "runtime/comm_create.h"
#include "runtime/group_allreduce.h"

namespace ferry::runtime::ulfm {
namespace {

// Tags of their messages on the group-collective context: negative, so
// they never meet a program's MPI_Comm_create_group (tags >= 0) there.
constexpr int kAgreeTag = -1001;
constexpr int kShrinkTag = -1002;

Err intra_only(const Communicator* c, const char* what) {
  if (!c->inter) return {};
  return fail(MPI_ERR_COMM, "%s on an intercommunicator is not supported", what);
}

}  // namespace

Err agree(Communicator* c, int* flag) {
  if (Err e = intra_only(c, "agreement")) return e;
  uint32_t word = static_cast<uint32_t>(*flag);
  if (c->size > 1)
    if (Err e = group_allreduce_band(c, *c->group, kAgreeTag, &word, 1)) return e;
  *flag = static_cast<int>(word);
  return {};
}

Err shrink(Communicator* c, Communicator** out) {
  if (Err e = intra_only(c, "shrink")) return e;
  return communicators::create_group(c, c->group, kShrinkTag, out);
}

}  // namespace ferry::runtime::ulfm
