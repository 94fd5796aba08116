// How ranks are spread over hosts and cores (--map-by, --bind-to), with Open
// MPI's names and defaults.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ferry::launcher {

// slot: fill each host's slots in order; node: round robin over hosts. core,
// socket and numa fill hosts like slot and spread a host's ranks over those
// objects in turn.
enum class MapBy { kSlot, kNode, kCore, kSocket, kNuma };

// kDefault: Open MPI's rule, core for 2 ranks or fewer on a host, else
// socket (package); none when a host is oversubscribed.
enum class BindTo { kDefault, kNone, kCore, kSocket, kNuma };

// --map-by's value, in Open MPI's words: slot, node, core, socket (or
// package), numa, each optionally with ":oversubscribe" or
// ":nooversubscribe"; or ppr:N:node, which is --ppn N. `error` says what
// is not understood, e.g. "--map-by hwthread is not supported (use core)".
struct MapBySpec {
  MapBy map_by = MapBy::kSlot;
  int ranks_per_node = 0;             // ppr:N:node
  std::optional<bool> oversubscribe;  // from a modifier
  std::string error;
};
MapBySpec parse_map_by(std::string_view text);

// --bind-to's value: none, core, socket (or package), numa.
struct BindToSpec {
  BindTo bind_to = BindTo::kDefault;
  std::string error;
};
BindToSpec parse_bind_to(std::string_view text);

}  // namespace ferry::launcher
