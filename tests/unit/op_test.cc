// Reduction operations: every predefined operation on every predefined
// datatype, against the standard's table (MPI-3.1 §5.9.2, §5.9.4, §11.3.4)
// as MPICH widens it, and a reference computed element by element; user
// operations.
#include <gtest/gtest.h>

#include <complex>
#include <memory>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "base/datatype.h"
#include "base/handles.h"
#include "base/op.h"
#include "base/type_constructors.h"

namespace ferry {
namespace {

// The standard's type groups, restated here independently of the kernels.
enum class Group { kCInteger, kFortranInteger, kFloatingPoint, kLogical, kComplex, kByte, kMultiLanguage, kPair,
                   kNone };

const std::vector<MPI_Op> kAllOps = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,    MPI_LOR,
                                     MPI_BOR,  MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};

// For reductions (§5.9.2); accumulate (§11.3.4) also takes MPI_REPLACE and
// MPI_NO_OP on every predefined type. MPICH, whose behaviour Ferry matches,
// goes beyond §5.9.2 in two ways: MPI_CHAR and MPI_CHARACTER are integers
// (their cases below say so), and the logical operations take every integer
// and floating-point type, not only C integers and logicals.
bool defined(MPI_Op op, Group g) {
  using enum Group;
  if (op == MPI_REPLACE || op == MPI_NO_OP) return false;
  bool integer = g == kCInteger || g == kFortranInteger || g == kMultiLanguage;
  if (op == MPI_MAX || op == MPI_MIN)
    return g == kCInteger || g == kFortranInteger || g == kFloatingPoint || g == kMultiLanguage;
  if (op == MPI_SUM || op == MPI_PROD)
    return g == kCInteger || g == kFortranInteger || g == kFloatingPoint || g == kComplex || g == kMultiLanguage;
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return integer || g == kLogical || g == kFloatingPoint;
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
    return g == kCInteger || g == kFortranInteger || g == kByte || g == kMultiLanguage;
  return g == kPair;  // MINLOC, MAXLOC
}

template <typename V, typename I>
struct Pair {
  V value;
  I index;
};

template <typename T>
struct IsPair : std::false_type {};
template <typename V, typename I>
struct IsPair<Pair<V, I>> : std::true_type {};
template <typename T>
struct IsComplex : std::false_type {};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {};

// Random operands. Integers use all their bits (sums and products overflow
// and must wrap), a quarter of them zero so that logical operations see
// both truth values. Floating-point values are small halves, so sums and
// products are exact and any correct kernel matches to the bit.
std::mt19937_64 rng(20240611);

template <typename T>
T random_value() {
  if constexpr (std::is_same_v<T, bool>) {
    return rng() % 2 == 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (rng() % 4 == 0) return T(0);
    uint64_t bits = rng();
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<int>(rng() % 33) - 16) / 2;
  } else if constexpr (IsComplex<T>::value) {
    using R = typename T::value_type;
    return T(random_value<R>(), random_value<R>());
  } else {
    static_assert(IsPair<T>::value);
    // Few distinct values, so that ties (equal values, different indexes) are common.
    T p;
    p.value = static_cast<decltype(p.value)>(static_cast<int>(rng() % 5) - 2);
    p.index = static_cast<decltype(p.index)>(rng() % 100);
    return p;
  }
}

