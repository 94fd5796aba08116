// Communicator hints (MPI-4.0 §7.4.4): which info keys a communicator keeps.
//
// The standard lets an implementation ignore hints it does not recognize,
// and MPI_Comm_get_info then returns only the hints in effect. MPICH does
// exactly that (its test comm/comm_info checks that an unknown key does not
// come back), so Ferry keeps only the keys below and drops the rest.
#pragma once

#include <string_view>

#include "base/communicator.h"
#include "base/info.h"

namespace ferry::comm_hints {

// Whether Ferry keeps `key` on a communicator.
bool recognized(std::string_view key);

// The recognized keys of `given`, in their order (MPI_Comm_dup_with_info).
Info filter(const Info& given);

// Sets on `hints` the recognized keys of `given` (MPI_Comm_set_info: a key
// given again takes its new value, the others stay).
void merge(const Info& given, Info* hints);

// Gives `c` these hints (already filtered) and updates the assertions it
// caches from them; a hint counts as asserted when its value is "true".
void assign(Communicator& c, Info hints);

}  // namespace ferry::comm_hints
