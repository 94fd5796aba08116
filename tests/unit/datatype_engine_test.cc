// The datatype engine (core/type_*.h) against a reference model: random
// nested datatypes (vector, hvector, indexed, hindexed, indexed_block,
// struct, subarray, darray, resized, contiguous over the predefined types,
// pair types included) are built twice, once by the engine and once as an
// explicit type map, the slow obvious way: every basic element with its
// displacement, bounds by MPI-3.1 §4.1's definitions. Then size, bounds,
// true bounds, packing (whole and in random chunks), unpacking,
// MPI_Get_elements counts and copy_typed between different type maps of
// the same signature must agree with the model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "base/datatype.h"
#include "base/external32.h"
#include "base/handles.h"
#include "base/type_builder.h"
#include "base/type_constructors.h"
#include "base/type_layout.h"
#include "base/type_pack.h"
#include "mpi.h"

namespace ferry {
namespace {

// --- The reference model: a type map, written out --------------------------------

struct Entry {
  MPI_Aint disp;
  size_t size;
  MPI_Datatype basic;
};

struct Ref {
  std::vector<Entry> map;  // type-map order
  bool has = false;        // any entries (or resized bounds) at all
  MPI_Aint lb = 0, ub = 0;
  size_t align = 1;
  MPI_Aint extent() const { return ub - lb; }
  size_t size() const {
    size_t s = 0;
    for (const Entry& e : map) s += e.size;
    return s;
  }
};

Ref ref_basic(MPI_Datatype h) {
  const Datatype* t = find_datatype(h);
  Ref r;
  r.has = true;
  r.lb = 0;
  r.ub = t->extent;
  r.align = t->alignment;
  if (h == MPI_2INT) r.map = {{0, 4, MPI_INT}, {4, 4, MPI_INT}};
  else if (h == MPI_DOUBLE_INT) r.map = {{0, 8, MPI_DOUBLE}, {8, 4, MPI_INT}};
  else if (h == MPI_SHORT_INT) r.map = {{0, 2, MPI_SHORT}, {4, 4, MPI_INT}};
  else if (h == MPI_LONG_DOUBLE_INT) r.map = {{0, 16, MPI_LONG_DOUBLE}, {16, 4, MPI_INT}};
  else r.map = {{0, t->size, h}};
  return r;
}

// Copies of `r` at the given displacements, in order; bounds span them all.
Ref ref_union(const std::vector<std::pair<const Ref*, MPI_Aint>>& copies) {
  Ref out;
  for (const auto& [r, disp] : copies) {
    if (!r->has) continue;
    for (const Entry& e : r->map) out.map.push_back({e.disp + disp, e.size, e.basic});
    if (!out.has) {
      out.lb = r->lb + disp;
      out.ub = r->ub + disp;
      out.has = true;
    }
    out.lb = std::min(out.lb, r->lb + disp);
    out.ub = std::max(out.ub, r->ub + disp);
    out.align = std::max(out.align, r->align);
  }
  return out;
}

MPI_Aint true_lb(const Ref& r) {
  MPI_Aint v = r.map.empty() ? 0 : r.map[0].disp;
  for (const Entry& e : r.map) v = std::min(v, e.disp);
  return v;
}
MPI_Aint true_ub(const Ref& r) {
  MPI_Aint v = r.map.empty() ? 0 : r.map[0].disp + static_cast<MPI_Aint>(r.map[0].size);
  for (const Entry& e : r.map) v = std::max(v, e.disp + static_cast<MPI_Aint>(e.size));
  return v;
}

// --- Both at once: a type built by the engine and by the model -------------------------

struct Both {
  const Datatype* type = nullptr;
  Ref ref;
  std::string how;  // the constructor nest, for failure messages
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}
  ~Generator() {
    for (const Datatype* t : made_) datatypes::release(t);
  }

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  Both basic() {
    static const MPI_Datatype kBasics[] = {MPI_CHAR,       MPI_SHORT,     MPI_INT,       MPI_DOUBLE,
                                           MPI_DOUBLE_INT, MPI_SHORT_INT, MPI_2INT,      MPI_LONG_DOUBLE_INT,
                                           MPI_FLOAT,      MPI_BYTE,      MPI_INT64_T,   MPI_LONG,
                                           MPI_WCHAR};
    MPI_Datatype h = kBasics[pick(0, static_cast<int>(std::size(kBasics)) - 1)];
    return Both{find_datatype(h), ref_basic(h), find_datatype(h)->name};
  }

