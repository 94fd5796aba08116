#include "io/datarep.h"

#include <strings.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <deque>
#include <mutex>

#include "base/external32.h"

namespace ferry::io::datarep {
namespace {

// Registered representations live until the process ends (MPI has no call
// to remove one); a deque keeps their addresses fixed as it grows, since
// views point at them.
std::mutex registry_mutex;
std::deque<Representation>& registry() {
  static std::deque<Representation> reps = [] {
    std::deque<Representation> d;
    d.push_back(Representation{Representation::Kind::kNative, "native"});
    d.push_back(Representation{Representation::Kind::kNative, "internal"});
    d.push_back(Representation{Representation::Kind::kExternal32, "external32"});
    return d;
  }();
  return reps;
}

const Representation* find_locked(const char* name) {
  for (const Representation& r : registry()) {
    bool predefined = r.kind != Representation::Kind::kUser;
    if (predefined ? strcasecmp(r.name.c_str(), name) == 0 : r.name == name) return &r;
  }
  return nullptr;
}

// Calls visit(basic type, elements) for each leaf of a signature.
template <typename Visit>
void for_each_basic(const type::Signature& s, Visit&& visit) {
  if (s.count == 0) return;
  if (s.parts.empty()) {
    visit(s.basic, s.basic_size);
    return;
  }
  for (const type::Signature& p : s.parts) for_each_basic(p, visit);
}

}  // namespace

const Representation* find(const char* name) {
  if (name == nullptr) return nullptr;
  std::lock_guard<std::mutex> hold(registry_mutex);
  return find_locked(name);
}

namespace {

Err add_user_representation(Representation r) {
  size_t length = r.name.size();
  if (length == 0 || length >= MPI_MAX_DATAREP_STRING)
    return fail(MPI_ERR_ARG, "datarep \"%.40s\" must have 1 to %d characters (it has %zu)", r.name.c_str(),
                MPI_MAX_DATAREP_STRING - 1, length);
  std::lock_guard<std::mutex> hold(registry_mutex);
  if (find_locked(r.name.c_str()) != nullptr)
    return fail(MPI_ERR_DUP_DATAREP, "data representation \"%s\" is already defined", r.name.c_str());
  r.kind = Representation::Kind::kUser;
  registry().push_back(std::move(r));
  return {};
}

// Calls a program's conversion function for `count` elements from element
// `first` on, the file-side bytes at `file`. The int form (MPI-3.1) is
// called in pieces of at most INT_MAX elements: a conversion is element by
// element, and `position` tells it where each piece starts in the buffer.
int convert(MPI_Datarep_conversion_function* fn, MPI_Datarep_conversion_function_c* fn_c, void* buf,
            const Datatype& t, uint64_t first, uint64_t count, char* file, void* extra_state) {
  if (fn_c != nullptr)
    return fn_c(buf, t.handle, static_cast<MPI_Count>(count), file, static_cast<MPI_Offset>(first), extra_state);
  for (uint64_t done = 0; done < count;) {
    uint64_t piece = std::min<uint64_t>(count - done, INT_MAX);
    int rc = fn(buf, t.handle, static_cast<int>(piece), file + done * t.size, static_cast<MPI_Offset>(first + done),
                extra_state);
    if (rc != MPI_SUCCESS) return rc;
    done += piece;
  }
  return MPI_SUCCESS;
}

}  // namespace

Err register_representation(const char* name, MPI_Datarep_conversion_function* read,
                            MPI_Datarep_conversion_function* write, MPI_Datarep_extent_function* extent,
                            void* extra_state) {
  Representation r;
  r.name = name;
  r.read = read;
  r.write = write;
  r.extent = extent;
  r.extra_state = extra_state;
  return add_user_representation(std::move(r));
}

Err register_representation(const char* name, MPI_Datarep_conversion_function_c* read,
                            MPI_Datarep_conversion_function_c* write, MPI_Datarep_extent_function* extent,
                            void* extra_state) {
  Representation r;
  r.name = name;
  r.read_c = read;
  r.write_c = write;
  r.extent = extent;
  r.extra_state = extra_state;
  return add_user_representation(std::move(r));
}

int64_t id_of(const char* name) {
  const Representation* r = find(name);
  if (r == nullptr) return -1;
  std::lock_guard<std::mutex> hold(registry_mutex);
  // "internal" is native here, but two processes that name different
  // representations still disagree; predefined names compare without case.
  int64_t id = 0;
  for (const Representation& each : registry()) {
    if (&each == r) return id;
    ++id;
  }
  return -1;
}

Err check_type(const Representation& rep, const Datatype& t, const char* argument) {
  if (rep.native()) return {};
  if (rep.kind == Representation::Kind::kExternal32) {
    if (type::external32::packed_bytes(t, 1) != t.size)
      return fail(MPI_ERR_UNSUPPORTED_DATAREP,
                  "%s %s takes %llu bytes in external32 but %zu in memory; external32 views of types whose size "
                  "changes (MPI_LONG, MPI_LONG_DOUBLE, MPI_WCHAR, ...) are not supported",
                  argument, datatype_label(t).c_str(),
                  static_cast<unsigned long long>(type::external32::packed_bytes(t, 1)), t.size);
    return {};
  }
  if (rep.extent == nullptr || t.signature == nullptr) return {};
  Err e;
  for_each_basic(*t.signature, [&](MPI_Datatype basic, uint64_t size) {
    if (!e.ok()) return;
    MPI_Aint in_file = 0;
    int rc = rep.extent(basic, &in_file, rep.extra_state);
    if (rc != MPI_SUCCESS)
      e = fail(MPI_ERR_CONVERSION, "the extent function of data representation \"%s\" failed (error %d)",
               rep.name.c_str(), rc);
    else if (static_cast<uint64_t>(in_file) != size)
      e = fail(MPI_ERR_UNSUPPORTED_DATAREP,
               "%s %s: data representation \"%s\" stores an element in %lld bytes where memory has %llu; "
               "representations that change an element's size are not supported",
               argument, datatype_label(t).c_str(), rep.name.c_str(), static_cast<long long>(in_file),
               static_cast<unsigned long long>(size));
  });
  return e;
}

MPI_Aint file_extent(const Representation& rep, const Datatype& t) {
  if (rep.kind == Representation::Kind::kExternal32 && t.size > 0 && t.contiguous)
    return static_cast<MPI_Aint>(type::external32::packed_bytes(t, 1));
  if (rep.kind == Representation::Kind::kUser && rep.extent != nullptr && t.predefined()) {
    MPI_Aint extent = t.extent;
    if (rep.extent(t.handle, &extent, rep.extra_state) == MPI_SUCCESS) return extent;
  }
  // Derived types: with check_type's rule (each element as big in the file
  // as in memory) the file keeps memory's layout.
  return t.extent;
}

Err to_file(const Representation& rep, const Datatype& t, const void* buf, uint64_t first, uint64_t count,
            void* file) {
  const char* at = static_cast<const char*>(buf) + static_cast<int64_t>(first) * t.extent;
  if (rep.kind == Representation::Kind::kExternal32) {
    type::external32::pack(t, at, count, file);
    return {};
  }
  if (rep.kind != Representation::Kind::kUser || !rep.converts(true))
    return fail(MPI_ERR_INTERN, "no conversion to data representation \"%s\"", rep.name.c_str());
  int rc = convert(rep.write, rep.write_c, const_cast<void*>(buf), t, first, count, static_cast<char*>(file),
                   rep.extra_state);
  if (rc != MPI_SUCCESS)
    return fail(MPI_ERR_CONVERSION, "the write conversion function of data representation \"%s\" failed (error %d)",
                rep.name.c_str(), rc);
  return {};
}

Err from_file(const Representation& rep, const Datatype& t, void* buf, uint64_t first, uint64_t count,
              const void* file) {
  char* at = static_cast<char*>(buf) + static_cast<int64_t>(first) * t.extent;
  if (rep.kind == Representation::Kind::kExternal32) {
    type::external32::unpack(t, at, count, file);
    return {};
  }
  if (rep.kind != Representation::Kind::kUser || !rep.converts(false))
    return fail(MPI_ERR_INTERN, "no conversion from data representation \"%s\"", rep.name.c_str());
  int rc = convert(rep.read, rep.read_c, buf, t, first, count, static_cast<char*>(const_cast<void*>(file)),
                   rep.extra_state);
  if (rc != MPI_SUCCESS)
    return fail(MPI_ERR_CONVERSION, "the read conversion function of data representation \"%s\" failed (error %d)",
                rep.name.c_str(), rc);
  return {};
}

}  // namespace ferry::io::datarep
