// The "external32" data representation (MPI-3.1 §13.5.2): every basic
// element big-endian at a size the standard fixes whatever the host's
// (MPI_LONG and MPI_UNSIGNED_LONG 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE an
// IEEE binary128 in 16, a complex type two of its parts), the elements one
// after another in type-map order, no padding. MPI_Pack_external (§4.3)
// packs into it; MPI-IO's "external32" file views (§13.5.2) store it.
//
// It is the native packed form of base/type_pack.h with each basic element
// converted: the datatype engine gathers the data, and the signature
// (base/type_signature.h) says which basic element each packed byte belongs
// to. Integers wider than their external32 size (a long on LP64) keep their
// low bytes, as a C conversion to the narrower type would (and as MPICH
// does); reading one back sign- or zero-extends it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/datatype.h"
#include "mpi.h"

namespace ferry::type::external32 {

// The representation's name, as MPI_Pack_external and MPI_File_set_view take it.
inline constexpr const char* kName = "external32";

// Bytes of one element of predefined type `basic` (a type that can appear in
// a signature) in external32; 0 for a handle that is none.
size_t basic_size(MPI_Datatype basic);

// `n` elements of predefined type `basic` between the host's representation
// (`native`, n * its MPI_Type_size bytes) and external32 (`external`,
// n * basic_size(basic) bytes). Neither buffer needs any alignment; they
// must not overlap.
void encode(MPI_Datatype basic, uint64_t n, const void* native, void* external);
void decode(MPI_Datatype basic, uint64_t n, const void* external, void* native);

// Bytes of `count` elements of `t` in external32 (MPI_Pack_external_size).
uint64_t packed_bytes(const Datatype& t, uint64_t count);

// `count` elements of `t` at `buf` to their external32 form at `out`
// (packed_bytes(t, count) bytes), and back.
void pack(const Datatype& t, const void* buf, uint64_t count, void* out);
void unpack(const Datatype& t, void* buf, uint64_t count, const void* in);

}  // namespace ferry::type::external32
