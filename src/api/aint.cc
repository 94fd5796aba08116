// Address arithmetic (MPI-3.1 §4.1.5). An MPI_Aint holds absolute addresses as well as displacements;
// on Linux's flat address space both are plain integers. Neither call can fail: each returns the
// result itself, not an error code. The sums wrap like addresses do instead of overflowing a long.
#include "api/api.h"

namespace {
using Address = unsigned long;
static_assert(sizeof(Address) == sizeof(MPI_Aint));
}  // namespace

extern "C" MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<Address>(base) + static_cast<Address>(disp));
}
FERRY_ENTRY(Aint_add)

extern "C" MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<Address>(addr1) - static_cast<Address>(addr2));
}
FERRY_ENTRY(Aint_diff)
