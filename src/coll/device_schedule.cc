#include "coll/device_schedule.h"

#include <algorithm>
#include <optional>

#include "coll/device_buffers.h"
#include "device/kernels.h"
#include "device/staging.h"

namespace ferry::coll::gpu {
namespace {

using device::kernels::Element;
using device::kernels::Reduction;

thread_local const void* scratch_near = nullptr;

Err copy_error(const std::string& what) { return fail(MPI_ERR_OTHER, "GPU buffer: %s", what.c_str()); }

}  // namespace

std::optional<Element> element_of(const Datatype& t) {
  MPI_Datatype h = t.handle;
  if (h == MPI_FLOAT) return Element::kFloat;
  if (h == MPI_DOUBLE) return Element::kDouble;
  static const MPI_Datatype kSigned[] = {MPI_SIGNED_CHAR, MPI_SHORT,   MPI_INT,     MPI_LONG,    MPI_LONG_LONG_INT,
                                         MPI_INT8_T,      MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_AINT,
                                         MPI_OFFSET,      MPI_COUNT,   MPI_CHAR};
  static const MPI_Datatype kUnsigned[] = {MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
                                           MPI_UNSIGNED_LONG_LONG, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
                                           MPI_UINT64_T, MPI_BYTE, MPI_C_BOOL};
  bool is_signed = std::find(std::begin(kSigned), std::end(kSigned), h) != std::end(kSigned);
  bool is_unsigned = std::find(std::begin(kUnsigned), std::end(kUnsigned), h) != std::end(kUnsigned);
  if (!is_signed && !is_unsigned) return std::nullopt;
  switch (t.size) {
    case 1: return is_signed ? Element::kInt8 : Element::kUint8;
    case 2: return is_signed ? Element::kInt16 : Element::kUint16;
    case 4: return is_signed ? Element::kInt32 : Element::kUint32;
    case 8: return is_signed ? Element::kInt64 : Element::kUint64;
    default: return std::nullopt;
  }
}

std::optional<Reduction> reduction_of(const Op& op) {
  MPI_Op h = op.handle;
  if (h == MPI_SUM) return Reduction::kSum;
  if (h == MPI_PROD) return Reduction::kProd;
  if (h == MPI_MAX) return Reduction::kMax;
  if (h == MPI_MIN) return Reduction::kMin;
  if (h == MPI_LAND) return Reduction::kLand;
  if (h == MPI_LOR) return Reduction::kLor;
  if (h == MPI_LXOR) return Reduction::kLxor;
  if (h == MPI_BAND) return Reduction::kBand;
  if (h == MPI_BOR) return Reduction::kBor;
  if (h == MPI_BXOR) return Reduction::kBxor;
  return std::nullopt;
}

ScratchOnGpu::ScratchOnGpu(const void* near) : previous_(scratch_near) { scratch_near = near; }
ScratchOnGpu::~ScratchOnGpu() { scratch_near = previous_; }
const void* ScratchOnGpu::near() { return scratch_near; }

bool gpu_reducible(const Op& op, const Datatype& type) {
  if (op.user() || !type.predefined() || !type.contiguous) return false;
  std::optional<Element> e = element_of(type);
  std::optional<Reduction> r = reduction_of(op);
  return e && r && device::kernels::supports(*e, *r);
}

bool touches_gpu(const void* a, const void* b) { return device::enabled() && (on_gpu(a) || on_gpu(b)); }

Err reduce(const Op& op, const void* in, void* inout, MPI_Count count, const Datatype& type) {
  if (count == 0) return {};
  if (gpu_reducible(op, type) && on_gpu(in) && on_gpu(inout)) {
    const void* inputs[2] = {inout, in};  // predefined ops commute
    auto e = device::kernels::reduce(inout, inputs, 2, static_cast<size_t>(count), *element_of(type),
                                     *reduction_of(op));
    if (!e) return {};
    // A module this GPU refused turns the kernels off (device/kernels.h):
    // then through the host, below; any other failure is the call's.
    if (gpu_reducible(op, type)) return copy_error(*e);
  }
  // No kernel for it, or one side in host memory: both through the host.
  HostStaging st;
  ByteSpan s = span_of(&type, count);
  const void* in_host = st.stage(in, s.lo, s.hi, true, false);
  void* inout_host = st.stage(inout, s.lo, s.hi, true, true);
  apply(op, in_host, inout_host, count, type);
  return st.finish();
}

Err copy(const void* src, MPI_Count scount, const Datatype& stype, void* dst, MPI_Count rcount,
         const Datatype& rtype) {
  if (stype.contiguous && rtype.contiguous && stype.lb == 0 && rtype.lb == 0) {
    size_t sbytes = stype.bytes(scount), rbytes = rtype.bytes(rcount);
    if (sbytes > rbytes) return fail(MPI_ERR_TRUNCATE, "message of %zu bytes into a buffer of %zu", sbytes, rbytes);
    if (auto e = device::staging::copy(dst, src, sbytes)) return copy_error(*e);
    return {};
  }
  // Holes on a GPU buffer: the host lays the elements out.
  HostStaging st;
  ByteSpan s = span_of(&stype, scount), r = span_of(&rtype, rcount);
  const void* src_host = st.stage(src, s.lo, s.hi, true, false);
  void* dst_host = st.stage(dst, r.lo, r.hi, true, true);  // in too: the holes keep their bytes
  Err e = copy_typed(src_host, scount, stype, dst_host, rcount, rtype);
  Err copied = st.finish();
  return e ? std::move(e) : std::move(copied);
}

}  // namespace ferry::coll::gpu