// The result of in op inout, computed the obvious way.
template <typename T>
T reference(MPI_Op op, T in, T inout) {
  if (op == MPI_REPLACE) return in;
  if (op == MPI_NO_OP) return inout;
  if constexpr (IsPair<T>::value) {
    bool in_wins = op == MPI_MAXLOC ? in.value > inout.value : in.value < inout.value;
    if (in.value == inout.value) return T{in.value, std::min(in.index, inout.index)};
    return in_wins ? in : inout;
  } else if constexpr (IsComplex<T>::value) {
    return op == MPI_SUM ? in + inout : in * inout;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (op == MPI_LAND) return in && inout;
    if (op == MPI_LOR) return in || inout;
    return in != inout;  // MPI_LXOR
  } else {
    if (op == MPI_MAX) return in > inout ? in : inout;
    if (op == MPI_MIN) return in < inout ? in : inout;
    if (op == MPI_LAND) return T((in != 0) && (inout != 0));
    if (op == MPI_LOR) return T((in != 0) || (inout != 0));
    if (op == MPI_LXOR) return T((in != 0) != (inout != 0));
    if constexpr (std::is_integral_v<T>) {
      // Through uint64_t: wraps modulo 2^bits, then converts back (modular since C++20).
      if (op == MPI_SUM) return T(uint64_t(in) + uint64_t(inout));
      if (op == MPI_PROD) return T(uint64_t(in) * uint64_t(inout));
      if (op == MPI_BAND) return T(in & inout);
      if (op == MPI_BOR) return T(in | inout);
      if (op == MPI_BXOR) return T(in ^ inout);
    } else {
      if (op == MPI_SUM) return in + inout;
      if (op == MPI_PROD) return in * inout;
    }
  }
  ADD_FAILURE() << "no reference for op 0x" << std::hex << op;
  return inout;
}

template <typename T>
bool same(const T& a, const T& b) {
  if constexpr (IsPair<T>::value) return a.value == b.value && a.index == b.index;
  else return a == b;  // values, not bytes: long double has padding
}

template <typename T>
std::string show(const T& v) {
  if constexpr (IsPair<T>::value) return "(" + show(v.value) + ", " + show(v.index) + ")";
  else if constexpr (IsComplex<T>::value) return "(" + show(v.real()) + ", " + show(v.imag()) + ")";
  else if constexpr (std::is_floating_point_v<T>) return std::to_string(static_cast<double>(v));
  else return std::to_string(static_cast<long long>(v));
}

// Applies `op` to random data of type T in counts that take the kernels'
// vector blocks and scalar tails, and compares with the reference.
template <typename T>
void check_results(const Op& op, const Datatype& type) {
  ASSERT_EQ(static_cast<size_t>(type.extent), sizeof(T)) << type.name << ": the test's C type has the wrong size";
  for (int count : {0, 1, 3, 15, 64, 1007}) {
    // Arrays, not std::vector: vector<bool> is no array of bool.
    size_t n = static_cast<size_t>(count) + 1;
    auto in = std::make_unique<T[]>(n), inout = std::make_unique<T[]>(n), before = std::make_unique<T[]>(n);
    for (size_t i = 0; i < n; ++i) {
      in[i] = random_value<T>();
      inout[i] = before[i] = random_value<T>();
    }
    apply(op, in.get(), inout.get(), count, type);
    for (int i = 0; i < count; ++i) {
      T want = reference(op.handle, in[i], before[i]);
      ASSERT_TRUE(same(inout[i], want)) << op.name << " on " << type.name << ", count " << count << ", element " << i
                                        << ": " << show(in[i]) << " op " << show(before[i]) << " gave "
                                        << show(inout[i]) << ", expected " << show(want);
    }
    ASSERT_TRUE(same(inout[count], before[count])) << op.name << " on " << type.name << " wrote past count " << count;
  }
}

struct TypeCase {
  MPI_Datatype handle;
  Group group;
  void (*check)(const Op&, const Datatype&);
};

template <typename T>
TypeCase type_case(MPI_Datatype h, Group g) {
  return TypeCase{h, g, &check_results<T>};
}

