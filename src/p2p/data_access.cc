#include "p2p/data_access.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "base/external32.h"
#include "base/type_layout.h"
#include "base/type_pack.h"
#include "device/device.h"
#include "device/kernels.h"
#include "device/staging.h"

namespace ferry::p2p {
namespace {

Err device_failure(const std::string& what) { return fail(MPI_ERR_OTHER, "GPU buffer: %s", what.c_str()); }

// Copies between the request's GPU buffer and host memory (a staging
// buffer, the packed bytes), on the stream of the buffer's context as
// locate() found it: no pointer is asked about again. A request described
// without locate() (memory set by hand) is asked about here.
std::optional<std::string> copy(const Request* r, void* dst, const void* src, size_t n) {
  if (r->device.memory != device::Memory::kDevice) return device::staging::copy(dst, src, n);
  return device::staging::copy(r->device, dst, src, n);
}
std::optional<std::string> copy_2d(const Request* r, void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                                   size_t width, size_t rows) {
  if (r->device.memory != device::Memory::kDevice)
    return device::staging::copy_2d(dst, dst_pitch, src, src_pitch, width, rows);
  return device::staging::copy_2d(r->device, dst, dst_pitch, src, src_pitch, width, rows);
}

// The bytes that packed bytes [offset, offset + n) occupy in the buffer,
// relative to its address: from the first run's first byte to the last
// one's end (a walk of the layout's runs, on the host, touching no data).
struct Span {
  MPI_Aint begin;
  MPI_Aint end;
};
Span span_of(const Request* r, uint64_t offset, uint64_t n) {
  // Addresses are reported from an origin well above zero, so that a
  // negative lower bound stays positive.
  constexpr uint64_t kOrigin = uint64_t(1) << 62;
  struct Bounds final : type::RunVisitor {
    uint64_t lo = UINT64_MAX, hi = 0;
    void run(uint64_t address, uint64_t bytes) override {
      lo = std::min(lo, address);
      hi = std::max(hi, address + bytes);
    }
  } bounds;
  type::for_each_run(*r->datatype, kOrigin, static_cast<uint64_t>(r->count), offset, n, bounds);
  return Span{static_cast<MPI_Aint>(bounds.lo - kOrigin), static_cast<MPI_Aint>(bounds.hi - kOrigin)};
}

// Copies the span holding packed bytes [offset, offset + n) to the host,
// runs `host_part` on it as if it were the user's buffer, and (if
// `write_back`) copies it back.
template <typename F>
Err through_host_span(const Request* r, uint64_t offset, uint64_t n, bool write_back, F host_part) {
  Span s = span_of(r, offset, n);
  size_t bytes = static_cast<size_t>(s.end - s.begin);
  char* device_span = static_cast<char*>(r->buffer) + s.begin;
  auto* host = static_cast<char*>(std::malloc(bytes));
  Err e;
  if (auto error = copy(r, host, device_span, bytes)) e = device_failure(*error);
  if (!e) {
    // The host copy stands in for the buffer: the same offsets from a base
    // `s.begin` bytes before it (only bytes inside the span are touched).
    void* base = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(host) - static_cast<uintptr_t>(s.begin));
    host_part(base);
    if (write_back)
      if (auto error = copy(r, device_span, host, bytes)) e = device_failure(*error);
  }
  std::free(host);
  return e;
}

// A strided vector that the GPU's copy engine packs itself with one 2D
// copy: one element (count 1) of a type whose layout is a single run
// repeated by one loop, `pitch` >= `width` apart (MPI_Type_vector of a
// contiguous type, a matrix column).
struct Rows {
  MPI_Aint first;   // the first row, from the buffer
  uint64_t width;   // bytes of one row
  MPI_Aint pitch;   // bytes from one row to the next
};
std::optional<Rows> rows_of(const Request* r) {
  if (r->count != 1 || r->datatype->layout == nullptr) return std::nullopt;
  const type::Node& root = r->datatype->layout->root();
  if (root.children != 0 || root.dims != 1 || root.size == 0) return std::nullopt;
  if (root.dim[0].stride < static_cast<MPI_Aint>(root.size)) return std::nullopt;  // overlapping or backwards
  return Rows{root.offset, root.size, root.dim[0].stride};
}

// Packed bytes [offset, offset + n) of such a vector, between the GPU and
// `packed`: a partial first row, the whole rows in one 2D copy, a partial
// last row.
Err copy_rows(const Request* r, const Rows& v, uint64_t offset, uint64_t n, char* packed, bool pack) {
  char* base = static_cast<char*>(r->buffer) + v.first;
  auto at = [&](uint64_t p) { return base + static_cast<MPI_Aint>(p / v.width) * v.pitch + p % v.width; };
  uint64_t p = offset, end = offset + n;
  char* h = packed;
  auto one_run = [&](uint64_t k) -> std::optional<std::string> {
    auto e = pack ? copy(r, h, at(p), k) : copy(r, at(p), h, k);
    p += k;
    h += k;
    return e;
  };
  if (p % v.width != 0)
    if (auto e = one_run(std::min(end - p, v.width - p % v.width))) return device_failure(*e);
  if (uint64_t rows = (end - p) / v.width; rows > 0) {
    auto width = static_cast<size_t>(v.width), pitch = static_cast<size_t>(v.pitch);
    auto e = pack ? copy_2d(r, h, width, at(p), pitch, width, rows) : copy_2d(r, at(p), pitch, h, width, width, rows);
    if (e) return device_failure(*e);
    p += rows * v.width;
    h += rows * v.width;
  }
  if (p < end)
    if (auto e = one_run(end - p)) return device_failure(*e);
  return {};
}

// Packed bytes [offset, offset + n) of any other non-contiguous type on the
// GPU, by the pack kernels (device/kernels.h): the layout's runs for that
// part, flattened on the host into a block list (adjacent runs merged),
// moved by one launch. Nothing of the data passes through the host but the
// packed bytes themselves.
Err pack_blocks(const Request* r, uint64_t offset, uint64_t n, void* packed, bool gather) {
  constexpr uint64_t kOrigin = uint64_t(1) << 62;  // as span_of: negative offsets stay positive
  struct Blocks final : type::RunVisitor {
    std::vector<device::kernels::PackBlock> list;
    uint64_t packed = 0;
    void run(uint64_t address, uint64_t bytes) override {
      auto at = static_cast<long long>(address - kOrigin);
      if (!list.empty() && list.back().offset + static_cast<long long>(list.back().bytes) == at) {
        list.back().bytes += bytes;
      } else {
        list.push_back(device::kernels::PackBlock{at, packed, bytes});
      }
      packed += bytes;
    }
  } blocks;
  type::for_each_run(*r->datatype, kOrigin, static_cast<uint64_t>(r->count), offset, n, blocks);
  device::PointerInfo where = r->device.memory == device::Memory::kDevice ? r->device : device::describe(r->buffer);
  if (auto error = device::kernels::pack_blocks(where, r->buffer, blocks.list.data(), blocks.list.size(), n, packed,
                                                false, gather))
    return device_failure(*error);
  return {};
}

}  // namespace

