// Data representations (MPI-3.1 §13.5): how the bytes of a view's data are
// laid out in the file. "native" is memory's own; "internal" is Ferry's
// choice, and Ferry chooses native; "external32" is the standard's portable
// big-endian form (base/external32.h, shared with MPI_Pack_external); any
// other is one the program registered with MPI_Register_datarep, with its
// own conversion functions (§13.5.3).
//
// Scope of this increment: a view in a non-native representation needs each
// of its types' data to take as many bytes in the file as in memory (true
// of every fixed-size type: the ints, MPI_FLOAT, MPI_DOUBLE, MPI_CHAR,
// MPI_INT64_T, ...; false of MPI_LONG, MPI_LONG_DOUBLE and MPI_WCHAR in
// external32 on this ABI). Then the view maps positions to file offsets as
// in native, and only the bytes change: each chunk is converted between
// memory and the staging buffer, a whole number of elements at a time.
// Types whose size would change are refused with MPI_ERR_UNSUPPORTED_DATAREP,
// naming the type.
#pragma once

#include <cstdint>
#include <string>

#include "base/datatype.h"
#include "base/error.h"
#include "mpi.h"

namespace ferry::io::datarep {

struct Representation {
  enum class Kind { kNative, kExternal32, kUser };
  Kind kind = Kind::kNative;
  std::string name;
  // kUser: the program's functions (MPI_CONVERSION_FN_NULL: the bytes are
  // taken as they are) and their extra state. A representation registered
  // with MPI_Register_datarep_c (MPI-4.0) has the large-count forms instead.
  MPI_Datarep_conversion_function* read = nullptr;
  MPI_Datarep_conversion_function* write = nullptr;
  MPI_Datarep_conversion_function_c* read_c = nullptr;
  MPI_Datarep_conversion_function_c* write_c = nullptr;
  MPI_Datarep_extent_function* extent = nullptr;
  void* extra_state = nullptr;

  bool native() const { return kind == Kind::kNative; }
  // Whether data changes on its way to (writing) or from the file; a
  // registered representation without that function keeps the bytes.
  bool converts(bool writing) const {
    if (kind == Kind::kExternal32) return true;
    if (kind == Kind::kUser)
      return writing ? (write != nullptr || write_c != nullptr) : (read != nullptr || read_c != nullptr);
    return false;
  }
};

// The representation named `name` ("native", "internal" and "external32" in
// any case; registered ones exactly as registered), or nullptr.
const Representation* find(const char* name);

// MPI_Register_datarep: MPI_ERR_DUP_DATAREP if `name` is taken (by a
// predefined representation or an earlier registration), MPI_ERR_ARG for
// an empty name or one longer than MPI_MAX_DATAREP_STRING - 1.
Err register_representation(const char* name, MPI_Datarep_conversion_function* read,
                            MPI_Datarep_conversion_function* write, MPI_Datarep_extent_function* extent,
                            void* extra_state);
// MPI_Register_datarep_c: the same, with conversion functions that take an
// MPI_Count.
Err register_representation(const char* name, MPI_Datarep_conversion_function_c* read,
                            MPI_Datarep_conversion_function_c* write, MPI_Datarep_extent_function* extent,
                            void* extra_state);

// A number that two processes compare to know they named the same
// representation (set_view's agreement).
int64_t id_of(const char* name);

// MPI_ERR_UNSUPPORTED_DATAREP unless the data of `t` takes as many bytes in
// `rep` as in memory (see the scope above). `argument` names t in the
// message ("etype", "datatype").
Err check_type(const Representation& rep, const Datatype& t, const char* argument);

// MPI_File_get_type_extent: the extent of `t` in the file under `rep`.
MPI_Aint file_extent(const Representation& rep, const Datatype& t);

// Conversions of `count` elements of `t`, the first of which is element
// `first` of the user's buffer `buf` (its address is buf + first * extent),
// to or from their file form at `file` (count * t.size bytes).
Err to_file(const Representation& rep, const Datatype& t, const void* buf, uint64_t first, uint64_t count,
            void* file);
Err from_file(const Representation& rep, const Datatype& t, void* buf, uint64_t first, uint64_t count,
              const void* file);

}  // namespace ferry::io::datarep