// Every predefined datatype, with its C layout and group.
const std::vector<TypeCase>& all_types() {
  using enum Group;
  static const std::vector<TypeCase> cases = {
      type_case<signed char>(MPI_SIGNED_CHAR, kCInteger),
      type_case<unsigned char>(MPI_UNSIGNED_CHAR, kCInteger),
      type_case<short>(MPI_SHORT, kCInteger),
      type_case<unsigned short>(MPI_UNSIGNED_SHORT, kCInteger),
      type_case<int>(MPI_INT, kCInteger),
      type_case<unsigned>(MPI_UNSIGNED, kCInteger),
      type_case<long>(MPI_LONG, kCInteger),
      type_case<unsigned long>(MPI_UNSIGNED_LONG, kCInteger),
      type_case<long long>(MPI_LONG_LONG_INT, kCInteger),
      type_case<unsigned long long>(MPI_UNSIGNED_LONG_LONG, kCInteger),
      type_case<int8_t>(MPI_INT8_T, kCInteger),
      type_case<int16_t>(MPI_INT16_T, kCInteger),
      type_case<int32_t>(MPI_INT32_T, kCInteger),
      type_case<int64_t>(MPI_INT64_T, kCInteger),
      type_case<uint8_t>(MPI_UINT8_T, kCInteger),
      type_case<uint16_t>(MPI_UINT16_T, kCInteger),
      type_case<uint32_t>(MPI_UINT32_T, kCInteger),
      type_case<uint64_t>(MPI_UINT64_T, kCInteger),
      type_case<char>(MPI_CHAR, kCInteger),  // as in MPICH; the standard has no reduction on it
      type_case<int>(MPI_INTEGER, kFortranInteger),
      type_case<int8_t>(MPI_INTEGER1, kFortranInteger),
      type_case<int16_t>(MPI_INTEGER2, kFortranInteger),
      type_case<int32_t>(MPI_INTEGER4, kFortranInteger),
      type_case<int64_t>(MPI_INTEGER8, kFortranInteger),
      type_case<char>(MPI_CHARACTER, kFortranInteger),  // as in MPICH
      type_case<float>(MPI_FLOAT, kFloatingPoint),
      type_case<double>(MPI_DOUBLE, kFloatingPoint),
      type_case<long double>(MPI_LONG_DOUBLE, kFloatingPoint),
      type_case<float>(MPI_REAL, kFloatingPoint),
      type_case<double>(MPI_DOUBLE_PRECISION, kFloatingPoint),
      type_case<float>(MPI_REAL4, kFloatingPoint),
      type_case<double>(MPI_REAL8, kFloatingPoint),
      type_case<long double>(MPI_REAL16, kFloatingPoint),
      type_case<int>(MPI_LOGICAL, kLogical),
      type_case<bool>(MPI_C_BOOL, kLogical),
      type_case<bool>(MPI_CXX_BOOL, kLogical),
      type_case<std::complex<float>>(MPI_C_FLOAT_COMPLEX, kComplex),
      type_case<std::complex<double>>(MPI_C_DOUBLE_COMPLEX, kComplex),
      type_case<std::complex<long double>>(MPI_C_LONG_DOUBLE_COMPLEX, kComplex),
      type_case<std::complex<float>>(MPI_CXX_FLOAT_COMPLEX, kComplex),
      type_case<std::complex<double>>(MPI_CXX_DOUBLE_COMPLEX, kComplex),
      type_case<std::complex<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX, kComplex),
      type_case<std::complex<float>>(MPI_COMPLEX, kComplex),
      type_case<std::complex<double>>(MPI_DOUBLE_COMPLEX, kComplex),
      type_case<std::complex<float>>(MPI_COMPLEX8, kComplex),
      type_case<std::complex<double>>(MPI_COMPLEX16, kComplex),
      type_case<std::complex<long double>>(MPI_COMPLEX32, kComplex),
      type_case<unsigned char>(MPI_BYTE, kByte),
      type_case<MPI_Aint>(MPI_AINT, kMultiLanguage),
      type_case<MPI_Offset>(MPI_OFFSET, kMultiLanguage),
      type_case<MPI_Count>(MPI_COUNT, kMultiLanguage),
      type_case<Pair<float, int>>(MPI_FLOAT_INT, kPair),
      type_case<Pair<double, int>>(MPI_DOUBLE_INT, kPair),
      type_case<Pair<long, int>>(MPI_LONG_INT, kPair),
      type_case<Pair<int, int>>(MPI_2INT, kPair),
      type_case<Pair<short, int>>(MPI_SHORT_INT, kPair),
      type_case<Pair<long double, int>>(MPI_LONG_DOUBLE_INT, kPair),
      type_case<Pair<int, int>>(MPI_2INTEGER, kPair),
      type_case<Pair<float, float>>(MPI_2REAL, kPair),
      type_case<Pair<double, double>>(MPI_2DOUBLE_PRECISION, kPair),
      // No reduction is defined for wide characters or packed data (only REPLACE and NO_OP).
      type_case<wchar_t>(MPI_WCHAR, kNone),
      type_case<unsigned char>(MPI_PACKED, kNone),
  };
  return cases;
}

