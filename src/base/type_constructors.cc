#include "base/type_constructors.h"

#include <algorithm>
#include <vector>

#include "base/type_builder.h"

namespace ferry::datatypes {
namespace {

using type::Shape;

uint64_t u(MPI_Count n) { return static_cast<uint64_t>(n); }
bool is_large(Form form) { return form == Form::kLarge; }

// Blocks of one type at byte displacements: hindexed and friends.
// `blocklengths` is read only when `uniform` is false.
Shape blocks(MPI_Count count, Counts blocklengths, bool uniform, MPI_Count same_blocklength,
             const MPI_Aint byte_disps[], const Datatype& old) {
  Shape element = type::shape_of(old);
  std::vector<Shape> parts;
  parts.reserve(u(count));
  for (MPI_Count i = 0; i < count; ++i) {
    MPI_Count length = uniform ? same_blocklength : blocklengths[i];
    parts.push_back(type::shift(type::block(element, u(length)), byte_disps[i]));
  }
  return type::sequence(std::move(parts));
}

std::vector<MPI_Aint> scaled(MPI_Count count, Counts displacements, MPI_Aint extent) {
  std::vector<MPI_Aint> bytes(u(count));
  for (MPI_Count i = 0; i < count; ++i) bytes[u(i)] = displacements[i] * extent;
  return bytes;
}

// Appends `count` entries of an array argument as counts.
void record_counts(Recipe& r, MPI_Count count, Counts values, bool large) {
  for (MPI_Count i = 0; i < count; ++i) r.count(values[i], large);
}

}  // namespace

Err contiguous(MPI_Count count, const Datatype& old, const Datatype** out, Form form) {
  Shape s = type::block(type::shape_of(old), u(count));
  Recipe r{MPI_COMBINER_CONTIGUOUS, {}, {}, {&old}, {}};
  r.count(count, is_large(form));
  return create(std::move(s), std::move(r), out);
}

Err vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride, const Datatype& old, const Datatype** out,
           Form form) {
  Shape element = type::shape_of(old);
  Shape s = type::repeat(type::block(element, u(blocklength)), u(count), stride * element.extent());
  Recipe r{MPI_COMBINER_VECTOR, {}, {}, {&old}, {}};
  for (MPI_Count v : {count, blocklength, stride}) r.count(v, is_large(form));
  return create(std::move(s), std::move(r), out);
}

Err hvector(MPI_Count count, MPI_Count blocklength, MPI_Aint stride, const Datatype& old, const Datatype** out,
            Form form) {
  Shape s = type::repeat(type::block(type::shape_of(old), u(blocklength)), u(count), stride);
  Recipe r{MPI_COMBINER_HVECTOR, {}, {}, {&old}, {}};
  r.count(count, is_large(form));
  r.count(blocklength, is_large(form));
  r.address(stride, is_large(form));
  return create(std::move(s), std::move(r), out);
}

Err indexed(MPI_Count count, Counts blocklengths, Counts displacements, const Datatype& old, const Datatype** out,
            Form form) {
  std::vector<MPI_Aint> bytes = scaled(count, displacements, old.extent);
  Shape s = blocks(count, blocklengths, false, 0, bytes.data(), old);
  Recipe r{MPI_COMBINER_INDEXED, {}, {}, {&old}, {}};
  r.count(count, is_large(form));
  record_counts(r, count, blocklengths, is_large(form));
  record_counts(r, count, displacements, is_large(form));
  return create(std::move(s), std::move(r), out);
}

Err hindexed(MPI_Count count, Counts blocklengths, const MPI_Aint displacements[], const Datatype& old, const Datatype** out,
             Form form) {
  Shape s = blocks(count, blocklengths, false, 0, displacements, old);
  Recipe r{MPI_COMBINER_HINDEXED, {}, {}, {&old}, {}};
  r.count(count, is_large(form));
  record_counts(r, count, blocklengths, is_large(form));
  for (MPI_Count i = 0; i < count; ++i) r.address(displacements[i], is_large(form));
  return create(std::move(s), std::move(r), out);
}

Err indexed_block(MPI_Count count, MPI_Count blocklength, Counts displacements, const Datatype& old, const Datatype** out,
                  Form form) {
  std::vector<MPI_Aint> bytes = scaled(count, displacements, old.extent);
  Shape s = blocks(count, Counts(static_cast<const int*>(nullptr)), true, blocklength, bytes.data(), old);
  Recipe r{MPI_COMBINER_INDEXED_BLOCK, {}, {}, {&old}, {}};
  r.count(count, is_large(form));
  r.count(blocklength, is_large(form));
  record_counts(r, count, displacements, is_large(form));
  return create(std::move(s), std::move(r), out);
}

Err hindexed_block(MPI_Count count, MPI_Count blocklength, const MPI_Aint displacements[], const Datatype& old,
                   const Datatype** out, Form form) {
  Shape s = blocks(count, Counts(static_cast<const int*>(nullptr)), true, blocklength, displacements, old);
  Recipe r{MPI_COMBINER_HINDEXED_BLOCK, {}, {}, {&old}, {}};
  r.count(count, is_large(form));
  r.count(blocklength, is_large(form));
  for (MPI_Count i = 0; i < count; ++i) r.address(displacements[i], is_large(form));
  return create(std::move(s), std::move(r), out);
}

Err structure(MPI_Count count, Counts blocklengths, const MPI_Aint displacements[], const Datatype* const types[],
              const Datatype** out, Form form) {
  std::vector<Shape> parts;
  parts.reserve(u(count));
  bool has_lb = false, has_ub = false;
  MPI_Aint lb = 0, ub = 0;
  for (MPI_Count i = 0; i < count; ++i) {
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
  Recipe r{MPI_COMBINER_STRUCT, {}, {}, {types, types + count}, {}};
  r.count(count, is_large(form));
  record_counts(r, count, blocklengths, is_large(form));
  for (MPI_Count i = 0; i < count; ++i) r.address(displacements[i], is_large(form));
  return create(std::move(s), std::move(r), out);
}

Err resized(const Datatype& old, MPI_Aint lb, MPI_Aint extent, const Datatype** out, Form form) {
  Shape s = type::resized(type::shape_of(old), lb, extent);
  Recipe r{MPI_COMBINER_RESIZED, {}, {}, {&old}, {}};
  r.address(lb, is_large(form));
  r.address(extent, is_large(form));
  return create(std::move(s), std::move(r), out);
}

Err dup(const Datatype& old, const Datatype** out) {
  Err e = create(type::shape_of(old), Recipe{MPI_COMBINER_DUP, {}, {}, {&old}, {}}, out);
  // A duplicate is committed if the original is (MPI-3.1 §4.1.10), and a
  // predefined type always is.
  if (!e && old.committed) commit(*out);
  return e;
}

}  // namespace ferry::datatypes
