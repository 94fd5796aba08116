#include "base/external32.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cstring>
#include <memory>
#include <vector>

#include "base/type_pack.h"
#include "base/type_signature.h"

namespace ferry::type::external32 {
namespace {

// IEEE binary128, external32's MPI_LONG_DOUBLE (MPI-3.1 §13.5.2). On x86-64
// a long double is the x87 80-bit format, which GCC converts to and from
// __float128 exactly (every x87 value fits in binary128).
#if LDBL_MANT_DIG == 113
using Binary128 = long double;
#elif defined(__SIZEOF_FLOAT128__)
using Binary128 = __float128;
#else
#error "external32 needs an IEEE binary128 type for MPI_LONG_DOUBLE"
#endif

// The bytes of a long double that hold its value.
constexpr size_t kLongDoubleBytes = LDBL_MANT_DIG == 64 ? 10 : sizeof(long double);

// kFloat numbers are swapped like integers of their size; a long double is
// converted to binary128.
enum class Kind : uint8_t { kSigned, kUnsigned, kFloat, kLongDouble };

// How a basic type is stored: `parts` numbers (2 for complex types) of
// `native` bytes each on this host and `external` bytes each in external32.
struct Form {
  uint8_t parts = 0;  // 0: not a basic type
  uint8_t native = 0;
  uint8_t external = 0;
  Kind kind = Kind::kUnsigned;
};

template <typename T>
constexpr Form integer(uint8_t external) {
  return Form{1, sizeof(T), external, static_cast<T>(-1) < 0 ? Kind::kSigned : Kind::kUnsigned};
}
template <typename T>
constexpr Form real(uint8_t parts = 1) {
  return Form{parts, sizeof(T), sizeof(T), Kind::kFloat};
}
constexpr Form long_double(uint8_t parts = 1) { return Form{parts, sizeof(long double), 16, Kind::kLongDouble}; }

// The sizes of MPI-3.1's table in §13.5.2 (MPICH's too).
Form form_of(MPI_Datatype basic) {
  switch (basic) {
    case MPI_PACKED:
    case MPI_BYTE:
    case MPI_CHAR:
    case MPI_UNSIGNED_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_C_BOOL:
    case MPI_CXX_BOOL:
    case MPI_INT8_T:
    case MPI_UINT8_T:
    case MPI_CHARACTER:
    case MPI_INTEGER1:
      return integer<uint8_t>(1);
    case MPI_WCHAR:
      return Form{1, sizeof(wchar_t), 2, Kind::kUnsigned};
    case MPI_SHORT:
    case MPI_INT16_T:
    case MPI_INTEGER2:
      return integer<int16_t>(2);
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T:
      return integer<uint16_t>(2);
    case MPI_INT:
    case MPI_INT32_T:
    case MPI_LOGICAL:
    case MPI_INTEGER:
    case MPI_INTEGER4:
      return integer<int32_t>(4);
    case MPI_UNSIGNED:
    case MPI_UINT32_T:
      return integer<uint32_t>(4);
    case MPI_LONG:
      return integer<long>(4);
    case MPI_UNSIGNED_LONG:
      return integer<unsigned long>(4);
    case MPI_LONG_LONG_INT:
    case MPI_INT64_T:
    case MPI_INTEGER8:
      return integer<int64_t>(8);
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
      return integer<uint64_t>(8);
    case MPI_AINT:
      return integer<MPI_Aint>(8);
    case MPI_OFFSET:
      return integer<MPI_Offset>(8);
    case MPI_COUNT:
      return integer<MPI_Count>(8);
    case MPI_FLOAT:
    case MPI_REAL:
    case MPI_REAL4:
      return real<float>();
    case MPI_DOUBLE:
    case MPI_DOUBLE_PRECISION:
    case MPI_REAL8:
      return real<double>();
    case MPI_LONG_DOUBLE:
      return long_double();
    // Fortran's REAL*16 is binary128 already (gfortran's, and MPICH swaps it so).
    case MPI_REAL16:
      return Form{1, 16, 16, Kind::kFloat};
    case MPI_COMPLEX32:
      return Form{2, 16, 16, Kind::kFloat};
    case MPI_C_FLOAT_COMPLEX:
    case MPI_CXX_FLOAT_COMPLEX:
    case MPI_COMPLEX:
    case MPI_COMPLEX8:
      return real<float>(2);
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX16:
      return real<double>(2);
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX:
      return long_double(2);
    default:
      return Form{};
  }
}

// Bytes in big-endian order, from and to the host's.
void to_big_endian(const unsigned char* in, size_t n, unsigned char* out) {
  if constexpr (std::endian::native == std::endian::big) {
    std::memcpy(out, in, n);
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = in[n - 1 - i];
  }
}

// Same-size numbers: one byte swap each (a plain copy on a big-endian host).
template <typename U>
void swap_all(uint64_t n, const unsigned char* in, unsigned char* out) {
  for (uint64_t i = 0; i < n; ++i, in += sizeof(U), out += sizeof(U)) {
    U v;
    std::memcpy(&v, in, sizeof v);
    if constexpr (std::endian::native == std::endian::little) {
      if constexpr (sizeof(U) == 2) v = __builtin_bswap16(v);
      if constexpr (sizeof(U) == 4) v = __builtin_bswap32(v);
      if constexpr (sizeof(U) == 8) v = __builtin_bswap64(v);
    }
    std::memcpy(out, &v, sizeof v);
  }
}

void swap_numbers(size_t size, uint64_t n, const unsigned char* in, unsigned char* out) {
  switch (size) {
    case 1: std::memcpy(out, in, n); return;
    case 2: swap_all<uint16_t>(n, in, out); return;
    case 4: swap_all<uint32_t>(n, in, out); return;
    case 8: swap_all<uint64_t>(n, in, out); return;
    default:
      for (uint64_t i = 0; i < n; ++i, in += size, out += size) to_big_endian(in, size, out);
  }
}

uint64_t load_native(const unsigned char* p, size_t size) {
  switch (size) {
    case 1: return *p;
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

void store_native(uint64_t v, size_t size, unsigned char* p) {
  switch (size) {
    case 1: *p = static_cast<unsigned char>(v); return;
    case 2: { auto w = static_cast<uint16_t>(v); std::memcpy(p, &w, 2); return; }
    case 4: { auto w = static_cast<uint32_t>(v); std::memcpy(p, &w, 4); return; }
    default: std::memcpy(p, &v, 8);
  }
}

// Integers of another size in external32 (long, unsigned long, wchar_t):
// the low bytes going out; sign or zero extension coming back.
void narrow_integers(const Form& f, uint64_t n, const unsigned char* in, unsigned char* out) {
  for (uint64_t i = 0; i < n; ++i, in += f.native, out += f.external) {
    uint64_t v = load_native(in, f.native);
    for (size_t b = 0; b < f.external; ++b) out[b] = static_cast<unsigned char>(v >> (8 * (f.external - 1 - b)));
  }
}

void widen_integers(const Form& f, uint64_t n, const unsigned char* in, unsigned char* out) {
  for (uint64_t i = 0; i < n; ++i, in += f.external, out += f.native) {
    uint64_t v = 0;
    for (size_t b = 0; b < f.external; ++b) v = (v << 8) | in[b];
    unsigned bits = 8 * f.external;
    if (f.kind == Kind::kSigned && bits < 64 && (v >> (bits - 1)) != 0) v |= ~uint64_t{0} << bits;
    store_native(v, f.native, out);
  }
}

void encode_long_doubles(uint64_t n, const unsigned char* in, unsigned char* out) {
  for (uint64_t i = 0; i < n; ++i, in += sizeof(long double), out += 16) {
    long double x;
    std::memcpy(&x, in, sizeof x);
    Binary128 q = static_cast<Binary128>(x);
    unsigned char bytes[16];
    std::memcpy(bytes, &q, 16);
    to_big_endian(bytes, 16, out);
  }
}

void decode_long_doubles(uint64_t n, const unsigned char* in, unsigned char* out) {
  for (uint64_t i = 0; i < n; ++i, in += 16, out += sizeof(long double)) {
    unsigned char bytes[16];
    to_big_endian(in, 16, bytes);  // the same reversal, either way
    Binary128 q;
    std::memcpy(&q, bytes, 16);
    long double x = static_cast<long double>(q);
    // The x87 format fills 10 of the 16 bytes; the padding is written as
    // zeros, not as whatever the stack held.
    std::memcpy(out, &x, kLongDoubleBytes);
    std::memset(out + kLongDoubleBytes, 0, sizeof x - kLongDoubleBytes);
  }
}

// --- Whole datatypes ------------------------------------------------------------

uint64_t external_bytes(const Signature& s) {
  if (s.count == 0) return 0;
  if (s.parts.empty()) return s.count * basic_size(s.basic);
  uint64_t body = 0;
  for (const Signature& p : s.parts) body += external_bytes(p);
  return s.count * body;
}

// Calls f(basic, native size, n) for each run of basic elements of `times`
// repetitions of `s`, in type-map order.
template <typename F>
void each_run(const Signature& s, uint64_t times, F& f) {
  if (s.count == 0) return;
  if (s.parts.empty()) {
    f(s.basic, s.basic_size, s.count * times);
    return;
  }
  for (uint64_t i = 0, n = s.count * times; i < n; ++i)
    for (const Signature& p : s.parts) each_run(p, 1, f);
}

struct Run {
  MPI_Datatype basic;
  uint64_t n;
};

// Cuts the basic elements of a type map into batches of whole elements of at
// most kBatch native bytes, and hands each batch to `convert` with its runs
// and its native byte count, in order. Packing converts a
// batch at a time through a bounded buffer, whatever the message size.
constexpr uint64_t kBatch = 64 * 1024;

template <typename Convert>
class Batcher {
 public:
  explicit Batcher(Convert& convert) : convert_(convert) {}

  void operator()(MPI_Datatype basic, uint64_t size, uint64_t n) {
    while (n > 0) {
      uint64_t k = std::min(n, (kBatch - native_) / size);
      if (k == 0) {
        flush();
        continue;
      }
      if (!runs_.empty() && runs_.back().basic == basic) runs_.back().n += k;
      else runs_.push_back(Run{basic, k});
      native_ += k * size;
      n -= k;
    }
  }

  void flush() {
    if (runs_.empty()) return;
    convert_(runs_, native_);
    runs_.clear();
    native_ = 0;
  }

 private:
  Convert& convert_;
  std::vector<Run> runs_;
  uint64_t native_ = 0;
};

uint64_t native_size(MPI_Datatype basic) {
  Form f = form_of(basic);
  return uint64_t{f.parts} * f.native;
}

}  // namespace

size_t basic_size(MPI_Datatype basic) {
  Form f = form_of(basic);
  return size_t{f.parts} * f.external;
}

void encode(MPI_Datatype basic, uint64_t n, const void* native, void* external) {
  Form f = form_of(basic);
  auto in = static_cast<const unsigned char*>(native);
  auto out = static_cast<unsigned char*>(external);
  uint64_t parts = n * f.parts;
  if (f.kind == Kind::kLongDouble) encode_long_doubles(parts, in, out);
  else if (f.native == f.external) swap_numbers(f.native, parts, in, out);
  else narrow_integers(f, parts, in, out);
}

void decode(MPI_Datatype basic, uint64_t n, const void* external, void* native) {
  Form f = form_of(basic);
  auto in = static_cast<const unsigned char*>(external);
  auto out = static_cast<unsigned char*>(native);
  uint64_t parts = n * f.parts;
  if (f.kind == Kind::kLongDouble) decode_long_doubles(parts, in, out);
  else if (f.native == f.external) swap_numbers(f.native, parts, in, out);
  else widen_integers(f, parts, in, out);
}

uint64_t packed_bytes(const Datatype& t, uint64_t count) { return count * external_bytes(*t.signature); }

void pack(const Datatype& t, const void* buf, uint64_t count, void* out) {
  std::unique_ptr<unsigned char[]> native(new unsigned char[std::min<uint64_t>(kBatch, t.size * count) + 1]);
  uint64_t native_at = 0;
  auto* external = static_cast<unsigned char*>(out);
  auto convert = [&](const std::vector<Run>& runs, uint64_t native_bytes) {
    type::pack(t, buf, count, native_at, native_bytes, native.get());
    const unsigned char* in = native.get();
    for (const Run& r : runs) {
      encode(r.basic, r.n, in, external);
      in += r.n * native_size(r.basic);
      external += r.n * basic_size(r.basic);
    }
    native_at += native_bytes;
  };
  Batcher<decltype(convert)> batcher(convert);
  each_run(*t.signature, count, batcher);
  batcher.flush();
}

void unpack(const Datatype& t, void* buf, uint64_t count, const void* in) {
  std::unique_ptr<unsigned char[]> native(new unsigned char[std::min<uint64_t>(kBatch, t.size * count) + 1]);
  uint64_t native_at = 0;
  auto* external = static_cast<const unsigned char*>(in);
  auto convert = [&](const std::vector<Run>& runs, uint64_t native_bytes) {
    unsigned char* out = native.get();
    for (const Run& r : runs) {
      decode(r.basic, r.n, external, out);
      out += r.n * native_size(r.basic);
      external += r.n * basic_size(r.basic);
    }
    type::unpack(t, buf, count, native_at, native_bytes, native.get());
    native_at += native_bytes;
  };
  Batcher<decltype(convert)> batcher(convert);
  each_run(*t.signature, count, batcher);
  batcher.flush();
}

}  // namespace ferry::type::external32
