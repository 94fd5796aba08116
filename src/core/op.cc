// Placeholder until the reduction operations land: no operation is known yet.
#include "core/op.h"

namespace ferry {

const Op* find_op(MPI_Op) { return nullptr; }

Err check_op(const Op& op, const Datatype& type) {
  return fail(MPI_ERR_OP, "%s is not available for %s yet", op.name, type.name);
}

void apply(const Op&, const void*, void*, int, const Datatype&) {}

}  // namespace ferry
