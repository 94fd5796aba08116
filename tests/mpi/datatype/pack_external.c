/*
 * MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size in the
 * "external32" representation (MPI-3.1 §4.3, §13.5.2): big-endian, each
 * basic type at the standard's fixed size (MPI_LONG 4 bytes, MPI_WCHAR 2,
 * MPI_LONG_DOUBLE a 16-byte IEEE binary128), no padding between elements.
 *
 * Checked: the exact bytes of a few values of each kind; the size of every
 * basic type and of pair and derived types; round trips of derived types
 * with gaps (vector, indexed, hindexed, resized), of mixed types (structs,
 * pair types) and of more data than one conversion batch (64 KiB), where the
 * gaps of the receiving buffer stay untouched; positions that advance over
 * several calls; a buffer too small (MPI_ERR_TRUNCATE); a datarep other than
 * "external32" (MPI_ERR_ARG naming the argument). MPICH checks neither. Last, each rank sends its
 * packed data as bytes to the next, which unpacks it.
 *
 * MPICH 4.0 converts only types of one basic type (no structs, no pair
 * types, not MPI_2INT) and not MPI_WCHAR: those are checked on Ferry only
 * (mt_is_ferry), as is MPI_LONG_DOUBLE, whose conversion MPICH's build may
 * leave to the host's long double.
 */
#define TEST_NAME "pack_external"
#include "mpitest.h"

#include <wchar.h>

static const char *ext32 = "external32";

static void expect_bytes(const void *data, int count, MPI_Datatype type, const unsigned char *want, int n,
                         const char *what) {
  unsigned char buf[256];
  MPI_Aint size = -1, pos = 0;
  CHECK_MPI(MPI_Pack_external_size(ext32, count, type, &size));
  CHECK(size == n, "%s: MPI_Pack_external_size gave %ld, expected %d", what, (long)size, n);
  memset(buf, 0xa5, sizeof buf);
  CHECK_MPI(MPI_Pack_external(ext32, data, count, type, buf, sizeof buf, &pos));
  CHECK(pos == n, "%s: position moved to %ld, expected %d", what, (long)pos, n);
  for (int i = 0; i < n; i++)
    CHECK(buf[i] == want[i], "%s: byte %d is 0x%02x, expected 0x%02x", what, i, buf[i], want[i]);
  CHECK(buf[n] == 0xa5, "%s: MPI_Pack_external wrote past its %d bytes", what, n);
}

