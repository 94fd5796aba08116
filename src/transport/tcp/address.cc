#include "transport/tcp/address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ferry::transport::tcp {
namespace {

bool is_loopback(const sockaddr* sa) {
  if (sa->sa_family == AF_INET)
    return (ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr) >> 24) == 127;
  if (sa->sa_family == AF_INET6)
    return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
  return false;
}

std::optional<Endpoint> parse_endpoint(const std::string& text) {
  Endpoint e;
  std::string host;
  std::string port;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') return std::nullopt;
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
    auto* a = reinterpret_cast<sockaddr_in6*>(&e.address);
    a->sin6_family = AF_INET6;
    if (inet_pton(AF_INET6, host.c_str(), &a->sin6_addr) != 1) return std::nullopt;
    a->sin6_port = htons(static_cast<uint16_t>(std::atoi(port.c_str())));
    e.length = sizeof(sockaddr_in6);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string::npos) return std::nullopt;
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    auto* a = reinterpret_cast<sockaddr_in*>(&e.address);
    a->sin_family = AF_INET;
    if (inet_pton(AF_INET, host.c_str(), &a->sin_addr) != 1) return std::nullopt;
    a->sin_port = htons(static_cast<uint16_t>(std::atoi(port.c_str())));
    e.length = sizeof(sockaddr_in);
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::atoi(port.c_str()) <= 0 || std::atoi(port.c_str()) > 65535)
    return std::nullopt;
  e.loopback = is_loopback(reinterpret_cast<const sockaddr*>(&e.address));
  return e;
}

}  // namespace

std::string Endpoint::text() const {
  char host[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    auto* a = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(a->sin_port));
  }
  auto* a = reinterpret_cast<const sockaddr_in6*>(&address);
  inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
  return "[" + std::string(host) + "]:" + std::to_string(ntohs(a->sin6_port));
}

int listen_any(int* port, std::string* error) {
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (fd >= 0) {
    int off = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_any;
    len = sizeof(sockaddr_in6);
  } else {
    // No IPv6 in this kernel: IPv4 only.
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      *error = std::string("socket: ") + std::strerror(errno);
      return -1;
    }
    auto* a = reinterpret_cast<sockaddr_in*>(&addr);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_ANY);
    len = sizeof(sockaddr_in);
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(fd, SOMAXCONN) != 0) {
    *error = std::string("bind/listen: ") + std::strerror(errno);
    close(fd);
    return -1;
  }
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    *error = std::string("getsockname: ") + std::strerror(errno);
    close(fd);
    return -1;
  }
  *port = addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                     : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return fd;
}

std::vector<Endpoint> local_endpoints(int port, const std::string& interface_filter) {
  std::vector<Endpoint> result;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return result;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || !(i->ifa_flags & IFF_UP)) continue;
    int family = i->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    Endpoint e;
    if (family == AF_INET) {
      std::memcpy(&e.address, i->ifa_addr, sizeof(sockaddr_in));
      reinterpret_cast<sockaddr_in*>(&e.address)->sin_port = htons(static_cast<uint16_t>(port));
      e.length = sizeof(sockaddr_in);
    } else {
      auto* a6 = reinterpret_cast<const sockaddr_in6*>(i->ifa_addr);
      // Link-local addresses need a scope id that means nothing on another host.
      if (IN6_IS_ADDR_LINKLOCAL(&a6->sin6_addr)) continue;
      std::memcpy(&e.address, a6, sizeof(sockaddr_in6));
      reinterpret_cast<sockaddr_in6*>(&e.address)->sin6_port = htons(static_cast<uint16_t>(port));
      e.length = sizeof(sockaddr_in6);
    }
    e.loopback = is_loopback(reinterpret_cast<sockaddr*>(&e.address));
    if (!interface_filter.empty() && !e.loopback) {
      std::string text = e.text();
      std::string host = text.substr(0, text.rfind(':'));
      if (interface_filter != i->ifa_name && interface_filter != host &&
          "[" + interface_filter + "]" != host)
        continue;
    }
    result.push_back(e);
  }
  freeifaddrs(list);
  return result;
}

std::string make_card(const std::string& hostname, const std::vector<Endpoint>& endpoints) {
  std::string card = "host=" + hostname + ";tcp=";
  for (size_t i = 0; i < endpoints.size(); ++i) {
    if (i > 0) card += ',';
    card += endpoints[i].text();
  }
  return card;
}

bool parse_card(const std::string& card, std::string* hostname, std::vector<Endpoint>* endpoints) {
  endpoints->clear();
  size_t start = 0;
  while (start < card.size()) {
    size_t end = card.find(';', start);
    if (end == std::string::npos) end = card.size();
    std::string field = card.substr(start, end - start);
    if (field.rfind("host=", 0) == 0) {
      *hostname = field.substr(5);
    } else if (field.rfind("tcp=", 0) == 0) {
      std::string list = field.substr(4);
      size_t s = 0;
      while (s < list.size()) {
        size_t e = list.find(',', s);
        if (e == std::string::npos) e = list.size();
        auto ep = parse_endpoint(list.substr(s, e - s));
        if (!ep) return false;
        endpoints->push_back(*ep);
        s = e + 1;
      }
    }
    start = end + 1;
  }
  return !endpoints->empty();
}

bool same_host_connection(int fd) {
  sockaddr_storage local{};
  sockaddr_storage remote{};
  socklen_t local_length = sizeof local;
  socklen_t remote_length = sizeof remote;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length) != 0 ||
      getpeername(fd, reinterpret_cast<sockaddr*>(&remote), &remote_length) != 0 ||
      local.ss_family != remote.ss_family)
    return false;
  if (local.ss_family == AF_INET)
    return reinterpret_cast<sockaddr_in*>(&local)->sin_addr.s_addr ==
           reinterpret_cast<sockaddr_in*>(&remote)->sin_addr.s_addr;
  if (local.ss_family == AF_INET6)
    return IN6_ARE_ADDR_EQUAL(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr,
                              &reinterpret_cast<sockaddr_in6*>(&remote)->sin6_addr);
  return false;
}

std::optional<Endpoint> choose_endpoint(const std::vector<Endpoint>& endpoints, bool same_host, Family family) {
  auto family_ok = [family](const Endpoint& e) {
    if (family == Family::kIpv4) return e.address.ss_family == AF_INET;
    if (family == Family::kIpv6) return e.address.ss_family == AF_INET6;
    return true;
  };
  // Auto prefers IPv4, the family every cluster network has.
  for (int pass = 0; pass < 2; ++pass) {
    for (const Endpoint& e : endpoints) {
      if (!family_ok(e) || e.loopback != same_host) continue;
      if (family == Family::kAuto && pass == 0 && e.address.ss_family != AF_INET) continue;
      return e;
    }
  }
  // A peer on our host that published no loopback address (an interface
  // filter) is still reachable through its other addresses.
  for (const Endpoint& e : endpoints)
    if (family_ok(e) && (same_host || !e.loopback)) return e;
  return std::nullopt;
}

}  // namespace ferry::transport::tcp