const Op& op_of(MPI_Op h) {
  const Op* op = find_op(h);
  EXPECT_NE(op, nullptr);
  return *op;
}

TEST(Op, EveryPredefinedDatatypeHasACase) {
  // A predefined datatype added later without a case here would go untested.
  std::set<MPI_Datatype> covered;
  for (const TypeCase& c : all_types()) covered.insert(c.handle);
  // MPI-1's bound markers hold no data to reduce.
  covered.insert(MPI_LB);
  covered.insert(MPI_UB);
  for (uint32_t i = 0; i < 256; ++i) {
    auto h = static_cast<MPI_Datatype>(0x4c000000u | i);
    if (find_datatype(h) != nullptr) {
      EXPECT_TRUE(covered.count(h)) << find_datatype(h)->name << " has no case";
    }
  }
  for (uint32_t i = 0; i < 8; ++i) {
    auto h = static_cast<MPI_Datatype>(0x8c000000u | i);
    if (find_datatype(h) != nullptr) {
      EXPECT_TRUE(covered.count(h)) << find_datatype(h)->name << " has no case";
    }
  }
}

TEST(Op, PredefinedHandlesAreMpichs) {
  const char* names[] = {"MPI_MAX",  "MPI_MIN",  "MPI_SUM",    "MPI_PROD",   "MPI_LAND",    "MPI_BAND",  "MPI_LOR",
                         "MPI_BOR",  "MPI_LXOR", "MPI_BXOR",   "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};
  for (size_t i = 0; i < kAllOps.size(); ++i) {
    EXPECT_EQ(static_cast<uint32_t>(kAllOps[i]), 0x58000001u + i);
    const Op* op = find_op(kAllOps[i]);
    ASSERT_NE(op, nullptr) << names[i];
    EXPECT_EQ(op->handle, kAllOps[i]);
    EXPECT_STREQ(op->name, names[i]);
    EXPECT_EQ(op->user_fn, nullptr);
    EXPECT_TRUE(ops::is_predefined(*op));
  }
  EXPECT_TRUE(op_of(MPI_SUM).commutative);
  EXPECT_TRUE(op_of(MPI_MAXLOC).commutative);
}

TEST(Op, NullAndForeignHandlesAreNotOps) {
  EXPECT_EQ(find_op(MPI_OP_NULL), nullptr);
  EXPECT_EQ(find_op(static_cast<MPI_Op>(0x5800000f)), nullptr);
  EXPECT_EQ(find_op(static_cast<MPI_Op>(0x58000000)), nullptr);
  EXPECT_EQ(find_op(MPI_COMM_WORLD), nullptr);
  EXPECT_EQ(find_op(MPI_INT), nullptr);
  EXPECT_EQ(find_op(handle::make_dynamic(handle::Object::kOp, 12345)), nullptr);
}

// The whole table: each (op, type) the standard defines gives the reference
// results; each one it does not is rejected, naming both.
TEST(Op, EveryPredefinedOpOnEveryPredefinedType) {
  int reductions = 0, accumulates = 0, rejected = 0;
  for (const TypeCase& c : all_types()) {
    const Datatype* type = find_datatype(c.handle);
    ASSERT_NE(type, nullptr) << "datatype 0x" << std::hex << c.handle;
    for (MPI_Op h : kAllOps) {
      const Op& op = op_of(h);
      bool for_reduction = defined(h, c.group);
      bool for_accumulate = for_reduction || h == MPI_REPLACE || h == MPI_NO_OP;
      Err e = check_op(op, *type);
      Err a = check_accumulate_op(op, *type);
      EXPECT_EQ(e.ok(), for_reduction) << op.name << " on " << type->name << ": " << e.message();
      EXPECT_EQ(a.ok(), for_accumulate) << op.name << " on " << type->name << " (accumulate): " << a.message();
      if (!for_reduction) {
        EXPECT_EQ(e.mpi_class(), MPI_ERR_OP) << op.name << " on " << type->name;
        if (for_accumulate) {
          EXPECT_EQ(e.message(), std::string(op.name) + " is only for one-sided accumulate operations, not for "
                                 "reductions");
        } else {
          EXPECT_EQ(e.message(), std::string(op.name) + " is not defined for " + type->name);
          EXPECT_EQ(a.message(), e.message());
        }
      }
      if (for_accumulate) {
        c.check(op, *type);
        if (testing::Test::HasFatalFailure()) return;
      }
      reductions += for_reduction;
      accumulates += for_accumulate;
      rejected += !for_accumulate;
    }
  }
  // 62 types x 14 ops; the split is fixed by the table: 320 pairs in the
  // standard's, plus MPICH's 68 (MPI_CHAR and MPI_CHARACTER with 10 integer
  // operations each, the 3 logical operations on the 5 Fortran integers,
  // MPI_AINT, MPI_OFFSET, MPI_COUNT and the 8 floating-point types).
  EXPECT_EQ(accumulates + rejected, 62 * 14);
  EXPECT_EQ(reductions, 320 + 2 * 10 + 3 * (5 + 3 + 8));
  EXPECT_EQ(accumulates, reductions + 2 * 62);
}

// check_op remembers the predefined pairs it found defined (op.h,
// op_pairs): asked again, in any order, every pair gets the first answer,
// so no failing pair is remembered as defined and no pair's bit answers
// for another's.
TEST(Op, EveryPairAnswersAlikeWhenAskedAgain) {
  for (int round = 0; round < 3; ++round) {
    for (const TypeCase& c : all_types()) {
      const Datatype* type = find_datatype(c.handle);
      for (size_t k = 0; k < kAllOps.size(); ++k) {
        // Round 1 asks the ops in the opposite order, after every pair was asked once.
        const Op& op = op_of(kAllOps[round == 1 ? kAllOps.size() - 1 - k : k]);
        Err e = check_op(op, *type);
        EXPECT_EQ(e.ok(), defined(op.handle, c.group)) << op.name << " on " << type->name << ", round " << round;
        if (!e.ok()) EXPECT_EQ(e.mpi_class(), MPI_ERR_OP) << op.name << " on " << type->name;
      }
    }
  }
}

TEST(Op, ForbiddenCombinationsNameOpAndType) {
  Err e = check_op(op_of(MPI_SUM), *find_datatype(MPI_FLOAT_INT));
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OP);
  EXPECT_EQ(e.message(), "MPI_SUM is not defined for MPI_FLOAT_INT");
  EXPECT_EQ(check_op(op_of(MPI_MAXLOC), *find_datatype(MPI_INT)).message(), "MPI_MAXLOC is not defined for MPI_INT");
  EXPECT_EQ(check_op(op_of(MPI_BAND), *find_datatype(MPI_DOUBLE)).message(), "MPI_BAND is not defined for MPI_DOUBLE");
  // MPI_C_FLOAT_COMPLEX is MPI_C_COMPLEX's handle, and named so (as MPICH does).
  EXPECT_EQ(check_op(op_of(MPI_LAND), *find_datatype(MPI_C_FLOAT_COMPLEX)).message(),
            "MPI_LAND is not defined for MPI_C_COMPLEX");
  EXPECT_EQ(check_op(op_of(MPI_MAX), *find_datatype(MPI_C_DOUBLE_COMPLEX)).message(),
            "MPI_MAX is not defined for MPI_C_DOUBLE_COMPLEX");
  EXPECT_EQ(check_op(op_of(MPI_SUM), *find_datatype(MPI_WCHAR)).message(), "MPI_SUM is not defined for MPI_WCHAR");
  EXPECT_EQ(check_op(op_of(MPI_MAX), *find_datatype(MPI_PACKED)).message(), "MPI_MAX is not defined for MPI_PACKED");
  EXPECT_EQ(check_op(op_of(MPI_SUM), *find_datatype(MPI_BYTE)).message(), "MPI_SUM is not defined for MPI_BYTE");
}