Err pack_part(const Request* r, uint64_t offset, uint64_t n, void* out) {
  if (n == 0) return {};
  auto count = static_cast<uint64_t>(r->count);
  if (!on_device(r)) {
    type::pack(*r->datatype, r->buffer, count, offset, n, out);
    return {};
  }
  if (r->datatype->contiguous) {
    if (auto error = copy(r, out, static_cast<const char*>(r->buffer) + offset, n))
      return device_failure(*error);
    return {};
  }
  if (std::optional<Rows> v = rows_of(r)) return copy_rows(r, *v, offset, n, static_cast<char*>(out), true);
  if (device::kernels::supports_pack()) {
    // A module this GPU refuses turns the kernels off (device/kernels.h);
    // nothing has moved then, so the part goes through the host instead.
    Err e = pack_blocks(r, offset, n, out, true);
    if (!e || device::kernels::supports_pack()) return e;
  }
  return through_host_span(r, offset, n, false,
                           [&](void* base) { type::pack(*r->datatype, base, count, offset, n, out); });
}

Err unpack_part(const Request* r, uint64_t offset, uint64_t n, const void* in) {
  if (n == 0) return {};
  auto count = static_cast<uint64_t>(r->count);
  if (!on_device(r)) {
    type::unpack(*r->datatype, r->buffer, count, offset, n, in);
    return {};
  }
  if (r->datatype->contiguous) {
    if (auto error = copy(r, static_cast<char*>(r->buffer) + offset, in, n))
      return device_failure(*error);
    return {};
  }
  if (std::optional<Rows> v = rows_of(r))
    return copy_rows(r, *v, offset, n, static_cast<char*>(const_cast<void*>(in)), false);
  if (device::kernels::supports_pack()) {
    Err e = pack_blocks(r, offset, n, const_cast<void*>(in), false);
    if (!e || device::kernels::supports_pack()) return e;
  }
  return through_host_span(r, offset, n, true,
                           [&](void* base) { type::unpack(*r->datatype, base, count, offset, n, in); });
}

