// Subarrays and distributed arrays (MPI-3.1 §4.1.3, §4.1.4): a block of an
// n-dimensional array, as nested loops over its dimensions from the slowest
// to the fastest varying, resized to the whole array so that consecutive
// elements of the type are consecutive arrays.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "base/type_builder.h"
#include "base/type_constructors.h"

namespace ferry::datatypes {
namespace {

using type::Shape;

// Dimension d in memory order: the slowest varying first.
int memory_dim(int ndims, int order, int d) { return order == MPI_ORDER_C ? d : ndims - 1 - d; }

// The local part of one dimension: runs of consecutive indices.
struct Run {
  int64_t start;
  int64_t length;
};

// A dimension's runs repeated over the body one index step apart: each run
// is a block of `length` bodies at its start.
Shape along(const Shape& body, const std::vector<Run>& runs, MPI_Aint step) {
  std::vector<Shape> parts;
  for (const Run& r : runs)
    parts.push_back(type::shift(type::repeat(body, static_cast<uint64_t>(r.length), step), r.start * step));
  return type::sequence(std::move(parts));
}

// Cyclic(b) over p processes, as coordinate c sees a dimension of n: whole
// blocks at a regular stride (one loop), then a last partial block.
Shape cyclic(const Shape& body, int64_t n, int64_t b, int64_t p, int64_t c, MPI_Aint step) {
  int64_t first = c * b;
  if (first >= n) return Shape{};
  int64_t blocks = (n - first + p * b - 1) / (p * b);  // blocks that start before n
  int64_t last_start = first + (blocks - 1) * p * b;
  int64_t last_length = std::min(b, n - last_start);
  int64_t whole = last_length == b ? blocks : blocks - 1;
  std::vector<Shape> parts;
  Shape one = type::repeat(body, static_cast<uint64_t>(b), step);
  parts.push_back(type::shift(type::repeat(one, static_cast<uint64_t>(whole), p * b * step), first * step));
  if (whole < blocks)
    parts.push_back(type::shift(type::repeat(body, static_cast<uint64_t>(last_length), step), last_start * step));
  return type::sequence(std::move(parts));
}

int64_t block_size(int64_t gsize, int darg, int psize) {
  return darg == MPI_DISTRIBUTE_DFLT_DARG ? (static_cast<int64_t>(gsize) + psize - 1) / psize : darg;
}

}  // namespace

Err subarray(int ndims, Counts sizes, Counts subsizes, Counts starts, int order, const Datatype& old, const Datatype** out,
             Form form) {
  Shape s = type::shape_of(old);
  MPI_Aint step = s.extent();
  MPI_Aint whole = step;
  // From the fastest varying dimension out.
  for (int k = ndims; k-- > 0;) {
    int d = memory_dim(ndims, order, k);
    s = along(s, {Run{starts[d], subsizes[d]}}, step);
    step *= sizes[d];
    whole *= sizes[d];
  }
  s = type::resized(std::move(s), 0, whole);
  // ndims and order are ints in both forms; the large-count form records
  // the sizes and starts as large counts (MPI-4.0 §5.1.13).
  Recipe r{MPI_COMBINER_SUBARRAY, {ndims}, {}, {&old}, {}};
  for (const Counts& a : {sizes, subsizes, starts})
    for (int d = 0; d < ndims; ++d) r.count(a[d], form == Form::kLarge);
  r.ints.push_back(order);
  return create(std::move(s), std::move(r), out);
}

std::string darray_problem(int size, int rank, int ndims, Counts gsizes, const int distribs[], const int dargs[],
                           const int psizes[]) {
  char text[200];
  int64_t processes = 1;
  for (int d = 0; d < ndims; ++d) {
    if (gsizes[d] < 1) {
      std::snprintf(text, sizeof text, "array_of_gsizes[%d] is %lld (must be > 0)", d,
                    static_cast<long long>(gsizes[d]));
      return text;
    }
    if (psizes[d] < 1) {
      std::snprintf(text, sizeof text, "array_of_psizes[%d] is %d (must be > 0)", d, psizes[d]);
      return text;
    }
    processes *= psizes[d];
    switch (distribs[d]) {
      case MPI_DISTRIBUTE_NONE:
        if (psizes[d] != 1) {
          std::snprintf(text, sizeof text, "array_of_psizes[%d] is %d, but a dimension with MPI_DISTRIBUTE_NONE "
                        "must have 1", d, psizes[d]);
          return text;
        }
        break;
      case MPI_DISTRIBUTE_BLOCK:
      case MPI_DISTRIBUTE_CYCLIC:
        if (dargs[d] != MPI_DISTRIBUTE_DFLT_DARG && dargs[d] < 1) {
          std::snprintf(text, sizeof text, "array_of_dargs[%d] is %d (must be > 0 or MPI_DISTRIBUTE_DFLT_DARG)", d,
                        dargs[d]);
          return text;
        }
        if (distribs[d] == MPI_DISTRIBUTE_BLOCK &&
            block_size(gsizes[d], dargs[d], psizes[d]) * psizes[d] < gsizes[d]) {
          std::snprintf(text, sizeof text,
                        "array_of_dargs[%d] is %d: %d blocks of it cannot hold array_of_gsizes[%d] = %lld", d,
                        dargs[d], psizes[d], d, static_cast<long long>(gsizes[d]));
          return text;
        }
        break;
      default:
        std::snprintf(text, sizeof text, "array_of_distribs[%d] is %d (must be MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE)",
                      d, distribs[d]);
        return text;
    }
  }
  if (processes != size) {
    std::snprintf(text, sizeof text, "the process grid (array_of_psizes) has %lld processes, size is %d",
                  static_cast<long long>(processes), size);
    return text;
  }
  if (rank < 0 || rank >= size) {
    std::snprintf(text, sizeof text, "rank %d is not in the process grid of %d", rank, size);
    return text;
  }
  return {};
}

Err darray(int size, int rank, int ndims, Counts gsizes, const int distribs[], const int dargs[], const int psizes[],
           int order, const Datatype& old, const Datatype** out, Form form) {
  // The process grid is in row-major order whatever the array's order
  // (MPI-3.1 §4.1.4): this process's coordinate in each dimension.
  std::vector<int64_t> coord(static_cast<size_t>(ndims));
  for (int d = ndims, rest = rank; d-- > 0;) {
    coord[static_cast<size_t>(d)] = rest % psizes[d];
    rest /= psizes[d];
  }
  Shape s = type::shape_of(old);
  MPI_Aint step = s.extent();
  MPI_Aint whole = step;
  for (int k = ndims; k-- > 0;) {
    int d = memory_dim(ndims, order, k);
    int64_t n = gsizes[d];
    int64_t c = coord[static_cast<size_t>(d)];
    switch (distribs[d]) {
      case MPI_DISTRIBUTE_NONE:
        s = along(s, {Run{0, n}}, step);
        break;
      case MPI_DISTRIBUTE_BLOCK: {
        int64_t b = block_size(gsizes[d], dargs[d], psizes[d]);
        int64_t length = std::max<int64_t>(0, std::min(b, n - c * b));
        s = along(s, {Run{c * b, length}}, step);
        break;
      }
      default: {
        int64_t b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d];
        s = cyclic(s, n, b, psizes[d], c, step);
        break;
      }
    }
    step *= gsizes[d];
    whole *= gsizes[d];
  }
  s = type::resized(std::move(s), 0, whole);
  // Only the global sizes are counts: the large-count form records them as
  // large counts, the rest as integers (MPI-4.0 §5.1.13).
  Recipe r{MPI_COMBINER_DARRAY, {size, rank, ndims}, {}, {&old}, {}};
  for (int d = 0; d < ndims; ++d) r.count(gsizes[d], form == Form::kLarge);
  for (const int* a : {distribs, dargs, psizes}) r.ints.insert(r.ints.end(), a, a + ndims);
  r.ints.push_back(order);
  return create(std::move(s), std::move(r), out);
}

}  // namespace ferry::datatypes