TEST(Op, UnsignedOverflowWraps) {
  const Datatype& t = *find_datatype(MPI_UNSIGNED);
  unsigned in[2] = {0xffffffffu, 0x10000u}, inout[2] = {2u, 0x10001u};
  apply(op_of(MPI_SUM), in, inout, 2, t);
  EXPECT_EQ(inout[0], 1u);
  EXPECT_EQ(inout[1], 0x20001u);
  unsigned short a = 0xffff, b = 0xffff;  // promoted to int, this product would overflow int
  apply(op_of(MPI_PROD), &a, &b, 1, *find_datatype(MPI_UNSIGNED_SHORT));
  EXPECT_EQ(b, 1);
}

// MPI-3.1 §5.9.4: on equal values MINLOC and MAXLOC keep the smaller index,
// whichever operand it comes from.
TEST(Op, MaxlocAndMinlocTiesTakeTheSmallestIndex) {
  for (MPI_Op h : {MPI_MAXLOC, MPI_MINLOC}) {
    Pair<double, int> in[2] = {{5.0, 7}, {5.0, 2}}, inout[2] = {{5.0, 3}, {5.0, 9}};
    apply(op_of(h), in, inout, 2, *find_datatype(MPI_DOUBLE_INT));
    EXPECT_EQ(inout[0].index, 3);
    EXPECT_EQ(inout[1].index, 2);
    Pair<float, float> rin = {-1.5f, 4.0f}, rinout = {-1.5f, 6.0f};
    apply(op_of(h), &rin, &rinout, 1, *find_datatype(MPI_2REAL));
    EXPECT_EQ(rinout.value, -1.5f);
    EXPECT_EQ(rinout.index, 4.0f);
  }
  Pair<int, int> in = {3, 9}, inout = {-4, 1};
  apply(op_of(MPI_MAXLOC), &in, &inout, 1, *find_datatype(MPI_2INT));
  EXPECT_EQ(inout.value, 3);
  EXPECT_EQ(inout.index, 9);
  Pair<short, int> sin = {-4, 9}, sinout = {3, 1};
  apply(op_of(MPI_MINLOC), &sin, &sinout, 1, *find_datatype(MPI_SHORT_INT));
  EXPECT_EQ(sinout.value, -4);
  EXPECT_EQ(sinout.index, 9);
}