  // A random type nest of at most `depth` constructors.
  Both any(int depth) {
    if (depth == 0 || pick(0, 4) == 0) return basic();
    Both old = any(depth - 1);
    MPI_Aint ext = old.ref.extent();
    switch (pick(0, 9)) {
      case 0: {
        int n = pick(0, 4);
        std::vector<std::pair<const Ref*, MPI_Aint>> copies;
        for (int i = 0; i < n; ++i) copies.push_back({&old.ref, i * ext});
        return make(datatypes::contiguous(n, *old.type, &out_), ref_union(copies),
                    "contiguous(" + std::to_string(n) + ", " + old.how + ")");
      }
      case 1: {
        int count = pick(0, 4), bl = pick(0, 3), stride = pick(-4, 6);
        std::vector<std::pair<const Ref*, MPI_Aint>> copies;
        for (int i = 0; i < count; ++i)
          for (int j = 0; j < bl; ++j) copies.push_back({&old.ref, (i * stride + j) * ext});
        return make(datatypes::vector(count, bl, stride, *old.type, &out_), ref_union(copies),
                    "vector(" + std::to_string(count) + "," + std::to_string(bl) + "," + std::to_string(stride) +
                        ", " + old.how + ")");
      }
      case 2: {
        int count = pick(0, 4), bl = pick(0, 3);
        MPI_Aint stride = pick(-40, 80);
        std::vector<std::pair<const Ref*, MPI_Aint>> copies;
        for (int i = 0; i < count; ++i)
          for (int j = 0; j < bl; ++j) copies.push_back({&old.ref, i * stride + j * ext});
        return make(datatypes::hvector(count, bl, stride, *old.type, &out_), ref_union(copies),
                    "hvector(" + std::to_string(count) + "," + std::to_string(bl) + "," + std::to_string(stride) +
                        ", " + old.how + ")");
      }
      case 3: {
        int count = pick(0, 4);
        std::vector<int> bls, disps;
        std::vector<std::pair<const Ref*, MPI_Aint>> copies;
        for (int i = 0; i < count; ++i) {
          bls.push_back(pick(0, 3));
          disps.push_back(pick(-5, 10));
          for (int j = 0; j < bls.back(); ++j) copies.push_back({&old.ref, (disps.back() + j) * ext});
        }
        return make(datatypes::indexed(count, bls.data(), disps.data(), *old.type, &out_), ref_union(copies),
                    "indexed(" + std::to_string(count) + ", " + old.how + ")");
      }
      case 4: {
        int count = pick(0, 4);
        std::vector<int> bls;
        std::vector<MPI_Aint> disps;
        std::vector<std::pair<const Ref*, MPI_Aint>> copies;
        for (int i = 0; i < count; ++i) {
          bls.push_back(pick(0, 3));
          disps.push_back(pick(-50, 100));
          for (int j = 0; j < bls.back(); ++j) copies.push_back({&old.ref, disps.back() + j * ext});
        }
        return make(datatypes::hindexed(count, bls.data(), disps.data(), *old.type, &out_), ref_union(copies),
                    "hindexed(" + std::to_string(count) + ", " + old.how + ")");
      }
      case 5: {
        int count = pick(0, 5), bl = pick(0, 2);
        std::vector<int> disps;
        std::vector<std::pair<const Ref*, MPI_Aint>> copies;
        int at = pick(0, 2);
        for (int i = 0; i < count; ++i) {
          disps.push_back(at);
          at += pick(0, 1) ? bl : pick(1, 4);  // often regular: the engine folds those into loops
          for (int j = 0; j < bl; ++j) copies.push_back({&old.ref, (disps.back() + j) * ext});
        }
        return make(datatypes::indexed_block(count, bl, disps.data(), *old.type, &out_), ref_union(copies),
                    "indexed_block(" + std::to_string(count) + "," + std::to_string(bl) + ", " + old.how + ")");
      }
      case 6: {
        // A struct of the old type and up to two more.
        int count = pick(1, 3);
        std::vector<Both> parts{old};
        while (static_cast<int>(parts.size()) < count) parts.push_back(any(depth - 1));
        std::vector<int> bls;
        std::vector<MPI_Aint> disps;
        std::vector<const Datatype*> types;
        std::vector<std::pair<const Ref*, MPI_Aint>> copies;
        MPI_Aint at = 0;
        for (const Both& p : parts) {
          bls.push_back(pick(0, 2));
          disps.push_back(at);
          types.push_back(p.type);
          for (int j = 0; j < bls.back(); ++j) copies.push_back({&p.ref, at + j * p.ref.extent()});
          at += pick(-8, 40);
        }
        Ref r = ref_union(copies);
        // MPI-3.1 §4.1.6: the extent is padded to the most aligned part.
        MPI_Aint align = static_cast<MPI_Aint>(r.align);
        if (r.has && r.extent() > 0 && r.extent() % align != 0) r.ub += align - r.extent() % align;
        std::string how = "struct(";
        for (const Both& p : parts) how += p.how + ";";
        return make(datatypes::structure(count, bls.data(), disps.data(), types.data(), &out_), r, how + ")");
      }
      case 7: {
        MPI_Aint lb = pick(-16, 16), extent = pick(0, 64);
        Ref r = old.ref;
        r.has = true;
        r.lb = lb;
        r.ub = lb + extent;
        return make(datatypes::resized(*old.type, lb, extent, &out_), r,
                    "resized(" + std::to_string(lb) + "," + std::to_string(extent) + ", " + old.how + ")");
      }
      case 8:
        return subarray(old);
      default:
        return darray(old);
    }
  }

