// Packing into and unpacking from user buffers (MPI-3.1 §4.2), in the
// portable "external32" representation (§4.3), and addresses (§4.1.5).
// Ferry's packed form is the data alone, in type-map order, in the host's
// representation: MPI_Pack_size is exactly the data's size and MPI_PACKED
// messages can be received as any type of the same signature. The external
// form is the same with each basic element converted (base/external32.h).
#include <climits>
#include <cstring>

#include "api/api.h"
#include "base/external32.h"
#include "base/type_pack.h"
#include "p2p/data_access.h"

using namespace ferry;

namespace {

// Checks a position in a packed buffer of `size` bytes.
bool position_ok(api::Call& call, const int* position, int size, const char* size_name) {
  if (!call.not_null(position, "position")) return false;
  if (size < 0) return call.fail(MPI_ERR_ARG, "%s is %d (must be >= 0)", size_name, size);
  if (*position < 0 || *position > size)
    return call.fail(MPI_ERR_ARG, "*position is %d (must be 0 to %s = %d)", *position, size_name, size);
  return true;
}

// The same for the MPI_Aint positions of MPI_Pack_external.
bool position_ok(api::Call& call, const MPI_Aint* position, MPI_Aint size, const char* size_name) {
  if (!call.not_null(position, "position")) return false;
  if (size < 0) return call.fail(MPI_ERR_ARG, "%s is %lld (must be >= 0)", size_name, static_cast<long long>(size));
  if (*position < 0 || *position > size)
    return call.fail(MPI_ERR_ARG, "*position is %lld (must be 0 to %s = %lld)", static_cast<long long>(*position),
                     size_name, static_cast<long long>(size));
  return true;
}

// MPI-3.1 §4.3: "external32" is the one representation the external pack
// calls know.
bool datarep_ok(api::Call& call, const char* datarep) {
  if (!call.not_null(datarep, "datarep")) return false;
  if (std::strcmp(datarep, type::external32::kName) != 0)
    return call.fail(MPI_ERR_ARG, "datarep is \"%.64s\" (the only one supported is \"%s\")", datarep,
                     type::external32::kName);
  return true;
}

}  // namespace

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
                         int* position, MPI_Comm comm) {
  api::Call call("MPI_Pack");
  call.comm(comm);
  const Datatype* t = call.datatype(datatype);
  if (!call.movable(t) || !call.count(incount, "incount") || !call.buffer(inbuf, incount, t, "inbuf") ||
      !position_ok(call, position, outsize, "outsize"))
    return call.raise();
  uint64_t bytes = type::packed_bytes(*t, static_cast<uint64_t>(incount));
  uint64_t room = static_cast<uint64_t>(outsize - *position);
  if (bytes > room)
    call.fail(MPI_ERR_TRUNCATE, "%llu bytes of data do not fit in outbuf: %llu of its %d bytes are left after "
              "position %d", static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(room), outsize,
              *position);
  if (!call.buffer(outbuf, bytes > 0 ? 1 : 0, "outbuf")) return call.raise();
  if (Err e = p2p::pack_into(inbuf, incount, t, bytes, static_cast<char*>(outbuf) + *position))
    return call.result(std::move(e));
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Pack)

extern "C" int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm comm) {
  api::Call call("MPI_Unpack");
  call.comm(comm);
  const Datatype* t = call.datatype(datatype);
  if (!call.movable(t) || !call.count(outcount, "outcount") || !call.buffer(outbuf, outcount, t, "outbuf") ||
      !position_ok(call, position, insize, "insize"))
    return call.raise();
  uint64_t bytes = type::packed_bytes(*t, static_cast<uint64_t>(outcount));
  uint64_t left = static_cast<uint64_t>(insize - *position);
  if (bytes > left)
    call.fail(MPI_ERR_TRUNCATE, "%d elements need %llu bytes, inbuf has %llu left after position %d of %d",
              outcount, static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(left), *position,
              insize);
  if (!call.buffer(inbuf, bytes > 0 ? 1 : 0, "inbuf")) return call.raise();
  if (Err e = p2p::unpack_from(static_cast<const char*>(inbuf) + *position, bytes, outbuf, outcount, t))
    return call.result(std::move(e));
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Unpack)

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  api::Call call("MPI_Pack_size");
  call.comm(comm);
  const Datatype* t = call.datatype(datatype);
  if (!call.count(incount, "incount") || !call.not_null(size, "size")) return call.raise();
  uint64_t bytes = type::packed_bytes(*t, static_cast<uint64_t>(incount));
  if (bytes > INT_MAX) {
    call.fail(MPI_ERR_COUNT, "%d elements of %s pack to %llu bytes, more than an int holds", incount,
              datatype_label(*t).c_str(), static_cast<unsigned long long>(bytes));
    return call.raise();
  }
  *size = static_cast<int>(bytes);
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Pack_size)