TEST(Op, ReplaceStoresInAndNoOpKeepsInout) {
  const Datatype& t = *find_datatype(MPI_LONG_DOUBLE_INT);
  Pair<long double, int> in = {2.5L, 4}, inout = {-7.0L, 1};
  apply(op_of(MPI_NO_OP), &in, &inout, 1, t);
  EXPECT_EQ(inout.value, -7.0L);
  EXPECT_EQ(inout.index, 1);
  apply(op_of(MPI_REPLACE), &in, &inout, 1, t);
  EXPECT_EQ(inout.value, 2.5L);
  EXPECT_EQ(inout.index, 4);
  char s[4] = "abc", d[4] = "xyz";
  ASSERT_TRUE(check_accumulate_op(op_of(MPI_REPLACE), *find_datatype(MPI_CHAR)).ok());
  apply(op_of(MPI_REPLACE), s, d, 3, *find_datatype(MPI_CHAR));
  EXPECT_STREQ(d, "abc");
}

TEST(Op, InAndInoutMayBeTheSameBuffer) {
  std::vector<double> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  apply(op_of(MPI_SUM), v.data(), v.data(), 1000, *find_datatype(MPI_DOUBLE));
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], 2.0 * static_cast<double>(i)) << i;
}

// Derived datatypes made by the datatype engine, released at the end.
struct DerivedType {
  const Datatype* type = nullptr;
  ~DerivedType() { datatypes::release(type); }
};