  Both subarray(const Both& old) {
    int ndims = pick(1, 3);
    int order = pick(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    std::vector<int> sizes, subsizes, starts;
    for (int d = 0; d < ndims; ++d) {
      sizes.push_back(pick(1, 5));
      subsizes.push_back(pick(0, sizes.back()));
      starts.push_back(pick(0, sizes.back() - subsizes.back()));
    }
    // Element strides in memory order, then every index tuple in memory order.
    std::vector<MPI_Aint> stride(static_cast<size_t>(ndims));
    MPI_Aint s = 1;
    for (int k = ndims; k-- > 0;) {
      int d = order == MPI_ORDER_C ? k : ndims - 1 - k;
      stride[static_cast<size_t>(d)] = s;
      s *= sizes[d];
    }
    std::vector<std::vector<int>> indices(static_cast<size_t>(ndims));
    for (int d = 0; d < ndims; ++d)
      for (int i = 0; i < subsizes[d]; ++i) indices[static_cast<size_t>(d)].push_back(starts[d] + i);
    Ref r = nested(old.ref, ndims, order, indices, stride, s);
    return make(datatypes::subarray(ndims, sizes.data(), subsizes.data(), starts.data(), order, *old.type, &out_), r,
                "subarray(" + std::to_string(ndims) + "d, " + old.how + ")");
  }

  Both darray(const Both& old) {
    int ndims = pick(1, 3);
    int order = pick(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    std::vector<int> gsizes, distribs, dargs, psizes;
    int size = 1;
    for (int d = 0; d < ndims; ++d) {
      gsizes.push_back(pick(1, 9));
      int kind = pick(0, 2);
      psizes.push_back(kind == 0 ? 1 : pick(1, 3));
      distribs.push_back(kind == 0 ? MPI_DISTRIBUTE_NONE : kind == 1 ? MPI_DISTRIBUTE_BLOCK : MPI_DISTRIBUTE_CYCLIC);
      int p = psizes.back();
      int min_block = (gsizes.back() + p - 1) / p;
      dargs.push_back(kind == 0 || pick(0, 1) ? MPI_DISTRIBUTE_DFLT_DARG
                                             : kind == 1 ? pick(min_block, min_block + 2) : pick(1, 3));
      size *= p;
    }
    int rank = pick(0, size - 1);
    // This rank's coordinates (row-major process grid) and owned indices.
    std::vector<int> coord(static_cast<size_t>(ndims));
    for (int d = ndims, rest = rank; d-- > 0;) {
      coord[static_cast<size_t>(d)] = rest % psizes[d];
      rest /= psizes[d];
    }
    std::vector<std::vector<int>> indices(static_cast<size_t>(ndims));
    for (int d = 0; d < ndims; ++d) {
      int p = psizes[d], c = coord[static_cast<size_t>(d)];
      for (int g = 0; g < gsizes[d]; ++g) {
        bool mine = true;
        if (distribs[d] == MPI_DISTRIBUTE_BLOCK) {
          int b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? (gsizes[d] + p - 1) / p : dargs[d];
          mine = g / b == c;
        } else if (distribs[d] == MPI_DISTRIBUTE_CYCLIC) {
          int b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d];
          mine = (g / b) % p == c;
        }
        if (mine) indices[static_cast<size_t>(d)].push_back(g);
      }
    }
    std::vector<MPI_Aint> stride(static_cast<size_t>(ndims));
    MPI_Aint s = 1;
    for (int k = ndims; k-- > 0;) {
      int d = order == MPI_ORDER_C ? k : ndims - 1 - k;
      stride[static_cast<size_t>(d)] = s;
      s *= gsizes[d];
    }
    Ref r = nested(old.ref, ndims, order, indices, stride, s);
    EXPECT_EQ(datatypes::darray_problem(size, rank, ndims, gsizes.data(), distribs.data(), dargs.data(),
                                        psizes.data()),
              "");
    return make(datatypes::darray(size, rank, ndims, gsizes.data(), distribs.data(), dargs.data(), psizes.data(),
                                  order, *old.type, &out_),
                r, "darray(" + std::to_string(ndims) + "d, " + old.how + ")");
  }

 private:
  // Every index tuple in memory order (slowest dimension outermost), each an
  // element of `old` at its place in the array; resized to the whole array.
  Ref nested(const Ref& old, int ndims, int order, const std::vector<std::vector<int>>& indices,
             const std::vector<MPI_Aint>& stride, MPI_Aint elements) {
    std::vector<std::pair<const Ref*, MPI_Aint>> copies;
    std::vector<int> memory_order;
    for (int k = 0; k < ndims; ++k) memory_order.push_back(order == MPI_ORDER_C ? k : ndims - 1 - k);
    std::function<void(int, MPI_Aint)> walk = [&](int k, MPI_Aint at) {
      if (k == ndims) {
        copies.push_back({&old, at * old.extent()});
        return;
      }
      int d = memory_order[static_cast<size_t>(k)];
      for (int i : indices[static_cast<size_t>(d)]) walk(k + 1, at + i * stride[static_cast<size_t>(d)]);
    };
    walk(0, 0);
    Ref r = ref_union(copies);
    r.has = true;
    r.lb = 0;
    r.ub = elements * old.extent();
    return r;
  }

  Both make(Err e, Ref r, std::string how) {
    EXPECT_TRUE(e.ok()) << e.message();
    // A type with an empty type map still has bounds, 0 and 0, and they
    // count where it is used in another type (as in MPICH).
    if (!r.has) {
      r.has = true;
      r.lb = r.ub = 0;
    }
    made_.push_back(out_);
    return Both{out_, std::move(r), std::move(how)};
  }

  std::mt19937 rng_;
  const Datatype* out_ = nullptr;
  std::vector<const Datatype*> made_;
};

// --- Buffers for `count` elements, wherever their bytes lie ------------------------------

struct Buffer {
  std::vector<unsigned char> bytes;
  MPI_Aint origin = 0;  // index of the address the user would pass
  char* user() { return reinterpret_cast<char*>(bytes.data()) + origin; }
};

Buffer buffer_for(const Ref& r, int count, std::mt19937& rng) {
  MPI_Aint low = 0, high = 0;
  for (int i = 0; i < count; ++i)
    for (const Entry& e : r.map) {
      low = std::min(low, e.disp + i * r.extent());
      high = std::max(high, e.disp + i * r.extent() + static_cast<MPI_Aint>(e.size));
    }
  Buffer b;
  b.bytes.resize(static_cast<size_t>(high - low) + 16);
  for (unsigned char& c : b.bytes) c = static_cast<unsigned char>(rng());
  b.origin = 8 - low;
  return b;
}

std::vector<unsigned char> ref_pack(const Ref& r, int count, const char* user) {
  std::vector<unsigned char> out;
  for (int i = 0; i < count; ++i)
    for (const Entry& e : r.map) {
      const char* p = user + e.disp + i * r.extent();
      out.insert(out.end(), p, p + e.size);
    }
  return out;
}

void ref_unpack(const Ref& r, int count, char* user, const unsigned char* in) {
  for (int i = 0; i < count; ++i)
    for (const Entry& e : r.map) {
      std::memcpy(user + e.disp + i * r.extent(), in, e.size);
      in += e.size;
    }
}

// external32 (base/external32.h): each basic element converted on its own,
// in type-map order.
std::vector<unsigned char> ref_external32(const Ref& r, int count, const char* user) {
  std::vector<unsigned char> out;
  for (int i = 0; i < count; ++i)
    for (const Entry& e : r.map) {
      unsigned char one[32];
      size_t n = type::external32::basic_size(e.basic);
      type::external32::encode(e.basic, 1, user + e.disp + i * r.extent(), one);
      out.insert(out.end(), one, one + n);
    }
  return out;
}

void ref_unpack_external32(const Ref& r, int count, char* user, const unsigned char* in) {
  for (int i = 0; i < count; ++i)
    for (const Entry& e : r.map) {
      type::external32::decode(e.basic, 1, in, user + e.disp + i * r.extent());
      in += type::external32::basic_size(e.basic);
    }
}

uint64_t ref_elements(const Ref& r, uint64_t bytes, int count) {
  uint64_t n = 0;
  for (int i = 0; i < count; ++i)
    for (const Entry& e : r.map) {
      if (bytes < e.size) return n;
      bytes -= e.size;
      ++n;
    }
  return n;
}

// Where bytes [from, from + len) of the packed form lie, for elements from
// `base`: each entry's part of the range, touching pieces merged.
std::vector<std::pair<uint64_t, uint64_t>> ref_runs(const Ref& r, int count, uint64_t base, uint64_t from,
                                                    uint64_t len) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  uint64_t packed = 0;
  for (int i = 0; i < count; ++i)
    for (const Entry& e : r.map) {
      uint64_t lo = std::max(packed, from), hi = std::min(packed + e.size, from + len);
      if (lo < hi) {
        uint64_t at = base + static_cast<uint64_t>(e.disp + i * r.extent()) + (lo - packed);
        if (!out.empty() && out.back().first + out.back().second == at) out.back().second += hi - lo;
        else out.emplace_back(at, hi - lo);
      }
      packed += e.size;
    }
  return out;
}

struct RunList final : type::RunVisitor {
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  void run(uint64_t address, uint64_t bytes) override { runs.emplace_back(address, bytes); }
};

// --- The properties --------------------------------------------------------------------

TEST(DatatypeEngine, RandomTypesMatchTheReferenceTypeMap) {
  std::mt19937 rng(2024);
  int nonempty = 0;
  for (int round = 0; round < 1000; ++round) {
    Generator g(static_cast<uint32_t>(round) * 7919u + 1);
    Both b = g.any(3);
    const Datatype& t = *b.type;
    const Ref& r = b.ref;
    SCOPED_TRACE("round " + std::to_string(round) + ": " + b.how);
    ASSERT_EQ(t.size, r.size());
    ASSERT_EQ(t.lb, r.has ? r.lb : 0);
    ASSERT_EQ(t.extent, r.has ? r.extent() : 0);
    if (!r.map.empty()) {
      ASSERT_EQ(t.true_lb, true_lb(r));
      ASSERT_EQ(t.true_extent, true_ub(r) - true_lb(r));
      ++nonempty;
    }
    ASSERT_EQ(t.signature->elements(), r.map.size());

    int count = g.pick(1, 3);
    Buffer in = buffer_for(r, count, rng);
    std::vector<unsigned char> want = ref_pack(r, count, in.user());
    uint64_t bytes = type::packed_bytes(t, static_cast<uint64_t>(count));
    ASSERT_EQ(bytes, want.size());

    // Packing: whole, then in random chunks that cut anywhere.
    std::vector<unsigned char> got(bytes + 1, 0xEE);
    type::pack(t, in.user(), static_cast<uint64_t>(count), 0, bytes, got.data());
    ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << "whole pack";
    EXPECT_EQ(got[bytes], 0xEE) << "pack wrote past the end";
    std::fill(got.begin(), got.end(), 0);
    for (uint64_t at = 0; at < bytes;) {
      uint64_t n = std::min<uint64_t>(bytes - at, static_cast<uint64_t>(g.pick(1, 13)));
      type::pack(t, in.user(), static_cast<uint64_t>(count), at, n, got.data() + at);
      at += n;
    }
    ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << "chunked pack";

    // Unpacking into a buffer with other bytes around: only the type map's
    // bytes change, as the reference writes them (in type-map order).
    std::vector<unsigned char> packed(bytes);
    for (unsigned char& c : packed) c = static_cast<unsigned char>(rng());
    Buffer expect = in;
    Buffer actual = in;
    ref_unpack(r, count, expect.user(), packed.data());
    for (uint64_t at = 0; at < bytes;) {
      uint64_t n = std::min<uint64_t>(bytes - at, static_cast<uint64_t>(g.pick(1, 29)));
      type::unpack(t, actual.user(), static_cast<uint64_t>(count), at, n, packed.data() + at);
      at += n;
    }
    ASSERT_EQ(actual.bytes, expect.bytes) << "unpack";

    // external32: the engine's walk converts the same elements in the same order.
    std::vector<unsigned char> ext_want = ref_external32(r, count, in.user());
    ASSERT_EQ(type::external32::packed_bytes(t, static_cast<uint64_t>(count)), ext_want.size());
    std::vector<unsigned char> ext(ext_want.size() + 1, 0xEE);
    type::external32::pack(t, in.user(), static_cast<uint64_t>(count), ext.data());
    ASSERT_TRUE(std::equal(ext_want.begin(), ext_want.end(), ext.begin())) << "external32 pack";
    EXPECT_EQ(ext.back(), 0xEE) << "external32 pack wrote past the end";
    for (unsigned char& c : ext) c = static_cast<unsigned char>(rng());
    Buffer ext_expect = in;
    Buffer ext_actual = in;
    ref_unpack_external32(r, count, ext_expect.user(), ext.data());
    type::external32::unpack(t, ext_actual.user(), static_cast<uint64_t>(count), ext.data());
    ASSERT_EQ(ext_actual.bytes, ext_expect.bytes) << "external32 unpack";
    // The runs of random byte ranges (what a file view maps through) are the
    // reference's entries, cut to the range, with touching ones merged.
    for (int k = 0; k < 4 && bytes > 0; ++k) {
      uint64_t from = static_cast<uint64_t>(g.pick(0, static_cast<int>(bytes) - 1));
      uint64_t len = static_cast<uint64_t>(g.pick(1, static_cast<int>(bytes - from)));
      const uint64_t base = 1u << 20;
      std::vector<std::pair<uint64_t, uint64_t>> expected = ref_runs(r, count, base, from, len);
      RunList got_runs;
      type::for_each_run(t, base, static_cast<uint64_t>(count), from, len, got_runs);
      ASSERT_EQ(got_runs.runs, expected) << "runs of bytes [" << from << ", " << from + len << ")";
    }

    // MPI_Get_elements: whole elements of the type, then whole basic elements.
    for (int k = 0; k < 5 && t.size > 0; ++k) {
      uint64_t b2 = static_cast<uint64_t>(g.pick(0, static_cast<int>(bytes)));
      uint64_t n = (b2 / t.size) * t.signature->elements() + t.signature->elements_in(b2 % t.size);
      ASSERT_EQ(n, ref_elements(r, b2, count)) << b2 << " bytes";
    }
  }
  EXPECT_GT(nonempty, 300);
  EXPECT_EQ(datatypes::live(), 0u);
}

// A struct with one block per basic element of `r`, at new places: the same
// signature, another type map.
const Datatype* scattered_like(const Ref& r, std::mt19937& rng) {
  std::vector<int> bls(r.map.size(), 1);
  std::vector<MPI_Aint> disps;
  std::vector<const Datatype*> types;
  MPI_Aint at = 0;
  for (const Entry& e : r.map) {
    at += static_cast<MPI_Aint>(rng() % 9);
    disps.push_back(at);
    at += static_cast<MPI_Aint>(e.size);
    types.push_back(find_datatype(e.basic));
  }
  const Datatype* t = nullptr;
  EXPECT_TRUE(datatypes::structure(static_cast<int>(bls.size()), bls.data(), disps.data(), types.data(), &t).ok());
  return t;
}

TEST(DatatypeEngine, CopyTypedMovesDataBetweenTypeMapsOfTheSameSignature) {
  std::mt19937 rng(77);
  for (int round = 0; round < 300; ++round) {
    Generator g(static_cast<uint32_t>(round) + 99991u);
    Both b = g.any(3);
    SCOPED_TRACE("round " + std::to_string(round) + ": " + b.how);
    if (b.ref.map.empty()) continue;
    const Datatype* other = scattered_like(b.ref, rng);
    // Its type map: one entry per struct block, at the displacements it
    // was built with (its contents).
    Ref other_ref;
    const Derived& d = *other->derived;
    for (size_t k = 0; k < b.ref.map.size(); ++k)
      other_ref.map.push_back({d.aints[k], b.ref.map[k].size, b.ref.map[k].basic});
    other_ref.has = true;
    other_ref.lb = other->lb;
    other_ref.ub = other->lb + other->extent;
    int count = g.pick(1, 3);
    Buffer src = buffer_for(b.ref, count, rng);
    Buffer dst = buffer_for(other_ref, count, rng);
    Buffer expect = dst;
    std::vector<unsigned char> data = ref_pack(b.ref, count, src.user());
    ref_unpack(other_ref, count, expect.user(), data.data());
    ASSERT_TRUE(copy_typed(src.user(), count, *b.type, dst.user(), count, *other).ok());
    ASSERT_EQ(dst.bytes, expect.bytes) << "forward";
    // And back, into a fresh copy of the source.
    Buffer back = buffer_for(b.ref, count, rng);
    Buffer back_expect = back;
    ref_unpack(b.ref, count, back_expect.user(), data.data());
    ASSERT_TRUE(copy_typed(dst.user(), count, *other, back.user(), count, *b.type).ok());
    ASSERT_EQ(back.bytes, back_expect.bytes) << "back";
    datatypes::release(other);
  }
  EXPECT_EQ(datatypes::live(), 0u);
}

TEST(DatatypeEngine, CopyTypedRefusesASmallerDestination) {
  const Datatype* i = find_datatype(MPI_INT);
  int src[4] = {1, 2, 3, 4}, dst[4] = {};
  Err e = copy_typed(src, 4, *i, dst, 3, *i);
  EXPECT_EQ(e.mpi_class(), MPI_ERR_TRUNCATE);
}

// --- The compact representation --------------------------------------------------------

struct Owned {
  const Datatype* t = nullptr;
  ~Owned() { datatypes::release(t); }
};

TEST(DatatypeLayout, AVectorOfDoublesIsOneLoopOfRuns) {
  Owned v;
  ASSERT_TRUE(datatypes::vector(1000, 2, 5, *find_datatype(MPI_DOUBLE), &v.t).ok());
  const type::Layout& l = *v.t->layout;
  ASSERT_EQ(l.nodes.size(), 1u);
  EXPECT_EQ(l.root().children, 0u);
  EXPECT_EQ(l.root().size, 16u);  // two doubles: one run
  ASSERT_EQ(l.root().dims, 1u);
  EXPECT_EQ(l.root().dim[0].count, 1000u);
  EXPECT_EQ(l.root().dim[0].stride, 40);
  EXPECT_FALSE(v.t->contiguous);
  EXPECT_EQ(v.t->true_extent, 999 * 40 + 16);
}

TEST(DatatypeLayout, AdjacentBlocksAndRegularIndexesMerge) {
  const Datatype* i = find_datatype(MPI_INT);
  Owned contiguous_blocks, regular, vector_of_contig;
  int bls[] = {2, 3, 1};
  int disps[] = {0, 2, 5};  // back to back: one run of 6 ints
  ASSERT_TRUE(datatypes::indexed(3, bls, disps, *i, &contiguous_blocks.t).ok());
  EXPECT_TRUE(contiguous_blocks.t->contiguous);
  EXPECT_EQ(contiguous_blocks.t->layout->runs(), 1u);

  int every_third[] = {0, 3, 6, 9, 12};  // an indexed type that is a vector
  ASSERT_TRUE(datatypes::indexed_block(5, 1, every_third, *i, &regular.t).ok());
  EXPECT_EQ(regular.t->layout->nodes.size(), 1u);
  EXPECT_EQ(regular.t->layout->root().dims, 1u);

  Owned row;
  ASSERT_TRUE(datatypes::contiguous(4, *i, &row.t).ok());
  ASSERT_TRUE(datatypes::vector(3, 2, 2, *row.t, &vector_of_contig.t).ok());  // 3 x 8 ints, back to back
  EXPECT_TRUE(vector_of_contig.t->contiguous);
}

TEST(DatatypeLayout, PairTypesAreOneRunWhenTheirPaddingIsAtTheEnd) {
  const Datatype* di = find_datatype(MPI_DOUBLE_INT);
  EXPECT_TRUE(di->layout->single_run());
  EXPECT_EQ(di->layout->root().size, 12u);
  EXPECT_EQ(di->extent, 16);
  EXPECT_EQ(di->true_extent, 12);
  EXPECT_FALSE(di->contiguous);
  const Datatype* si = find_datatype(MPI_SHORT_INT);  // short, 2 bytes of padding, int
  EXPECT_EQ(si->layout->runs(), 2u);
  EXPECT_EQ(si->true_extent, 8);
  EXPECT_EQ(si->signature->elements(), 2u);
  EXPECT_EQ(find_datatype(MPI_2INT)->signature->elements(), 2u);
  EXPECT_EQ(find_datatype(MPI_INT)->signature->elements(), 1u);
}

TEST(DatatypeLayout, ManyElementsOfALeafTypeAreOneStridedLoop) {
  // 100000 doubles resized to a 16-byte extent pack like a vector: checks
  // that elements() folds the count into the leaf (no walk per element).
  Owned r;
  ASSERT_TRUE(datatypes::resized(*find_datatype(MPI_DOUBLE), 0, 16, &r.t).ok());
  std::vector<double> in(200000), out(100000);
  for (size_t k = 0; k < in.size(); ++k) in[k] = static_cast<double>(k);
  type::pack(*r.t, in.data(), 100000, 0, 800000, out.data());
  for (size_t k = 0; k < out.size(); ++k) ASSERT_EQ(out[k], static_cast<double>(2 * k));
  const char* dense = type::dense_run(*r.t, in.data(), 1);
  EXPECT_EQ(dense, reinterpret_cast<const char*>(in.data()));
  EXPECT_EQ(type::dense_run(*r.t, in.data(), 2), nullptr);
}

TEST(DatatypeLayout, DeepNestsSplitAcrossNodes) {
  // A 6-dimensional subarray has more loops than one node holds.
  int sizes[] = {3, 3, 3, 3, 3, 4}, subsizes[] = {2, 2, 2, 2, 2, 2}, starts[] = {1, 0, 1, 0, 1, 1};
  Owned s;
  ASSERT_TRUE(datatypes::subarray(6, sizes, subsizes, starts, MPI_ORDER_C, *find_datatype(MPI_INT), &s.t).ok());
  EXPECT_GT(s.t->layout->nodes.size(), 1u);
  EXPECT_EQ(s.t->size, 64u * 4);
  EXPECT_EQ(s.t->extent, 3 * 3 * 3 * 3 * 3 * 4 * 4);
  EXPECT_EQ(s.t->layout->runs(), 32u);
}

// --- Life cycle ---------------------------------------------------------------------------

TEST(DatatypeLifecycle, ATypeLivesWhileSomethingHoldsIt) {
  size_t before = datatypes::live();
  const Datatype* v = nullptr;
  ASSERT_TRUE(datatypes::vector(4, 1, 2, *find_datatype(MPI_INT), &v).ok());
  MPI_Datatype h = v->handle;
  EXPECT_EQ(find_datatype(h), v);
  EXPECT_FALSE(v->committed);
  datatypes::commit(v);
  EXPECT_TRUE(v->committed);

  // A type built from it, and a "request", hold it after the user frees it.
  const Datatype* c = nullptr;
  ASSERT_TRUE(datatypes::contiguous(2, *v, &c).ok());
  datatypes::retain(v);     // a pending request
  datatypes::release(v);    // MPI_Type_free
  EXPECT_EQ(find_datatype(h), v);
  datatypes::release(v);    // the request completes
  EXPECT_EQ(find_datatype(h), v) << "the contiguous type still holds it";
  EXPECT_EQ(datatypes::live(), before + 2);
  datatypes::release(c);
  EXPECT_EQ(find_datatype(h), nullptr);
  EXPECT_EQ(datatypes::live(), before);
}

TEST(DatatypeLifecycle, DynamicHandlesNeverLookLikePredefinedOnes) {
  std::vector<const Datatype*> made;
  for (int k = 0; k < 3000; ++k) {  // more than one chunk of the handle table
    const Datatype* t = nullptr;
    ASSERT_TRUE(datatypes::contiguous(k % 5, *find_datatype(MPI_INT), &t).ok());
    made.push_back(t);
    EXPECT_EQ(handle::kind_of(t->handle), handle::kKindDynamic);
    EXPECT_EQ(find_datatype(t->handle), t);
  }
  for (MPI_Datatype pair : {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT})
    EXPECT_TRUE(find_datatype(pair)->predefined());
  for (const Datatype* t : made) datatypes::release(t);
  EXPECT_EQ(datatypes::live(), 0u);
}

TEST(DatatypeLifecycle, NamesAreSetOnDerivedAndPredefinedTypes) {
  Owned v;
  ASSERT_TRUE(datatypes::vector(2, 1, 2, *find_datatype(MPI_INT), &v.t).ok());
  EXPECT_STREQ(v.t->name, "");
  EXPECT_EQ(datatype_label(*v.t).substr(0, 2), "0x");
  datatypes::set_name(v.t, "column");
  EXPECT_STREQ(v.t->name, "column");
  EXPECT_EQ(datatype_label(*v.t), "column");
  const Datatype* f = find_datatype(MPI_FLOAT);
  datatypes::set_name(f, "real");
  EXPECT_STREQ(f->name, "real");
  datatypes::set_name(f, "MPI_FLOAT");
}

// MPI-1's MPI_LB and MPI_UB in a struct (MPICH 4.0 still honours them): no
// data, and the least MPI_LB / greatest MPI_UB displacement are the bounds.
TEST(DatatypeStruct, BoundMarkersSetTheBounds) {
  const Datatype* lb = find_datatype(MPI_LB);
  const Datatype* ub = find_datatype(MPI_UB);
  const Datatype* i = find_datatype(MPI_INT);
  {
    Owned t;
    const Datatype* types[] = {lb, i, i, ub};
    int lengths[] = {1, 1, 1, 1};
    MPI_Aint disps[] = {-4, 0, 8, 20};
    ASSERT_TRUE(datatypes::structure(4, lengths, disps, types, &t.t).ok());
    EXPECT_EQ(t.t->lb, -4);
    EXPECT_EQ(t.t->extent, 24);
    EXPECT_EQ(t.t->size, 8u);
    EXPECT_EQ(t.t->true_lb, 0);
    EXPECT_EQ(t.t->true_extent, 12);
    EXPECT_EQ(t.t->signature->elements(), 2u);
    EXPECT_EQ(t.t->derived->combiner, MPI_COMBINER_STRUCT);
    EXPECT_EQ(t.t->derived->types.size(), 4u);  // the markers too, for MPI_Type_get_contents
  }
  {
    Owned t;  // several of a kind: the outermost win
    const Datatype* types[] = {ub, lb, i, lb, ub};
    int lengths[] = {1, 1, 1, 1, 1};
    MPI_Aint disps[] = {24, -8, 0, -16, 40};
    ASSERT_TRUE(datatypes::structure(5, lengths, disps, types, &t.t).ok());
    EXPECT_EQ(t.t->lb, -16);
    EXPECT_EQ(t.t->extent, 56);
  }
  {
    Owned t;  // only an upper bound: the lower one is the data's
    const Datatype* types[] = {find_datatype(MPI_DOUBLE), ub};
    int lengths[] = {2, 1};
    MPI_Aint disps[] = {8, 32};
    ASSERT_TRUE(datatypes::structure(2, lengths, disps, types, &t.t).ok());
    EXPECT_EQ(t.t->lb, 8);
    EXPECT_EQ(t.t->extent, 24);
  }
  {
    Owned t;  // markers alone: {(LB, 10)} has ub 0
    const Datatype* types[] = {lb};
    int lengths[] = {1};
    MPI_Aint disps[] = {10};
    ASSERT_TRUE(datatypes::structure(1, lengths, disps, types, &t.t).ok());
    EXPECT_EQ(t.t->lb, 10);
    EXPECT_EQ(t.t->extent, -10);
    EXPECT_EQ(t.t->size, 0u);
  }
  EXPECT_EQ(datatypes::live(), 0u);
}

}  // namespace
}  // namespace ferry
