// Objects and functions that MPICH's mpi.h refers to by name, so that binaries built against it
// resolve them in our library: the predefined attribute-copy callback behind MPI_*_DUP_FN, the
// Fortran "ignore" markers and the sentinels of MPI_Dist_graph_create and MPI_T.
//
// Their values matter only as distinct addresses: the runtime compares arguments against them.
#include "mpi.h"

// MPI-3.1 §6.7.2: MPI_COMM_DUP_FN, MPI_TYPE_DUP_FN, MPI_WIN_DUP_FN and MPI_DUP_FN copy the attribute
// value (a pointer-sized word) and ask for the attribute to be kept.
extern "C" int MPIR_Dup_fn(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out,
                           int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

namespace {
// Storage whose addresses are the markers; never read or written.
MPI_Fint f_status_ignore[5];
MPI_Fint f_statuses_ignore[5];
int unweighted;
int weights_empty;
int pvar_all_handles;
}  // namespace

// MPI-3.1 §17.2.5: MPI_STATUS(ES)_IGNORE as a C program sees the Fortran ones.
MPI_Fint* MPI_F_STATUS_IGNORE = f_status_ignore;
MPI_Fint* MPI_F_STATUSES_IGNORE = f_statuses_ignore;

// The Fortran 2008 markers. MPICH's header also declares the objects they point at (and two more
// for MPI_IN_PLACE and MPI_BOTTOM), which its Fortran bindings use; they are exported too
// (libmpi.map: MPIR_F08_*).
extern "C" {
__attribute__((visibility("default"))) MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
__attribute__((visibility("default"))) MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
__attribute__((visibility("default"))) int MPIR_F08_MPI_IN_PLACE;
__attribute__((visibility("default"))) int MPIR_F08_MPI_BOTTOM;
}
MPI_F08_status* MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status* MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;

// MPI-3.1 §7.5.4: weights arguments of the distributed graph constructors.
int* const MPI_UNWEIGHTED = &unweighted;
int* const MPI_WEIGHTS_EMPTY = &weights_empty;

// MPI-3.1 §14.3.7: stands for every handle of a session in MPI_T_pvar_start/stop/reset.
MPIR_T_pvar_handle_s* const MPI_T_PVAR_ALL_HANDLES =
    reinterpret_cast<MPIR_T_pvar_handle_s*>(&pvar_all_handles);
