#include "launcher/ranks/training_environment.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

namespace ferry::launcher {
namespace {

constexpr std::string_view kNames[] = {
    "RANK",          "LOCAL_RANK",      "WORLD_SIZE", "LOCAL_WORLD_SIZE",           "GROUP_RANK",
    "GROUP_WORLD_SIZE", "ROLE_RANK",    "ROLE_WORLD_SIZE", "ROLE_NAME",             "MASTER_ADDR",
    "MASTER_PORT",   "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID"};

void set_unless_given(Environment& env, std::string_view name, const std::string& value) {
  if (!env.get(name)) env.set(name, value);
}

std::string numeric(const sockaddr* address, socklen_t length) {
  char host[NI_MAXHOST];
  if (::getnameinfo(address, length, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0) return "";
  std::string s = host;
  // An IPv4 address through a dual-stack socket reads ::ffff:a.b.c.d.
  if (s.rfind("::ffff:", 0) == 0 && s.find('.') != std::string::npos) s.erase(0, 7);
  return s;
}

// The host's addresses, IPv4 first (what a training script's TCPStore
// client will try), or nullptr with `error` set.
addrinfo* resolve(const std::string& host, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0) {
    *error = "host " + host + " does not resolve (" + ::gai_strerror(rc) + ")";
    return nullptr;
  }
  return found;
}

const addrinfo* first_ipv4_else_any(const addrinfo* list) {
  for (const addrinfo* a = list; a != nullptr; a = a->ai_next)
    if (a->ai_family == AF_INET) return a;
  return list;
}

}  // namespace

void add_training_variables(Environment& env, const RankPosition& where, const TrainingPlace& place,
                            const TrainingJob& job) {
  if (!job.enabled) return;
  const std::string rank = std::to_string(where.rank), size = std::to_string(where.size);
  set_unless_given(env, "RANK", rank);
  set_unless_given(env, "LOCAL_RANK", std::to_string(where.local_rank));
  set_unless_given(env, "WORLD_SIZE", size);
  set_unless_given(env, "LOCAL_WORLD_SIZE", std::to_string(where.local_size));
  set_unless_given(env, "GROUP_RANK", std::to_string(place.group_rank));
  set_unless_given(env, "GROUP_WORLD_SIZE", std::to_string(job.num_hosts));
  // torchrun's single role: every worker is "default".
  set_unless_given(env, "ROLE_RANK", rank);
  set_unless_given(env, "ROLE_WORLD_SIZE", size);
  set_unless_given(env, "ROLE_NAME", "default");
  if (!job.master_addr.empty()) set_unless_given(env, "MASTER_ADDR", job.master_addr);
  if (job.master_port > 0) set_unless_given(env, "MASTER_PORT", std::to_string(job.master_port));
  set_unless_given(env, "TORCHELASTIC_RESTART_COUNT", std::to_string(job.restart_count));
  set_unless_given(env, "TORCHELASTIC_MAX_RESTARTS", std::to_string(job.max_restarts));
  set_unless_given(env, "TORCHELASTIC_RUN_ID", job.run_id);
}

bool is_training_variable(std::string_view name) {
  for (std::string_view n : kNames)
    if (n == name) return true;
  return false;
}

std::string choose_master_addr(const std::string& rank0_host, const std::string& other_host, std::string* error) {
  if (rank0_host.empty() && other_host.empty()) return "127.0.0.1";
  if (!rank0_host.empty()) {
    addrinfo* found = resolve(rank0_host, error);
    if (found == nullptr) return "";
    const addrinfo* a = first_ipv4_else_any(found);
    std::string address = numeric(a->ai_addr, a->ai_addrlen);
    ::freeaddrinfo(found);
    if (address.empty()) *error = "host " + rank0_host + " has no numeric address";
    return address;
  }
  // Rank 0 is here: the source address the kernel picks for the route to
  // another host of the job is one that host can answer (a UDP connect sends
  // nothing).
  addrinfo* found = resolve(other_host, error);
  if (found == nullptr) return "";
  const addrinfo* a = first_ipv4_else_any(found);
  std::string address;
  int fd = ::socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    sockaddr_storage target{};
    std::memcpy(&target, a->ai_addr, a->ai_addrlen);
    if (a->ai_family == AF_INET) reinterpret_cast<sockaddr_in*>(&target)->sin_port = htons(9);
    else reinterpret_cast<sockaddr_in6*>(&target)->sin6_port = htons(9);
    sockaddr_storage self{};
    socklen_t length = sizeof self;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&target), a->ai_addrlen) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &length) == 0)
      address = numeric(reinterpret_cast<sockaddr*>(&self), length);
    else
      *error = "no route from this host to " + other_host + " (" + std::strerror(errno) + ")";
    ::close(fd);
  } else {
    *error = std::string("socket: ") + std::strerror(errno);
  }
  ::freeaddrinfo(found);
  return address;
}

namespace {

// The kernel's range for ports it hands to outgoing connections and to bind(0): 32768-60999 by
// default (/proc/sys/net/ipv4/ip_local_port_range).
void ephemeral_range(int* low, int* high) {
  *low = 32768, *high = 60999;
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int l = 0, h = 0;
  if (in >> l >> h && l > 1024 && h >= l) *low = l, *high = h;
}

}  // namespace

int pick_free_port(std::string* error) {
  // Below the ephemeral range: a port the kernel hands out may already be, or soon become, the
  // local end of some outgoing connection on rank 0's host (its daemon's own connection back, on
  // a host other than mpirun's), and then rank 0 could not bind it. Ports below that range are
  // taken only by listeners that ask for them. A few random tries, then the kernel's choice.
  int low = 0, high = 0;
  ephemeral_range(&low, &high);
  std::random_device seed;
  std::minstd_rand pick(seed());
  const int first = 20000;
  for (int attempt = 0; attempt < 32 && low - first > 100; ++attempt) {
    int port = first + int(pick() % unsigned(low - first));
    std::string ignored;
    int fd = hold_port(port, &ignored);
    if (fd >= 0) {
      ::close(fd);
      return port;
    }
  }
  int fd = hold_port(0, error);
  if (fd < 0) return 0;
  sockaddr_storage self{};
  socklen_t length = sizeof self;
  int port = 0;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &length) == 0)
    port = ntohs(self.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&self)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&self)->sin_port);
  else
    *error = std::string("getsockname: ") + std::strerror(errno);
  ::close(fd);
  return port;
}

int hold_port(int port, std::string* error) {
  // The dual-stack socket covers IPv4 too; a host without IPv6 gets IPv4.
  int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    int off = 0;
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    sockaddr_in6 any{};
    any.sin6_family = AF_INET6;
    any.sin6_addr = in6addr_any;
    any.sin6_port = htons(uint16_t(port));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof any) == 0) return fd;
    int why = errno;
    ::close(fd);
    if (why == EADDRINUSE) {
      *error = "port " + std::to_string(port) + " is in use on this host";
      return -1;
    }
  }
  fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  any.sin_port = htons(uint16_t(port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof any) == 0) return fd;
  *error = errno == EADDRINUSE ? "port " + std::to_string(port) + " is in use on this host"
                               : "cannot bind port " + std::to_string(port) + ": " + std::strerror(errno);
  ::close(fd);
  return -1;
}

}  // namespace ferry::launcher
