#include "io/datarep.h"

#include <strings.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>

#include "base/external32.h"
#include "base/type_pack.h"

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
            const Datatype& t, uint64_t in_file, uint64_t first, uint64_t count, char* file, void* extra_state) {
  if (fn_c != nullptr)
    return fn_c(buf, t.handle, static_cast<MPI_Count>(count), file, static_cast<MPI_Offset>(first), extra_state);
  for (uint64_t done = 0; done < count;) {
    uint64_t piece = std::min<uint64_t>(count - done, INT_MAX);
    int rc = fn(buf, t.handle, static_cast<int>(piece), file + done * in_file, static_cast<MPI_Offset>(first + done),
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

namespace {

// Bytes of one element of signature `s` in the file: the extent function's
// answer for each basic element (§13.5.3: it is called with predefined
// types only).
Err user_bytes(const Representation& rep, const type::Signature& s, uint64_t* out) {
  *out = 0;
  if (s.count == 0) return {};
  uint64_t body = 0;
  if (s.parts.empty()) {
    MPI_Aint in_file = 0;
    int rc = rep.extent(s.basic, &in_file, rep.extra_state);
    if (rc != MPI_SUCCESS || in_file < 0)
      return fail(MPI_ERR_CONVERSION, "the extent function of data representation \"%s\" failed (error %d)",
                  rep.name.c_str(), rc);
    body = static_cast<uint64_t>(in_file);
  } else {
    for (const type::Signature& p : s.parts) {
      uint64_t part = 0;
      if (Err e = user_bytes(rep, p, &part)) return e;
      body += part;
    }
  }
  *out = s.count * body;
  return {};
}

}  // namespace

Err file_size(const Representation& rep, const Datatype& t, uint64_t* out) {
  *out = t.size;
  if (rep.kind == Representation::Kind::kExternal32) *out = type::external32::packed_bytes(t, 1);
  else if (rep.kind == Representation::Kind::kUser && rep.extent != nullptr && t.signature != nullptr)
    return user_bytes(rep, *t.signature, out);
  return {};
}

Err check_type(const Representation& rep, const Datatype& t, const char* argument) {
  if (rep.native()) return {};
  const Datatype* in_file = nullptr;
  Err e = file_type(rep, t, &in_file);
  datatypes::release(in_file);
  if (e) return fail(e.mpi_class(), "%s %s: %s", argument, datatype_label(t).c_str(), e.message().c_str());
  return {};
}

MPI_Aint file_extent(const Representation& rep, const Datatype& t) {
  if (rep.kind == Representation::Kind::kUser && rep.extent != nullptr && t.predefined()) {
    MPI_Aint extent = t.extent;
    if (rep.extent(t.handle, &extent, rep.extra_state) == MPI_SUCCESS) return extent;
  }
  // A derived type's extent in the file is that of its file form (§13.5:
  // built from the basic types' file extents).
  const Datatype* in_file = nullptr;
  if (file_type(rep, t, &in_file)) return t.extent;
  MPI_Aint extent = in_file->extent;
  datatypes::release(in_file);
  return extent;
}

namespace {

// Whether each integer of `t`'s packed native bytes `packed` (count
// elements) fits its external32 size: MPI-3.1 §13.5.2 keeps the low bytes
// of a wider integer ("this allows no conversion errors if the data range
// is within the range of the smaller size integer"); a value outside it
// would be written as another number, so the write fails instead with
// MPI_ERR_CONVERSION (MPI_Pack_external keeps the low bytes, as MPICH's
// does). Only long, unsigned long and wchar_t are narrower in external32.
struct FitCheck {
  const unsigned char* at;
  uint64_t element = 0;  // basic elements seen
  MPI_Datatype bad = MPI_DATATYPE_NULL;
  uint64_t bad_element = 0;
  long long bad_value = 0;

  void leaf(MPI_Datatype basic, uint64_t size, uint64_t n) {
    size_t external = type::external32::basic_size(basic);
    bool narrower = external < size && (basic == MPI_LONG || basic == MPI_UNSIGNED_LONG || basic == MPI_WCHAR);
    if (!narrower || bad != MPI_DATATYPE_NULL) {
      at += n * size;
      element += n;
      return;
    }
    unsigned bits = 8 * static_cast<unsigned>(external);
    for (uint64_t i = 0; i < n; ++i, at += size, ++element) {
      bool fits;
      long long value;
      if (basic == MPI_UNSIGNED_LONG) {
        unsigned long v;
        std::memcpy(&v, at, sizeof v);
        value = static_cast<long long>(v);
        fits = (v >> bits) == 0;
      } else if (basic == MPI_LONG) {
        long v;
        std::memcpy(&v, at, sizeof v);
        value = v;
        fits = v >= -(1LL << (bits - 1)) && v < (1LL << (bits - 1));
      } else {
        wchar_t v;
        std::memcpy(&v, at, sizeof v);
        value = v;
        fits = v >= 0 && static_cast<unsigned long long>(v) >> bits == 0;
      }
      if (!fits) {
        bad = basic;
        bad_element = element;
        bad_value = value;
        return;
      }
    }
  }
  void walk(const type::Signature& s) {
    if (s.count == 0) return;
    if (s.parts.empty()) {
      leaf(s.basic, s.basic_size, s.count);
      return;
    }
    for (uint64_t i = 0; i < s.count && bad == MPI_DATATYPE_NULL; ++i)
      for (const type::Signature& p : s.parts) walk(p);
  }
};

Err check_fits_external32(const Datatype& t, const char* at, uint64_t count) {
  if (t.signature == nullptr || type::external32::packed_bytes(t, 1) == t.size) return {};
  uint64_t bytes = t.size * count;
  const unsigned char* packed = reinterpret_cast<const unsigned char*>(at);
  std::unique_ptr<unsigned char[]> staging;
  if (!t.contiguous) {
    staging.reset(new unsigned char[bytes]);
    type::pack(t, at, count, 0, bytes, staging.get());
    packed = staging.get();
  }
  FitCheck check{packed};
  for (uint64_t i = 0; i < count && check.bad == MPI_DATATYPE_NULL; ++i) check.walk(*t.signature);
  if (check.bad == MPI_DATATYPE_NULL) return {};
  return fail(MPI_ERR_CONVERSION,
              "%s value %lld (basic element %llu of the data) does not fit in its %zu bytes in external32 "
              "(MPI-3.1 §13.5.2)",
              datatype_label(*find_datatype(check.bad)).c_str(), check.bad_value,
              static_cast<unsigned long long>(check.bad_element), type::external32::basic_size(check.bad));
}

}  // namespace

Err to_file(const Representation& rep, const Datatype& t, const void* buf, uint64_t first, uint64_t count,
            void* file) {
  const char* at = static_cast<const char*>(buf) + static_cast<int64_t>(first) * t.extent;
  if (rep.kind == Representation::Kind::kExternal32) {
    if (Err e = check_fits_external32(t, at, count)) return e;
    type::external32::pack(t, at, count, file);
    return {};
  }
  if (rep.kind != Representation::Kind::kUser || !rep.converts(true))
    return fail(MPI_ERR_INTERN, "no conversion to data representation \"%s\"", rep.name.c_str());
  uint64_t in_file = 0;
  if (Err e = file_size(rep, t, &in_file)) return e;
  int rc = convert(rep.write, rep.write_c, const_cast<void*>(buf), t, in_file, first, count, static_cast<char*>(file),
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
  uint64_t in_file = 0;
  if (Err e = file_size(rep, t, &in_file)) return e;
  int rc = convert(rep.read, rep.read_c, buf, t, in_file, first, count, static_cast<char*>(const_cast<void*>(file)),
                   rep.extra_state);
  if (rc != MPI_SUCCESS)
    return fail(MPI_ERR_CONVERSION, "the read conversion function of data representation \"%s\" failed (error %d)",
                rep.name.c_str(), rc);
  return {};
}

}  // namespace ferry::io::datarep
