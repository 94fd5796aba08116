#include "launcher/start/tcp_connect.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace ferry::launcher {
namespace {

std::string numeric_host(const sockaddr* address, socklen_t length) {
  char host[NI_MAXHOST];
  if (::getnameinfo(address, length, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0) return "";
  return host;
}

std::string with_port(const sockaddr* address, socklen_t length, int port) {
  std::string host = numeric_host(address, length);
  if (address->sa_family == AF_INET6) host = "[" + host + "]";
  return host + ":" + std::to_string(port);
}

// strerror's text in lower case, as the middle of a message reads it.
std::string reason(int error) {
  std::string text = std::strerror(error);
  if (!text.empty()) text[0] = char(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

// A non-blocking connect bounded by poll: the kernel's own SYN retries would
// take minutes to give up on a host that drops packets.
int connect_within(const addrinfo* candidate, const Deadline& deadline, std::string* error) {
  int fd = ::socket(candidate->ai_family, candidate->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    candidate->ai_protocol);
  if (fd < 0) {
    *error = "cannot create a socket: " + reason(errno);
    return -1;
  }
  int rc = ::connect(fd, candidate->ai_addr, candidate->ai_addrlen);
  if (rc != 0 && errno != EINPROGRESS) {
    *error = reason(errno);
    ::close(fd);
    return -1;
  }
  if (rc != 0) {
    pollfd waiting{fd, POLLOUT, 0};
    int ready;
    do {
      ready = ::poll(&waiting, 1, deadline.remaining_ms());
    } while (ready < 0 && errno == EINTR);
    if (ready == 0) {
      *error = "no answer within " + deadline.text();
      ::close(fd);
      return -1;
    }
    int so_error = 0;
    socklen_t length = sizeof so_error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &length);
    if (ready < 0 || so_error != 0) {
      *error = reason(ready < 0 ? errno : so_error);
      ::close(fd);
      return -1;
    }
  }
  // libssh polls the socket itself; it expects the blocking mode it would have set.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string socket_address(int fd, bool peer) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  auto* raw = reinterpret_cast<sockaddr*>(&address);
  int rc = peer ? ::getpeername(fd, raw, &length) : ::getsockname(fd, raw, &length);
  // Not for a ProxyCommand's socket pair: no address there.
  if (rc != 0 || (raw->sa_family != AF_INET && raw->sa_family != AF_INET6)) return "";
  return numeric_host(raw, length);
}

}  // namespace

TcpConnection tcp_connect(const std::string& host, int port, const Deadline& deadline) {
  TcpConnection result;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* addresses = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &addresses);
  if (rc != 0) {
    result.unresolved = true;
    if (rc == EAI_NONAME || rc == EAI_NODATA || rc == EAI_FAIL) {
      result.error = "cannot resolve host name";
    } else {
      result.error = std::string("cannot resolve host name: ") + (rc == EAI_SYSTEM ? std::strerror(errno)
                                                                                   : ::gai_strerror(rc));
    }
    return result;
  }
  for (const addrinfo* candidate = addresses; candidate != nullptr; candidate = candidate->ai_next) {
    result.address = with_port(candidate->ai_addr, candidate->ai_addrlen, port);
    result.fd = connect_within(candidate, deadline, &result.error);
    if (result.fd >= 0 || deadline.passed()) break;
  }
  ::freeaddrinfo(addresses);
  if (result.fd >= 0) result.error.clear();
  return result;
}

std::string socket_peer_address(int fd) { return socket_address(fd, true); }
std::string socket_local_address(int fd) { return socket_address(fd, false); }

}  // namespace ferry::launcher
