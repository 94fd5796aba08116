#include "base/datatype.h"

#include <array>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <mutex>

#include "base/handles.h"

namespace ferry {

const Datatype* datatypes::builtin[256] = {};

namespace {

// --- Predefined types ----------------------------------------------------------

// A predefined type as pieces of data: one for a basic type, two for the
// pair types of MINLOC/MAXLOC, whose C structs have padding.
struct Piece {
  MPI_Aint offset;
  MPI_Datatype basic;  // what MPI_Get_elements counts
  size_t basic_size;
  uint64_t count;
};
struct Predefined {
  MPI_Datatype handle;
  const char* name;
  MPI_Aint extent;
  size_t alignment;
  Piece pieces[2];
  int n_pieces;
};

template <typename T>
constexpr Predefined basic(MPI_Datatype h, const char* name) {
  return Predefined{h, name, sizeof(T), alignof(T), {{0, h, sizeof(T), 1}, {}}, 1};
}

// MPI_2INT and the Fortran pairs: two basic elements each (as MPICH counts them).
template <typename T>
constexpr Predefined twin(MPI_Datatype h, const char* name, MPI_Datatype element) {
  return Predefined{h, name, 2 * sizeof(T), alignof(T), {{0, element, sizeof(T), 2}, {}}, 1};
}

template <typename T>
struct Pair {
  T value;
  int index;
};
template <typename T>
constexpr Predefined pair(MPI_Datatype h, const char* name, MPI_Datatype value) {
  return Predefined{h,
                    name,
                    sizeof(Pair<T>),
                    alignof(Pair<T>),
                    {{0, value, sizeof(T), 1}, {offsetof(Pair<T>, index), MPI_INT, sizeof(int), 1}},
                    2};
}

constexpr std::array kPredefined = {
    basic<char>(MPI_CHAR, "MPI_CHAR"),
    basic<signed char>(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"),
    basic<unsigned char>(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"),
    basic<unsigned char>(MPI_BYTE, "MPI_BYTE"),
    basic<wchar_t>(MPI_WCHAR, "MPI_WCHAR"),
    basic<short>(MPI_SHORT, "MPI_SHORT"),
    basic<unsigned short>(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT"),
    basic<int>(MPI_INT, "MPI_INT"),
    basic<unsigned>(MPI_UNSIGNED, "MPI_UNSIGNED"),
    basic<long>(MPI_LONG, "MPI_LONG"),
    basic<unsigned long>(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"),
    basic<float>(MPI_FLOAT, "MPI_FLOAT"),
    basic<double>(MPI_DOUBLE, "MPI_DOUBLE"),
    basic<long double>(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"),
    basic<long long>(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT"),
    basic<unsigned long long>(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"),
    basic<unsigned char>(MPI_PACKED, "MPI_PACKED"),
    basic<int8_t>(MPI_INT8_T, "MPI_INT8_T"),
    basic<int16_t>(MPI_INT16_T, "MPI_INT16_T"),
    basic<int32_t>(MPI_INT32_T, "MPI_INT32_T"),
    basic<int64_t>(MPI_INT64_T, "MPI_INT64_T"),
    basic<uint8_t>(MPI_UINT8_T, "MPI_UINT8_T"),
    basic<uint16_t>(MPI_UINT16_T, "MPI_UINT16_T"),
    basic<uint32_t>(MPI_UINT32_T, "MPI_UINT32_T"),
    basic<uint64_t>(MPI_UINT64_T, "MPI_UINT64_T"),
    basic<bool>(MPI_C_BOOL, "MPI_C_BOOL"),
    // MPI_C_COMPLEX is the same handle in MPICH's header; MPICH names it so.
    basic<std::complex<float>>(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX"),
    basic<std::complex<double>>(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"),
    basic<std::complex<long double>>(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"),
    basic<MPI_Aint>(MPI_AINT, "MPI_AINT"),
    basic<MPI_Offset>(MPI_OFFSET, "MPI_OFFSET"),
    basic<MPI_Count>(MPI_COUNT, "MPI_COUNT"),
    basic<bool>(MPI_CXX_BOOL, "MPI_CXX_BOOL"),
    basic<std::complex<float>>(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX"),
    basic<std::complex<double>>(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX"),
    basic<std::complex<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX"),
    // Fortran types, as C sees them (MPICH defines them in the C header too).
    basic<char>(MPI_CHARACTER, "MPI_CHARACTER"),
    basic<int>(MPI_LOGICAL, "MPI_LOGICAL"),
    basic<int>(MPI_INTEGER, "MPI_INTEGER"),
    basic<float>(MPI_REAL, "MPI_REAL"),
    basic<double>(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION"),
    basic<std::complex<float>>(MPI_COMPLEX, "MPI_COMPLEX"),
    basic<std::complex<double>>(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX"),
    basic<int8_t>(MPI_INTEGER1, "MPI_INTEGER1"),
    basic<int16_t>(MPI_INTEGER2, "MPI_INTEGER2"),
    basic<int32_t>(MPI_INTEGER4, "MPI_INTEGER4"),
    basic<int64_t>(MPI_INTEGER8, "MPI_INTEGER8"),
    basic<float>(MPI_REAL4, "MPI_REAL4"),
    basic<double>(MPI_REAL8, "MPI_REAL8"),
    basic<long double>(MPI_REAL16, "MPI_REAL16"),
    basic<std::complex<float>>(MPI_COMPLEX8, "MPI_COMPLEX8"),
    basic<std::complex<double>>(MPI_COMPLEX16, "MPI_COMPLEX16"),
    basic<std::complex<long double>>(MPI_COMPLEX32, "MPI_COMPLEX32"),
    twin<int>(MPI_2INTEGER, "MPI_2INTEGER", MPI_INTEGER),
    twin<float>(MPI_2REAL, "MPI_2REAL", MPI_REAL),
    twin<double>(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION),
    twin<int>(MPI_2INT, "MPI_2INT", MPI_INT),
    pair<float>(MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT),
    pair<double>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE),
    pair<long>(MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG),
    pair<short>(MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT),
    pair<long double>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE),
    // MPI-1's bound markers (removed in MPI-3.0): no data, no extent. MPICH
    // still has them as types, and honours them in MPI_Type_create_struct.
    Predefined{MPI_LB, "MPI_LB", 0, 1, {}, 0},
    Predefined{MPI_UB, "MPI_UB", 0, 1, {}, 0},
};
constexpr size_t kCount = kPredefined.size();

// The predefined Datatypes, built once at startup, and an index from handle
// to type for the pair types, by their direct index (the builtin types are
// indexed by datatypes::builtin).
struct PredefinedTable {
  std::array<Datatype, kCount> types{};
  std::array<type::Layout, kCount> layouts;
  std::array<type::Signature, kCount> signatures;
  std::array<std::string, kCount> names;  // MPI_Type_set_name on a predefined type
  std::array<Datatype*, 8> direct{};

  PredefinedTable() {
    for (size_t i = 0; i < kCount; ++i) {
      const Predefined& p = kPredefined[i];
      std::vector<type::Tree> runs;
      std::vector<type::Signature> elements;
      size_t size = 0;
      MPI_Aint true_ub = 0;
      for (int k = 0; k < p.n_pieces; ++k) {
        const Piece& piece = p.pieces[k];
        uint64_t bytes = piece.basic_size * piece.count;
        runs.push_back(type::shift(type::run(bytes), piece.offset));
        elements.push_back(type::basic_elements(piece.basic, piece.basic_size, piece.count));
        size += bytes;
        true_ub = piece.offset + static_cast<MPI_Aint>(bytes);
      }
      layouts[i] = type::flatten(type::sequence(std::move(runs)));
      signatures[i] = type::sequence(std::move(elements));
      Datatype& t = types[i];
      t = Datatype{p.handle, p.name, size, 0, p.extent, static_cast<MPI_Aint>(size) == p.extent, true};
      t.true_lb = 0;
      t.true_extent = true_ub;
      t.alignment = p.alignment;
      t.layout = &layouts[i];
      t.signature = &signatures[i];
      if (handle::kind_of(t.handle) == handle::kKindBuiltin) {
        datatypes::builtin[t.handle & 0xff] = &t;
      } else {
        direct[handle::index_of(t.handle)] = &t;
      }
    }
  }
};
PredefinedTable predefined;

// --- Derived types: handles and references -------------------------------------------

// Derived types by handle index: looked up without a lock while other
// threads create and free types (base/handles.h).
handle::Table<Datatype> registry;
std::mutex names_mutex;

// The registry's own (mutable) object behind a derived type.
Datatype* owned(const Datatype* t) { return registry.get(handle::index_of(t->handle)); }

void destroy(Datatype* t) {
  registry.remove(handle::index_of(t->handle));
  for (const Datatype* from : t->derived->types) datatypes::release(from);
  delete t->derived;
  delete t;
}

}  // namespace

const Datatype* datatypes::find_other(MPI_Datatype h) {
  if (handle::object_of(h) != handle::Object::kDatatype) return nullptr;
  const Datatype* t = nullptr;
  switch (handle::kind_of(h)) {
    case handle::kKindBuiltin:
      t = datatypes::builtin[h & 0xff];
      break;
    case handle::kKindDirect:
      if (handle::index_of(h) < predefined.direct.size()) t = predefined.direct[handle::index_of(h)];
      break;
    case handle::kKindDynamic:
      t = registry.get(handle::index_of(h));
      break;
  }
  return t != nullptr && t->handle == h ? t : nullptr;
}

std::string datatype_label(const Datatype& t) {
  if (t.name != nullptr && t.name[0] != '\0') return t.name;
  char text[32];
  std::snprintf(text, sizeof text, "0x%x", static_cast<unsigned>(t.handle));
  return text;
}

namespace datatypes {

const Datatype* add(std::unique_ptr<Datatype> t, std::unique_ptr<Derived> d) {
  Datatype* type = t.release();
  type->derived = d.release();
  type->layout = &type->derived->layout;
  type->signature = &type->derived->signature;
  type->name = type->derived->name.c_str();
  uint32_t index = registry.add(type);
  if (index == handle::Table<Datatype>::kFull) {
    for (const Datatype* from : type->derived->types) release(from);
    delete type->derived;
    delete type;
    return nullptr;
  }
  type->handle = handle::make_dynamic(handle::Object::kDatatype, index);
  return type;
}

void retain_derived(const Datatype* t) { t->derived->references.fetch_add(1, std::memory_order_relaxed); }

void release_derived(const Datatype* t) {
  if (t->derived->references.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy(owned(t));
}

void commit(const Datatype* t) {
  if (Datatype* mine = t->derived != nullptr ? owned(t) : nullptr) mine->committed = true;
}

void set_name(const Datatype* t, const std::string& name) {
  std::lock_guard lock(names_mutex);
  if (t->derived != nullptr) {
    Datatype* mine = owned(t);
    mine->derived->name = name;
    mine->name = mine->derived->name.c_str();
    return;
  }
  size_t i = static_cast<size_t>(t - predefined.types.data());
  predefined.names[i] = name;
  predefined.types[i].name = predefined.names[i].c_str();
}

size_t live() { return registry.live(); }

Err match_size(int typeclass, int size, const Datatype** out) {
  static constexpr MPI_Datatype kReal[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16, MPI_REAL, MPI_DOUBLE_PRECISION,
                                           MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
  static constexpr MPI_Datatype kInteger[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER,
                                              MPI_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG};
  static constexpr MPI_Datatype kComplex[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32,
                                              MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_C_FLOAT_COMPLEX,
                                              MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX};
  auto first_of = [&](const auto& candidates, const char* name) -> Err {
    for (MPI_Datatype h : candidates) {
      const Datatype* t = find_datatype(h);
      if (t != nullptr && static_cast<int>(t->size) == size) {
        *out = t;
        return {};
      }
    }
    return fail(MPI_ERR_ARG, "no predefined type of typeclass %s has size %d", name, size);
  };
  switch (typeclass) {
    case MPI_TYPECLASS_REAL: return first_of(kReal, "MPI_TYPECLASS_REAL");
    case MPI_TYPECLASS_INTEGER: return first_of(kInteger, "MPI_TYPECLASS_INTEGER");
    case MPI_TYPECLASS_COMPLEX: return first_of(kComplex, "MPI_TYPECLASS_COMPLEX");
  }
  return fail(MPI_ERR_ARG, "typeclass is %d (must be MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX)", typeclass);
}

}  // namespace datatypes
}  // namespace ferry
