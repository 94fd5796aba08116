#include "base/type_pack.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "base/type_layout.h"

namespace ferry::type {
namespace {

// Addresses are integers here: with MPI_BOTTOM the buffer is address 0 and
// the layout's offsets are absolute addresses (MPI-3.1 §4.1.12).
using Address = uintptr_t;
inline Address step(Address a, uint64_t k, MPI_Aint stride) {
  return a + static_cast<Address>(static_cast<MPI_Aint>(k) * stride);
}

template <bool kPack>
inline void copy_bytes(Address user, char* packed, size_t n) {
  if constexpr (kPack) std::memcpy(packed, reinterpret_cast<const void*>(user), n);
  else std::memcpy(reinterpret_cast<void*>(user), packed, n);
}

// `count` runs of N bytes, `stride` apart: the innermost loop of every walk.
// N known at compile time turns each copy into a load and a store.
template <bool kPack, size_t N>
char* fixed_runs(Address user, MPI_Aint stride, uint64_t count, char* packed) {
  for (uint64_t i = 0; i < count; ++i) {
    copy_bytes<kPack>(user, packed, N);
    user += static_cast<Address>(stride);
    packed += N;
  }
  return packed;
}

template <bool kPack>
char* strided_runs(Address user, MPI_Aint stride, uint64_t count, uint64_t run, char* packed) {
  switch (run) {
    case 1: return fixed_runs<kPack, 1>(user, stride, count, packed);
    case 2: return fixed_runs<kPack, 2>(user, stride, count, packed);
    case 4: return fixed_runs<kPack, 4>(user, stride, count, packed);
    case 8: return fixed_runs<kPack, 8>(user, stride, count, packed);
    case 12: return fixed_runs<kPack, 12>(user, stride, count, packed);
    case 16: return fixed_runs<kPack, 16>(user, stride, count, packed);
    case 24: return fixed_runs<kPack, 24>(user, stride, count, packed);
    case 32: return fixed_runs<kPack, 32>(user, stride, count, packed);
    default:
      for (uint64_t i = 0; i < count; ++i) {
        copy_bytes<kPack>(user, packed, run);
        user += static_cast<Address>(stride);
        packed += run;
      }
      return packed;
  }
}

// What a walk does with each piece of data it reaches. An action has
//   run(at, n):                      n bytes at address `at`
//   runs(at, stride, count, size):   `count` runs of `size` bytes, `stride` apart
// and the Walker is compiled once per action, so the copy actions below
// still inline into the fixed-size loops of strided_runs.

// Packing (kPack) or unpacking: copies each piece to or from the packed
// cursor.
template <bool kPack>
struct Copy {
  char* packed;
  void run(Address at, uint64_t n) {
    copy_bytes<kPack>(at, packed, n);
    packed += n;
  }
  void runs(Address at, MPI_Aint stride, uint64_t count, uint64_t size) {
    packed = strided_runs<kPack>(at, stride, count, size, packed);
  }
};

// Reporting: hands each maximal contiguous run to a visitor, merging runs
// that touch (a dense loop is one run, not one per body).
class Report {
 public:
  explicit Report(RunVisitor& visit) : visit_(visit) {}
  void run(Address at, uint64_t n) {
    if (n == 0) return;
    if (pending_bytes_ != 0 && at == pending_ + pending_bytes_) {
      pending_bytes_ += n;
      return;
    }
    flush();
    pending_ = at;
    pending_bytes_ = n;
  }
  void runs(Address at, MPI_Aint stride, uint64_t count, uint64_t size) {
    if (stride == static_cast<MPI_Aint>(size)) {
      run(at, count * size);
      return;
    }
    for (uint64_t i = 0; i < count; ++i) run(step(at, i, stride), size);
  }
  void flush() {
    if (pending_bytes_ != 0) visit_.run(pending_, pending_bytes_);
    pending_bytes_ = 0;
  }

 private:
  RunVisitor& visit_;
  Address pending_ = 0;
  uint64_t pending_bytes_ = 0;
};

// Walks a byte range of a node's data in type-map order, handing each piece
// to the action.
template <typename Action>
class Walker {
 public:
  Walker(const Node* nodes, Action action) : nodes_(nodes), action_(action) {}
  Action& action() { return action_; }