namespace {
// The external32 conversion runs on the host: GPU buffers are refused
// (README "GPU buffers") rather than read from the host.
bool host_only(api::Call& call, const void* a, const void* b) {
  if (p2p::memory_kind(a) != transport::MemoryKind::kDevice && p2p::memory_kind(b) != transport::MemoryKind::kDevice)
    return true;
  return call.fail(MPI_ERR_BUFFER, "GPU buffers are not supported with external32 yet (README \"GPU buffers\")");
}
}  // namespace

extern "C" int PMPI_Pack_external(const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype,
                                  void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
  api::Call call("MPI_Pack_external");
  if (!call.initialized() || !datarep_ok(call, datarep)) return call.raise();
  const Datatype* t = call.datatype(datatype);
  if (!call.movable(t) || !call.count(incount, "incount") || !call.buffer(inbuf, incount, t, "inbuf") ||
      !position_ok(call, position, outsize, "outsize"))
    return call.raise();
  uint64_t bytes = type::external32::packed_bytes(*t, static_cast<uint64_t>(incount));
  uint64_t room = static_cast<uint64_t>(outsize - *position);
  if (bytes > room)
    call.fail(MPI_ERR_TRUNCATE, "%llu bytes of external32 data do not fit in outbuf: %llu of its %lld bytes are "
              "left after position %lld", static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(room), static_cast<long long>(outsize),
              static_cast<long long>(*position));
  if (!call.buffer(outbuf, bytes > 0 ? 1 : 0, "outbuf") || !host_only(call, inbuf, outbuf)) return call.raise();
  type::external32::pack(*t, inbuf, static_cast<uint64_t>(incount), static_cast<char*>(outbuf) + *position);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Pack_external)

extern "C" int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                                    void* outbuf, int outcount, MPI_Datatype datatype) {
  api::Call call("MPI_Unpack_external");
  if (!call.initialized() || !datarep_ok(call, datarep)) return call.raise();
  const Datatype* t = call.datatype(datatype);
  if (!call.movable(t) || !call.count(outcount, "outcount") || !call.buffer(outbuf, outcount, t, "outbuf") ||
      !position_ok(call, position, insize, "insize"))
    return call.raise();
  uint64_t bytes = type::external32::packed_bytes(*t, static_cast<uint64_t>(outcount));
  uint64_t left = static_cast<uint64_t>(insize - *position);
  if (bytes > left)
    call.fail(MPI_ERR_TRUNCATE, "%d elements need %llu bytes of external32 data, inbuf has %llu left after "
              "position %lld of %lld", outcount, static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(left), static_cast<long long>(*position),
              static_cast<long long>(insize));
  if (!call.buffer(inbuf, bytes > 0 ? 1 : 0, "inbuf") || !host_only(call, inbuf, outbuf)) return call.raise();
  type::external32::unpack(*t, outbuf, static_cast<uint64_t>(outcount),
                           static_cast<const char*>(inbuf) + *position);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Unpack_external)

extern "C" int PMPI_Pack_external_size(const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size) {
  api::Call call("MPI_Pack_external_size");
  if (!call.initialized() || !datarep_ok(call, datarep)) return call.raise();
  const Datatype* t = call.datatype(datatype);
  if (!call.count(incount, "incount") || !call.not_null(size, "size")) return call.raise();
  *size = static_cast<MPI_Aint>(type::external32::packed_bytes(*t, static_cast<uint64_t>(incount)));
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Pack_external_size)

// Addresses are the plain integer value of a pointer on Linux's flat address
// space (MPI-3.1 §4.1.5); MPI_BOTTOM is address 0.
extern "C" int PMPI_Get_address(const void* location, MPI_Aint* address) {
  api::Call call("MPI_Get_address");
  if (!call.not_null(address, "address")) return call.raise();
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Get_address)

extern "C" int PMPI_Address(void* location, MPI_Aint* address) {
  api::Call call("MPI_Address");
  if (!call.not_null(address, "address")) return call.raise();
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Address)
