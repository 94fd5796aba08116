// Which predefined operation applies to which predefined datatype (MPI-3.1
// §5.9.2, §5.9.4, §11.3.4), as one table of kernels built once at load time.
//
// The table is MPICH's rather than the standard's bare minimum, so that a
// program written against MPICH (whose ABI Ferry offers) runs unchanged. MPICH
// accepts, beyond §5.9.2: MPI_CHAR and MPI_CHARACTER as integers; MPI_AINT,
// MPI_OFFSET, MPI_COUNT and the Fortran integers with the logical operations
// (it files them all with the Fortran integers); and MPI_LAND, MPI_LOR,
// MPI_LXOR on floating point (zero is false, the result 0 or 1). Its test
// suite (coll/op*.c, coll/allred.c) checks these outside its strict mode.
#include "base/reduce_kernels.h"

#include <array>
#include <cstdint>

#include "base/handles.h"

namespace ferry::reduce {
namespace {

// The type groups of MPI-3.1 §5.9.2. kCharacter holds the predefined types
// that no reduction is defined for (MPI_WCHAR, MPI_PACKED, as in MPICH); like
// every predefined type they still take MPI_REPLACE and MPI_NO_OP, which
// accumulate allows on any of them.
enum class Group { kCInteger, kFortranInteger, kFloatingPoint, kLogical, kComplex, kByte, kMultiLanguage,
                   kPair, kCharacter };

// Operations by their handle index: MPI_MAX is 0x58000001 ... MPI_NO_OP 0x5800000e.
constexpr size_t kOps = 15;
constexpr uint32_t kMax = 1, kMin = 2, kSum = 3, kProd = 4, kLand = 5, kBand = 6, kLor = 7, kBor = 8, kLxor = 9,
                   kBxor = 10, kMinloc = 11, kMaxloc = 12, kReplace = 13, kNoOp = 14;
static_assert(MPI_MAX == static_cast<MPI_Op>(0x58000000 | kMax) &&
              MPI_MINLOC == static_cast<MPI_Op>(0x58000000 | kMinloc) &&
              MPI_NO_OP == static_cast<MPI_Op>(0x58000000 | kNoOp));

// Predefined datatypes by slot: builtin handles by their low byte (unique in
// MPICH's numbering), the direct ones (MPI_FLOAT_INT ...) after them.
constexpr size_t kBuiltinSlots = 256;
constexpr size_t kSlots = kBuiltinSlots + 8;

int slot_of(MPI_Datatype h) {
  if (handle::object_of(h) != handle::Object::kDatatype) return -1;
  if (handle::kind_of(h) == handle::kKindBuiltin) return static_cast<int>(h & 0xff);
  if (handle::kind_of(h) == handle::kKindDirect && handle::index_of(h) < kSlots - kBuiltinSlots)
    return static_cast<int>(kBuiltinSlots + handle::index_of(h));
  return -1;
}

void no_op(const void*, void*, size_t) {}

class Table {
 public:
  Table() {
    // C integer
    add<Group::kCInteger, signed char>(MPI_SIGNED_CHAR);
    add<Group::kCInteger, unsigned char>(MPI_UNSIGNED_CHAR);
    add<Group::kCInteger, short>(MPI_SHORT);
    add<Group::kCInteger, unsigned short>(MPI_UNSIGNED_SHORT);
    add<Group::kCInteger, int>(MPI_INT);
    add<Group::kCInteger, unsigned>(MPI_UNSIGNED);
    add<Group::kCInteger, long>(MPI_LONG);
    add<Group::kCInteger, unsigned long>(MPI_UNSIGNED_LONG);
    add<Group::kCInteger, long long>(MPI_LONG_LONG_INT);
    add<Group::kCInteger, unsigned long long>(MPI_UNSIGNED_LONG_LONG);
    add<Group::kCInteger, int8_t>(MPI_INT8_T);
    add<Group::kCInteger, int16_t>(MPI_INT16_T);
    add<Group::kCInteger, int32_t>(MPI_INT32_T);
    add<Group::kCInteger, int64_t>(MPI_INT64_T);
    add<Group::kCInteger, uint8_t>(MPI_UINT8_T);
    add<Group::kCInteger, uint16_t>(MPI_UINT16_T);
    add<Group::kCInteger, uint32_t>(MPI_UINT32_T);
    add<Group::kCInteger, uint64_t>(MPI_UINT64_T);
    add<Group::kCInteger, char>(MPI_CHAR);  // MPICH's extension
    // Fortran integer (as C sees them: INTEGER is a C int, INTEGERn n bytes)
    add<Group::kFortranInteger, int>(MPI_INTEGER);
    add<Group::kFortranInteger, int8_t>(MPI_INTEGER1);
    add<Group::kFortranInteger, int16_t>(MPI_INTEGER2);
    add<Group::kFortranInteger, int32_t>(MPI_INTEGER4);
    add<Group::kFortranInteger, int64_t>(MPI_INTEGER8);
    add<Group::kFortranInteger, char>(MPI_CHARACTER);  // MPICH's extension
    // Floating point
    add<Group::kFloatingPoint, float>(MPI_FLOAT);
    add<Group::kFloatingPoint, double>(MPI_DOUBLE);
    add<Group::kFloatingPoint, long double>(MPI_LONG_DOUBLE);
    add<Group::kFloatingPoint, float>(MPI_REAL);
    add<Group::kFloatingPoint, double>(MPI_DOUBLE_PRECISION);
    add<Group::kFloatingPoint, float>(MPI_REAL4);
    add<Group::kFloatingPoint, double>(MPI_REAL8);
    add<Group::kFloatingPoint, long double>(MPI_REAL16);
    // Logical (Fortran LOGICAL is a C int: zero is false)
    add<Group::kLogical, int>(MPI_LOGICAL);
    add<Group::kLogical, bool>(MPI_C_BOOL);
    add<Group::kLogical, bool>(MPI_CXX_BOOL);
    // Complex
    add<Group::kComplex, Complex<float>>(MPI_C_FLOAT_COMPLEX);
    add<Group::kComplex, Complex<double>>(MPI_C_DOUBLE_COMPLEX);
    add<Group::kComplex, Complex<long double>>(MPI_C_LONG_DOUBLE_COMPLEX);
    add<Group::kComplex, Complex<float>>(MPI_CXX_FLOAT_COMPLEX);
    add<Group::kComplex, Complex<double>>(MPI_CXX_DOUBLE_COMPLEX);
    add<Group::kComplex, Complex<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX);
    add<Group::kComplex, Complex<float>>(MPI_COMPLEX);
    add<Group::kComplex, Complex<double>>(MPI_DOUBLE_COMPLEX);
    add<Group::kComplex, Complex<float>>(MPI_COMPLEX8);
    add<Group::kComplex, Complex<double>>(MPI_COMPLEX16);
    add<Group::kComplex, Complex<long double>>(MPI_COMPLEX32);
    // Byte
    add<Group::kByte, unsigned char>(MPI_BYTE);
    // Multi-language types
    add<Group::kMultiLanguage, MPI_Aint>(MPI_AINT);
    add<Group::kMultiLanguage, MPI_Offset>(MPI_OFFSET);
    add<Group::kMultiLanguage, MPI_Count>(MPI_COUNT);
    // MINLOC/MAXLOC pairs (MPI-3.1 §5.9.4): the Fortran ones pair two values of one type
    add<Group::kPair, Pair<float, int>>(MPI_FLOAT_INT);
    add<Group::kPair, Pair<double, int>>(MPI_DOUBLE_INT);
    add<Group::kPair, Pair<long, int>>(MPI_LONG_INT);
    add<Group::kPair, Pair<int, int>>(MPI_2INT);
    add<Group::kPair, Pair<short, int>>(MPI_SHORT_INT);
    add<Group::kPair, Pair<long double, int>>(MPI_LONG_DOUBLE_INT);
    add<Group::kPair, Pair<int, int>>(MPI_2INTEGER);
    add<Group::kPair, Pair<float, float>>(MPI_2REAL);
    add<Group::kPair, Pair<double, double>>(MPI_2DOUBLE_PRECISION);
    // Types no reduction is defined for
    add<Group::kCharacter, wchar_t>(MPI_WCHAR);
    add<Group::kCharacter, unsigned char>(MPI_PACKED);
  }

