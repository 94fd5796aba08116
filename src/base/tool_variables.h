// The MPI tool information interface's variables (MPI-3.1 §14.3): what
// MPI_T shows a tool of Ferry's inside.
//
// Control variables are the configuration registry's FERRY_* settings
// (common/config.h), in its order: the same names, defaults and doc strings
// that `ferry_info` prints, each with its current value. They are read once
// at MPI_Init, so a tool may read them any time and write none
// (MPI_T_SCOPE_READONLY). One category, "ferry", holds them all.
// Performance variables: none yet (they come with MPI-4.0's MPI_T work,
// issue 18); sessions exist so that tools' set-up runs.
#pragma once

#include <string>

#include "mpi.h"

namespace ferry::tool {

// MPI_T_init_thread / MPI_T_finalize nest (MPI-3.1 §14.3.4); both may be
// called before MPI_Init and after MPI_Finalize.
void init();
// False (and nothing done) if MPI_T is not initialized.
bool finalize();
bool initialized();

struct ControlVariable {
  std::string name;
  std::string doc;
  MPI_Datatype type;  // MPI_INT for numeric settings, else MPI_CHAR
  int count;          // elements read by MPI_T_cvar_read
};
int control_variable_count();
// nullptr for an index out of range.
const ControlVariable* control_variable(int index);
// -1 if there is none of that name.
int control_variable_index(const std::string& name);
// Writes the variable's current value into `buffer` (`count` elements of `type`).
void read_control_variable(int index, void* buffer);

// The single category.
constexpr const char* kCategoryName = "ferry";
constexpr const char* kCategoryDoc = "Ferry's settings (FERRY_* environment variables)";

// Copies `text` into a tool's buffer as MPI_T does for names and
// descriptions: at most *length - 1 characters and a terminator, then
// *length is the full text's size including the terminator. A null buffer
// or length asks for the size only.
void copy_out(const std::string& text, char* buffer, int* length);

}  // namespace ferry::tool
