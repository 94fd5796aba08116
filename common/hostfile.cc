#include "hostfile.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ferry::hosts {
namespace {

// Far more than a host can run (PMIx numbers a host's ranks with 16 bits);
// the bound keeps sums of merged lines from overflowing.
constexpr int kMaxSlots = 1 << 20;

std::string_view trim(std::string_view s) {
  const char* blanks = " \t\r\f\v";
  size_t first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  size_t last = s.find_last_not_of(blanks);
  return s.substr(first, last - first + 1);
}

// A slot count as written after "slots=" or "host:": a positive decimal.
bool parse_slots(std::string_view text, int& value) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size() && value > 0 && value <= kMaxSlots;
}

std::string slots_complaint(std::string_view written) {
  return "'" + std::string(written) + "' is not a number of slots (1 to " + std::to_string(kMaxSlots) + ")";
}

// Splits "name" or "name:N" (Hydra), "[v6addr]" or "[v6addr]:N". A bare
// name with two or more colons is an IPv6 address, which takes no ":N".
// Returns "" or what is wrong.
std::string split_host(std::string_view token, HostEntry& entry) {
  std::string_view name = token;
  std::string_view count;
  bool has_count = false;
  if (token.starts_with('[')) {
    size_t close = token.find(']');
    if (close == std::string_view::npos) return "'" + std::string(token) + "' lacks the closing ']'";
    name = token.substr(1, close - 1);
    std::string_view rest = token.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return "'" + std::string(token) + "': expected [ADDRESS] or [ADDRESS]:SLOTS";
      count = rest.substr(1);
      has_count = true;
    }
  } else {
    size_t colon = token.find(':');
    if (colon != std::string_view::npos && token.find(':', colon + 1) == std::string_view::npos) {
      name = token.substr(0, colon);
      count = token.substr(colon + 1);
      has_count = true;
    }
  }
  if (name.empty()) return "'" + std::string(token) + "' has no host name";
  if (name.find_first_of(" \t") != std::string_view::npos) return "'" + std::string(name) + "' is not a host name";
  if (name.find('=') != std::string_view::npos)
    return "'" + std::string(token) + "' where a host name should come first";
  entry.name = std::string(name);
  if (has_count) {
    if (!parse_slots(count, entry.slots)) return slots_complaint(count);
    entry.slots_given = true;
  }
  return "";
}

enum class Keyword { kSlots, kMaxSlots, kUnknown };

// Open MPI's hostfile lexer accepts these spellings (count and cpu are old
// synonyms of slots).
Keyword keyword_of(std::string_view key) {
  if (key == "slots" || key == "slot" || key == "count" || key == "cpu") return Keyword::kSlots;
  if (key == "max_slots" || key == "max-slots" || key == "slots_max" || key == "slots-max")
    return Keyword::kMaxSlots;
  return Keyword::kUnknown;
}

// Open MPI allows "slots = 4": blanks around '=' are dropped so that every
// setting is one token.
std::string join_settings(std::string_view line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '=') {
      while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
      out += c;
      while (i + 1 < line.size() && (line[i + 1] == ' ' || line[i + 1] == '\t')) ++i;
    } else {
      out += c;
    }
  }
  return out;
}

// One non-blank line without its comment. Returns "" or what is wrong.
std::string parse_line(std::string_view line, HostEntry& entry) {
  std::istringstream tokens(join_settings(line));
  std::string token;
  tokens >> token;
  if (std::string error = split_host(token, entry); !error.empty()) return error;
  bool slots_set = entry.slots_given;  // by "host:N"
  bool max_set = false;
  while (tokens >> token) {
    size_t eq = token.find('=');
    std::string_view key = std::string_view(token).substr(0, eq);
    std::string_view value = eq == std::string::npos ? std::string_view() : std::string_view(token).substr(eq + 1);
    Keyword kw = keyword_of(key);
    if (kw == Keyword::kUnknown || eq == std::string::npos)
      return "unknown setting '" + token + "' (known: slots=N, max_slots=N)";
    if (kw == Keyword::kSlots) {
      if (slots_set) return "slots given twice for '" + entry.name + "'";
      if (!parse_slots(value, entry.slots)) return slots_complaint(value);
      entry.slots_given = slots_set = true;
    } else {
      if (max_set) return "max_slots given twice for '" + entry.name + "'";
      if (!parse_slots(value, entry.max_slots)) return "max_slots " + slots_complaint(value);
      max_set = true;
    }
  }
  if (entry.max_slots != 0 && entry.max_slots < entry.slots)
    return "'" + entry.name + "' has slots=" + std::to_string(entry.slots) + " above max_slots=" +
           std::to_string(entry.max_slots);
  return "";
}

}  // namespace

std::string add_host(std::vector<HostEntry>& hosts, const HostEntry& entry) {
  for (HostEntry& known : hosts) {
    if (known.name != entry.name) continue;
    if (known.slots + entry.slots > kMaxSlots)
      return entry.origin + ": '" + entry.name + "' has more than " + std::to_string(kMaxSlots) + " slots in all";
    known.slots += entry.slots;
    known.slots_given = known.slots_given || entry.slots_given;
    if (entry.max_slots != 0) known.max_slots = entry.max_slots;
    if (known.max_slots != 0 && known.max_slots < known.slots)
      return entry.origin + ": '" + entry.name + "' has " + std::to_string(known.slots) + " slots in all (first at " +
             known.origin + "), above max_slots=" + std::to_string(known.max_slots);
    return "";
  }
  hosts.push_back(entry);
  return "";
}

HostListResult parse_hostfile(std::string_view text, std::string_view file_name) {
  HostListResult result;
  int line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    std::string origin = std::string(file_name) + ":" + std::to_string(line_number);
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    HostEntry entry;
    entry.origin = origin;
    std::string error = parse_line(line, entry);
    if (error.empty()) error = add_host(result.hosts, entry);
    else error = origin + ": " + error;
    if (!error.empty()) return {{}, error};
  }
  if (result.hosts.empty()) return {{}, std::string(file_name) + ": names no host"};
  return result;
}

HostListResult read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {{}, "cannot read hostfile '" + path + "': " + std::strerror(errno)};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return {{}, "cannot read hostfile '" + path + "': " + std::strerror(errno)};
  return parse_hostfile(text.str(), path);
}

HostListResult parse_host_option(std::string_view spec) {
  HostListResult result;
  size_t start = 0;
  while (true) {
    size_t comma = spec.find(',', start);
    std::string_view item = trim(spec.substr(start, comma == std::string_view::npos ? spec.npos : comma - start));
    if (item.empty()) return {{}, "-H '" + std::string(spec) + "' has an empty host name"};
    HostEntry entry;
    entry.origin = "-H";
    if (std::string error = split_host(item, entry); !error.empty())
      return {{}, "-H '" + std::string(spec) + "': " + error};
    if (std::string error = add_host(result.hosts, entry); !error.empty()) return {{}, error};
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return result;
}

}  // namespace ferry::hosts
