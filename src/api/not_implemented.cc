// The MPI-3.1 functions the runtime does not implement yet. Each is a real entry point (PMPI_X and
// its weak alias MPI_X), so that every program built against MPICH's header links and loads; calling
// one raises MPI_ERR_OTHER "MPI_X is not implemented yet" on MPI_COMM_WORLD's error handler.
//
// Implementing a function means deleting its line here: a second definition of PMPI_X fails the
// link, so none is forgotten. tests/abi checks that every function of include/mpi/mpi.h is exported.
#if __has_include("api/api.h")
#include "api/api.h"
#else
#include "mpi.h"
#define FERRY_PRAGMA(text) _Pragma(#text)
#define FERRY_WEAK_ALIAS(name) FERRY_PRAGMA(weak MPI_##name = PMPI_##name)
namespace ferry::api {
int not_implemented(const char* call, const char* reason = nullptr);
}  // namespace ferry::api
#endif

// FERRY_NOT_IMPLEMENTED(Comm_dup, (MPI_Comm, MPI_Comm *)) defines PMPI_Comm_dup with those
// parameters and makes MPI_Comm_dup a weak alias of it.
#define FERRY_NOT_IMPLEMENTED(name, params)                                                \
  extern "C" int PMPI_##name params { return ferry::api::not_implemented("MPI_" #name); } \
  FERRY_WEAK_ALIAS(name)

// The same for functions that wait for a whole feature; `reason` says which.
#define FERRY_NOT_SUPPORTED(name, params, reason)                                                   \
  extern "C" int PMPI_##name params { return ferry::api::not_implemented("MPI_" #name, reason); } \
  FERRY_WEAK_ALIAS(name)

// Errors and error handlers (MPI-3.1 §8.3-8.5)
FERRY_NOT_IMPLEMENTED(Win_call_errhandler, (MPI_Win, int))
FERRY_NOT_IMPLEMENTED(Win_create_errhandler, (MPI_Win_errhandler_function *, MPI_Errhandler *))
FERRY_NOT_IMPLEMENTED(Win_get_errhandler, (MPI_Win, MPI_Errhandler *))
FERRY_NOT_IMPLEMENTED(Win_set_errhandler, (MPI_Win, MPI_Errhandler))

// Datatypes, packing (MPI-3.1 §4)

// Collective communication, blocking (MPI-3.1 §5)

// Collective communication, nonblocking (MPI-3.1 §5.12)

// Groups, communicators, intercommunicators (MPI-3.1 §6)

// Caching: keyvals and attributes (MPI-3.1 §6.7)
FERRY_NOT_IMPLEMENTED(Win_create_keyval, (MPI_Win_copy_attr_function *, MPI_Win_delete_attr_function *, int *, void *))
FERRY_NOT_IMPLEMENTED(Win_delete_attr, (MPI_Win, int))
FERRY_NOT_IMPLEMENTED(Win_free_keyval, (int *))
FERRY_NOT_IMPLEMENTED(Win_get_attr, (MPI_Win, int, void *, int *))
FERRY_NOT_IMPLEMENTED(Win_set_attr, (MPI_Win, int, void *))

// Object names (MPI-3.1 §6.8)
FERRY_NOT_IMPLEMENTED(Win_get_name, (MPI_Win, char *, int *))
FERRY_NOT_IMPLEMENTED(Win_set_name, (MPI_Win, const char *))



