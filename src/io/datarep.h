// Data representations (MPI-3.1 §13.5): how the bytes of a view's data are
// laid out in the file. "native" is memory's own; "internal" is Ferry's
// choice, and Ferry chooses native; "external32" is the standard's portable
// big-endian form (base/external32.h, shared with MPI_Pack_external); any
// other is one the program registered with MPI_Register_datarep, with its
// own conversion functions (§13.5.3).
//
// An element may take another size in the file than in memory (MPI_LONG is
// 4 bytes in external32 and 8 in memory on LP64; a registered
// representation says its sizes through its dtype_file_extent_fn). The
// view's etype and filetype are then read in file sizes (§13.5: "the
// etype and filetype ... interpreted in the file's representation"):
// io/file_type.cc builds their file forms, which the view maps with. The
// memory side keeps memory's sizes; each chunk is converted between the
// user's buffer and the staging buffer, a whole number of elements at a
// time, and MPI_Status counts memory elements.
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

// Bytes of data one element of `t` takes in the file under `rep`: its
// size in memory for native, MPI_Pack_external_size's for external32, the
// sum of the extent function's answers over its basic elements for a
// registered one (MPI_ERR_CONVERSION if that function fails).
Err file_size(const Representation& rep, const Datatype& t, uint64_t* out);

// `t` as it lies in the file under `rep` (io/file_type.cc): `t` itself when
// no element changes size, else a committed type with the file's layout.
// The caller owns one reference on *out (datatypes::release). Fails with
// MPI_ERR_CONVERSION if the extent function does (and with
// MPI_ERR_UNSUPPORTED_DATAREP for a combiner it does not know, which no
// constructor of Ferry's makes).
Err file_type(const Representation& rep, const Datatype& t, const Datatype** out);

// That `t` has a file form under `rep` (file_type's errors); `argument`
// names t in the message ("etype", "datatype").
Err check_type(const Representation& rep, const Datatype& t, const char* argument);

// MPI_File_get_type_extent: the extent of `t` in the file under `rep`.
MPI_Aint file_extent(const Representation& rep, const Datatype& t);

// Conversions of `count` elements of `t`, the first of which is element
// `first` of the user's buffer `buf` (its address is buf + first * extent),
// to or from their file form at `file` (count * file_size bytes). Writing
// external32, an integer that does not fit its external32 size fails with
// MPI_ERR_CONVERSION (MPI-3.1 §13.5.2), before anything is written.
Err to_file(const Representation& rep, const Datatype& t, const void* buf, uint64_t first, uint64_t count,
            void* file);
Err from_file(const Representation& rep, const Datatype& t, void* buf, uint64_t first, uint64_t count,
              const void* file);

}  // namespace ferry::io::datarep