TEST(Op, ContiguousDerivedTypesReduceAsTheirBasicType) {
  DerivedType four_ints, dup_double;
  ASSERT_TRUE(datatypes::contiguous(4, *find_datatype(MPI_INT), &four_ints.type).ok());
  ASSERT_TRUE(datatypes::dup(*find_datatype(MPI_DOUBLE), &dup_double.type).ok());
  ASSERT_TRUE(check_op(op_of(MPI_SUM), *four_ints.type).ok());
  int in[12], inout[12];
  for (int i = 0; i < 12; ++i) {
    in[i] = i - 5;
    inout[i] = 100 * i;
  }
  apply(op_of(MPI_SUM), in, inout, 3, *four_ints.type);  // 3 elements = 12 ints
  for (int i = 0; i < 12; ++i) EXPECT_EQ(inout[i], 101 * i - 5) << i;
  double a = 2.5, b = -4.0;
  ASSERT_TRUE(check_op(op_of(MPI_MAX), *dup_double.type).ok());
  apply(op_of(MPI_MAX), &a, &b, 1, *dup_double.type);
  EXPECT_EQ(b, 2.5);
  Err e = check_op(op_of(MPI_BAND), *dup_double.type);
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OP);
  EXPECT_NE(e.message().find("MPI_BAND is not defined for "), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("(made of MPI_DOUBLE)"), std::string::npos) << e.message();
}

TEST(Op, OtherDerivedTypesAreRejectedUntilSupported) {
  DerivedType strided, mixed;
  ASSERT_TRUE(datatypes::vector(2, 1, 2, *find_datatype(MPI_INT), &strided.type).ok());
  const Datatype* parts[2] = {find_datatype(MPI_INT), find_datatype(MPI_FLOAT)};
  int lengths[2] = {1, 1};
  MPI_Aint displacements[2] = {0, 4};
  ASSERT_TRUE(datatypes::structure(2, lengths, displacements, parts, &mixed.type).ok());
  for (const Datatype* t : {strided.type, mixed.type}) {
    Err e = check_op(op_of(MPI_SUM), *t);
    EXPECT_EQ(e.mpi_class(), MPI_ERR_TYPE);
    EXPECT_NE(e.message().find("MPI_SUM on the derived datatype "), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("is not supported yet"), std::string::npos) << e.message();
  }
}

// A user function's calls, recorded.
struct Call {
  void* in;
  void* inout;
  int len;
  MPI_Datatype type;
};
std::vector<Call> calls;

// Not commutative: inout = 10 * in + inout shows which operand was which.
void shift_and_add(void* in, void* inout, int* len, MPI_Datatype* type) {
  calls.push_back(Call{in, inout, *len, *type});
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += 10 * static_cast<int*>(in)[i];
}

TEST(Op, UserFunctionGetsWholeCountInStandardOrder) {
  MPI_Op h = ops::create(shift_and_add, false);
  EXPECT_TRUE(handle::is_dynamic(h, handle::Object::kOp));
  const Op* op = find_op(h);
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->handle, h);
  EXPECT_FALSE(op->commutative);
  EXPECT_EQ(op->user_fn, &shift_and_add);
  EXPECT_FALSE(ops::is_predefined(*op));
  const Datatype& t = *find_datatype(MPI_INT);
  ASSERT_TRUE(check_op(*op, t).ok());

  calls.clear();
  int in[5] = {1, 2, 3, 4, 5}, inout[5] = {6, 7, 8, 9, 0};
  apply(*op, in, inout, 5, t);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].in, static_cast<void*>(in));
  EXPECT_EQ(calls[0].inout, static_cast<void*>(inout));
  EXPECT_EQ(calls[0].len, 5);
  EXPECT_EQ(calls[0].type, MPI_INT);
  EXPECT_EQ(inout[0], 16);
  EXPECT_EQ(inout[4], 50);

  calls.clear();
  apply(*op, in, inout, 0, t);  // nothing to reduce: the function is not called
  EXPECT_TRUE(calls.empty());
  EXPECT_TRUE(ops::free(h).ok());
}

