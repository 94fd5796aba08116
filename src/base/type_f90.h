// Fortran 90's parameterized types (MPI-3.1 §17.2.5): MPI_Type_create_f90_integer,
// _real and _complex name the type of a Fortran kind chosen by its precision and
// range, SELECTED_INT_KIND(r) or SELECTED_REAL_KIND(p, r).
//
// The standard calls the result predefined: it is committed, it cannot be freed,
// and asking again for the same (p, r) returns the same handle. Its envelope says
// MPI_COMBINER_F90_* with p and r as given (MPI_UNDEFINED included), and it
// moves, packs and reduces as the sized Fortran type it stands for.
#pragma once

#include "base/datatype.h"
#include "base/error.h"

namespace ferry::datatypes {

// The kinds gfortran has, as MPICH's configure records them for its tables: an
// integer kind holds every value of up to 2, 4, 9 or 18 decimal digits, a real
// kind 6 or 15 significant digits with exponents of up to 37 or 307. A request
// no kind satisfies is MPI_ERR_ARG naming the argument.
Err f90_integer(int r, const Datatype** out);
Err f90_real(int p, int r, const Datatype** out);
Err f90_complex(int p, int r, const Datatype** out);

// Made by one of the above: permanent, like a predefined type.
bool is_f90(const Datatype& t);

}  // namespace ferry::datatypes