static void exact_bytes(void) {
  int ints[2] = {1, -2};
  expect_bytes(ints, 2, MPI_INT, (const unsigned char[]){0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe}, 8, "MPI_INT");
  unsigned u = 0x01020304u;
  expect_bytes(&u, 1, MPI_UNSIGNED, (const unsigned char[]){1, 2, 3, 4}, 4, "MPI_UNSIGNED");
  short s = -3;
  expect_bytes(&s, 1, MPI_SHORT, (const unsigned char[]){0xff, 0xfd}, 2, "MPI_SHORT");
  /* MPI_LONG is 4 bytes in external32 whatever sizeof(long) is. */
  long longs[2] = {1, -2};
  expect_bytes(longs, 2, MPI_LONG, (const unsigned char[]){0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe}, 8, "MPI_LONG");
  unsigned long ul = 0x89abcdefUL;
  expect_bytes(&ul, 1, MPI_UNSIGNED_LONG, (const unsigned char[]){0x89, 0xab, 0xcd, 0xef}, 4,
               "MPI_UNSIGNED_LONG");
  long long ll = -2;
  expect_bytes(&ll, 1, MPI_LONG_LONG,
               (const unsigned char[]){0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, 8, "MPI_LONG_LONG");
  uint64_t u64 = 0x0102030405060708ull;
  expect_bytes(&u64, 1, MPI_UINT64_T, (const unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8, "MPI_UINT64_T");
  float f[2] = {1.0f, -2.5f};
  expect_bytes(f, 2, MPI_FLOAT, (const unsigned char[]){0x3f, 0x80, 0, 0, 0xc0, 0x20, 0, 0}, 8, "MPI_FLOAT");
  double d = 1.0;
  expect_bytes(&d, 1, MPI_DOUBLE, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 8, "MPI_DOUBLE");
  char c[3] = {'a', 'b', 'c'};
  expect_bytes(c, 3, MPI_CHAR, (const unsigned char[]){'a', 'b', 'c'}, 3, "MPI_CHAR");
  float fc[2] = {1.0f, 2.0f}; /* one float _Complex: real, then imaginary part */
  expect_bytes(fc, 1, MPI_C_FLOAT_COMPLEX, (const unsigned char[]){0x3f, 0x80, 0, 0, 0x40, 0, 0, 0}, 8,
               "MPI_C_FLOAT_COMPLEX");

  if (!mt_is_ferry()) return;
  int two[2] = {7, -1};
  expect_bytes(two, 1, MPI_2INT, (const unsigned char[]){0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff}, 8, "MPI_2INT");
  /* IEEE binary128: sign, 15-bit exponent (bias 16383), 112-bit fraction. */
  long double ld[2] = {1.0L, -0.75L};
  unsigned char ld_bytes[32] = {0x3f, 0xff, [16] = 0xbf, 0xfe, 0x80};
  expect_bytes(ld, 2, MPI_LONG_DOUBLE, ld_bytes, 32, "MPI_LONG_DOUBLE");
  wchar_t w[2] = {L'A', 0x263a};
  expect_bytes(w, 2, MPI_WCHAR, (const unsigned char[]){0, 0x41, 0x26, 0x3a}, 4, "MPI_WCHAR");
  /* A pair type: the double and the int, without the struct's padding. */
  struct { double value; int index; } di = {1.0, 5};
  expect_bytes(&di, 1, MPI_DOUBLE_INT, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5}, 12,
               "MPI_DOUBLE_INT");
}

struct sized {
  MPI_Datatype type;
  const char *name;
  int bytes;
};

static void sizes(void) {
  const struct sized table[] = {
      {MPI_PACKED, "MPI_PACKED", 1},          {MPI_BYTE, "MPI_BYTE", 1},
      {MPI_CHAR, "MPI_CHAR", 1},              {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1},
      {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1}, {MPI_WCHAR, "MPI_WCHAR", 2},
      {MPI_SHORT, "MPI_SHORT", 2},            {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 2},
      {MPI_INT, "MPI_INT", 4},                {MPI_UNSIGNED, "MPI_UNSIGNED", 4},
      {MPI_LONG, "MPI_LONG", 4},              {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 4},
      {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", 8}, {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 8},
      {MPI_FLOAT, "MPI_FLOAT", 4},            {MPI_DOUBLE, "MPI_DOUBLE", 8},
      {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 16}, {MPI_C_BOOL, "MPI_C_BOOL", 1},
      {MPI_INT8_T, "MPI_INT8_T", 1},          {MPI_INT16_T, "MPI_INT16_T", 2},
      {MPI_INT32_T, "MPI_INT32_T", 4},        {MPI_INT64_T, "MPI_INT64_T", 8},
      {MPI_UINT8_T, "MPI_UINT8_T", 1},        {MPI_UINT16_T, "MPI_UINT16_T", 2},
      {MPI_UINT32_T, "MPI_UINT32_T", 4},      {MPI_UINT64_T, "MPI_UINT64_T", 8},
      {MPI_AINT, "MPI_AINT", 8},              {MPI_COUNT, "MPI_COUNT", 8},
      {MPI_OFFSET, "MPI_OFFSET", 8},          {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", 8},
      {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16},
      {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 32},
      {MPI_CXX_BOOL, "MPI_CXX_BOOL", 1},      {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    MPI_Aint size = -1;
    CHECK_MPI(MPI_Pack_external_size(ext32, 3, table[i].type, &size));
    CHECK(size == 3 * table[i].bytes, "MPI_Pack_external_size of 3 %s gave %ld, expected %d", table[i].name,
          (long)size, 3 * table[i].bytes);
  }
  MPI_Aint size = -1;
  CHECK_MPI(MPI_Pack_external_size(ext32, 0, MPI_DOUBLE, &size));
  CHECK(size == 0, "MPI_Pack_external_size of 0 doubles gave %ld", (long)size);
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(5, 2, 7, MPI_LONG, &vec));
  CHECK_MPI(MPI_Pack_external_size(ext32, 2, vec, &size));
  CHECK(size == 2 * 10 * 4, "MPI_Pack_external_size of 2 vectors of 10 longs gave %ld, expected 80", (long)size);
  MPI_Type_free(&vec);
  if (mt_is_ferry()) {
    CHECK_MPI(MPI_Pack_external_size(ext32, 5, MPI_2INT, &size));
    CHECK(size == 5 * 8, "MPI_Pack_external_size of 5 MPI_2INT gave %ld, expected 40", (long)size);
    CHECK_MPI(MPI_Pack_external_size(ext32, 2, MPI_LONG_DOUBLE_INT, &size));
    CHECK(size == 2 * 20, "MPI_Pack_external_size of 2 MPI_LONG_DOUBLE_INT gave %ld, expected 40", (long)size);
    CHECK_MPI(MPI_Pack_external_size(ext32, 4, MPI_SHORT_INT, &size));
    CHECK(size == 4 * 6, "MPI_Pack_external_size of 4 MPI_SHORT_INT gave %ld, expected 24", (long)size);
  }
}

/* Packs `count` elements of `type` from `in`, checks the size, unpacks them
 * into `out` (whose bytes are first set to 0x5a) and returns the bytes packed. */
static MPI_Aint round_trip(const void *in, void *out, size_t out_bytes, int count, MPI_Datatype type,
                           const char *what) {
  MPI_Aint size = -1, pos = 0;
  CHECK_MPI(MPI_Pack_external_size(ext32, count, type, &size));
  unsigned char *packed = mt_malloc((size_t)size + 1);
  CHECK_MPI(MPI_Pack_external(ext32, in, count, type, packed, size, &pos));
  CHECK(pos == size, "%s: packing moved the position to %ld, expected %ld", what, (long)pos, (long)size);
  memset(out, 0x5a, out_bytes);
  pos = 0;
  CHECK_MPI(MPI_Unpack_external(ext32, packed, size, &pos, out, count, type));
  CHECK(pos == size, "%s: unpacking moved the position to %ld, expected %ld", what, (long)pos, (long)size);
  free(packed);
  return size;
}

static void derived_round_trips(void) {
  /* A vector of doubles with gaps: every other pair of a 3 x 7 block. */
  double dv[21], dv_out[21];
  for (int i = 0; i < 21; i++) dv[i] = i * 1.5 - 4;
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(3, 2, 7, MPI_DOUBLE, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  round_trip(dv, dv_out, sizeof dv_out, 1, vec, "vector of doubles");
  for (int i = 0; i < 21; i++) {
    int in_type = i % 7 < 2 && i < 16;
    unsigned char gap[sizeof(double)];
    memset(gap, 0x5a, sizeof gap);
    if (in_type) CHECK(dv_out[i] == dv[i], "vector of doubles: element %d is %g, expected %g", i, dv_out[i], dv[i]);
    else CHECK(memcmp(&dv_out[i], gap, sizeof gap) == 0, "vector of doubles: the gap at %d was written", i);
  }
  MPI_Type_free(&vec);

  /* Indexed longs with gaps, negative values included (4 bytes each on the wire). */
  long li[12], li_out[12];
  for (int i = 0; i < 12; i++) li[i] = (i % 2 ? -1 : 1) * (100000L * i + 7);
  MPI_Datatype idx;
  CHECK_MPI(MPI_Type_indexed(3, (int[]){2, 1, 3}, (int[]){0, 4, 8}, MPI_LONG, &idx));
  CHECK_MPI(MPI_Type_commit(&idx));
  MPI_Aint size = round_trip(li, li_out, sizeof li_out, 1, idx, "indexed longs");
  CHECK(size == 6 * 4, "indexed longs: %ld bytes, expected 24", (long)size);
  const int picked[12] = {1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0};
  for (int i = 0; i < 12; i++) {
    long gap;
    memset(&gap, 0x5a, sizeof gap);
    if (picked[i]) CHECK(li_out[i] == li[i], "indexed longs: element %d is %ld, expected %ld", i, li_out[i], li[i]);
    else CHECK(li_out[i] == gap, "indexed longs: the gap at %d was written", i);
  }
  MPI_Type_free(&idx);

  /* Two elements of a resized hindexed type of shorts: blocks in reverse order. */
  short sh[16], sh_out[16];
  for (int i = 0; i < 16; i++) sh[i] = (short)(i * 1000 - 7000);
  MPI_Datatype hidx, resized;
  CHECK_MPI(MPI_Type_create_hindexed(2, (int[]){2, 1}, (MPI_Aint[]){10, 0}, MPI_SHORT, &hidx));
  CHECK_MPI(MPI_Type_create_resized(hidx, 0, 8 * sizeof(short), &resized));
  CHECK_MPI(MPI_Type_commit(&resized));
  round_trip(sh, sh_out, sizeof sh_out, 2, resized, "resized hindexed shorts");
  for (int e = 0; e < 2; e++)
    for (int k = 0; k < 8; k++) {
      int i = 8 * e + k;
      short gap;
      memset(&gap, 0x5a, sizeof gap);
      int in_type = k == 0 || k == 5 || k == 6;
      if (in_type) CHECK(sh_out[i] == sh[i], "resized hindexed shorts: element %d is %d, expected %d", i, sh_out[i], sh[i]);
      else CHECK(sh_out[i] == gap, "resized hindexed shorts: the gap at %d was written", i);
    }
  MPI_Type_free(&hidx);
  MPI_Type_free(&resized);

  /* More than one conversion batch: every third of 120000 longs (160 KB packed). */
  enum { N = 120000 };
  long *big = mt_malloc(N * sizeof(long)), *big_out = mt_malloc(N * sizeof(long));
  for (long i = 0; i < N; i++) big[i] = (i % 5 == 0 ? -i : i) * 3;
  MPI_Datatype every_third;
  CHECK_MPI(MPI_Type_vector(N / 3, 1, 3, MPI_LONG, &every_third));
  CHECK_MPI(MPI_Type_commit(&every_third));
  round_trip(big, big_out, N * sizeof(long), 1, every_third, "every third long");
  for (long i = 0; i < N; i += 3)
    CHECK(big_out[i] == big[i], "every third long: element %ld is %ld, expected %ld", i, big_out[i], big[i]);
  MPI_Type_free(&every_third);
  free(big);
  free(big_out);
}

struct mixed {
  char c;
  long l;
  double d;
  short s;
  long double ld;
};

/* Mixed basic types in one type map: a struct, and pair types (Ferry only). */
static void mixed_round_trips(void) {
  if (!mt_is_ferry()) return;
  struct mixed in[3], out[3];
  memset(in, 0, sizeof in);
  for (int i = 0; i < 3; i++) {
    in[i].c = (char)('x' + i);
    in[i].l = -123456789L * (i + 1);
    in[i].d = 0.25 * i - 1e10;
    in[i].s = (short)(-300 * i);
    in[i].ld = 1.0L / 3 + i;
  }
  MPI_Datatype st;
  CHECK_MPI(MPI_Type_create_struct(5, (int[]){1, 1, 1, 1, 1},
                                   (MPI_Aint[]){offsetof(struct mixed, c), offsetof(struct mixed, l),
                                                offsetof(struct mixed, d), offsetof(struct mixed, s),
                                                offsetof(struct mixed, ld)},
                                   (MPI_Datatype[]){MPI_CHAR, MPI_LONG, MPI_DOUBLE, MPI_SHORT, MPI_LONG_DOUBLE}, &st));
  CHECK_MPI(MPI_Type_commit(&st));
  MPI_Aint size = round_trip(in, out, sizeof out, 3, st, "struct {char, long, double, short, long double}");
  CHECK(size == 3 * (1 + 4 + 8 + 2 + 16), "the struct packs to %ld bytes, expected %d", (long)size,
        3 * (1 + 4 + 8 + 2 + 16));
  for (int i = 0; i < 3; i++)
    CHECK(out[i].c == in[i].c && out[i].l == in[i].l && out[i].d == in[i].d && out[i].s == in[i].s &&
              out[i].ld == in[i].ld,
          "struct element %d came back different", i);
  /* Its external32 form: char, then the long's low 4 bytes, big-endian. */
  unsigned char packed[128];
  MPI_Aint pos = 0;
  CHECK_MPI(MPI_Pack_external(ext32, in, 1, st, packed, sizeof packed, &pos));
  const unsigned char head[5] = {'x', 0xf8, 0xa4, 0x32, 0xeb}; /* -123456789 = 0xf8a432eb */
  CHECK(memcmp(packed, head, 5) == 0, "the struct's first 5 bytes are %02x %02x %02x %02x %02x", packed[0],
        packed[1], packed[2], packed[3], packed[4]);
  MPI_Type_free(&st);

  struct { float v; int i; } fi[4], fi_out[4];
  for (int i = 0; i < 4; i++) fi[i].v = 0.5f * i, fi[i].i = -i;
  round_trip(fi, fi_out, sizeof fi_out, 4, MPI_FLOAT_INT, "MPI_FLOAT_INT");
  for (int i = 0; i < 4; i++)
    CHECK(fi_out[i].v == fi[i].v && fi_out[i].i == fi[i].i, "MPI_FLOAT_INT element %d came back different", i);
}

/* Several calls append at the position, and unpacking reads them in turn. */
static void positions(void) {
  int ints[3] = {10, -20, 30};
  double d = 6.5;
  unsigned char buf[64];
  MPI_Aint pos = 4;
  CHECK_MPI(MPI_Pack_external(ext32, ints, 3, MPI_INT, buf, sizeof buf, &pos));
  CHECK(pos == 16, "after 3 ints from position 4 the position is %ld", (long)pos);
  CHECK_MPI(MPI_Pack_external(ext32, &d, 1, MPI_DOUBLE, buf, sizeof buf, &pos));
  CHECK(pos == 24, "after a double the position is %ld", (long)pos);
  int ints_out[3] = {0, 0, 0};
  double d_out = 0;
  pos = 4;
  CHECK_MPI(MPI_Unpack_external(ext32, buf, 24, &pos, ints_out, 3, MPI_INT));
  CHECK_MPI(MPI_Unpack_external(ext32, buf, 24, &pos, &d_out, 1, MPI_DOUBLE));
  CHECK(pos == 24, "after unpacking both the position is %ld", (long)pos);
  CHECK(ints_out[0] == 10 && ints_out[1] == -20 && ints_out[2] == 30 && d_out == 6.5,
        "unpacked %d %d %d %g", ints_out[0], ints_out[1], ints_out[2], d_out);
}

/* MPICH 4.0 checks none of these (it packs past the end of a buffer too small). */
static void errors(void) {
  int ints[4] = {1, 2, 3, 4};
  unsigned char buf[64];
  MPI_Aint pos = 0, size = 0;
  if (!mt_is_ferry()) return;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mt_expect_error_saying(MPI_Pack_external("native", ints, 4, MPI_INT, buf, sizeof buf, &pos), MPI_ERR_ARG,
               "MPI_Pack_external", "datarep", "datarep \"native\"");
  CHECK(pos == 0, "a failed MPI_Pack_external moved the position to %ld", (long)pos);
  mt_expect_error_saying(MPI_Unpack_external("internal", buf, sizeof buf, &pos, ints, 4, MPI_INT), MPI_ERR_ARG,
               "MPI_Unpack_external", "datarep", "datarep \"internal\"");
  mt_expect_error_saying(MPI_Pack_external_size("External32", 4, MPI_INT, &size), MPI_ERR_ARG, "MPI_Pack_external_size",
               "datarep", "datarep \"External32\" (names are case-sensitive)");
  mt_expect_error_saying(MPI_Pack_external(NULL, ints, 4, MPI_INT, buf, sizeof buf, &pos), MPI_ERR_ARG, "MPI_Pack_external",
               "datarep", "datarep NULL");
  mt_expect_error_saying(MPI_Pack_external(ext32, ints, 4, MPI_INT, buf, 15, &pos), MPI_ERR_TRUNCATE, "MPI_Pack_external",
               "outbuf", "16 bytes into 15");
  CHECK(pos == 0, "a failed MPI_Pack_external moved the position to %ld", (long)pos);
  CHECK_MPI(MPI_Pack_external(ext32, ints, 4, MPI_INT, buf, sizeof buf, &pos));
  pos = 0;
  mt_expect_error_saying(MPI_Unpack_external(ext32, buf, 12, &pos, ints, 4, MPI_INT), MPI_ERR_TRUNCATE,
               "MPI_Unpack_external", "inbuf", "16 bytes out of 12");
  mt_expect_error_saying(MPI_Pack_external(ext32, ints, -1, MPI_INT, buf, sizeof buf, &pos), MPI_ERR_COUNT,
               "MPI_Pack_external", "incount", "incount -1");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* The representation is the same everywhere: each rank's packed bytes go to
 * the next rank as MPI_BYTE, which unpacks them. */
static void between_ranks(void) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  long send[6], recv[6];
  double dsend[3], drecv[3];
  for (int i = 0; i < 6; i++) send[i] = (long)rank * 1000 - i;
  for (int i = 0; i < 3; i++) dsend[i] = rank + i / 4.0;
  unsigned char out[64], in[64];
  MPI_Aint pos = 0;
  CHECK_MPI(MPI_Pack_external(ext32, send, 6, MPI_LONG, out, sizeof out, &pos));
  CHECK_MPI(MPI_Pack_external(ext32, dsend, 3, MPI_DOUBLE, out, sizeof out, &pos));
  CHECK(pos == 6 * 4 + 3 * 8, "6 longs and 3 doubles packed to %ld bytes", (long)pos);
  MPI_Sendrecv(out, (int)pos, MPI_BYTE, right, 5, in, sizeof in, MPI_BYTE, left, 5, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Aint at = 0;
  CHECK_MPI(MPI_Unpack_external(ext32, in, pos, &at, recv, 6, MPI_LONG));
  CHECK_MPI(MPI_Unpack_external(ext32, in, pos, &at, drecv, 3, MPI_DOUBLE));
  for (int i = 0; i < 6; i++)
    CHECK(recv[i] == (long)left * 1000 - i, "long %d from rank %d is %ld", i, left, recv[i]);
  for (int i = 0; i < 3; i++)
    CHECK(drecv[i] == left + i / 4.0, "double %d from rank %d is %g", i, left, drecv[i]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  exact_bytes();
  sizes();
  derived_round_trips();
  mixed_round_trips();
  positions();
  errors();
  between_ranks();
  mt_pass();
  MPI_Finalize();
  return 0;
}
