// A process's view of a file (MPI-3.1 §13.3): the file as seen through a
// displacement, an elementary type and a filetype tiled from there on.
//
// Positions in a view count bytes of the view's data in the file (an etype
// offset times the etype's size in the file's data representation); the
// holes of the filetype are not counted. A representation that stores some
// element at another size than memory (MPI_LONG in external32) maps with
// the file forms of the etype and filetype (io/datarep.h), so that every
// offset and extent of the view is the file's (MPI-3.1 §13.5). Mapping a
// range of positions to file offsets walks the filetype's layout (the
// datatype engine's nested loops, base/type_pack.h's for_each_run), so a
// subarray view costs a few loops and one call per contiguous run, never a
// list with an entry per element.
#pragma once

#include <cstdint>
#include <string>

#include "base/datatype.h"
#include "base/error.h"
#include "base/type_pack.h"
#include "io/datarep.h"
#include "mpi.h"

namespace ferry::io {

class View {
 public:
  // The view a file opens with: displacement 0, etype and filetype
  // MPI_BYTE, "native" (§13.2.1).
  View();
  ~View();
  View(const View&) = delete;
  View& operator=(const View&) = delete;

  // Replaces the view (holds a reference on each type while it is in use).
  // check_view must have accepted the arguments.
  void set(MPI_Offset disp, const Datatype* etype, const Datatype* filetype, std::string datarep);

  MPI_Offset disp() const { return disp_; }
  // The etype and filetype as the file holds them (their sizes and
  // layout in the file's representation), which the mapping uses.
  const Datatype& etype() const { return *file_etype_; }
  const Datatype& filetype() const { return *file_filetype_; }
  // The ones the program gave (MPI_File_get_view).
  const Datatype& given_etype() const { return *etype_; }
  const Datatype& given_filetype() const { return *filetype_; }
  const std::string& datarep() const { return datarep_; }
  const datarep::Representation& representation() const { return *representation_; }
  // Bytes that `count` elements of memory type `t` take in the file.
  uint64_t file_bytes(const Datatype& t, uint64_t count) const;

  // The file offset of view byte `position`.
  uint64_t file_offset(uint64_t position) const;
  // Calls visit.run(file offset, bytes) for each contiguous piece of the
  // file that view bytes [position, position + bytes) occupy, in order.
  void for_each_run(uint64_t position, uint64_t bytes, type::RunVisitor& visit) const;
  // The view bytes that lie below file offset `file_size`: where the end
  // of the file is, as a view position (for MPI_SEEK_END).
  uint64_t position_of_offset(uint64_t file_size) const;

 private:
  MPI_Offset disp_ = 0;
  const Datatype* etype_;
  const Datatype* filetype_;
  const Datatype* file_etype_;
  const Datatype* file_filetype_;
  bool resizes_ = false;  // a representation whose sizes may differ from memory's
  std::string datarep_ = "native";
  const datarep::Representation* representation_;
};

// What MPI_File_set_view accepts (§13.3), checked on each process:
// committed types with data, a filetype whose data is a whole number of
// etypes (MPI_ERR_TYPE); etype and filetype displacements that are not
// negative, never decrease and, on a file that may be written, never
// overlap (MPI_ERR_IO, ROMIO's class for these); a displacement that is
// not negative (MPI_ERR_ARG; MPI_DISPLACEMENT_CURRENT only on
// MPI_MODE_SEQUENTIAL files); a known data representation
// (MPI_ERR_UNSUPPORTED_DATAREP otherwise), whose file forms of etype and
// filetype can be made (io/datarep.h) and in which the filetype's data is
// a whole number of etypes too.
Err check_view(MPI_Offset disp, const Datatype& etype, const Datatype& filetype, const char* datarep, int amode);

// The extent of `t` in the file under data representation `datarep`
// (MPI_File_get_type_extent): native and internal store data as in memory.
MPI_Aint file_extent(const Datatype& t, const std::string& datarep);

}  // namespace ferry::io
