#include "launcher/start/first_line.h"

namespace ferry::launcher {
namespace {

// Enough for the first lines of any error message; the rest is not shown.
constexpr size_t kStderrKept = 4096;
constexpr size_t kExcerptLines = 2;

std::string_view trim(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

}  // namespace

bool FirstLine::add_stdout(std::string_view data) {
  if (complete_) return true;
  pending_.append(data);
  size_t newline = pending_.find('\n');
  if (newline == std::string::npos) return false;
  line_ = pending_.substr(0, newline);
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  complete_ = true;
  return true;
}

void FirstLine::add_stderr(std::string_view data) {
  if (stderr_.size() >= kStderrKept) return;
  stderr_.append(data.substr(0, kStderrKept - stderr_.size()));
}

void FirstLine::stdout_ended() {
  if (complete_ || pending_.empty()) return;
  line_ = pending_;
  complete_ = true;
}

// The first lines of stderr that say something, trimmed and joined, so that
// the message stays one line.
std::string FirstLine::stderr_excerpt() const {
  std::string excerpt;
  size_t lines = 0;
  std::string_view rest = stderr_;
  while (!rest.empty() && lines < kExcerptLines) {
    size_t newline = rest.find('\n');
    std::string_view line = trim(rest.substr(0, newline));
    rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
    if (line.empty()) continue;
    if (!excerpt.empty()) excerpt += " / ";
    excerpt.append(line);
    ++lines;
  }
  return excerpt;
}

std::string FirstLine::ended_without_line(std::string_view who, std::optional<int> status) const {
  std::string message(who);
  if (status) {
    message += " exited with status " + std::to_string(*status);
  } else {
    message += " ended";
  }
  std::string excerpt = stderr_excerpt();
  if (!excerpt.empty()) return message + ": " + excerpt;
  return message + " without printing a line";
}

std::string FirstLine::no_line_within(std::string_view who, const Deadline& deadline) const {
  std::string message = std::string(who) + " printed no line within " + deadline.text();
  std::string excerpt = stderr_excerpt();
  if (!excerpt.empty()) message += " (stderr: " + excerpt + ")";
  return message;
}

}  // namespace ferry::launcher
