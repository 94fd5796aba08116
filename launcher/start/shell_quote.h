// Quoting for a POSIX shell on the remote host: ssh runs a command as one
// string that the user's login shell parses, so every word is quoted here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ferry::launcher {

// The word unchanged when it holds only characters no shell treats
// specially, else in single quotes with each ' written as '\''.
std::string shell_quote(std::string_view word);

// The words quoted and joined with spaces.
std::string shell_command(const std::vector<std::string>& argv);

}  // namespace ferry::launcher
