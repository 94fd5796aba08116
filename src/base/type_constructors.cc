#include "base/type_constructors.h"

#include <algorithm>
#include <vector>

#include "base/type_builder.h"

namespace ferry::datatypes {
namespace {

using type::Shape;

uint64_t u(int n) { return static_cast<uint64_t>(n); }

// Blocks of one type at byte displacements: hindexed and friends.
Shape blocks(int count, const int blocklengths[], int same_blocklength, const MPI_Aint byte_disps[],
             const Datatype& old) {
  Shape element = type::shape_of(old);
  std::vector<Shape> parts;
  parts.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    int length = blocklengths != nullptr ? blocklengths[i] : same_blocklength;
    parts.push_back(type::shift(type::block(element, u(length)), byte_disps[i]));
  }
  return type::sequence(std::move(parts));
}

std::vector<MPI_Aint> scaled(int count, const int displacements[], MPI_Aint extent) {
  std::vector<MPI_Aint> bytes(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) bytes[static_cast<size_t>(i)] = displacements[i] * extent;
  return bytes;
}

}  // namespace

Err contiguous(int count, const Datatype& old, const Datatype** out) {
  Shape s = type::block(type::shape_of(old), u(count));
  return create(std::move(s), Recipe{MPI_COMBINER_CONTIGUOUS, {count}, {}, {&old}}, out);
}

Err vector(int count, int blocklength, int stride, const Datatype& old, const Datatype** out) {
  Shape element = type::shape_of(old);
  Shape s = type::repeat(type::block(element, u(blocklength)), u(count), stride * element.extent());
  return create(std::move(s), Recipe{MPI_COMBINER_VECTOR, {count, blocklength, stride}, {}, {&old}}, out);
}

Err hvector(int count, int blocklength, MPI_Aint stride, const Datatype& old, const Datatype** out) {
  Shape s = type::repeat(type::block(type::shape_of(old), u(blocklength)), u(count), stride);
  return create(std::move(s), Recipe{MPI_COMBINER_HVECTOR, {count, blocklength}, {stride}, {&old}}, out);
}

Err indexed(int count, const int blocklengths[], const int displacements[], const Datatype& old,
            const Datatype** out) {
  std::vector<MPI_Aint> bytes = scaled(count, displacements, old.extent);
  Shape s = blocks(count, blocklengths, 0, bytes.data(), old);
  Recipe r{MPI_COMBINER_INDEXED, {count}, {}, {&old}};
  r.ints.insert(r.ints.end(), blocklengths, blocklengths + count);
  r.ints.insert(r.ints.end(), displacements, displacements + count);
  return create(std::move(s), std::move(r), out);
}

Err hindexed(int count, const int blocklengths[], const MPI_Aint displacements[], const Datatype& old,
             const Datatype** out) {
  Shape s = blocks(count, blocklengths, 0, displacements, old);
  Recipe r{MPI_COMBINER_HINDEXED, {count}, {displacements, displacements + count}, {&old}};
  r.ints.insert(r.ints.end(), blocklengths, blocklengths + count);
  return create(std::move(s), std::move(r), out);
}

Err indexed_block(int count, int blocklength, const int displacements[], const Datatype& old,
                  const Datatype** out) {
  std::vector<MPI_Aint> bytes = scaled(count, displacements, old.extent);
  Shape s = blocks(count, nullptr, blocklength, bytes.data(), old);
  Recipe r{MPI_COMBINER_INDEXED_BLOCK, {count, blocklength}, {}, {&old}};
  r.ints.insert(r.ints.end(), displacements, displacements + count);
  return create(std::move(s), std::move(r), out);
}

Err hindexed_block(int count, int blocklength, const MPI_Aint displacements[], const Datatype& old,
                   const Datatype** out) {
  Shape s = blocks(count, nullptr, blocklength, displacements, old);
  Recipe r{MPI_COMBINER_HINDEXED_BLOCK, {count, blocklength}, {displacements, displacements + count}, {&old}};
  return create(std::move(s), std::move(r), out);
}

Err structure(int count, const int blocklengths[], const MPI_Aint displacements[], const Datatype* const types[],
              const Datatype** out) {
  std::vector<Shape> parts;
  parts.reserve(static_cast<size_t>(count));
  bool has_lb = false, has_ub = false;
  MPI_Aint lb = 0, ub = 0;
  for (int i = 0; i < count; ++i) {
    MPI_Aint disp = displacements[i];
    if (types[i]->handle == MPI_LB) {
      lb = has_lb ? std::min(lb, disp) : disp;
      has_lb = true;
    } else if (types[i]->handle == MPI_UB) {
      ub = has_ub ? std::max(ub, disp) : disp;
      has_ub = true;
    } else {
      parts.push_back(type::shift(type::block(type::shape_of(*types[i]), u(blocklengths[i])), disp));
    }
  }
  Shape s = type::padded(type::sequence(std::move(parts)));
  if (has_lb || has_ub) {
    if (!has_lb) lb = s.lb;
    if (!has_ub) ub = s.ub;
    s = type::resized(std::move(s), lb, ub - lb);
  }
  Recipe r{MPI_COMBINER_STRUCT, {count}, {displacements, displacements + count}, {types, types + count}};
  r.ints.insert(r.ints.end(), blocklengths, blocklengths + count);
  return create(std::move(s), std::move(r), out);
}

Err resized(const Datatype& old, MPI_Aint lb, MPI_Aint extent, const Datatype** out) {
  Shape s = type::resized(type::shape_of(old), lb, extent);
  return create(std::move(s), Recipe{MPI_COMBINER_RESIZED, {}, {lb, extent}, {&old}}, out);
}

Err dup(const Datatype& old, const Datatype** out) {
  Err e = create(type::shape_of(old), Recipe{MPI_COMBINER_DUP, {}, {}, {&old}}, out);
  // A duplicate is committed if the original is (MPI-3.1 §4.1.10), and a
  // predefined type always is.
  if (!e && old.committed) commit(*out);
  return e;
}

}  // namespace ferry::datatypes