  // Bytes [skip, skip + len) of node `n` (its whole nest), whose parent body
  // starts at `base`.
  void node(const Node& n, Address base, uint64_t skip, uint64_t len) {
    Address origin = base + static_cast<Address>(n.offset);
    if (n.dims == 0) {
      body(n, origin, skip, len);
      return;
    }
    const uint64_t size = n.size;
    const uint32_t inner = n.dims - 1;
    // Seek: the body that holds byte `skip`, as loop indices.
    uint64_t index[kMaxDims];
    uint64_t body_index = skip / size;
    uint64_t within = skip % size;
    for (uint32_t d = n.dims; d-- > 0;) {
      index[d] = body_index % n.dim[d].count;
      body_index /= n.dim[d].count;
      origin = step(origin, index[d], n.dim[d].stride);
    }
    if (within != 0) {
      uint64_t take = std::min(size - within, len);
      body(n, origin, within, take);
      len -= take;
      if (len == 0) return;
      origin = advance(n, index, origin, 1);
    }
    if (n.children == 0) {
      // Whole runs, as many at a time as the innermost loop has left.
      while (len >= size) {
        uint64_t k = std::min(n.dim[inner].count - index[inner], len / size);
        action_.runs(origin, n.dim[inner].stride, k, size);
        len -= k * size;
        origin = advance(n, index, origin, k);
      }
    } else {
      while (len >= size) {
        body(n, origin, 0, size);
        len -= size;
        origin = advance(n, index, origin, 1);
      }
    }
    if (len > 0) body(n, origin, 0, len);
  }

 private:
  // Bytes [skip, skip + len) of one body of `n` at `origin`.
  void body(const Node& n, Address origin, uint64_t skip, uint64_t len) {
    if (n.children == 0) {
      action_.run(origin + skip, len);
      return;
    }
    const Node* c = nodes_ + n.first_child;
    // The child holding byte `skip`: children are in packed order.
    uint32_t k = 0;
    if (n.children > 8) {
      const Node* it = std::upper_bound(c, c + n.children, skip,
                                        [](uint64_t s, const Node& child) { return s < child.start; });
      k = static_cast<uint32_t>(it - c) - 1;
    } else {
      while (k + 1 < n.children && c[k + 1].start <= skip) ++k;
    }
    for (; len > 0; ++k) {
      uint64_t child_skip = skip - c[k].start;
      uint64_t take = std::min(c[k].total - child_skip, len);
      node(c[k], origin, child_skip, take);
      len -= take;
      skip = c[k].start + c[k].total;
    }
  }

  // Moves k bodies on along the innermost loop (never past its end), then
  // carries into the outer loops.
  static Address advance(const Node& n, uint64_t* index, Address origin, uint64_t k) {
    uint32_t d = n.dims - 1;
    index[d] += k;
    origin = step(origin, k, n.dim[d].stride);
    while (d > 0 && index[d] == n.dim[d].count) {
      origin -= static_cast<Address>(static_cast<MPI_Aint>(index[d]) * n.dim[d].stride);
      index[d] = 0;
      --d;
      ++index[d];
      origin = step(origin, 1, n.dim[d].stride);
    }
    return origin;
  }

