#include "rma/doorbell.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "common/config.h"
#include "common/debug.h"
#include "progress/progress.h"
#include "progress/source.h"
#include "rma/active_message.h"
#include "rma/create.h"
#include "transport/tcp/address.h"

namespace ferry::rma::doorbell {
namespace {

// After the last event, the rung thread keeps polling this long: the next
// request of an origin's epoch (the put after a lock's grant, the unlock
// after the put) arrives within a round trip.
constexpr long long kLingerUs = 500;
// Polls between two looks at the origins' unanswered operations, for waits
// that never sleep (FERRY_WAIT=spin, or other traffic that keeps coming).
constexpr unsigned kPollsPerLook = 16384;

int sock = -1;
int stop_fd = -1;
bool opened = false;
bool failed = false;
Address self;
std::thread* thread = nullptr;
std::atomic<bool> stopping{false};
std::vector<Service*> services;  // engine lock

// Runs the progress engine for the services until it is quiet, or until a
// program thread wants the engine (it progresses from then on).
void serve() {
  progress::Lock lock;
  long long quiet_since = progress::now_us();
  for (;;) {
    int events = progress::poll();
    if (progress::contenders.load(std::memory_order_relaxed) > 0) return;
    long long now = progress::now_us();
    if (events > 0) quiet_since = now;
    else if (now - quiet_since >= kLingerUs) return;
  }
}

void run() {
  // Signals are the program's: they go to its threads, never here.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  pollfd fds[2] = {{sock, POLLIN, 0}, {stop_fd, POLLIN, 0}};
  while (!stopping.load(std::memory_order_acquire)) {
    if (::poll(fds, 2, -1) < 0) continue;  // EINTR
    if (fds[1].revents != 0) break;
    if (fds[0].revents == 0) continue;
    char drain[64];
    while (recv(sock, drain, sizeof drain, MSG_DONTWAIT) > 0) {
    }
    serve();
  }
}

// Asked before this process sleeps waiting, and every kPollsPerLook polls.
class Ringer final : public progress::Source {
 public:
  int progress() override {
    if (services.empty() || ++polls_ % kPollsPerLook != 0) return 0;
    for (Service* s : services) s->ring_overdue();
    return 0;
  }
  bool arm_wakeup() override {
    for (Service* s : services) s->ring_overdue();
    return true;
  }

 private:
  unsigned polls_ = 0;
};

Ringer ringer;
bool ringer_added = false;

// A UDP socket on every address, dual-stack where the kernel has IPv6.
int open_socket(bool* v6) {
  int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd >= 0) {
    int off = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    sockaddr_in6 any{};
    any.sin6_family = AF_INET6;
    any.sin6_addr = in6addr_any;
    if (bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof any) == 0) {
      *v6 = true;
      return fd;
    }
    ::close(fd);
  }
  fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof any) != 0) {
    ::close(fd);
    return -1;
  }
  *v6 = false;
  return fd;
}

int port_of(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return -1;
  return a.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port)
                                 : ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
}

}  // namespace

bool open(Address* mine) {
  if (!opened && !failed) {
    failed = true;  // until it works
    if (config::value("FERRY_RMA_PROGRESS") == "thread") {
      bool v6 = false;
      sock = open_socket(&v6);
      int port = sock >= 0 ? port_of(sock) : -1;
      stop_fd = eventfd(0, EFD_CLOEXEC);
      if (port > 0 && stop_fd >= 0) {
        // Every up interface's address (or FERRY_TCP_INTERFACE's), as the
        // TCP transport publishes its own, so that another host picks one
        // it reaches and this machine's processes use loopback.
        self.machine = machine_key();
        for (const transport::tcp::Endpoint& e :
             transport::tcp::local_endpoints(port, config::value("FERRY_TCP_INTERFACE"))) {
          if (self.count == 4) break;
          if (!v6 && e.address.ss_family != AF_INET) continue;
          auto& slot = self.endpoints[self.count++];
          std::memcpy(&slot.address, &e.address, sizeof e.address);
          slot.length = e.length;
          slot.loopback = e.loopback ? 1 : 0;
        }
      }
      if (self.count > 0) {
        // From here on another thread of ours may run the engine.
        progress::enable_locking();
        thread = new std::thread(run);
        opened = true;
        failed = false;
        FERRY_DEBUG(kRma, "doorbell: UDP port %d, %u addresses; a thread serves rung requests", port, self.count);
      } else {
        FERRY_DEBUG(kRma, "doorbell: none (no socket or no address); the target serves in its MPI calls only");
        if (sock >= 0) ::close(sock);
        if (stop_fd >= 0) ::close(stop_fd);
        sock = stop_fd = -1;
        self = Address();
      }
    }
  }
  *mine = self;
  return opened;
}

Bell resolve(const Address& peer) {
  Bell b;
  if (peer.count == 0 || !opened) return b;
  std::vector<transport::tcp::Endpoint> list;
  for (uint32_t i = 0; i < std::min<uint32_t>(peer.count, 4); ++i) {
    transport::tcp::Endpoint e;
    std::memcpy(&e.address, &peer.endpoints[i].address, sizeof e.address);
    e.length = static_cast<socklen_t>(peer.endpoints[i].length);
    e.loopback = peer.endpoints[i].loopback != 0;
    list.push_back(e);
  }
  auto chosen = transport::tcp::choose_endpoint(list, peer.machine == self.machine, transport::tcp::Family::kAuto);
  if (!chosen) return b;
  b.address = chosen->address;
  b.length = chosen->length;
  return b;
}

void ring(const Bell& bell) {
  if (bell.length == 0 || sock < 0) return;
  char one = 1;
  ssize_t ignored = sendto(sock, &one, 1, MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&bell.address), bell.length);
  (void)ignored;
}

void add_service(Service* s) {
  if (!ringer_added) {
    progress::add_source(&ringer);
    ringer_added = true;
  }
  services.push_back(s);
}

void remove_service(Service* s) { services.erase(std::remove(services.begin(), services.end(), s), services.end()); }

void close() {
  if (thread != nullptr) {
    stopping.store(true, std::memory_order_release);
    uint64_t one = 1;
    ssize_t ignored = write(stop_fd, &one, sizeof one);
    (void)ignored;
    thread->join();
    delete thread;
    thread = nullptr;
  }
  if (sock >= 0) ::close(sock);
  if (stop_fd >= 0) ::close(stop_fd);
  sock = stop_fd = -1;
  // Finalize drops the engine's sources; a later initialization (sessions)
  // starts over.
  services.clear();
  ringer_added = false;
  opened = failed = false;
  self = Address();
  stopping.store(false, std::memory_order_relaxed);
}

}  // namespace ferry::rma::doorbell
