#include "base/type_f90.h"

#include <map>
#include <mutex>
#include <tuple>

#include "base/type_builder.h"

namespace ferry::datatypes {
namespace {

struct Kind {
  int precision;  // decimal digits (for integers: the range r)
  int range;      // decimal exponent range (unused for integers)
  MPI_Datatype type;
};

// In order of size: the first kind that satisfies a request is the one
// SELECTED_*_KIND returns.
constexpr Kind kIntegers[] = {{2, 0, MPI_INTEGER1}, {4, 0, MPI_INTEGER2}, {9, 0, MPI_INTEGER4},
                              {18, 0, MPI_INTEGER8}};
constexpr Kind kReals[] = {{6, 37, MPI_REAL}, {15, 307, MPI_DOUBLE_PRECISION}};
constexpr Kind kComplexes[] = {{6, 37, MPI_COMPLEX}, {15, 307, MPI_DOUBLE_COMPLEX}};

// Each (combiner, p, r) is made once and kept for the life of the process:
// the standard lets a program ask as often as it likes and never free.
std::mutex made_mutex;
std::map<std::tuple<int, int, int>, const Datatype*> made;

bool satisfies(int wanted, int has) { return wanted == MPI_UNDEFINED || wanted <= has; }

template <size_t N>
Err select(const Kind (&kinds)[N], int combiner, int p, int r, const Datatype** out) {
  std::lock_guard lock(made_mutex);
  auto key = std::make_tuple(combiner, p, r);
  if (auto it = made.find(key); it != made.end()) {
    *out = it->second;
    return {};
  }
  const Kind* kind = nullptr;
  for (const Kind& k : kinds) {
    bool fits = combiner == MPI_COMBINER_F90_INTEGER ? satisfies(r, k.precision)
                                                     : satisfies(p, k.precision) && satisfies(r, k.range);
    if (fits) {
      kind = &k;
      break;
    }
  }
  if (kind == nullptr) {
    const Kind& largest = kinds[N - 1];
    if (combiner == MPI_COMBINER_F90_INTEGER)
      return fail(MPI_ERR_ARG, "no Fortran integer kind has a range of %d digits (at most %d)", r, largest.precision);
    return fail(MPI_ERR_ARG,
                "no Fortran %s kind has precision %d and range %d (at most precision %d, range %d; "
                "MPI_UNDEFINED for no requirement)",
                combiner == MPI_COMBINER_F90_REAL ? "real" : "complex", p, r, largest.precision, largest.range);
  }
  Recipe recipe{combiner, {}, {}, {}, {}};
  if (combiner != MPI_COMBINER_F90_INTEGER) recipe.ints.push_back(p);
  recipe.ints.push_back(r);
  const Datatype* t = nullptr;
  if (Err e = create(type::shape_of(*find_datatype(kind->type)), std::move(recipe), &t)) return e;
  commit(t);
  made.emplace(key, t);
  *out = t;
  return {};
}

}  // namespace

Err f90_integer(int r, const Datatype** out) { return select(kIntegers, MPI_COMBINER_F90_INTEGER, 0, r, out); }

Err f90_real(int p, int r, const Datatype** out) {
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
    return fail(MPI_ERR_ARG, "p and r are both MPI_UNDEFINED (at least one must be given)");
  return select(kReals, MPI_COMBINER_F90_REAL, p, r, out);
}

Err f90_complex(int p, int r, const Datatype** out) {
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
    return fail(MPI_ERR_ARG, "p and r are both MPI_UNDEFINED (at least one must be given)");
  return select(kComplexes, MPI_COMBINER_F90_COMPLEX, p, r, out);
}

bool is_f90(const Datatype& t) {
  if (t.derived == nullptr) return false;
  int c = t.derived->combiner;
  return c == MPI_COMBINER_F90_INTEGER || c == MPI_COMBINER_F90_REAL || c == MPI_COMBINER_F90_COMPLEX;
}

}  // namespace ferry::datatypes