  const Node* nodes_;
  Action action_;  // by value: the packed cursor stays a field of the walker, as before
};

// `count` elements as one node: the element's root inside one more loop.
// A leaf root takes the loop itself, so that e.g. many elements of a
// vector of doubles are one run of strided copies, not one walk each.
Node elements(const Layout& layout, uint64_t count, MPI_Aint extent) {
  const Node& root = layout.root();
  if (count == 1) return root;
  Node n;
  if (root.children == 0 && root.dims < kMaxDims) {
    n = root;
    for (uint32_t d = n.dims; d > 0; --d) n.dim[d] = n.dim[d - 1];
    n.dim[0] = Dim{count, extent};
    ++n.dims;
    n.total = root.total * count;
    if (n.dims >= 2 && n.dim[0].stride == static_cast<MPI_Aint>(n.dim[1].count) * n.dim[1].stride) {
      n.dim[1] = Dim{n.dim[0].count * n.dim[1].count, n.dim[1].stride};
      for (uint32_t d = 0; d + 1 < n.dims; ++d) n.dim[d] = n.dim[d + 1];
      --n.dims;
    }
    if (n.dims == 1 && n.dim[0].stride == static_cast<MPI_Aint>(n.size)) {
      n.size *= n.dim[0].count;
      n.dims = 0;
    }
    return n;
  }
  n.dims = 1;
  n.dim[0] = Dim{count, extent};
  n.size = root.total;
  n.total = root.total * count;
  n.first_child = 0;
  n.children = 1;
  return n;
}

// Returns the action as the walk left it (a Report's last pending run).
template <typename Action>
Action walk(const Datatype& t, Address buf, uint64_t count, uint64_t from, uint64_t bytes, Action action) {
  const Layout& layout = *t.layout;
  Node top = elements(layout, count, t.extent);
  Walker<Action> walker(layout.nodes.data(), action);
  if (bytes != 0) walker.node(top, buf, from, bytes);
  return walker.action();
}

}  // namespace

void pack(const Datatype& t, const void* buf, uint64_t count, uint64_t from, uint64_t bytes, void* out) {
  if (t.contiguous) {
    if (bytes > 0) std::memcpy(out, static_cast<const char*>(buf) + from, bytes);
    return;
  }
  walk(t, reinterpret_cast<Address>(buf), count, from, bytes, Copy<true>{static_cast<char*>(out)});
}

void unpack(const Datatype& t, void* buf, uint64_t count, uint64_t from, uint64_t bytes, const void* in) {
  if (t.contiguous) {
    if (bytes > 0) std::memcpy(static_cast<char*>(buf) + from, in, bytes);
    return;
  }
  walk(t, reinterpret_cast<Address>(buf), count, from, bytes,
       Copy<false>{const_cast<char*>(static_cast<const char*>(in))});
}

void for_each_run(const Datatype& t, uint64_t base, uint64_t count, uint64_t from, uint64_t bytes,
                  RunVisitor& visit) {
  if (bytes == 0) return;
  if (t.contiguous) {
    visit.run(base + from, bytes);
    return;
  }
  walk(t, static_cast<Address>(base), count, from, bytes, Report(visit)).flush();
}

Datatype packed_view(const Datatype& t) {
  Datatype v{MPI_BYTE, "packed data", t.size, 0, static_cast<MPI_Aint>(t.size), true, true};
  v.true_extent = v.extent;
  return v;
}

const char* dense_run(const Datatype& t, const void* buf, uint64_t count) {
  if (t.contiguous) return static_cast<const char*>(buf);
  const Node& root = t.layout->root();
  if (root.children != 0 || root.dims != 0) return nullptr;
  if (count > 1 && t.extent != static_cast<MPI_Aint>(root.size)) return nullptr;
  return reinterpret_cast<const char*>(reinterpret_cast<Address>(buf) + static_cast<Address>(root.offset));
}

}  // namespace ferry::type

namespace ferry {

// Through the packed form in bounded chunks; a contiguous side is packed
// into or unpacked from directly.
Err copy_typed(const void* src, MPI_Count scount, const Datatype& stype, void* dst, MPI_Count rcount,
               const Datatype& rtype) {
  uint64_t bytes = type::packed_bytes(stype, static_cast<uint64_t>(scount));
  uint64_t room = type::packed_bytes(rtype, static_cast<uint64_t>(rcount));
  if (bytes > room)
    return fail(MPI_ERR_TRUNCATE, "%llu bytes do not fit in a buffer of %llu", static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(room));
  if (bytes == 0) return {};
  if (stype.contiguous && rtype.contiguous) {
    if (src != dst) std::memmove(dst, src, bytes);
    return {};
  }
  if (const char* run = type::dense_run(rtype, dst, static_cast<uint64_t>(rcount))) {
    type::pack(stype, src, static_cast<uint64_t>(scount), 0, bytes, const_cast<char*>(run));
    return {};
  }
  if (const char* run = type::dense_run(stype, src, static_cast<uint64_t>(scount))) {
    type::unpack(rtype, dst, static_cast<uint64_t>(rcount), 0, bytes, run);
    return {};
  }
  constexpr uint64_t kChunk = 64 * 1024;
  std::unique_ptr<char[]> chunk(new char[std::min(bytes, kChunk)]);
  for (uint64_t at = 0; at < bytes; at += kChunk) {
    uint64_t n = std::min(kChunk, bytes - at);
    type::pack(stype, src, static_cast<uint64_t>(scount), at, n, chunk.get());
    type::unpack(rtype, dst, static_cast<uint64_t>(rcount), at, n, chunk.get());
  }
  return {};
}

}  // namespace ferry
