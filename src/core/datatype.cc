#include "core/datatype.h"

#include <array>
#include <complex>
#include <cstring>

#include "core/handles.h"

namespace ferry {
namespace {

template <typename T>
constexpr Datatype basic(MPI_Datatype h, const char* name) {
  return Datatype{h, name, sizeof(T), 0, sizeof(T), true, true};
}

// Pair types (MINLOC/MAXLOC) have padding inside or after them, so their data
// is not one contiguous run; the datatype engine will move them.
template <typename T>
struct Pair {
  T value;
  int index;
};
template <typename T>
constexpr Datatype pair(MPI_Datatype h, const char* name) {
  return Datatype{h, name, sizeof(T) + sizeof(int), 0, sizeof(Pair<T>),
                  sizeof(T) + sizeof(int) == sizeof(Pair<T>), sizeof(T) + sizeof(int) == sizeof(Pair<T>)};
}

const std::array kPredefined = {
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
    basic<std::complex<float>>(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX"),
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
    basic<int[2]>(MPI_2INTEGER, "MPI_2INTEGER"),
    basic<float[2]>(MPI_2REAL, "MPI_2REAL"),
    basic<double[2]>(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"),
    basic<int[2]>(MPI_2INT, "MPI_2INT"),
    pair<float>(MPI_FLOAT_INT, "MPI_FLOAT_INT"),
    pair<double>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT"),
    pair<long>(MPI_LONG_INT, "MPI_LONG_INT"),
    pair<short>(MPI_SHORT_INT, "MPI_SHORT_INT"),
    pair<long double>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"),
};

// Predefined handles index a small table directly: builtin types by their
// low byte (unique in MPICH's numbering), pair types by their direct index.
struct Index {
  std::array<const Datatype*, 256> builtin{};
  std::array<const Datatype*, 8> direct{};
  Index() {
    for (const Datatype& t : kPredefined) {
      if (handle::kind_of(t.handle) == handle::kKindBuiltin) builtin[t.handle & 0xff] = &t;
      else direct[handle::index_of(t.handle)] = &t;
    }
  }
};
const Index kIndex;

}  // namespace

const Datatype* find_datatype(MPI_Datatype h) {
  if (handle::object_of(h) != handle::Object::kDatatype) return nullptr;
  const Datatype* t = nullptr;
  if (handle::kind_of(h) == handle::kKindBuiltin) t = kIndex.builtin[h & 0xff];
  else if (handle::kind_of(h) == handle::kKindDirect && handle::index_of(h) < kIndex.direct.size())
    t = kIndex.direct[handle::index_of(h)];
  return t != nullptr && t->handle == h ? t : nullptr;
}

}  // namespace ferry

namespace ferry {

Err copy_typed(const void* src, int scount, const Datatype& stype, void* dst, int rcount, const Datatype& rtype) {
  size_t bytes = stype.bytes(scount);
  if (bytes > rtype.bytes(rcount))
    return fail(MPI_ERR_TRUNCATE, "%zu bytes do not fit in a buffer of %zu", bytes, rtype.bytes(rcount));
  if (!stype.contiguous || !rtype.contiguous)
    return fail(MPI_ERR_TYPE, "copying non-contiguous datatypes is not supported yet");
  if (bytes > 0 && src != dst) std::memmove(dst, src, bytes);
  return {};
}

}  // namespace ferry
