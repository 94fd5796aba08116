// How a derived datatype was made (MPI-4.0 §5.1.13): MPI_Type_get_envelope
// and MPI_Type_get_contents, in their int and large-count (_c) forms.
//
// A type made by a large-count constructor (MPI_Type_vector_c, ...) keeps
// its counts as MPI_Count, which only the _c forms can return: the int
// forms refuse such a type (MPI_ERR_OTHER, as MPICH 4.0 does) rather than
// return a description without them.
#include <algorithm>

#include "api/api.h"

using namespace ferry;

namespace {

struct Envelope {
  MPI_Count integers = 0, addresses = 0, large_counts = 0, datatypes = 0;
  int combiner = MPI_COMBINER_NAMED;
};

Envelope envelope_of(const Datatype& t) {
  Envelope e;
  if (t.predefined()) return e;
  const Derived& d = *t.derived;
  e.integers = static_cast<MPI_Count>(d.ints.size());
  e.addresses = static_cast<MPI_Count>(d.aints.size());
  e.large_counts = static_cast<MPI_Count>(d.large_counts.size());
  e.datatypes = static_cast<MPI_Count>(d.types.size());
  e.combiner = d.combiner;
  return e;
}

const Datatype* check_type(api::Call& call, MPI_Datatype datatype) {
  if (!call.initialized()) return nullptr;
  return call.datatype(datatype);
}

// One array argument of MPI_Type_get_contents: room for what the type has.
struct Wanted {
  const char* max_name;
  MPI_Count max;
  size_t have;
  const void* array;
  const char* array_name;
};

bool check_room(api::Call& call, const Wanted& w) {
  if (!call.ok()) return false;
  if (w.max < 0 || static_cast<size_t>(w.max) < w.have)
    return call.fail(MPI_ERR_ARG, "%s is %lld, the contents have %zu (see MPI_Type_get_envelope)", w.max_name,
                     static_cast<long long>(w.max), w.have);
  if (w.have > 0 && w.array == nullptr)
    return call.fail(MPI_ERR_ARG, "%s is NULL, the contents have %zu", w.array_name, w.have);
  return true;
}

// The checks and copies both forms share; `large_counts` is nullptr for the
// int form, which refuses a type that has some.
int contents(api::Call& call, MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
             MPI_Count max_large_counts, MPI_Count max_datatypes, int integers[], MPI_Aint addresses[],
             MPI_Count large_counts[], MPI_Datatype datatypes_out[], bool large_form) {
  const Datatype* t = check_type(call, datatype);
  if (call.ok() && t->predefined())
    call.fail(MPI_ERR_TYPE, "datatype %s is predefined: it has no contents (MPI_Type_get_envelope says "
              "MPI_COMBINER_NAMED)", t->name);
  if (!call.ok()) return call.raise();
  const Derived& d = *t->derived;
  if (!large_form && !d.large_counts.empty()) {
    call.fail(MPI_ERR_OTHER, "datatype %s was made by a large-count constructor: use MPI_Type_get_contents_c",
              datatype_label(*t).c_str());
    return call.raise();
  }
  if (!check_room(call, {"max_integers", max_integers, d.ints.size(), integers, "array_of_integers"}) ||
      !check_room(call, {"max_addresses", max_addresses, d.aints.size(), addresses, "array_of_addresses"}) ||
      (large_form && !check_room(call, {"max_large_counts", max_large_counts, d.large_counts.size(), large_counts,
                                        "array_of_large_counts"})) ||
      !check_room(call, {"max_datatypes", max_datatypes, d.types.size(), datatypes_out, "array_of_datatypes"}))
    return call.raise();
  std::copy(d.ints.begin(), d.ints.end(), integers);
  std::copy(d.aints.begin(), d.aints.end(), addresses);
  if (large_form) std::copy(d.large_counts.begin(), d.large_counts.end(), large_counts);
  for (size_t i = 0; i < d.types.size(); ++i) {
    // Derived types come back as new references the caller frees (MPI-4.0
    // §5.1.13); predefined ones as themselves.
    datatypes::retain(d.types[i]);
    datatypes_out[i] = d.types[i]->handle;
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                      int* num_datatypes, int* combiner) {
  api::Call call("MPI_Type_get_envelope");
  const Datatype* t = check_type(call, datatype);
  if (!call.not_null(num_integers, "num_integers") || !call.not_null(num_addresses, "num_addresses") ||
      !call.not_null(num_datatypes, "num_datatypes") || !call.not_null(combiner, "combiner"))
    return call.raise();
  Envelope e = envelope_of(*t);
  if (e.large_counts > 0) {
    call.fail(MPI_ERR_OTHER, "datatype %s was made by a large-count constructor: use MPI_Type_get_envelope_c",
              datatype_label(*t).c_str());
    return call.raise();
  }
  *num_integers = static_cast<int>(e.integers);
  *num_addresses = static_cast<int>(e.addresses);
  *num_datatypes = static_cast<int>(e.datatypes);
  *combiner = e.combiner;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_get_envelope)

extern "C" int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                                        MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  api::Call call("MPI_Type_get_envelope_c");
  const Datatype* t = check_type(call, datatype);
  if (!call.not_null(num_integers, "num_integers") || !call.not_null(num_addresses, "num_addresses") ||
      !call.not_null(num_large_counts, "num_large_counts") || !call.not_null(num_datatypes, "num_datatypes") ||
      !call.not_null(combiner, "combiner"))
    return call.raise();
  Envelope e = envelope_of(*t);
  *num_integers = e.integers;
  *num_addresses = e.addresses;
  *num_large_counts = e.large_counts;
  *num_datatypes = e.datatypes;
  *combiner = e.combiner;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_get_envelope_c)

extern "C" int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                      int max_datatypes, int integers[], MPI_Aint addresses[],
                                      MPI_Datatype datatypes_out[]) {
  api::Call call("MPI_Type_get_contents");
  return contents(call, datatype, max_integers, max_addresses, 0, max_datatypes, integers, addresses, nullptr,
                  datatypes_out, false);
}
FERRY_ENTRY(Type_get_contents)

extern "C" int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                                        MPI_Count max_large_counts, MPI_Count max_datatypes, int integers[],
                                        MPI_Aint addresses[], MPI_Count large_counts[],
                                        MPI_Datatype datatypes_out[]) {
  api::Call call("MPI_Type_get_contents_c");
  return contents(call, datatype, max_integers, max_addresses, max_large_counts, max_datatypes, integers, addresses,
                  large_counts, datatypes_out, true);
}
FERRY_ENTRY(Type_get_contents_c)
