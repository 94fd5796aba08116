// The external32 representation (base/external32.h, MPI-3.1 §13.5.2): the
// exact bytes of known values of each kind of basic type, the sizes of the
// standard's table, and whole datatypes packed through more than one
// conversion batch. (datatype_engine_test checks random nested types
// against an element-by-element reference.)
#include "base/external32.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "base/datatype.h"
#include "base/type_constructors.h"
#include "mpi.h"

namespace ferry {
namespace {

namespace x32 = type::external32;
using Bytes = std::vector<unsigned char>;

template <typename T>
Bytes encoded(MPI_Datatype basic, const T& value) {
  Bytes out(x32::basic_size(basic), 0xEE);
  x32::encode(basic, 1, &value, out.data());
  return out;
}

template <typename T>
T decoded(MPI_Datatype basic, const Bytes& in) {
  T value{};
  x32::decode(basic, 1, in.data(), &value);
  return value;
}

struct Sized {
  MPI_Datatype handle;
  const char* name;
  size_t bytes;
};
#define FERRY_SIZED(h, n) Sized{h, #h, n}
// MPI-3.1 §13.5.2's table (MPICH's too).
const Sized kTable[] = {
    FERRY_SIZED(MPI_PACKED, 1),           FERRY_SIZED(MPI_BYTE, 1),
    FERRY_SIZED(MPI_CHAR, 1),             FERRY_SIZED(MPI_UNSIGNED_CHAR, 1),
    FERRY_SIZED(MPI_SIGNED_CHAR, 1),      FERRY_SIZED(MPI_WCHAR, 2),
    FERRY_SIZED(MPI_SHORT, 2),            FERRY_SIZED(MPI_UNSIGNED_SHORT, 2),
    FERRY_SIZED(MPI_INT, 4),              FERRY_SIZED(MPI_UNSIGNED, 4),
    FERRY_SIZED(MPI_LONG, 4),             FERRY_SIZED(MPI_UNSIGNED_LONG, 4),
    FERRY_SIZED(MPI_LONG_LONG_INT, 8),    FERRY_SIZED(MPI_UNSIGNED_LONG_LONG, 8),
    FERRY_SIZED(MPI_FLOAT, 4),            FERRY_SIZED(MPI_DOUBLE, 8),
    FERRY_SIZED(MPI_LONG_DOUBLE, 16),     FERRY_SIZED(MPI_C_BOOL, 1),
    FERRY_SIZED(MPI_INT8_T, 1),           FERRY_SIZED(MPI_INT16_T, 2),
    FERRY_SIZED(MPI_INT32_T, 4),          FERRY_SIZED(MPI_INT64_T, 8),
    FERRY_SIZED(MPI_UINT8_T, 1),          FERRY_SIZED(MPI_UINT16_T, 2),
    FERRY_SIZED(MPI_UINT32_T, 4),         FERRY_SIZED(MPI_UINT64_T, 8),
    FERRY_SIZED(MPI_AINT, 8),             FERRY_SIZED(MPI_COUNT, 8),
    FERRY_SIZED(MPI_OFFSET, 8),           FERRY_SIZED(MPI_C_FLOAT_COMPLEX, 8),
    FERRY_SIZED(MPI_C_DOUBLE_COMPLEX, 16), FERRY_SIZED(MPI_C_LONG_DOUBLE_COMPLEX, 32),
    FERRY_SIZED(MPI_CXX_BOOL, 1),         FERRY_SIZED(MPI_CXX_FLOAT_COMPLEX, 8),
    FERRY_SIZED(MPI_CXX_DOUBLE_COMPLEX, 16), FERRY_SIZED(MPI_CXX_LONG_DOUBLE_COMPLEX, 32),
    FERRY_SIZED(MPI_CHARACTER, 1),        FERRY_SIZED(MPI_LOGICAL, 4),
    FERRY_SIZED(MPI_INTEGER, 4),          FERRY_SIZED(MPI_REAL, 4),
    FERRY_SIZED(MPI_DOUBLE_PRECISION, 8), FERRY_SIZED(MPI_COMPLEX, 8),
    FERRY_SIZED(MPI_DOUBLE_COMPLEX, 16),  FERRY_SIZED(MPI_INTEGER1, 1),
    FERRY_SIZED(MPI_INTEGER2, 2),         FERRY_SIZED(MPI_INTEGER4, 4),
    FERRY_SIZED(MPI_INTEGER8, 8),         FERRY_SIZED(MPI_REAL4, 4),
    FERRY_SIZED(MPI_REAL8, 8),            FERRY_SIZED(MPI_REAL16, 16),
    FERRY_SIZED(MPI_COMPLEX8, 8),         FERRY_SIZED(MPI_COMPLEX16, 16),
    FERRY_SIZED(MPI_COMPLEX32, 32),
};
#undef FERRY_SIZED

TEST(External32, EveryBasicTypeHasTheStandardsSize) {
  for (const Sized& s : kTable) {
    EXPECT_EQ(x32::basic_size(s.handle), s.bytes) << s.name;
    const Datatype* t = find_datatype(s.handle);
    ASSERT_NE(t, nullptr) << s.name;
    EXPECT_EQ(x32::packed_bytes(*t, 3), 3 * s.bytes) << s.name;
  }
}

TEST(External32, PairAndTwinTypesAreTheirElements) {
  EXPECT_EQ(x32::packed_bytes(*find_datatype(MPI_2INT), 1), 8u);
  EXPECT_EQ(x32::packed_bytes(*find_datatype(MPI_FLOAT_INT), 1), 8u);
  EXPECT_EQ(x32::packed_bytes(*find_datatype(MPI_DOUBLE_INT), 1), 12u);
  EXPECT_EQ(x32::packed_bytes(*find_datatype(MPI_LONG_INT), 1), 8u);  // a 4-byte long
  EXPECT_EQ(x32::packed_bytes(*find_datatype(MPI_SHORT_INT), 2), 12u);
  EXPECT_EQ(x32::packed_bytes(*find_datatype(MPI_LONG_DOUBLE_INT), 1), 20u);
  EXPECT_EQ(x32::packed_bytes(*find_datatype(MPI_2DOUBLE_PRECISION), 1), 16u);
  // MPI-1's bound markers carry no data.
  EXPECT_EQ(x32::packed_bytes(*find_datatype(MPI_LB), 5), 0u);
}

TEST(External32, NoHandleOutsideTheTableHasASize) {
  EXPECT_EQ(x32::basic_size(MPI_DATATYPE_NULL), 0u);
  EXPECT_EQ(x32::basic_size(MPI_COMM_WORLD), 0u);
  EXPECT_EQ(x32::basic_size(MPI_2INT), 0u);  // not basic: two MPI_INT elements
}

TEST(External32, IntegersAreBigEndianTwosComplement) {
  EXPECT_EQ(encoded(MPI_INT, int32_t{1}), (Bytes{0, 0, 0, 1}));
  EXPECT_EQ(encoded(MPI_INT, int32_t{-2}), (Bytes{0xff, 0xff, 0xff, 0xfe}));
  EXPECT_EQ(encoded(MPI_SHORT, int16_t{0x1234}), (Bytes{0x12, 0x34}));
  EXPECT_EQ(encoded(MPI_UINT64_T, uint64_t{0x0102030405060708}), (Bytes{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(encoded(MPI_AINT, MPI_Aint{-1}), Bytes(8, 0xff));
  EXPECT_EQ(encoded(MPI_UNSIGNED_CHAR, static_cast<unsigned char>(0xab)), (Bytes{0xab}));
  EXPECT_EQ(decoded<int32_t>(MPI_INT, Bytes{0x80, 0, 0, 0}), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(decoded<uint16_t>(MPI_UNSIGNED_SHORT, Bytes{0xbe, 0xef}), 0xbeef);
}

TEST(External32, LongIsFourBytesSignExtendedBackAndUnsignedLongZeroExtended) {
  EXPECT_EQ(encoded(MPI_LONG, -2L), (Bytes{0xff, 0xff, 0xff, 0xfe}));
  EXPECT_EQ(encoded(MPI_LONG, 0x7fffffffL), (Bytes{0x7f, 0xff, 0xff, 0xff}));
  EXPECT_EQ(decoded<long>(MPI_LONG, Bytes{0xff, 0xff, 0xff, 0xfe}), -2L);
  EXPECT_EQ(decoded<long>(MPI_LONG, Bytes{0x80, 0, 0, 0}), -2147483648L);
  EXPECT_EQ(encoded(MPI_UNSIGNED_LONG, 0xfffffffeUL), (Bytes{0xff, 0xff, 0xff, 0xfe}));
  EXPECT_EQ(decoded<unsigned long>(MPI_UNSIGNED_LONG, Bytes{0xff, 0xff, 0xff, 0xfe}), 0xfffffffeUL);
  // A long beyond 32 bits keeps its low bytes, as a C conversion would.
  if (sizeof(long) == 8) {
    EXPECT_EQ(encoded(MPI_LONG, static_cast<long>(0x100000005)), (Bytes{0, 0, 0, 5}));
  }
}

TEST(External32, WcharIsTwoBytes) {
  EXPECT_EQ(encoded(MPI_WCHAR, static_cast<wchar_t>(L'A')), (Bytes{0, 0x41}));
  EXPECT_EQ(encoded(MPI_WCHAR, static_cast<wchar_t>(0x263a)), (Bytes{0x26, 0x3a}));
  EXPECT_EQ(decoded<wchar_t>(MPI_WCHAR, Bytes{0xff, 0xfd}), static_cast<wchar_t>(0xfffd));
}

TEST(External32, FloatsAreBigEndianIeee) {
  EXPECT_EQ(encoded(MPI_FLOAT, 1.0f), (Bytes{0x3f, 0x80, 0, 0}));
  EXPECT_EQ(encoded(MPI_FLOAT, -2.5f), (Bytes{0xc0, 0x20, 0, 0}));
  EXPECT_EQ(encoded(MPI_DOUBLE, 1.0), (Bytes{0x3f, 0xf0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(encoded(MPI_DOUBLE, -0.0), (Bytes{0x80, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(decoded<double>(MPI_DOUBLE, Bytes{0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18}), M_PI);
  EXPECT_EQ(encoded(MPI_C_FLOAT_COMPLEX, std::complex<float>(1.0f, 2.0f)),
            (Bytes{0x3f, 0x80, 0, 0, 0x40, 0, 0, 0}));
}

TEST(External32, LongDoubleIsBinary128) {
  // sign | 15-bit exponent, bias 16383 | 112-bit fraction.
  Bytes one(16, 0), minus_three_quarters(16, 0), two(16, 0);
  one[0] = 0x3f, one[1] = 0xff;
  minus_three_quarters[0] = 0xbf, minus_three_quarters[1] = 0xfe, minus_three_quarters[2] = 0x80;
  two[0] = 0x40;
  EXPECT_EQ(encoded(MPI_LONG_DOUBLE, 1.0L), one);
  EXPECT_EQ(encoded(MPI_LONG_DOUBLE, -0.75L), minus_three_quarters);
  EXPECT_EQ(encoded(MPI_LONG_DOUBLE, 2.0L), two);
  EXPECT_EQ(decoded<long double>(MPI_LONG_DOUBLE, two), 2.0L);
  // Every long double survives the round trip, its full precision included.
  for (long double x : {1.0L / 3, -LDBL_MAX, LDBL_MIN, LDBL_TRUE_MIN, 1e-4000L, 12345.678901234567891L}) {
    EXPECT_EQ(decoded<long double>(MPI_LONG_DOUBLE, encoded(MPI_LONG_DOUBLE, x)), x);
  }
  long double inf = decoded<long double>(MPI_LONG_DOUBLE, encoded(MPI_LONG_DOUBLE, -HUGE_VALL));
  EXPECT_TRUE(std::isinf(inf) && inf < 0);
  EXPECT_TRUE(std::isnan(decoded<long double>(MPI_LONG_DOUBLE, encoded(MPI_LONG_DOUBLE, std::nanl("")))));
  // A long double complex is two of them.
  Bytes both = encoded(MPI_C_LONG_DOUBLE_COMPLEX, std::complex<long double>(1.0L, 2.0L));
  EXPECT_EQ(Bytes(both.begin(), both.begin() + 16), one);
  EXPECT_EQ(Bytes(both.begin() + 16, both.end()), two);
}

TEST(External32, ManyElementsConvertInOneCall) {
  std::vector<int32_t> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>(i * 7919) - 500000;
  Bytes out(4 * values.size());
  x32::encode(MPI_INT, values.size(), values.data(), out.data());
  EXPECT_EQ(out[4 * 999 + 3], static_cast<unsigned char>((999 * 7919 - 500000) & 0xff));
  std::vector<int32_t> back(values.size());
  x32::decode(MPI_INT, back.size(), out.data(), back.data());
  EXPECT_EQ(back, values);
}

// A struct of mixed types, repeated far beyond one conversion batch (64 KiB),
// in and out, with the padding of the user's buffer untouched.
TEST(External32, MixedStructsCrossBatchBoundaries) {
  struct Item {
    char c;
    long l;
    double d;
    short s;
  };
  const Datatype* parts[] = {find_datatype(MPI_CHAR), find_datatype(MPI_LONG), find_datatype(MPI_DOUBLE),
                             find_datatype(MPI_SHORT)};
  int lengths[] = {1, 1, 1, 1};
  MPI_Aint disps[] = {offsetof(Item, c), offsetof(Item, l), offsetof(Item, d), offsetof(Item, s)};
  const Datatype* t = nullptr;
  ASSERT_TRUE(datatypes::structure(4, lengths, disps, parts, &t).ok());
  constexpr size_t kItems = 20000;  // 15 external32 bytes each: 300 KB
  std::vector<Item> in(kItems);
  std::memset(in.data(), 0x11, sizeof(Item) * kItems);
  for (size_t i = 0; i < kItems; ++i) {
    in[i].c = static_cast<char>(i);
    in[i].l = -static_cast<long>(i) * 1000;
    in[i].d = static_cast<double>(i) / 8;
    in[i].s = static_cast<short>(i);
  }
  ASSERT_EQ(x32::packed_bytes(*t, kItems), 15 * kItems);
  Bytes packed(15 * kItems);
  x32::pack(*t, in.data(), kItems, packed.data());
  // Item 12345 starts at 15 * 12345: its char, then its long's 4 bytes.
  const unsigned char* p = packed.data() + 15 * 12345;
  EXPECT_EQ(p[0], static_cast<unsigned char>(12345 & 0xff));
  EXPECT_EQ((Bytes{p[1], p[2], p[3], p[4]}), encoded(MPI_LONG, -12345000L));

  std::vector<Item> out(kItems);
  std::memset(out.data(), 0x11, sizeof(Item) * kItems);
  x32::unpack(*t, out.data(), kItems, packed.data());
  EXPECT_EQ(std::memcmp(out.data(), in.data(), sizeof(Item) * kItems), 0);
  datatypes::release(t);
  EXPECT_EQ(datatypes::live(), 0u);
}

TEST(External32, NothingToPackTouchesNothing) {
  const Datatype* t = find_datatype(MPI_DOUBLE);
  EXPECT_EQ(x32::packed_bytes(*t, 0), 0u);
  unsigned char out = 0xEE;
  x32::pack(*t, nullptr, 0, &out);
  x32::unpack(*t, nullptr, 0, &out);
  EXPECT_EQ(out, 0xEE);
}

}  // namespace
}  // namespace ferry
