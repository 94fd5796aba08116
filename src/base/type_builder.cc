#include "base/type_builder.h"

#include <algorithm>
#include <utility>

#include "base/handles.h"

namespace ferry::type {

Shape shape_of(const Datatype& t) {
  Shape s;
  s.has_entries = true;
  s.size = t.size;
  s.lb = t.lb;
  s.ub = t.lb + t.extent;
  s.true_lb = t.true_lb;
  s.true_ub = t.true_lb + t.true_extent;
  s.alignment = t.alignment;
  s.layout = tree_of(*t.layout);
  s.signature = *t.signature;
  return s;
}

Shape repeat(const Shape& body, uint64_t count, MPI_Aint stride) {
  if (count == 0 || !body.has_entries) return Shape{};
  Shape s;
  s.has_entries = true;
  s.size = body.size * count;
  // The copies span (count - 1) strides, downwards if the stride is negative.
  MPI_Aint span = static_cast<MPI_Aint>(count - 1) * stride;
  MPI_Aint low = std::min<MPI_Aint>(0, span);
  MPI_Aint high = std::max<MPI_Aint>(0, span);
  s.lb = body.lb + low;
  s.ub = body.ub + high;
  s.true_lb = body.true_lb + low;
  s.true_ub = body.true_ub + high;
  s.alignment = body.alignment;
  s.layout = type::repeat(body.layout, count, stride);
  s.signature = type::repeat(body.signature, count);
  return s;
}

Shape block(const Shape& t, uint64_t blocklength) { return repeat(t, blocklength, t.extent()); }

Shape shift(Shape s, MPI_Aint bytes) {
  if (!s.has_entries) return s;
  s.lb += bytes;
  s.ub += bytes;
  s.true_lb += bytes;
  s.true_ub += bytes;
  s.layout = type::shift(std::move(s.layout), bytes);
  return s;
}

Shape sequence(std::vector<Shape> parts) {
  Shape s;
  std::vector<Tree> layouts;
  std::vector<Signature> signatures;
  for (Shape& p : parts) {
    if (!p.has_entries) continue;
    if (!s.has_entries) {
      s.lb = p.lb;
      s.ub = p.ub;
      s.has_entries = true;
    }
    s.lb = std::min(s.lb, p.lb);
    s.ub = std::max(s.ub, p.ub);
    // The true bounds are those of data: a part without any has none.
    if (p.size > 0) {
      s.true_lb = s.size > 0 ? std::min(s.true_lb, p.true_lb) : p.true_lb;
      s.true_ub = s.size > 0 ? std::max(s.true_ub, p.true_ub) : p.true_ub;
    }
    s.size += p.size;
    s.alignment = std::max(s.alignment, p.alignment);
    layouts.push_back(std::move(p.layout));
    signatures.push_back(std::move(p.signature));
  }
  s.layout = type::sequence(std::move(layouts));
  s.signature = type::sequence(std::move(signatures));
  return s;
}

Shape resized(Shape s, MPI_Aint lb, MPI_Aint extent) {
  if (!s.has_entries) {
    // An empty type map gets bounds, and no data.
    s.has_entries = true;
    s.true_lb = s.true_ub = 0;
  }
  s.lb = lb;
  s.ub = lb + extent;
  return s;
}

Shape padded(Shape s) {
  MPI_Aint extent = s.extent();
  MPI_Aint align = static_cast<MPI_Aint>(s.alignment);
  if (s.has_entries && align > 1 && extent > 0 && extent % align != 0) s.ub += align - extent % align;
  return s;
}

}  // namespace ferry::type

namespace ferry::datatypes {

Err create(type::Shape shape, Recipe recipe, const Datatype** out) {
  auto t = std::make_unique<Datatype>();
  auto d = std::make_unique<Derived>();
  t->name = "";
  t->size = shape.size;
  t->supported = true;
  t->committed = false;
  t->alignment = shape.alignment;
  if (shape.has_entries) {
    t->lb = shape.lb;
    t->extent = shape.ub - shape.lb;
  }
  if (shape.size > 0) {
    t->true_lb = shape.true_lb;
    t->true_extent = shape.true_ub - shape.true_lb;
  }
  d->layout = type::flatten(std::move(shape.layout));
  d->signature = std::move(shape.signature);
  const type::Node& root = d->layout.root();
  t->contiguous = d->layout.single_run() && root.offset == 0 && root.size == t->size &&
                  static_cast<MPI_Aint>(t->size) == t->extent;
  d->combiner = recipe.combiner;
  d->ints = std::move(recipe.ints);
  d->aints = std::move(recipe.aints);
  d->large_counts = std::move(recipe.large_counts);
  d->types = std::move(recipe.types);
  for (const Datatype* from : d->types) retain(from);
  *out = add(std::move(t), std::move(d));
  if (*out == nullptr) return fail(MPI_ERR_INTERN, "too many datatypes exist (%u)", handle::kIndexMask + 1);
  return {};
}

}  // namespace ferry::datatypes
