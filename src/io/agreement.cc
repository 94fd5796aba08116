#include "io/agreement.h"

#include <cstdio>
#include <string>
#include <vector>

#include "base/op.h"
#include "coll/collectives.h"
#include "mpi.h"

namespace ferry::io {

Err agree(Communicator* c, Err local, std::initializer_list<SameEverywhere> same) {
  if (c->size == 1) return local;  // nothing to compare, nobody to tell
  // One maximum over [-(first failing rank), v0, -v0, v1, -v1, ...]: the
  // largest and (negated) smallest value of each argument, and the lowest
  // rank that failed (size when none did).
  std::vector<int64_t> words;
  words.reserve(1 + 2 * same.size());
  words.push_back(-static_cast<int64_t>(local ? c->rank : c->size));
  for (const SameEverywhere& s : same) {
    words.push_back(s.value);
    words.push_back(-s.value);
  }
  if (Err e = coll::allreduce(MPI_IN_PLACE, words.data(), static_cast<int>(words.size()),
                              find_datatype(MPI_INT64_T), find_op(MPI_MAX), c))
    return e;
  int first_failed = static_cast<int>(-words[0]);
  if (first_failed == c->size) {
    size_t i = 1;
    for (const SameEverywhere& s : same) {
      int64_t highest = words[i], lowest = -words[i + 1];
      i += 2;
      if (highest != lowest)
        return fail(MPI_ERR_NOT_SAME, "the processes passed different %s values (%lld here; they range from %lld "
                                      "to %lld): %s must be the same on every process",
                    s.argument, static_cast<long long>(s.value), static_cast<long long>(lowest),
                    static_cast<long long>(highest), s.argument);
    }
    return {};
  }

  // The failing process tells the others what went wrong.
  struct Report {
    int mpi_class;
    char message[400];
  } report{};
  if (c->rank == first_failed) {
    report.mpi_class = local.mpi_class();
    std::snprintf(report.message, sizeof report.message, "%s", local.message().c_str());
  }
  if (Err e = coll::bcast(&report, sizeof report, find_datatype(MPI_BYTE), first_failed, c)) return e;
  if (c->rank == first_failed) return local;
  return fail(report.mpi_class, "process %d failed: %s", first_failed, report.message);
}

}  // namespace ferry::io
