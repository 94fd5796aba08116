#include "launcher/ranks/file_limit.h"

namespace ferry::launcher {

std::string fit_file_limit(const std::string& who, int ranks, int links, std::optional<rlimit>* original) {
  rlimit lim;
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return "";
  rlim_t needed = rlim_t(ranks) * 4 + rlim_t(links) + 64;
  if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= needed) return "";
  if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < needed)
    return who + ": " + std::to_string(ranks) + " ranks need about " + std::to_string(needed) +
           " open files, but the limit (ulimit -Hn) is " + std::to_string(lim.rlim_max);
  *original = lim;
  rlimit raised = lim;
  raised.rlim_cur = needed;
  if (::setrlimit(RLIMIT_NOFILE, &raised) != 0)
    return who + ": cannot raise the open files limit to " + std::to_string(needed);
  return "";
}

}  // namespace ferry::launcher
