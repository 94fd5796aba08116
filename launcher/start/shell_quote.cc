#include "launcher/start/shell_quote.h"

namespace ferry::launcher {
namespace {

// Not '=': an unquoted "A=b" in the first word would be an assignment.
bool plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_-+.,:/@%").find(c) != std::string_view::npos;
}

}  // namespace

std::string shell_quote(std::string_view word) {
  bool needs_quotes = word.empty();
  for (char c : word) needs_quotes = needs_quotes || !plain(c);
  if (!needs_quotes) return std::string(word);
  // Inside single quotes nothing is special but the closing quote itself:
  // close, write an escaped quote, reopen.
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string command;
  for (const std::string& word : argv) {
    if (!command.empty()) command += ' ';
    command += shell_quote(word);
  }
  return command;
}

}  // namespace ferry::launcher
