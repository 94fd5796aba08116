// What a remote start reads back: the first line the command prints on
// stdout (a node daemon prints one line once it is reachable, then
// detaches), and its stderr, kept for the message when no line comes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "launcher/start/deadline.h"

namespace ferry::launcher {

class FirstLine {
 public:
  // Output as it arrives; true once a whole line is in.
  bool add_stdout(std::string_view data);
  void add_stderr(std::string_view data);

  // Stdout ended: text without a final '\n' still counts as the line.
  void stdout_ended();

  bool complete() const { return complete_; }
  const std::string& line() const { return line_; }

  // The reason part of the message when stdout ended without a line:
  // "ferryd exited with status 127: bash: /x/ferryd: No such file or directory".
  // `who` names what ran ("ferryd", "launch agent 'ssh'"); no status: unknown.
  std::string ended_without_line(std::string_view who, std::optional<int> status) const;

  // ... and when the deadline passed first: "ferryd printed no line within 10 s".
  std::string no_line_within(std::string_view who, const Deadline& deadline) const;

 private:
  std::string stderr_excerpt() const;

  std::string pending_;
  std::string line_;
  std::string stderr_;
  bool complete_ = false;
};

}  // namespace ferry::launcher
