// Predefined datatypes (base/datatype.h): each MPICH handle finds a type
// whose size is the C type's, pair types have the C struct's extent, and
// anything that is not a predefined datatype handle finds nothing.
#include "base/datatype.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <random>

#include "base/handles.h"
#include "mpi.h"

namespace ferry {
namespace {

struct Expected {
  MPI_Datatype handle;
  const char* name;
  size_t size;
};
#define FERRY_TYPE(h, T) Expected{h, #h, sizeof(T)}
const Expected kBasic[] = {
    FERRY_TYPE(MPI_CHAR, char),
    FERRY_TYPE(MPI_SIGNED_CHAR, signed char),
    FERRY_TYPE(MPI_UNSIGNED_CHAR, unsigned char),
    FERRY_TYPE(MPI_BYTE, unsigned char),
    FERRY_TYPE(MPI_WCHAR, wchar_t),
    FERRY_TYPE(MPI_SHORT, short),
    FERRY_TYPE(MPI_UNSIGNED_SHORT, unsigned short),
    FERRY_TYPE(MPI_INT, int),
    FERRY_TYPE(MPI_UNSIGNED, unsigned),
    FERRY_TYPE(MPI_LONG, long),
    FERRY_TYPE(MPI_UNSIGNED_LONG, unsigned long),
    FERRY_TYPE(MPI_LONG_LONG_INT, long long),
    FERRY_TYPE(MPI_LONG_LONG, long long),
    FERRY_TYPE(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    FERRY_TYPE(MPI_FLOAT, float),
    FERRY_TYPE(MPI_DOUBLE, double),
    FERRY_TYPE(MPI_LONG_DOUBLE, long double),
    FERRY_TYPE(MPI_PACKED, char),
    FERRY_TYPE(MPI_INT8_T, int8_t),
    FERRY_TYPE(MPI_INT16_T, int16_t),
    FERRY_TYPE(MPI_INT32_T, int32_t),
    FERRY_TYPE(MPI_INT64_T, int64_t),
    FERRY_TYPE(MPI_UINT8_T, uint8_t),
    FERRY_TYPE(MPI_UINT16_T, uint16_t),
    FERRY_TYPE(MPI_UINT32_T, uint32_t),
    FERRY_TYPE(MPI_UINT64_T, uint64_t),
    FERRY_TYPE(MPI_C_BOOL, bool),  // C _Bool: one byte on this ABI, like bool
    FERRY_TYPE(MPI_C_FLOAT_COMPLEX, float _Complex),
    FERRY_TYPE(MPI_C_COMPLEX, float _Complex),
    FERRY_TYPE(MPI_C_DOUBLE_COMPLEX, double _Complex),
    FERRY_TYPE(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    FERRY_TYPE(MPI_AINT, MPI_Aint),
    FERRY_TYPE(MPI_OFFSET, MPI_Offset),
    FERRY_TYPE(MPI_COUNT, MPI_Count),
    FERRY_TYPE(MPI_CXX_BOOL, bool),
    FERRY_TYPE(MPI_CXX_FLOAT_COMPLEX, std::complex<float>),
    FERRY_TYPE(MPI_CXX_DOUBLE_COMPLEX, std::complex<double>),
    FERRY_TYPE(MPI_CXX_LONG_DOUBLE_COMPLEX, std::complex<long double>),
    FERRY_TYPE(MPI_2INT, int[2]),
    // Fortran types as a C program on this ABI sees them.
    FERRY_TYPE(MPI_CHARACTER, char),
    FERRY_TYPE(MPI_LOGICAL, int),
    FERRY_TYPE(MPI_INTEGER, int),
    FERRY_TYPE(MPI_REAL, float),
    FERRY_TYPE(MPI_DOUBLE_PRECISION, double),
    FERRY_TYPE(MPI_COMPLEX, float[2]),
    FERRY_TYPE(MPI_DOUBLE_COMPLEX, double[2]),
    FERRY_TYPE(MPI_2INTEGER, int[2]),
    FERRY_TYPE(MPI_2REAL, float[2]),
    FERRY_TYPE(MPI_2DOUBLE_PRECISION, double[2]),
    FERRY_TYPE(MPI_INTEGER1, int8_t),
    FERRY_TYPE(MPI_INTEGER2, int16_t),
    FERRY_TYPE(MPI_INTEGER4, int32_t),
    FERRY_TYPE(MPI_INTEGER8, int64_t),
    FERRY_TYPE(MPI_REAL4, float),
    FERRY_TYPE(MPI_REAL8, double),
    FERRY_TYPE(MPI_REAL16, long double),
    FERRY_TYPE(MPI_COMPLEX8, float[2]),
    FERRY_TYPE(MPI_COMPLEX16, double[2]),
    FERRY_TYPE(MPI_COMPLEX32, long double[2]),
};
#undef FERRY_TYPE

TEST(FindDatatype, EveryBasicTypeHasTheSizeOfItsCType) {
  for (const Expected& e : kBasic) {
    const Datatype* t = find_datatype(e.handle);
    ASSERT_NE(t, nullptr) << e.name;
    EXPECT_EQ(t->handle, e.handle) << e.name;
    EXPECT_EQ(t->size, e.size) << e.name;
    EXPECT_EQ(t->extent, static_cast<MPI_Aint>(e.size)) << e.name;
    EXPECT_EQ(t->lb, 0) << e.name;
    EXPECT_TRUE(t->contiguous) << e.name;
    EXPECT_TRUE(t->supported) << e.name;
  }
}

TEST(FindDatatype, BasicTypeSizeMatchesTheSizeMpichEncodesInTheHandle) {
  // MPICH puts a basic type's size in bits 8-15 of its handle.
  for (const Expected& e : kBasic) {
    const Datatype* t = find_datatype(e.handle);
    ASSERT_NE(t, nullptr) << e.name;
    EXPECT_EQ(t->size, static_cast<size_t>((e.handle >> 8) & 0xff)) << e.name;
  }
}

TEST(FindDatatype, NamesAreTheMpiNames) {
  EXPECT_STREQ(find_datatype(MPI_INT)->name, "MPI_INT");
  EXPECT_STREQ(find_datatype(MPI_DOUBLE)->name, "MPI_DOUBLE");
  EXPECT_STREQ(find_datatype(MPI_C_DOUBLE_COMPLEX)->name, "MPI_C_DOUBLE_COMPLEX");
  EXPECT_STREQ(find_datatype(MPI_DOUBLE_INT)->name, "MPI_DOUBLE_INT");
}

// MPICH's names, where its header gives two names one handle.
TEST(FindDatatype, SynonymsHaveMpichsName) {
  EXPECT_STREQ(find_datatype(MPI_C_COMPLEX)->name, "MPI_C_COMPLEX");
  EXPECT_STREQ(find_datatype(MPI_C_FLOAT_COMPLEX)->name, "MPI_C_COMPLEX");
  EXPECT_STREQ(find_datatype(MPI_LONG_LONG)->name, "MPI_LONG_LONG_INT");
}

// MPI-1's bound markers (removed in MPI-3.0) are types of no data and no
// extent, as in MPICH; MPI_Type_create_struct reads them as markers.
TEST(FindDatatype, BoundMarkersAreEmptyTypes) {
  for (MPI_Datatype h : {MPI_LB, MPI_UB}) {
    const Datatype* t = find_datatype(h);
    ASSERT_NE(t, nullptr) << std::hex << h;
    EXPECT_EQ(t->handle, h);
    EXPECT_EQ(t->size, 0u);
    EXPECT_EQ(t->lb, 0);
    EXPECT_EQ(t->extent, 0);
    EXPECT_EQ(t->signature->elements(), 0u);
  }
  EXPECT_STREQ(find_datatype(MPI_LB)->name, "MPI_LB");
  EXPECT_STREQ(find_datatype(MPI_UB)->name, "MPI_UB");
}

TEST(MatchSize, FortransSizedTypesComeFirstAsInMpich) {
  const Datatype* t = nullptr;
  ASSERT_TRUE(datatypes::match_size(MPI_TYPECLASS_REAL, 4, &t).ok());
  EXPECT_EQ(t->handle, MPI_REAL4);
  ASSERT_TRUE(datatypes::match_size(MPI_TYPECLASS_REAL, 16, &t).ok());
  EXPECT_EQ(t->handle, MPI_REAL16);
  ASSERT_TRUE(datatypes::match_size(MPI_TYPECLASS_INTEGER, 8, &t).ok());
  EXPECT_EQ(t->handle, MPI_INTEGER8);
  ASSERT_TRUE(datatypes::match_size(MPI_TYPECLASS_COMPLEX, 32, &t).ok());
  EXPECT_EQ(t->handle, MPI_COMPLEX32);
}

TEST(MatchSize, NoTypeOfThatSizeOrClassIsAnArgumentError) {
  const Datatype* t = nullptr;
  EXPECT_EQ(datatypes::match_size(MPI_TYPECLASS_INTEGER, 3, &t).mpi_class(), MPI_ERR_ARG);
  EXPECT_EQ(datatypes::match_size(MPI_TYPECLASS_COMPLEX, 4, &t).mpi_class(), MPI_ERR_ARG);
  EXPECT_EQ(datatypes::match_size(0, 4, &t).mpi_class(), MPI_ERR_ARG);
  EXPECT_EQ(t, nullptr);
}

TEST(FindDatatype, BytesMultipliesTheSizeWithoutOverflow) {
  const Datatype* d = find_datatype(MPI_DOUBLE);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->bytes(0), 0u);
  EXPECT_EQ(d->bytes(3), 24u);
  EXPECT_EQ(d->bytes(INT32_MAX), size_t{8} * INT32_MAX);  // above 4 GiB
}

template <typename T>
struct PairOf {
  T value;
  int index;
};

struct ExpectedPair {
  MPI_Datatype handle;
  const char* name;
  size_t data_bytes;  // the value and the int, without padding
  size_t extent;      // the C struct, padding included
};
#define FERRY_PAIR(h, T) ExpectedPair{h, #h, sizeof(T) + sizeof(int), sizeof(PairOf<T>)}
const ExpectedPair kPairs[] = {
    FERRY_PAIR(MPI_FLOAT_INT, float),   FERRY_PAIR(MPI_DOUBLE_INT, double),
    FERRY_PAIR(MPI_LONG_INT, long),     FERRY_PAIR(MPI_SHORT_INT, short),
    FERRY_PAIR(MPI_LONG_DOUBLE_INT, long double),
};
#undef FERRY_PAIR

TEST(FindDatatype, PairTypesHaveTheCStructsExtentAndTheirDataSize) {
  for (const ExpectedPair& p : kPairs) {
    const Datatype* t = find_datatype(p.handle);
    ASSERT_NE(t, nullptr) << p.name;
    EXPECT_EQ(t->handle, p.handle) << p.name;
    EXPECT_EQ(t->size, p.data_bytes) << p.name;
    EXPECT_EQ(t->extent, static_cast<MPI_Aint>(p.extent)) << p.name;
    EXPECT_EQ(t->lb, 0) << p.name;
    // Padding inside the struct makes it non-contiguous.
    EXPECT_EQ(t->contiguous, p.data_bytes == p.extent) << p.name;
  }
}

TEST(FindDatatype, PaddedPairsOnThisAbiAreNotContiguous) {
  // x86-64: struct {double; int} is 16 bytes for 12 of data.
  const Datatype* d = find_datatype(MPI_DOUBLE_INT);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->size, 12u);
  EXPECT_EQ(d->extent, 16);
  EXPECT_FALSE(d->contiguous);
  const Datatype* f = find_datatype(MPI_FLOAT_INT);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->size, 8u);
  EXPECT_EQ(f->extent, 8);
  EXPECT_TRUE(f->contiguous);
}

TEST(FindDatatype, NullHandleFindsNothing) {
  EXPECT_EQ(find_datatype(MPI_DATATYPE_NULL), nullptr);
  EXPECT_EQ(find_datatype(MPI_INTEGER16), nullptr);  // MPI_DATATYPE_NULL, as in MPICH
}

TEST(FindDatatype, HandlesOfOtherObjectsFindNothing) {
  for (int h : {MPI_COMM_WORLD, MPI_COMM_SELF, MPI_SUM, MPI_GROUP_EMPTY, MPI_REQUEST_NULL, MPI_ERRORS_RETURN, 0, -1})
    EXPECT_EQ(find_datatype(h), nullptr) << std::hex << h;
}

TEST(FindDatatype, DatatypeLookalikesFindNothing) {
  const int lookalikes[] = {
      0x4c0004ff,                     // builtin, unknown low byte
      0x4c000805,                     // MPI_INT's low byte with another size
      0x4c000000,                     // builtin index 0
      0x4c100405,                     // MPI_INT with stray bits in the index
      static_cast<int>(0x8c000005u),  // direct, one past MPI_LONG_DOUBLE_INT
      static_cast<int>(0x8c000007u),  // direct, last slot of the table
      static_cast<int>(0x8c000100u),  // direct, far beyond the table
      static_cast<int>(0x8c001000u),
      static_cast<int>(0xcc000000u),  // dynamic datatype handles
      static_cast<int>(0xcc000005u),
      handle::make_dynamic(handle::Object::kDatatype, 0x405),
      handle::make_dynamic(handle::Object::kDatatype, handle::kIndexMask),
  };
  for (int h : lookalikes) EXPECT_EQ(find_datatype(h), nullptr) << std::hex << h;
}

TEST(FindDatatype, RandomIntsNeverFindATypeWithAnotherHandle) {
  std::mt19937 rng(12345);
  int found = 0;
  for (int i = 0; i < 200000; ++i) {
    int h = static_cast<int>(rng());
    if (i % 2 == 0) h = (h & 0x00ffffff) | 0x4c000000;  // half of them builtin-datatype shaped
    const Datatype* t = find_datatype(h);
    if (t != nullptr) {
      ++found;
      ASSERT_EQ(t->handle, h) << std::hex << h;
    }
  }
  // A handful of builtin-shaped ints are real types; nearly all are not.
  EXPECT_LT(found, 200);
}

}  // namespace
}  // namespace ferry
