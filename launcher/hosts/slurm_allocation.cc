#include "launcher/hosts/slurm_allocation.h"

#include <charconv>

namespace ferry::launcher {
namespace {

// A guard against a typo such as "n[1-1000000000]" filling memory.
constexpr size_t kMaxHosts = 100000;

bool parse_number(std::string_view text, unsigned long& value) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// The top-level commas of a hostlist: those outside brackets.
std::vector<std::string_view> split_outside_brackets(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    } else if (text[i] == '[') {
      ++depth;
    } else if (text[i] == ']') {
      --depth;
    }
  }
  return parts;
}

// "01-03,7" -> 01 02 03 7. Returns "" or what is wrong.
std::string expand_group(std::string_view group, std::vector<std::string>& out) {
  size_t start = 0;
  while (true) {
    size_t comma = group.find(',', start);
    std::string_view range = group.substr(start, comma == group.npos ? group.npos : comma - start);
    size_t dash = range.find('-');
    std::string_view lo_text = range.substr(0, dash);
    std::string_view hi_text = dash == range.npos ? lo_text : range.substr(dash + 1);
    unsigned long lo = 0, hi = 0;
    if (!parse_number(lo_text, lo) || !parse_number(hi_text, hi))
      return "'[" + std::string(group) + "]' has '" + std::string(range) + "', not a number or range N-M";
    if (hi < lo) return "the range '" + std::string(range) + "' runs backwards";
    if (hi - lo >= kMaxHosts) return "the range '" + std::string(range) + "' is too large";
    for (unsigned long n = lo; n <= hi; ++n) {
      std::string digits = std::to_string(n);
      if (digits.size() < lo_text.size()) digits.insert(0, lo_text.size() - digits.size(), '0');
      out.push_back(std::move(digits));
    }
    if (comma == group.npos) return "";
    start = comma + 1;
  }
}

// One name with bracket groups, e.g. "rack[1-2]-n[1-2]", appended to out.
std::string expand_name(std::string_view name, std::vector<std::string>& out) {
  std::vector<std::string> partial = {""};
  size_t i = 0;
  while (i < name.size()) {
    size_t open = name.find('[', i);
    std::string_view literal = name.substr(i, open == name.npos ? name.npos : open - i);
    if (literal.find(']') != std::string_view::npos) return "'" + std::string(name) + "' has a ']' without '['";
    for (std::string& p : partial) p += literal;
    if (open == name.npos) break;
    size_t close = name.find(']', open);
    if (close == name.npos) return "'" + std::string(name) + "' lacks a closing ']'";
    std::vector<std::string> values;
    std::string_view group = name.substr(open + 1, close - open - 1);
    if (group.find('[') != std::string_view::npos) return "'" + std::string(name) + "' nests brackets";
    if (std::string error = expand_group(group, values); !error.empty()) return error;
    if (partial.size() * values.size() > kMaxHosts) return "'" + std::string(name) + "' names too many hosts";
    std::vector<std::string> next;
    next.reserve(partial.size() * values.size());
    for (const std::string& p : partial)
      for (const std::string& v : values) next.push_back(p + v);
    partial = std::move(next);
    i = close + 1;
  }
  if (partial.front().empty()) return "an empty host name";
  if (out.size() + partial.size() > kMaxHosts) return "too many hosts";
  out.insert(out.end(), partial.begin(), partial.end());
  return "";
}

// SLURM_TASKS_PER_NODE: "2(x3),1" is 2 2 2 1. Returns "" or what is wrong.
std::string expand_counts(std::string_view text, std::vector<int>& out) {
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == text.npos ? text.npos : comma - start);
    std::string_view count = item;
    unsigned long repeat = 1;
    if (size_t paren = item.find('('); paren != std::string_view::npos) {
      count = item.substr(0, paren);
      std::string_view times = item.substr(paren + 1);
      if (!times.starts_with('x') || !times.ends_with(')') ||
          !parse_number(times.substr(1, times.size() - 2), repeat) || repeat == 0)
        return "'" + std::string(item) + "' is not N or N(xM)";
    }
    unsigned long n = 0;
    if (!parse_number(count, n) || n == 0 || n > (1u << 20))
      return "'" + std::string(item) + "' is not N or N(xM)";
    if (out.size() + repeat > kMaxHosts) return "too many counts";
    out.insert(out.end(), repeat, int(n));
    if (comma == text.npos) return "";
    start = comma + 1;
  }
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression, std::string& error) {
  std::vector<std::string> names;
  error.clear();
  if (expression.empty()) {
    error = "it is empty";
    return {};
  }
  for (std::string_view item : split_outside_brackets(expression)) {
    error = expand_name(item, names);
    if (!error.empty()) return {};
  }
  return names;
}

std::optional<hosts::HostListResult> slurm_allocation(const EnvironmentLookup& lookup) {
  const char* list_variable = "SLURM_JOB_NODELIST";
  std::optional<std::string> list = lookup(list_variable);
  if (!list) {
    list_variable = "SLURM_NODELIST";  // Slurm before 2.x; still set
    list = lookup(list_variable);
  }
  if (!list) return std::nullopt;

  hosts::HostListResult result;
  std::string error;
  std::vector<std::string> names = expand_hostlist(*list, error);
  if (!error.empty()) {
    result.error = std::string(list_variable) + " '" + *list + "': " + error;
    return result;
  }
  std::vector<int> counts(names.size(), 1);
  bool counts_given = false;
  if (std::optional<std::string> tasks = lookup("SLURM_TASKS_PER_NODE")) {
    counts.clear();
    counts_given = true;
    if (error = expand_counts(*tasks, counts); !error.empty()) {
      result.error = "SLURM_TASKS_PER_NODE '" + *tasks + "': " + error;
      return result;
    }
    if (counts.size() != names.size()) {
      result.error = "SLURM_TASKS_PER_NODE '" + *tasks + "' gives " + std::to_string(counts.size()) +
                     " counts for the " + std::to_string(names.size()) + " hosts of " + list_variable;
      return result;
    }
  }
  for (size_t i = 0; i < names.size(); ++i) {
    hosts::HostEntry entry;
    entry.name = names[i];
    entry.slots = counts[i];
    entry.slots_given = counts_given;
    entry.origin = list_variable;
    if (error = hosts::add_host(result.hosts, entry); !error.empty()) {
      result.error = error;
      return result;
    }
  }
  return result;
}

}  // namespace ferry::launcher