  bool exact(MPI_Datatype type) const {
    int s = slot_of(type);
    return s >= 0 && handles_[static_cast<size_t>(s)] == type && exact_[static_cast<size_t>(s)];
  }

  Kernel find(MPI_Op op, MPI_Datatype type) const {
    if (handle::kind_of(op) != handle::kKindBuiltin || handle::object_of(op) != handle::Object::kOp) return nullptr;
    uint32_t o = handle::index_of(op);
    int s = slot_of(type);
    if (o >= kOps || s < 0 || handles_[static_cast<size_t>(s)] != type) return nullptr;
    return kernels_[o][static_cast<size_t>(s)];
  }

 private:
  template <Group G, typename T>
  void add(MPI_Datatype h) {
#if defined(__x86_64__)
    // The AVX2 build of the loops where the CPU has AVX2 (reduce_kernels.h).
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) {
      add_with<G, T, true>(h);
      return;
    }
#endif
    add_with<G, T, false>(h);
  }

  template <typename T, typename F, bool kAvx2>
  static Kernel kernel() {
#if defined(__x86_64__)
    if constexpr (kAvx2) return loop_avx2<T, F>;
#endif
    return loop<T, F>;
  }

  template <Group G, typename T, bool kAvx2>
  void add_with(MPI_Datatype h) {
    size_t s = static_cast<size_t>(slot_of(h));
    handles_[s] = h;
    exact_[s] = G == Group::kCInteger || G == Group::kFortranInteger || G == Group::kMultiLanguage ||
                G == Group::kLogical || G == Group::kByte;
    auto set = [&](uint32_t op, Kernel k) { kernels_[op][s] = k; };
    set(kReplace, kernel<T, Replace, kAvx2>());
    set(kNoOp, no_op);
    constexpr bool integer = G == Group::kCInteger || G == Group::kFortranInteger || G == Group::kMultiLanguage;
    if constexpr (integer || G == Group::kFloatingPoint) {
      set(kMax, kernel<T, Max, kAvx2>());
      set(kMin, kernel<T, Min, kAvx2>());
    }
    if constexpr (integer || G == Group::kFloatingPoint || G == Group::kComplex) {
      set(kSum, kernel<T, Sum, kAvx2>());
      set(kProd, kernel<T, Prod, kAvx2>());
    }
    // §5.9.2 names C integers and logicals; MPICH adds every integer and floating point.
    if constexpr (integer || G == Group::kLogical || G == Group::kFloatingPoint) {
      set(kLand, kernel<T, LogicalAnd, kAvx2>());
      set(kLor, kernel<T, LogicalOr, kAvx2>());
      set(kLxor, kernel<T, LogicalXor, kAvx2>());
    }
    if constexpr (integer || G == Group::kByte) {
      set(kBand, kernel<T, BitAnd, kAvx2>());
      set(kBor, kernel<T, BitOr, kAvx2>());
      set(kBxor, kernel<T, BitXor, kAvx2>());
    }
    if constexpr (G == Group::kPair) {
      set(kMaxloc, kernel<T, MaxLoc, kAvx2>());
      set(kMinloc, kernel<T, MinLoc, kAvx2>());
    }
  }

  std::array<MPI_Datatype, kSlots> handles_{};
  std::array<bool, kSlots> exact_{};  // exact_in_any_order
  std::array<std::array<Kernel, kSlots>, kOps> kernels_{};
};

}  // namespace

namespace {
const Table& table() {
  static const Table t;  // built on first use, so no other static initializer can see it empty
  return t;
}
}  // namespace

Kernel find_kernel(MPI_Op op, MPI_Datatype type) { return table().find(op, type); }

bool exact_in_any_order(MPI_Datatype type) { return table().exact(type); }

}  // namespace ferry::reduce
