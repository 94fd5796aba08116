// Datatypes: the predefined ones and those built at run time
// (MPI-3.1 §4.1), as the rest of the runtime sees them.
//
// Every type, predefined or derived, carries its bounds, a layout (where its
// data lies: base/type_layout.h) and a signature (its basic elements:
// base/type_signature.h). Point-to-point moves a contiguous type straight
// from and into the user's buffer and anything else through the datatype
// engine (base/type_pack.h), which packs and unpacks any byte range.
//
// Derived types are reference counted: the user's handle is one reference,
// every request using the type holds one (taken in pt2pt, dropped when the
// request goes back to the pool), and a type holds one on each type it was
// built from. MPI_Type_free drops the user's; the type goes when the last
// one does (MPI-3.1 §4.1.9: freeing does not affect pending communication).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/handles.h"
#include "base/type_layout.h"
#include "base/type_signature.h"
#include "mpi.h"

namespace ferry {

struct Derived;

struct Datatype {
  MPI_Datatype handle;
  const char* name;   // "MPI_INT"; a derived type's MPI_Type_set_name name, "" if none
  size_t size;        // bytes of data in one element
  MPI_Aint lb;        // lower bound
  MPI_Aint extent;    // stride between consecutive elements
  bool contiguous;    // one element is `size` bytes at offset 0 and extent == size
  bool supported;     // false: known to MPI, not yet movable by point-to-point

  MPI_Aint true_lb = 0;      // first byte of data, from the element's origin
  MPI_Aint true_extent = 0;  // from the first byte of data to one past the last
  size_t alignment = 1;      // what MPI_Type_create_struct pads to (MPI-3.1 §4.1.6)
  bool committed = true;     // derived types: once MPI_Type_commit'ed
  const type::Layout* layout = nullptr;
  const type::Signature* signature = nullptr;
  Derived* derived = nullptr;  // nullptr for predefined types

  // Bytes of data in `count` elements.
  // Counts are MPI_Count (64 bits) in the core: the int entry points widen
  // theirs, so one path carries counts beyond 2^31.
  size_t bytes(MPI_Count count) const { return size * static_cast<size_t>(count); }
  bool predefined() const { return derived == nullptr; }
  // The one basic type of every element of its signature (what MPI requires
  // every rank to pass alike, whatever datatype each names: MPI_INTEGER and
  // MPI_INTEGER4, MPI_INT and a vector of ints), or MPI_DATATYPE_NULL for a
  // mix. MPI_2INT's is MPI_INT.
  MPI_Datatype single_basic() const { return signature != nullptr ? signature->single_basic() : handle; }
};

// What a derived type owns besides its Datatype: how it was made
// (MPI_Type_get_envelope/get_contents), its name, layout and signature.
struct Derived {
  std::atomic<int> references{1};
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  // A large-count constructor's (MPI_Type_vector_c, ...) counts, which
  // MPI_Type_get_contents_c alone returns (MPI-4.0 §5.1.13).
  std::vector<MPI_Count> large_counts;
  std::vector<const Datatype*> types;  // each holds a reference
  std::string name;
  type::Layout layout;
  type::Signature signature;
};

namespace datatypes {
// The predefined types of kind builtin by their handle's low byte (unique
// in MPICH's numbering), filled before main() (datatype.cc).
extern const Datatype* builtin[256];
// find_datatype's other kinds (pair types, derived types) and bad handles.
const Datatype* find_other(MPI_Datatype handle);
}  // namespace datatypes

// The datatype behind a handle, or nullptr for an invalid or null handle.
// O(1) for every kind of handle; inline for the builtin types (MPI_INT,
// MPI_DOUBLE, ...), which nearly every call names (issue 29).
inline const Datatype* find_datatype(MPI_Datatype handle) {
  const auto h = static_cast<uint32_t>(handle);
  if ((h >> 30) == handle::kKindBuiltin && ((h >> 26) & 0xf) == static_cast<uint32_t>(handle::Object::kDatatype)) {
    const Datatype* t = datatypes::builtin[h & 0xff];
    return t != nullptr && t->handle == handle ? t : nullptr;
  }
  return datatypes::find_other(handle);
}

// For messages: "MPI_INT", a derived type's name, or its handle ("0xcc000003").
std::string datatype_label(const Datatype& t);

namespace datatypes {

// Registers a new derived type (one reference: the user's) and gives it a
// handle. `t.derived` must be set; the Datatype's layout, signature and name
// point into it.
const Datatype* add(std::unique_ptr<Datatype> t, std::unique_ptr<Derived> d);
// References for requests and for types built from this one; no-ops on
// predefined types (and nullptr), which cost one test.
void retain_derived(const Datatype* t);
void release_derived(const Datatype* t);
inline void retain(const Datatype* t) {
  if (t != nullptr && t->derived != nullptr) retain_derived(t);
}
inline void release(const Datatype* t) {
  if (t != nullptr && t->derived != nullptr) release_derived(t);
}
// MPI_Type_commit.
void commit(const Datatype* t);
// MPI_Type_set_name, for predefined types too.
void set_name(const Datatype* t, const std::string& name);
// Derived types alive (for leak checks in tests).
size_t live();
// MPI_Type_match_size (MPI-3.1 §17.2.5): the predefined type of `typeclass`
// (MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX) with `size` bytes, as MPICH
// chooses it (Fortran's sized types first, then C's); MPI_ERR_ARG if none.
Err match_size(int typeclass, int size, const Datatype** out);

}  // namespace datatypes

// Copies `scount` elements of `stype` at `src` into `rcount` elements of
// `rtype` at `dst`: the type signatures must match (MPI-3.1 §3.3.1), the
// type maps need not. Fails with MPI_ERR_TRUNCATE if the destination is
// smaller. Defined in base/type_pack.cc.
Err copy_typed(const void* src, MPI_Count scount, const Datatype& stype, void* dst, MPI_Count rcount,
                const Datatype& rtype);

}  // namespace ferry
