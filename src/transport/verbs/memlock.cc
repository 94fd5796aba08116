#include "transport/verbs/memlock.h"

#include <sys/resource.h>

namespace ferry::transport::verbs {
namespace {

std::string kib(size_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }

}  // namespace

bool check_memlock(size_t needed, std::string* error) {
  rlimit limit{};
  if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed)
    return true;
  *error = "the locked-memory limit (RLIMIT_MEMLOCK) is " + kib(limit.rlim_cur) +
           ", but the verbs transport pins at least " + kib(needed) +
           " for its receive and send buffers (more for registered message buffers). Raise it where the ranks "
           "start: `ulimit -l unlimited` in the shell (up to the hard limit, " +
           (limit.rlim_max == RLIM_INFINITY ? std::string("unlimited") : kib(limit.rlim_max)) +
           "), `* - memlock unlimited` in /etc/security/limits.conf for logins, LimitMEMLOCK=infinity for a "
           "systemd service (slurmd, sshd), or `docker run --ulimit memlock=-1`; or leave verbs out of "
           "FERRY_TRANSPORTS";
  return false;
}

}  // namespace ferry::transport::verbs
