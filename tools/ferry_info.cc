// ferry_info: lists every FERRY_* setting with its current value, default
// and doc string, in the spirit of MPICH's mpivars. The settings come from the
// one registry in common/config.cc, so this list cannot drift from the code.
//
//   ferry_info             aligned table for a terminal
//   ferry_info --markdown  the table in the README
//
// Exits 1 when the environment holds a FERRY_* variable that the runtime would
// reject (a typo, a malformed number), after printing the table.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"

namespace {

using ferry::config::Setting;

// Width of the description column before it wraps; the whole line stays
// within about 120 columns with the current setting names.
constexpr size_t kDocWidth = 64;

std::string shown(std::string_view value) { return value.empty() ? "\"\"" : std::string(value); }

// Splits a doc string into lines of at most `width` characters, at spaces.
std::vector<std::string> wrap(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    start = end + 1;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

void print_table() {
  size_t name_w = std::strlen("NAME"), value_w = std::strlen("VALUE"), default_w = std::strlen("DEFAULT");
  for (const Setting& s : ferry::config::all_settings()) {
    name_w = std::max(name_w, s.name.size());
    value_w = std::max(value_w, shown(ferry::config::value(s.name)).size());
    default_w = std::max(default_w, shown(s.default_value).size());
  }
  std::printf("Ferry %s settings (environment variables; VALUE is what a program started now would use)\n\n",
              FERRY_VERSION);
  std::printf("%-*s  %-*s  %-*s  %s\n", int(name_w), "NAME", int(value_w), "VALUE", int(default_w), "DEFAULT",
              "DESCRIPTION");
  for (const Setting& s : ferry::config::all_settings()) {
    std::string value = shown(ferry::config::value(s.name));
    std::string def = shown(s.default_value);
    std::vector<std::string> doc = wrap(s.doc, kDocWidth);
    std::printf("%-*.*s  %-*s  %-*s  %s\n", int(name_w), int(s.name.size()), s.name.data(), int(value_w),
                value.c_str(), int(default_w), def.c_str(), doc[0].c_str());
    for (size_t i = 1; i < doc.size(); ++i)
      std::printf("%*s%s\n", int(name_w + value_w + default_w + 6), "", doc[i].c_str());
  }
}

// Markdown has no escape for '|' inside code spans in every renderer, and the
// doc strings contain none; defaults are shown as code.
void print_markdown() {
  std::printf("| Variable | Default | Description |\n|---|---|---|\n");
  for (const Setting& s : ferry::config::all_settings()) {
    std::string def = s.default_value.empty() ? "(empty)" : "`" + std::string(s.default_value) + "`";
    std::printf("| `%.*s` | %s | %.*s |\n", int(s.name.size()), s.name.data(), def.c_str(), int(s.doc.size()),
                s.doc.data());
  }
}

void usage(FILE* out) {
  std::fprintf(out,
               "Usage: ferry_info [--markdown]\n"
               "Lists Ferry's settings (FERRY_* environment variables): current value, default, description.\n"
               "  --markdown  print the table as Markdown (the README's table)\n");
}

}  // namespace

int main(int argc, char** argv) {
  bool markdown = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--markdown") {
      markdown = true;
    } else if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "ferry_info: unknown argument %s\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }

  if (markdown)
    print_markdown();
  else
    print_table();

  if (auto problem = ferry::config::validate()) {
    std::fprintf(stderr, "ferry_info: %s\n", problem->c_str());
    return 1;
  }
  return 0;
}
