// The MPI-3.1 functions the runtime does not implement yet. Each is a real entry point (PMPI_X, and
// MPI_X generated from src/api/mpi_api.txt), so that every program built against MPICH's header links and loads; calling
// one raises MPI_ERR_OTHER "MPI_X is not implemented yet" on MPI_COMM_WORLD's error handler.
//
// Implementing a function means deleting its line here: a second definition of PMPI_X fails the
// link, so none is forgotten. tests/abi checks that every function of include/mpi/mpi.h is exported.
#if __has_include("api/api.h")
#include "api/api.h"
#else
#include "mpi.h"
#define FERRY_ENTRY(name)                                                       \
  extern "C" __attribute__((alias("PMPI_" #name), visibility("hidden"))) \
  decltype(PMPI_##name) ferry_impl_MPI_##name;
namespace ferry::api {
int not_implemented(const char* call, const char* reason = nullptr);
}  // namespace ferry::api
#endif

// FERRY_NOT_IMPLEMENTED(Comm_dup, (MPI_Comm, MPI_Comm *)) defines PMPI_Comm_dup with those
// parameters and hands it to the generated MPI_Comm_dup (api.h FERRY_ENTRY).
#define FERRY_NOT_IMPLEMENTED(name, params)                                                \
  extern "C" int PMPI_##name params { return ferry::api::not_implemented("MPI_" #name); } \
  FERRY_ENTRY(name)

// The same for functions that wait for a whole feature; `reason` says which.
#define FERRY_NOT_SUPPORTED(name, params, reason)                                                   \
  extern "C" int PMPI_##name params { return ferry::api::not_implemented("MPI_" #name, reason); } \
  FERRY_ENTRY(name)

// Errors and error handlers (MPI-3.1 §8.3-8.5)

// Datatypes, packing (MPI-3.1 §4)

// Collective communication, blocking (MPI-3.1 §5)

// Collective communication, nonblocking (MPI-3.1 §5.12)

// Groups, communicators, intercommunicators (MPI-3.1 §6)

// Caching: keyvals and attributes (MPI-3.1 §6.7)

// Object names (MPI-3.1 §6.8)



// One-sided communication (MPI-3.1 §11)

// Their large-count forms (MPI-4.0 §12): MPI_Count counts, MPI_Aint displacement units.


// I/O (MPI-3.1 §13)


// Deprecated since MPI-2.0, still part of MPI-3.1 (MPI-3.1 §15)

// Language interoperability (MPI-3.1 §17.2)