namespace {
Request describe_data(const void* buf, MPI_Count count, const Datatype* t) {
  Request r;
  r.buffer = const_cast<void*>(buf);
  locate(&r);
  r.count = count;
  r.datatype = t;
  return r;
}
}  // namespace

Err pack_into(const void* buf, MPI_Count count, const Datatype* t, uint64_t bytes, void* out) {
  Request r = describe_data(buf, count, t);
  Request packed_side = describe_data(out, static_cast<MPI_Count>(bytes), find_datatype(MPI_BYTE));
  if (!on_device(&packed_side)) return pack_part(&r, 0, bytes, out);
  // The packed bytes go to the GPU: packed on the host, then one copy.
  std::vector<char> packed(bytes);
  if (Err e = pack_part(&r, 0, bytes, packed.data())) return e;
  if (auto error = copy(&packed_side, out, packed.data(), bytes)) return device_failure(*error);
  return {};
}

Err unpack_from(const void* in, uint64_t bytes, void* buf, MPI_Count count, const Datatype* t) {
  Request r = describe_data(buf, count, t);
  Request packed_side = describe_data(in, static_cast<MPI_Count>(bytes), find_datatype(MPI_BYTE));
  if (!on_device(&packed_side)) return unpack_part(&r, 0, bytes, in);
  std::vector<char> packed(bytes);
  if (auto error = copy(&packed_side, packed.data(), in, bytes)) return device_failure(*error);
  return unpack_part(&r, 0, bytes, packed.data());
}

Err pack_external_into(const void* buf, MPI_Count count, const Datatype* t, uint64_t bytes, void* out) {
  if (bytes == 0) return {};
  Request r = describe_data(buf, count, t);
  Request packed_side = describe_data(out, static_cast<MPI_Count>(bytes), find_datatype(MPI_BYTE));
  auto n = static_cast<uint64_t>(count);
  std::vector<char> staged;  // the external32 bytes, on their way to the GPU
  void* host_out = out;
  if (on_device(&packed_side)) {
    staged.resize(bytes);
    host_out = staged.data();
  }
  if (!on_device(&r)) {
    type::external32::pack(*t, buf, n, host_out);
  } else if (Err e = through_host_span(&r, 0, type::packed_bytes(*t, n), false,
                                       [&](void* base) { type::external32::pack(*t, base, n, host_out); })) {
    return e;
  }
  if (on_device(&packed_side))
    if (auto error = copy(&packed_side, out, staged.data(), bytes)) return device_failure(*error);
  return {};
}

Err unpack_external_from(const void* in, uint64_t bytes, void* buf, MPI_Count count, const Datatype* t) {
  if (bytes == 0) return {};
  Request r = describe_data(buf, count, t);
  Request packed_side = describe_data(in, static_cast<MPI_Count>(bytes), find_datatype(MPI_BYTE));
  auto n = static_cast<uint64_t>(count);
  std::vector<char> staged;  // the external32 bytes, off the GPU
  const void* host_in = in;
  if (on_device(&packed_side)) {
    staged.resize(bytes);
    if (auto error = copy(&packed_side, staged.data(), in, bytes)) return device_failure(*error);
    host_in = staged.data();
  }
  if (!on_device(&r)) {
    type::external32::unpack(*t, buf, n, host_in);
    return {};
  }
  return through_host_span(&r, 0, type::packed_bytes(*t, n), true,
                           [&](void* base) { type::external32::unpack(*t, base, n, host_in); });
}

void locate(Request* r) {
  r->memory = transport::MemoryKind::kHost;
  // r->device is read only for GPU memory: host programs pay one branch.
  if (!device::enabled()) return;
  r->device = device::describe(r->buffer);
  // Managed memory is host memory to a transport: the host may touch it.
  if (r->device.memory == device::Memory::kDevice) r->memory = transport::MemoryKind::kDevice;
}

transport::MemoryKind memory_kind(const void* buffer) {
  if (!device::enabled()) return transport::MemoryKind::kHost;
  // Managed memory is host memory to a transport: the host may touch it.
  return device::memory_of(buffer) == device::Memory::kDevice ? transport::MemoryKind::kDevice
                                                               : transport::MemoryKind::kHost;
}

}  // namespace ferry::p2p
