// Packing into and unpacking from user buffers (MPI-3.1 §4.2), in the
// portable "external32" representation (§4.3), and addresses (§4.1.5).
// Each pack call also has its large-count form (MPI-4.0's _c names, with
// MPI_Count counts, sizes and positions); both share one path.
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

// Checks a position in a packed buffer of `size` bytes. Positions and sizes
// are MPI_Count here (the large-count calls' type, and MPI_Aint's: the
// same type), the int calls' widened.
bool position_ok(api::Call& call, const MPI_Count* position, MPI_Count size, const char* size_name) {
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

int pack(const char* name, const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
         MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  api::Call call(name);
  call.comm(comm);
  const Datatype* t = call.datatype(datatype);
  if (!call.movable(t) || !call.count(incount, "incount") || !call.buffer(inbuf, incount, t, "inbuf") ||
      !position_ok(call, position, outsize, "outsize"))
    return call.raise();
  uint64_t bytes = type::packed_bytes(*t, static_cast<uint64_t>(incount));
  uint64_t room = static_cast<uint64_t>(outsize - *position);
  if (bytes > room)
    call.fail(MPI_ERR_TRUNCATE, "%llu bytes of data do not fit in outbuf: %llu of its %lld bytes are left after "
              "position %lld", static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(room),
              static_cast<long long>(outsize), static_cast<long long>(*position));
  if (!call.bytes(outbuf, static_cast<MPI_Count>(bytes), "outbuf")) return call.raise();
  if (Err e = p2p::pack_into(inbuf, incount, t, bytes, static_cast<char*>(outbuf) + *position))
    return call.result(std::move(e));
  *position += static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}

int unpack(const char* name, const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
           MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  api::Call call(name);
  call.comm(comm);
  const Datatype* t = call.datatype(datatype);
  if (!call.movable(t) || !call.count(outcount, "outcount") || !call.buffer(outbuf, outcount, t, "outbuf") ||
      !position_ok(call, position, insize, "insize"))
    return call.raise();
  uint64_t bytes = type::packed_bytes(*t, static_cast<uint64_t>(outcount));
  uint64_t left = static_cast<uint64_t>(insize - *position);
  if (bytes > left)
    call.fail(MPI_ERR_TRUNCATE, "%lld elements need %llu bytes, inbuf has %llu left after position %lld of %lld",
              static_cast<long long>(outcount), static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(left), static_cast<long long>(*position),
              static_cast<long long>(insize));
  if (!call.bytes(inbuf, static_cast<MPI_Count>(bytes), "inbuf")) return call.raise();
  if (Err e = p2p::unpack_from(static_cast<const char*>(inbuf) + *position, bytes, outbuf, outcount, t))
    return call.result(std::move(e));
  *position += static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}

// The int forms' position: widened for the shared path, and back (it stays
// within the int size).
template <typename Body>
int with_int_position(int* position, Body body) {
  MPI_Count p = position != nullptr ? *position : 0;
  int rc = body(position != nullptr ? &p : nullptr);
  if (rc == MPI_SUCCESS) *position = static_cast<int>(p);
  return rc;
}

int pack_size(const char* name, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  api::Call call(name);
  call.comm(comm);
  const Datatype* t = call.datatype(datatype);
  if (!call.count(incount, "incount") || !call.not_null(size, "size")) return call.raise();
  *size = static_cast<MPI_Count>(type::packed_bytes(*t, static_cast<uint64_t>(incount)));
  return MPI_SUCCESS;
}

int pack_external(const char* name, const char* datarep, const void* inbuf, MPI_Count incount,
                  MPI_Datatype datatype, void* outbuf, MPI_Count outsize, MPI_Count* position) {
  api::Call call(name);
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
  if (!call.bytes(outbuf, static_cast<MPI_Count>(bytes), "outbuf")) return call.raise();
  // Either buffer may be GPU memory (README "GPU buffers").
  if (Err e = p2p::pack_external_into(inbuf, incount, t, bytes, static_cast<char*>(outbuf) + *position))
    return call.result(std::move(e));
  *position += static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}

int unpack_external(const char* name, const char* datarep, const void* inbuf, MPI_Count insize, MPI_Count* position,
                    void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  api::Call call(name);
  if (!call.initialized() || !datarep_ok(call, datarep)) return call.raise();
  const Datatype* t = call.datatype(datatype);
  if (!call.movable(t) || !call.count(outcount, "outcount") || !call.buffer(outbuf, outcount, t, "outbuf") ||
      !position_ok(call, position, insize, "insize"))
    return call.raise();
  uint64_t bytes = type::external32::packed_bytes(*t, static_cast<uint64_t>(outcount));
  uint64_t left = static_cast<uint64_t>(insize - *position);
  if (bytes > left)
    call.fail(MPI_ERR_TRUNCATE, "%lld elements need %llu bytes of external32 data, inbuf has %llu left after "
              "position %lld of %lld", static_cast<long long>(outcount), static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(left), static_cast<long long>(*position),
              static_cast<long long>(insize));
  if (!call.bytes(inbuf, static_cast<MPI_Count>(bytes), "inbuf")) return call.raise();
  if (Err e = p2p::unpack_external_from(static_cast<const char*>(inbuf) + *position, bytes, outbuf, outcount, t))
    return call.result(std::move(e));
  *position += static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}

int pack_external_size(const char* name, const char* datarep, MPI_Count incount, MPI_Datatype datatype,
                       MPI_Count* size) {
  api::Call call(name);
  if (!call.initialized() || !datarep_ok(call, datarep)) return call.raise();
  const Datatype* t = call.datatype(datatype);
  if (!call.count(incount, "incount") || !call.not_null(size, "size")) return call.raise();
  *size = static_cast<MPI_Count>(type::external32::packed_bytes(*t, static_cast<uint64_t>(incount)));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
                         int* position, MPI_Comm comm) {
  return with_int_position(position, [&](MPI_Count* p) {
    return pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, p, comm);
  });
}
FERRY_ENTRY(Pack)

