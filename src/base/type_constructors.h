// The MPI datatype constructors (MPI-3.1 §4.1.2-4.1.7). Each creates an
// uncommitted type with one reference (the user's handle), remembers its
// arguments for MPI_Type_get_contents, and holds a reference on the types it
// is built from. Arguments are already validated by src/api.
#pragma once

#include "base/datatype.h"
#include "base/error.h"
#include "mpi.h"

namespace ferry::datatypes {

Err contiguous(int count, const Datatype& old, const Datatype** out);
Err vector(int count, int blocklength, int stride, const Datatype& old, const Datatype** out);
Err hvector(int count, int blocklength, MPI_Aint stride, const Datatype& old, const Datatype** out);
Err indexed(int count, const int blocklengths[], const int displacements[], const Datatype& old,
            const Datatype** out);
Err hindexed(int count, const int blocklengths[], const MPI_Aint displacements[], const Datatype& old,
             const Datatype** out);
Err indexed_block(int count, int blocklength, const int displacements[], const Datatype& old,
                  const Datatype** out);
Err hindexed_block(int count, int blocklength, const MPI_Aint displacements[], const Datatype& old,
                   const Datatype** out);
// A struct may hold MPI-1's bound markers MPI_LB and MPI_UB (removed in
// MPI-3.0, still honoured by MPICH 4.0): they are no members, and the type's
// bounds are the least MPI_LB and the greatest MPI_UB displacement, as MPI-1
// said (MPICH 4.0 takes the last marker of each kind; one of each is the
// same). A bound without a marker is the struct's own, padding included; a
// struct of markers alone has no data and the markers' bounds (an extent of
// -10 for {(MPI_LB, 10)}, whose ub is 0).
Err structure(int count, const int blocklengths[], const MPI_Aint displacements[], const Datatype* const types[],
              const Datatype** out);
Err resized(const Datatype& old, MPI_Aint lb, MPI_Aint extent, const Datatype** out);
Err dup(const Datatype& old, const Datatype** out);

// Subarrays and distributed arrays (base/type_arrays.cc). `order` is
// MPI_ORDER_C or MPI_ORDER_FORTRAN; the distribution arguments are checked
// for consistency by src/api (darray_problem).
Err subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order, const Datatype& old,
             const Datatype** out);
Err darray(int size, int rank, int ndims, const int gsizes[], const int distribs[], const int dargs[],
           const int psizes[], int order, const Datatype& old, const Datatype** out);
// What is wrong with a darray's distribution arguments (MPI-3.1 §4.1.4), or
// an empty string: each argument named with its index and value.
std::string darray_problem(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                           const int dargs[], const int psizes[]);

}  // namespace ferry::datatypes