// One-sided communication (MPI-3.1 §11)
FERRY_NOT_IMPLEMENTED(Accumulate, (const void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op, MPI_Win))
FERRY_NOT_IMPLEMENTED(Compare_and_swap, (const void *, const void *, void *, MPI_Datatype, int, MPI_Aint, MPI_Win))
FERRY_NOT_IMPLEMENTED(Fetch_and_op, (const void *, void *, MPI_Datatype, int, MPI_Aint, MPI_Op, MPI_Win))
FERRY_NOT_IMPLEMENTED(Get, (void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win))
FERRY_NOT_IMPLEMENTED(Get_accumulate, (const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op, MPI_Win))
FERRY_NOT_IMPLEMENTED(Put, (const void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win))
FERRY_NOT_IMPLEMENTED(Raccumulate, (const void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op, MPI_Win, MPI_Request *))
FERRY_NOT_IMPLEMENTED(Rget, (void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win, MPI_Request *))
FERRY_NOT_IMPLEMENTED(Rget_accumulate, (const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op, MPI_Win, MPI_Request *))
FERRY_NOT_IMPLEMENTED(Rput, (const void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win, MPI_Request *))
FERRY_NOT_IMPLEMENTED(Win_allocate, (MPI_Aint, int, MPI_Info, MPI_Comm, void *, MPI_Win *))
FERRY_NOT_IMPLEMENTED(Win_allocate_shared, (MPI_Aint, int, MPI_Info, MPI_Comm, void *, MPI_Win *))
FERRY_NOT_IMPLEMENTED(Win_attach, (MPI_Win, void *, MPI_Aint))
FERRY_NOT_IMPLEMENTED(Win_complete, (MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_create, (void *, MPI_Aint, int, MPI_Info, MPI_Comm, MPI_Win *))
FERRY_NOT_IMPLEMENTED(Win_create_dynamic, (MPI_Info, MPI_Comm, MPI_Win *))
FERRY_NOT_IMPLEMENTED(Win_detach, (MPI_Win, const void *))
FERRY_NOT_IMPLEMENTED(Win_fence, (int, MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_flush, (int, MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_flush_all, (MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_flush_local, (int, MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_flush_local_all, (MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_free, (MPI_Win *))
FERRY_NOT_IMPLEMENTED(Win_get_group, (MPI_Win, MPI_Group *))
FERRY_NOT_IMPLEMENTED(Win_get_info, (MPI_Win, MPI_Info *))
FERRY_NOT_IMPLEMENTED(Win_lock, (int, int, int, MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_lock_all, (int, MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_post, (MPI_Group, int, MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_set_info, (MPI_Win, MPI_Info))
FERRY_NOT_IMPLEMENTED(Win_shared_query, (MPI_Win, int, MPI_Aint *, int *, void *))
FERRY_NOT_IMPLEMENTED(Win_start, (MPI_Group, int, MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_sync, (MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_test, (MPI_Win, int *))
FERRY_NOT_IMPLEMENTED(Win_unlock, (int, MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_unlock_all, (MPI_Win))
FERRY_NOT_IMPLEMENTED(Win_wait, (MPI_Win))

// Their large-count forms (MPI-4.0 §12): MPI_Count counts, MPI_Aint displacement units.
FERRY_NOT_IMPLEMENTED(Accumulate_c, (const void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Op, MPI_Win))
FERRY_NOT_IMPLEMENTED(Get_c, (void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Win))
FERRY_NOT_IMPLEMENTED(Get_accumulate_c, (const void *, MPI_Count, MPI_Datatype, void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Op, MPI_Win))
FERRY_NOT_IMPLEMENTED(Put_c, (const void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Win))
FERRY_NOT_IMPLEMENTED(Raccumulate_c, (const void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Op, MPI_Win, MPI_Request *))
FERRY_NOT_IMPLEMENTED(Rget_c, (void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Win, MPI_Request *))
FERRY_NOT_IMPLEMENTED(Rget_accumulate_c, (const void *, MPI_Count, MPI_Datatype, void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Op, MPI_Win, MPI_Request *))
FERRY_NOT_IMPLEMENTED(Rput_c, (const void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Win, MPI_Request *))
FERRY_NOT_IMPLEMENTED(Win_allocate_c, (MPI_Aint, MPI_Aint, MPI_Info, MPI_Comm, void *, MPI_Win *))
FERRY_NOT_IMPLEMENTED(Win_allocate_shared_c, (MPI_Aint, MPI_Aint, MPI_Info, MPI_Comm, void *, MPI_Win *))
FERRY_NOT_IMPLEMENTED(Win_create_c, (void *, MPI_Aint, MPI_Aint, MPI_Info, MPI_Comm, MPI_Win *))
FERRY_NOT_IMPLEMENTED(Win_shared_query_c, (MPI_Win, int, MPI_Aint *, MPI_Aint *, void *))


// I/O (MPI-3.1 §13)


// Deprecated since MPI-2.0, still part of MPI-3.1 (MPI-3.1 §15)

// Language interoperability (MPI-3.1 §17.2)
