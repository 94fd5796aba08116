// The MPI tool information interface's variables (MPI-3.1 §14.3): what
// MPI_T shows a tool of Ferry's inside.
//
// Control variables are the configuration registry's FERRY_* settings
// (common/config.h), in its order: the same names, defaults and doc strings
// that `ferry_info` prints, each with its current value. A tool may write
// the few that can change while the process runs (MPI_T_SCOPE_LOCAL):
// FERRY_DEBUG's topics, and how long a blocking call spins, yields and
// sleeps (FERRY_SPIN_US, FERRY_YIELD_US, FERRY_SLEEP_MS); the write acts at
// once. Every other setting is read once (MPI_Init, a transport's start,
// the first collective) or belongs to the launcher: MPI_T_SCOPE_READONLY,
// and a write returns MPI_T_ERR_CVAR_SET_NEVER. Categories:
// base/tool_categories.h; performance variables: base/tool_pvars.h; events:
// base/tool_events.h.
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
  int category;       // base/tool_categories.h
  int scope;          // MPI_T_SCOPE_LOCAL (writable) or MPI_T_SCOPE_READONLY
};
int control_variable_count();
// nullptr for an index out of range.
const ControlVariable* control_variable(int index);
// -1 if there is none of that name.
int control_variable_index(const std::string& name);
// Writes the variable's current value into `buffer` (`count` elements of `type`).
void read_control_variable(int index, void* buffer);
// MPI_T_cvar_write: MPI_SUCCESS, MPI_T_ERR_CVAR_SET_NEVER for a read-only
// setting, MPI_T_ERR_INVALID for a value the setting cannot take (a string
// without its terminator within `count`, a negative duration). `running`:
// MPI is initialized, so a change must reach the progress engine now
// (before MPI_Init it is simply read there).
int write_control_variable(int index, const void* buffer, bool running);

// Copies `text` into a tool's buffer as MPI_T does for names and
// descriptions: at most *length - 1 characters and a terminator, then
// *length is the full text's size including the terminator. A null buffer
// or length asks for the size only.
void copy_out(const std::string& text, char* buffer, int* length);

}  // namespace ferry::tool
