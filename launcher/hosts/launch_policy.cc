#include "launcher/hosts/launch_policy.h"

#include <cctype>
#include <charconv>
#include <vector>

namespace ferry::launcher {
namespace {

// Open MPI compares policy names without regard to case.
std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The parts between colons, as written.
std::vector<std::string> split_colons(std::string_view text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t colon = text.find(':', start);
    parts.emplace_back(text.substr(start, colon == text.npos ? text.npos : colon - start));
    if (colon == text.npos) return parts;
    start = colon + 1;
  }
}

}  // namespace

MapBySpec parse_map_by(std::string_view text) {
  MapBySpec spec;
  const std::string quoted = "--map-by " + std::string(text);
  std::vector<std::string> parts = split_colons(text);
  size_t modifiers = 1;
  const std::string policy = lower(parts[0]);
  if (policy == "slot") {
    spec.map_by = MapBy::kSlot;
  } else if (policy == "node") {
    spec.map_by = MapBy::kNode;
  } else if (policy == "core") {
    spec.map_by = MapBy::kCore;
  } else if (policy == "socket" || policy == "package") {
    spec.map_by = MapBy::kSocket;
  } else if (policy == "numa") {
    spec.map_by = MapBy::kNuma;
  } else if (policy == "ppr") {
    // ppr:N:node is N ranks per node; per socket or core is not.
    int n = 0;
    const std::string count = parts.size() > 1 ? parts[1] : "";
    auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (parts.size() < 3 || count.empty() || ec != std::errc() || ptr != count.data() + count.size() || n <= 0) {
      spec.error = quoted + ": expected ppr:N:node with N a positive number";
      return spec;
    }
    if (lower(parts[2]) != "node") {
      spec.error = quoted + ": only ppr:N:node is supported (ranks per " + parts[2] + " are not)";
      return spec;
    }
    spec.ranks_per_node = n;
    modifiers = 3;
  } else if (policy == "hwthread") {
    spec.error = "--map-by hwthread is not supported (use core)";
    return spec;
  } else {
    spec.error = quoted + ": unknown policy '" + parts[0] + "' (slot, node, core, socket, numa or ppr:N:node)";
    return spec;
  }
  for (size_t i = modifiers; i < parts.size(); ++i) {
    if (lower(parts[i]) == "oversubscribe") {
      spec.oversubscribe = true;
    } else if (lower(parts[i]) == "nooversubscribe") {
      spec.oversubscribe = false;
    } else {
      spec.error = quoted + ": the modifier '" + parts[i] + "' is not supported (only oversubscribe, nooversubscribe)";
      return spec;
    }
  }
  return spec;
}

BindToSpec parse_bind_to(std::string_view text) {
  BindToSpec spec;
  const std::string value = lower(text);
  if (value == "none") {
    spec.bind_to = BindTo::kNone;
  } else if (value == "core") {
    spec.bind_to = BindTo::kCore;
  } else if (value == "socket" || value == "package") {
    spec.bind_to = BindTo::kSocket;
  } else if (value == "numa") {
    spec.bind_to = BindTo::kNuma;
  } else if (value == "hwthread") {
    spec.error = "--bind-to hwthread is not supported (use core)";
  } else if (value.find(':') != std::string::npos) {
    spec.error = "--bind-to " + std::string(text) + ": modifiers after ':' are not supported (none, core, socket, numa)";
  } else {
    spec.error = "--bind-to " + std::string(text) + ": unknown object (none, core, socket or numa)";
  }
  return spec;
}

}  // namespace ferry::launcher