TEST(Op, UserOpsTakeAnyDatatype) {
  MPI_Op h = ops::create(shift_and_add, true);
  const Op* op = find_op(h);
  ASSERT_NE(op, nullptr);
  EXPECT_TRUE(op->commutative);
  DerivedType strided;
  ASSERT_TRUE(datatypes::vector(2, 1, 2, *find_datatype(MPI_INT), &strided.type).ok());
  EXPECT_TRUE(check_op(*op, *strided.type).ok());
  EXPECT_TRUE(check_op(*op, *find_datatype(MPI_FLOAT_INT)).ok());
  Err a = check_accumulate_op(*op, *find_datatype(MPI_INT));  // MPI-3.1 §11.3.4: predefined ops only
  EXPECT_EQ(a.mpi_class(), MPI_ERR_OP);
  EXPECT_NE(a.message().find("cannot be used in accumulate operations"), std::string::npos) << a.message();
  calls.clear();
  int in[3] = {1, 0, 1}, inout[3] = {2, 0, 2};
  apply(*op, in, inout, 1, *strided.type);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].type, strided.type->handle);
  EXPECT_TRUE(ops::free(h).ok());
}

TEST(Op, FreedHandlesStopBeingValid) {
  MPI_Op a = ops::create(shift_and_add, true);
  MPI_Op b = ops::create(shift_and_add, false);
  EXPECT_NE(a, b);
  EXPECT_TRUE(ops::free(a).ok());
  EXPECT_EQ(find_op(a), nullptr);
  EXPECT_NE(find_op(b), nullptr);
  Err again = ops::free(a);
  EXPECT_EQ(again.mpi_class(), MPI_ERR_OP);
  EXPECT_NE(again.message().find("invalid op handle"), std::string::npos) << again.message();
  EXPECT_TRUE(ops::free(b).ok());
}

TEST(Op, PredefinedAndNullOpsCannotBeFreed) {
  Err e = ops::free(MPI_SUM);
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OP);
  EXPECT_EQ(e.message(), "MPI_SUM is predefined and cannot be freed");
  EXPECT_NE(find_op(MPI_SUM), nullptr);
  Err n = ops::free(MPI_OP_NULL);
  EXPECT_EQ(n.mpi_class(), MPI_ERR_OP);
  EXPECT_EQ(n.message(), "op is MPI_OP_NULL");
  EXPECT_EQ(ops::free(MPI_COMM_WORLD).mpi_class(), MPI_ERR_OP);
}

// MPI-3.1 §5.9.5: freeing an op does not disturb an operation using it.
TEST(Op, RetainedOpOutlivesItsHandle) {
  MPI_Op h = ops::create(shift_and_add, false);
  const Op* op = find_op(h);
  ASSERT_NE(op, nullptr);
  ops::retain(*op);
  ASSERT_TRUE(ops::free(h).ok());
  EXPECT_EQ(find_op(h), nullptr);
  calls.clear();
  int in = 3, inout = 4;
  apply(*op, &in, &inout, 1, *find_datatype(MPI_INT));  // still alive (ASan would see otherwise)
  EXPECT_EQ(inout, 34);
  EXPECT_EQ(calls.size(), 1u);
  ops::release(*op);
  ops::retain(op_of(MPI_SUM));  // predefined: nothing to count
  ops::release(op_of(MPI_SUM));
}

TEST(Op, HandleSlotsAreReused) {
  MPI_Op a = ops::create(shift_and_add, true);
  ASSERT_TRUE(ops::free(a).ok());
  MPI_Op b = ops::create(shift_and_add, false);
  EXPECT_EQ(a, b);  // the same slot, so churn does not grow the table
  EXPECT_FALSE(find_op(b)->commutative);
  EXPECT_TRUE(ops::free(b).ok());
}

}  // namespace
}  // namespace ferry