extern "C" int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                           MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  return pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}
FERRY_ENTRY(Pack_c)

extern "C" int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm comm) {
  return with_int_position(position, [&](MPI_Count* p) {
    return unpack("MPI_Unpack", inbuf, insize, p, outbuf, outcount, datatype, comm);
  });
}
FERRY_ENTRY(Unpack)

extern "C" int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                             MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  return unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}
FERRY_ENTRY(Unpack_c)

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  MPI_Count n = 0;
  int rc = pack_size("MPI_Pack_size", incount, datatype, comm, size != nullptr ? &n : nullptr);
  // A size an int cannot hold is MPI_UNDEFINED, as for every int output of
  // MPI-4.0's int forms (MPI_Get_count, MPI_Type_size) and as MPICH 4.0
  // does; MPI_Pack_size_c says it.
  if (rc == MPI_SUCCESS) *size = n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
  return rc;
}
FERRY_ENTRY(Pack_size)

extern "C" int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  return pack_size("MPI_Pack_size_c", incount, datatype, comm, size);
}
FERRY_ENTRY(Pack_size_c)

extern "C" int PMPI_Pack_external(const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype,
                                  void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
  return pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize, position);
}
FERRY_ENTRY(Pack_external)

extern "C" int PMPI_Pack_external_c(const char* datarep, const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                                    void* outbuf, MPI_Count outsize, MPI_Count* position) {
  return pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize, position);
}
FERRY_ENTRY(Pack_external_c)

extern "C" int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                                    void* outbuf, int outcount, MPI_Datatype datatype) {
  return unpack_external("MPI_Unpack_external", datarep, inbuf, insize, position, outbuf, outcount, datatype);
}
FERRY_ENTRY(Unpack_external)

extern "C" int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position,
                                      void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  return unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf, outcount, datatype);
}
FERRY_ENTRY(Unpack_external_c)

extern "C" int PMPI_Pack_external_size(const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size) {
  return pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, size);
}
FERRY_ENTRY(Pack_external_size)

extern "C" int PMPI_Pack_external_size_c(const char* datarep, MPI_Count incount, MPI_Datatype datatype,
                                         MPI_Count* size) {
  return pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size);
}
FERRY_ENTRY(Pack_external_size_c)


// Addresses are the plain integer value of a pointer on Linux's flat address
// space (MPI-3.1 §4.1.5); MPI_BOTTOM is address 0.
extern "C" int PMPI_Get_address(const void* location, MPI_Aint* address) {
  api::Call call("MPI_Get_address");
  if (!call.not_null(address, "address")) return call.raise();
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Get_address)

extern "C" int PMPI_Address(void* location, MPI_Aint* address) {
  api::Call call("MPI_Address");
  if (!call.not_null(address, "address")) return call.raise();
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Address)
