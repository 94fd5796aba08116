// A datatype as it lies in a file of another data representation
// (MPI-3.1 §13.5): the same constructor applied to the same arguments, with
// every basic element at its size in the file. Strides and displacements
// given in elements (contiguous, vector, indexed, indexed_block, subarray,
// darray) scale with the file extent of the old type; those given in bytes
// (hvector, hindexed, hindexed_block, struct, resized) stay as the program
// wrote them, which §13.5.1's advice asks it to compute with
// MPI_File_get_type_extent. A basic element whose size changes becomes
// MPI_BYTE x its file size, so the result's layout is byte for byte the
// file's, and the view's mapping (io/view.h) needs nothing else.
//
// Cost: one type built per derived type in the tree, at MPI_File_set_view;
// none at all when no element changes size (the type itself is used).
#include <vector>

#include "base/type_constructors.h"
#include "io/datarep.h"

namespace ferry::io::datarep {
namespace {

using datatypes::Counts;

// Builds `t`'s file form into *out (a reference the caller owns).
Err build(const Representation& rep, const Datatype& t, const Datatype** out);

// The file forms of `t`'s old types, released when it goes.
struct OldTypes {
  std::vector<const Datatype*> types;
  ~OldTypes() {
    for (const Datatype* o : types) datatypes::release(o);
  }
};

Err unknown(const Representation& rep, const Datatype& t) {
  return fail(MPI_ERR_UNSUPPORTED_DATAREP,
              "%s (combiner %d) has no file layout in data representation \"%s\" whose sizes differ from memory's",
              datatype_label(t).c_str(), t.derived->combiner, rep.name.c_str());
}

// A large-count constructor's (MPI_Type_vector_c, ...) arguments: its
// counts and displacements in large_counts, in the order of the call
// (MPI-4.0 §5.1.13); ndims, order and the darray's distribution in ints.
Err rebuild_large(const Representation& rep, const Datatype& t, const std::vector<const Datatype*>& old,
                  const Datatype** out) {
  const Derived& d = *t.derived;
  const std::vector<int>& i = d.ints;
  const MPI_Count* c = d.large_counts.data();
  const Datatype& o = *old[0];
  const auto large = datatypes::Form::kLarge;
  switch (d.combiner) {
    case MPI_COMBINER_CONTIGUOUS: return datatypes::contiguous(c[0], o, out, large);
    case MPI_COMBINER_VECTOR: return datatypes::vector(c[0], c[1], c[2], o, out, large);
    case MPI_COMBINER_HVECTOR: return datatypes::hvector(c[0], c[1], c[2], o, out, large);
    case MPI_COMBINER_INDEXED: return datatypes::indexed(c[0], Counts(c + 1), Counts(c + 1 + c[0]), o, out, large);
    case MPI_COMBINER_HINDEXED: return datatypes::hindexed(c[0], Counts(c + 1), c + 1 + c[0], o, out, large);
    case MPI_COMBINER_INDEXED_BLOCK: return datatypes::indexed_block(c[0], c[1], Counts(c + 2), o, out, large);
    case MPI_COMBINER_HINDEXED_BLOCK: return datatypes::hindexed_block(c[0], c[1], c + 2, o, out, large);
    case MPI_COMBINER_STRUCT:
      return datatypes::structure(c[0], Counts(c + 1), c + 1 + c[0], old.data(), out, large);
    case MPI_COMBINER_RESIZED: return datatypes::resized(o, c[0], c[1], out, large);
    case MPI_COMBINER_SUBARRAY: {
      int n = i[0];
      return datatypes::subarray(n, Counts(c), Counts(c + n), Counts(c + 2 * n), i[1], o, out, large);
    }
    case MPI_COMBINER_DARRAY: {
      int n = i[2];
      return datatypes::darray(i[0], i[1], n, Counts(c), &i[3], &i[3 + n], &i[3 + 2 * n], i[3 + 3 * n], o, out,
                               large);
    }
    default: return unknown(rep, t);
  }
}

Err rebuild(const Representation& rep, const Datatype& t, const Datatype** out) {
  const Derived& d = *t.derived;
  OldTypes old;
  for (const Datatype* o : d.types) {
    const Datatype* f = nullptr;
    if (Err e = build(rep, *o, &f)) return e;
    old.types.push_back(f);
  }
  if (!d.large_counts.empty()) return rebuild_large(rep, t, old.types, out);
  const std::vector<int>& i = d.ints;
  const std::vector<MPI_Aint>& a = d.aints;
  const Datatype& o = *old.types[0];
  switch (d.combiner) {
    case MPI_COMBINER_DUP: return datatypes::dup(o, out);
    case MPI_COMBINER_CONTIGUOUS: return datatypes::contiguous(i[0], o, out);
    case MPI_COMBINER_VECTOR: return datatypes::vector(i[0], i[1], i[2], o, out);
    case MPI_COMBINER_HVECTOR: return datatypes::hvector(i[0], i[1], a[0], o, out);
    case MPI_COMBINER_INDEXED: return datatypes::indexed(i[0], Counts(&i[1]), Counts(&i[1 + i[0]]), o, out);
    case MPI_COMBINER_HINDEXED: return datatypes::hindexed(i[0], Counts(&i[1]), a.data(), o, out);
    case MPI_COMBINER_INDEXED_BLOCK: return datatypes::indexed_block(i[0], i[1], Counts(&i[2]), o, out);
    case MPI_COMBINER_HINDEXED_BLOCK: return datatypes::hindexed_block(i[0], i[1], a.data(), o, out);
    case MPI_COMBINER_STRUCT: return datatypes::structure(i[0], Counts(&i[1]), a.data(), old.types.data(), out);
    case MPI_COMBINER_RESIZED: return datatypes::resized(o, a[0], a[1], out);
    case MPI_COMBINER_SUBARRAY: {
      int n = i[0];
      return datatypes::subarray(n, Counts(&i[1]), Counts(&i[1 + n]), Counts(&i[1 + 2 * n]), i[1 + 3 * n], o, out);
    }
    case MPI_COMBINER_DARRAY: {
      int n = i[2];
      return datatypes::darray(i[0], i[1], n, Counts(&i[3]), &i[3 + n], &i[3 + 2 * n], &i[3 + 3 * n], i[3 + 4 * n], o,
                               out);
    }
    default: return unknown(rep, t);
  }
}

Err build(const Representation& rep, const Datatype& t, const Datatype** out) {
  uint64_t in_file = 0;
  if (Err e = file_size(rep, t, &in_file)) return e;
  if (in_file == t.size || t.handle == MPI_LB || t.handle == MPI_UB) {
    datatypes::retain(&t);
    *out = &t;
    return {};
  }
  if (t.predefined()) return datatypes::contiguous(static_cast<MPI_Count>(in_file), *find_datatype(MPI_BYTE), out);
  return rebuild(rep, t, out);
}

}  // namespace

Err file_type(const Representation& rep, const Datatype& t, const Datatype** out) {
  *out = nullptr;
  if (rep.native()) {
    datatypes::retain(&t);
    *out = &t;
    return {};
  }
  if (Err e = build(rep, t, out)) return e;
  if (*out != &t) datatypes::commit(*out);
  return {};
}

}  // namespace ferry::io::datarep
