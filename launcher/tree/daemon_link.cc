#include "launcher/tree/daemon_link.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "launcher/clock.h"

namespace ferry::launcher {
namespace {

constexpr size_t kReadSize = 64 * 1024;

std::string numeric_host(const sockaddr* sa, socklen_t len) {
  char host[NI_MAXHOST] = {};
  if (::getnameinfo(sa, len, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0) return "";
  return host;
}

}  // namespace

DaemonLink::DaemonLink(int fd) : fd_(fd) {}

DaemonLink::~DaemonLink() {
  if (fd_ >= 0) ::close(fd_);
}

void DaemonLink::send(const std::string& frame) {
  if (dead_) return;
  if (output_.empty()) {
    // The common case: the kernel takes it all, nothing is kept.
    ssize_t n = ::send(fd_, frame.data(), frame.size(), MSG_NOSIGNAL);
    if (n == ssize_t(frame.size())) return;
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      dead_ = true;
      return;
    }
    output_.assign(frame, n > 0 ? size_t(n) : 0);
    output_sent_ = 0;
    return;
  }
  output_ += frame;
}

bool DaemonLink::flush() {
  while (output_sent_ < output_.size()) {
    ssize_t n = ::send(fd_, output_.data() + output_sent_, output_.size() - output_sent_, MSG_NOSIGNAL);
    if (n > 0) {
      output_sent_ += size_t(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      return true;
    } else {
      dead_ = true;
      return false;
    }
  }
  output_.clear();
  output_sent_ = 0;
  return true;
}

bool DaemonLink::on_writable() { return !dead_ && flush(); }

bool DaemonLink::on_readable(const FrameHandler& handle) {
  if (dead_) return false;
  bool open = true;
  char buffer[kReadSize];
  for (;;) {
    ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n == 0) {
      open = false;
      break;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      open = false;
      break;
    }
    input_.append(buffer, size_t(n));
    if (size_t(n) < sizeof buffer) break;
  }
  // The frames that came before EOF are handed over all the same: a
  // daemon's last words (kError, kRankExited) arrive just before its link
  // closes, possibly in the same read.
  if (!open) dead_ = true;
  size_t start = 0;
  while (input_.size() - start >= wire::kFrameHeader) {
    const auto* p = reinterpret_cast<const unsigned char*>(input_.data() + start);
    uint32_t length = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    if (length == 0 || length > wire::kMaxFrame) {
      dead_ = true;
      return false;
    }
    if (input_.size() - start < 4 + size_t(length)) break;
    auto type = wire::Type(p[4]);
    handle(type, std::string_view(input_.data() + start + wire::kFrameHeader, length - 1));
    start += 4 + size_t(length);
  }
  input_.erase(0, start);
  return !dead_;
}

int listen_for_daemons(int* port) {
  int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_storage addr = {};
  socklen_t len;
  if (fd >= 0) {
    int off = 0;
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_any;
    len = sizeof(sockaddr_in6);
  } else {  // a kernel without IPv6
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error(std::string("socket: ") + strerror(errno));
    auto* a = reinterpret_cast<sockaddr_in*>(&addr);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_ANY);
    len = sizeof(sockaddr_in);
  }
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, SOMAXCONN) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::string reason = strerror(errno);
    ::close(fd);
    throw std::runtime_error("cannot listen for node daemons: " + reason);
  }
  *port = addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                     : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return fd;
}

std::vector<std::string> reachable_addresses(const std::string& preferred) {
  std::vector<std::string> v4, v6;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) == 0) {
    for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
      if (i->ifa_addr == nullptr || !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
      int family = i->ifa_addr->sa_family;
      if (family == AF_INET) {
        v4.push_back(numeric_host(i->ifa_addr, sizeof(sockaddr_in)));
      } else if (family == AF_INET6) {
        auto* a6 = reinterpret_cast<const sockaddr_in6*>(i->ifa_addr);
        if (IN6_IS_ADDR_LINKLOCAL(&a6->sin6_addr)) continue;
        v6.push_back(numeric_host(i->ifa_addr, sizeof(sockaddr_in6)));
      }
    }
    ::freeifaddrs(list);
  }
  std::vector<std::string> out;
  if (!preferred.empty()) out.push_back(preferred);
  for (auto* family : {&v4, &v6})
    for (const std::string& a : *family)
      if (!a.empty() && a != preferred) out.push_back(a);
  return out;
}

void tune_daemon_socket(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // A host that loses power sends no FIN: keepalive probes notice it in
  // about half a minute, and the link's end then ends the job.
  int idle = 15, interval = 5, count = 3;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

int connect_to_parent(const std::vector<std::string>& addresses, int port, int timeout_ms,
                      std::string* error) {
  // Every address at once: one that leads nowhere (an interface of
  // mpirun's host that this host cannot route to) must not hold up the
  // others for its whole timeout. The first to connect wins.
  struct Attempt {
    std::string address;
    int fd = -1;
    int error = 0;
  };
  std::vector<Attempt> attempts;
  for (const std::string& address : addresses) {
    Attempt a{address};
    addrinfo hints = {}, *found = nullptr;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    hints.ai_socktype = SOCK_STREAM;
    if (::getaddrinfo(address.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) {
      a.error = EINVAL;
    } else {
      a.fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (a.fd < 0) {
        a.error = errno;
      } else if (::connect(a.fd, found->ai_addr, found->ai_addrlen) != 0 && errno != EINPROGRESS) {
        a.error = errno;
        ::close(a.fd);
        a.fd = -1;
      }
      ::freeaddrinfo(found);
    }
    attempts.push_back(a);
  }
  double deadline = monotonic_ms() + timeout_ms;
  int winner = -1;
  for (;;) {
    std::vector<pollfd> waiting;
    std::vector<size_t> which;
    for (size_t i = 0; i < attempts.size(); ++i)
      if (attempts[i].fd >= 0) {
        waiting.push_back({attempts[i].fd, POLLOUT, 0});
        which.push_back(i);
      }
    double left = deadline - monotonic_ms();
    if (waiting.empty() || left <= 0) break;
    if (::poll(waiting.data(), waiting.size(), int(left) + 1) <= 0) continue;
    for (size_t k = 0; k < waiting.size() && winner < 0; ++k) {
      if (waiting[k].revents == 0) continue;
      Attempt& a = attempts[which[k]];
      socklen_t len = sizeof a.error;
      ::getsockopt(a.fd, SOL_SOCKET, SO_ERROR, &a.error, &len);
      if (a.error == 0) {
        winner = a.fd;
        a.fd = -1;
      } else {
        ::close(a.fd);
        a.fd = -1;
      }
    }
    if (winner >= 0) break;
  }
  std::string tried;
  for (Attempt& a : attempts) {
    if (a.fd >= 0) {
      ::close(a.fd);
      a.error = ETIMEDOUT;
    }
    if (winner < 0) tried += (tried.empty() ? "" : ", ") + a.address + " (" + strerror(a.error) + ")";
  }
  if (winner >= 0) {
    tune_daemon_socket(winner);
    return winner;
  }
  *error = "cannot reach mpirun's side on port " + std::to_string(port) + ": tried " +
           (tried.empty() ? std::string("no address") : tried);
  return -1;
}

std::string local_address_of(int fd) {
  sockaddr_storage addr = {};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "";
  std::string host = numeric_host(reinterpret_cast<sockaddr*>(&addr), len);
  // An IPv4 peer reached over the dual-stack socket shows as ::ffff:a.b.c.d.
  if (host.rfind("::ffff:", 0) == 0 && host.find('.') != std::string::npos) host = host.substr(7);
  return host;
}

}  // namespace ferry::launcher
