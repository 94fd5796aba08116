// is_this_host(): whether a name in the host list means the host mpirun
// runs on, so that its ranks are started directly rather than over ssh.
// No DNS look-ups: a name known only to DNS or /etc/hosts (an alias) counts
// as another host and is reached over ssh, which works, only slower.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <optional>

#include "launcher/hosts/placement.h"

namespace ferry::launcher {
namespace {

std::string short_name(const std::string& name) { return name.substr(0, name.find('.')); }

// For a numeric address: whether it is a loopback address or one of a
// local interface. Nothing for a name.
std::optional<bool> is_local_address(const std::string& name) {
  in_addr v4;
  in6_addr v6;
  bool is_v4 = ::inet_pton(AF_INET, name.c_str(), &v4) == 1;
  bool is_v6 = !is_v4 && ::inet_pton(AF_INET6, name.c_str(), &v6) == 1;
  if (!is_v4 && !is_v6) return std::nullopt;
  if (is_v4 && (ntohl(v4.s_addr) >> 24) == 127) return true;
  if (is_v6 && IN6_IS_ADDR_LOOPBACK(&v6)) return true;

  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return false;
  bool found = false;
  for (ifaddrs* ifa = list; ifa != nullptr && !found; ifa = ifa->ifa_next) {
    if (ifa->ifa_addr == nullptr) continue;
    if (is_v4 && ifa->ifa_addr->sa_family == AF_INET) {
      found = reinterpret_cast<sockaddr_in*>(ifa->ifa_addr)->sin_addr.s_addr == v4.s_addr;
    } else if (is_v6 && ifa->ifa_addr->sa_family == AF_INET6) {
      found = std::memcmp(&reinterpret_cast<sockaddr_in6*>(ifa->ifa_addr)->sin6_addr, &v6, sizeof v6) == 0;
    }
  }
  ::freeifaddrs(list);
  return found;
}

}  // namespace

bool is_this_host(const std::string& name) {
  if (name.empty()) return false;
  if (name == "localhost") return true;
  if (std::optional<bool> local = is_local_address(name)) return *local;
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof buffer - 1) != 0) return false;
  std::string hostname = buffer;
  // Short or full, either way round ("n1" and "n1.cluster"), as Open MPI
  // compares host names without their domains.
  return name == hostname || short_name(name) == short_name(hostname);
}

}  // namespace ferry::launcher
