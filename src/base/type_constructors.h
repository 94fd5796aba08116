// The MPI datatype constructors (MPI-4.0 §5.1.2-5.1.7). Each creates an
// uncommitted type with one reference (the user's handle), remembers its
// arguments for MPI_Type_get_contents, and holds a reference on the types it
// is built from. Arguments are already validated by src/api.
//
// Counts, block lengths, strides and displacements are MPI_Count here, for
// both forms of each constructor: the int one (MPI_Type_vector) and the
// large-count one (MPI_Type_vector_c). The form only decides where the
// arguments are recorded: in the integers and addresses of
// MPI_Type_get_contents, or in its large counts (MPI-4.0 §5.1.13).
#pragma once

#include "base/datatype.h"
#include "base/error.h"
#include "mpi.h"

namespace ferry::datatypes {

enum class Form { kInt, kLarge };

// An array argument as the caller gave it: int (the int form) or MPI_Count
// (the large-count form), read as MPI_Count.
class Counts {
 public:
  Counts(const int* values) : ints_(values) {}
  Counts(const MPI_Count* values) : large_(values) {}
  MPI_Count operator[](MPI_Count i) const { return ints_ != nullptr ? ints_[i] : large_[i]; }

 private:
  const int* ints_ = nullptr;
  const MPI_Count* large_ = nullptr;
};

Err contiguous(MPI_Count count, const Datatype& old, const Datatype** out, Form form = Form::kInt);
Err vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride, const Datatype& old, const Datatype** out,
           Form form = Form::kInt);
Err hvector(MPI_Count count, MPI_Count blocklength, MPI_Aint stride, const Datatype& old, const Datatype** out,
            Form form = Form::kInt);
Err indexed(MPI_Count count, Counts blocklengths, Counts displacements, const Datatype& old, const Datatype** out,
            Form form = Form::kInt);
// MPI_Aint and MPI_Count are one type, so byte displacements come as MPI_Aint in both forms.
Err hindexed(MPI_Count count, Counts blocklengths, const MPI_Aint displacements[], const Datatype& old, const Datatype** out,
             Form form = Form::kInt);
Err indexed_block(MPI_Count count, MPI_Count blocklength, Counts displacements, const Datatype& old, const Datatype** out,
                  Form form = Form::kInt);
Err hindexed_block(MPI_Count count, MPI_Count blocklength, const MPI_Aint displacements[], const Datatype& old,
                   const Datatype** out, Form form = Form::kInt);
// A struct may hold MPI-1's bound markers MPI_LB and MPI_UB (removed in
// MPI-3.0, still honoured by MPICH 4.0): they are no members, and the type's
// bounds are the least MPI_LB and the greatest MPI_UB displacement, as MPI-1
// said (MPICH 4.0 takes the last marker of each kind; one of each is the
// same). A bound without a marker is the struct's own, padding included; a
// struct of markers alone has no data and the markers' bounds (an extent of
// -10 for {(MPI_LB, 10)}, whose ub is 0).
Err structure(MPI_Count count, Counts blocklengths, const MPI_Aint displacements[], const Datatype* const types[],
              const Datatype** out, Form form = Form::kInt);
Err resized(const Datatype& old, MPI_Aint lb, MPI_Aint extent, const Datatype** out, Form form = Form::kInt);
Err dup(const Datatype& old, const Datatype** out);

// Subarrays and distributed arrays (base/type_arrays.cc). `order` is
// MPI_ORDER_C or MPI_ORDER_FORTRAN; the distribution arguments are checked
// for consistency by src/api (darray_problem).
Err subarray(int ndims, Counts sizes, Counts subsizes, Counts starts, int order, const Datatype& old, const Datatype** out,
             Form form = Form::kInt);
Err darray(int size, int rank, int ndims, Counts gsizes, const int distribs[], const int dargs[], const int psizes[],
           int order, const Datatype& old, const Datatype** out, Form form = Form::kInt);
// What is wrong with a darray's distribution arguments (MPI-4.0 §5.1.4), or
// an empty string: each argument named with its index and value.
std::string darray_problem(int size, int rank, int ndims, Counts gsizes, const int distribs[], const int dargs[],
                           const int psizes[]);

}  // namespace ferry::datatypes
