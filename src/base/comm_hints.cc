#include "base/comm_hints.h"

#include <strings.h>

#include <array>

namespace ferry::comm_hints {
namespace {

// MPI-4.0 §7.4.4's assertions, the communicator hints the standard names. A
// program that sets one sees it in MPI_Comm_get_info, as with MPICH. Ferry
// checks no_any_source and no_any_tag (a wildcard receive then fails); the
// others it accepts and does not act on yet.
constexpr std::array<std::string_view, 4> kKeys = {
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
};

}  // namespace

bool recognized(std::string_view key) {
  for (std::string_view k : kKeys)
    if (k == key) return true;
  return false;
}

Info filter(const Info& given) {
  Info kept;
  merge(given, &kept);
  return kept;
}

void merge(const Info& given, Info* hints) {
  for (const auto& [key, value] : given.entries())
    if (recognized(key)) hints->set(key, value);
}

void assign(Communicator& c, Info hints) {
  auto asserted = [&hints](const char* key) {
    const std::string* v = hints.get(key);
    return v != nullptr && strcasecmp(v->c_str(), "true") == 0;
  };
  c.assert_no_any_source = asserted("mpi_assert_no_any_source");
  c.assert_no_any_tag = asserted("mpi_assert_no_any_tag");
  c.hints = std::move(hints);
}

}  // namespace ferry::comm_hints
