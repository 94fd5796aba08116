// Building a datatype from the types it is made of: a small algebra over
// "shapes" (bounds, layout tree and signature together) that every MPI type
// constructor is written in, so that bounds, layout and signature always
// describe the same type map.
//
//   vector(c, b, s, T)     = repeat(block(T, b), c, s * extent(T))
//   hindexed(bl, d, T)     = sequence(shift(block(T, bl[i]), d[i]) ...)
//   struct(bl, d, T)       = padded(sequence(shift(block(T[i], bl[i]), d[i]) ...))
//
// Bounds follow MPI-3.1 §4.1.6: lb and ub are the least and greatest of the
// parts' (a repeated part spans its copies), the true bounds the same for
// the data alone; blocks of length 0 are no part of the type map.
#pragma once

#include <vector>

#include "base/datatype.h"
#include "base/type_layout.h"
#include "base/type_signature.h"

namespace ferry::type {

struct Shape {
  bool has_entries = false;  // false: an empty type map (all bounds are 0)
  uint64_t size = 0;
  MPI_Aint lb = 0, ub = 0;
  MPI_Aint true_lb = 0, true_ub = 0;
  size_t alignment = 1;
  Tree layout;
  Signature signature;

  MPI_Aint extent() const { return ub - lb; }
};

// An existing type as a shape.
Shape shape_of(const Datatype& t);
// `count` copies of `body`, `stride` bytes apart.
Shape repeat(const Shape& body, uint64_t count, MPI_Aint stride);
// `blocklength` consecutive elements of `t` (one extent apart).
Shape block(const Shape& t, uint64_t blocklength);
// Moved by `bytes`.
Shape shift(Shape s, MPI_Aint bytes);
// The parts in type-map order.
Shape sequence(std::vector<Shape> parts);
// New bounds lb and lb + extent; the data stays (MPI_Type_create_resized).
Shape resized(Shape s, MPI_Aint lb, MPI_Aint extent);
// The padding MPI_Type_create_struct adds: the extent rounded up to the
// alignment of the most aligned part, as a C compiler pads a struct.
Shape padded(Shape s);

}  // namespace ferry::type

namespace ferry::datatypes {

// How a type was made, for MPI_Type_get_envelope and MPI_Type_get_contents.
struct Recipe {
  int combiner;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<const Datatype*> types;
  std::vector<MPI_Count> large_counts;  // a large-count constructor's counts and displacements

  // Records a count argument (count, block length, index displacement): an
  // integer, or a large count for a large-count (_c) constructor.
  void count(MPI_Count v, bool large) {
    if (large) large_counts.push_back(v);
    else ints.push_back(static_cast<int>(v));
  }
  // Records a byte displacement or bound: an address, or a large count.
  void address(MPI_Aint v, bool large) {
    if (large) large_counts.push_back(v);
    else aints.push_back(v);
  }
};

// Registers the type a shape describes: uncommitted, with one reference
// (the user's) and one on each type in the recipe. MPI_ERR_INTERN if the
// handle space is exhausted.
Err create(type::Shape shape, Recipe recipe, const Datatype** out);

}  // namespace ferry::datatypes
