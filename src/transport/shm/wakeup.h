// How a rank that sleeps in the kernel is woken by its same-host peers.
//
// Shared memory has no file descriptor of its own, so each rank makes one: a
// named pipe (FIFO) next to its segment, whose read end joins the progress
// engine's epoll set beside the TCP sockets and the threads' eventfd. One
// epoll_wait then sleeps until any transport has work. (A futex on the
// segment would be cheaper to wake, but cannot be waited on together with
// sockets; an eventfd cannot be shared between processes that the launcher
// started separately without pidfd_getfd, which needs ptrace rights.)
//
// Peers write a byte into the pipe only when its owner sleeps, so the fast
// path has no system call. The protocol, a Dekker-style handshake between
// the owner's `sleepers` and the ring positions, both in shared memory:
//
//   owner (going to sleep)                 peer (after publishing bytes into a
//                                          ring of the owner, or freeing space
//                                          the owner waits for)
//   sleepers += 1                          store head (or tail)
//   fence::heavy (membarrier)              fence::light (compiler barrier)
//   re-check the rings: work? -> undo      sleepers != 0 and rung 0 -> 1?
//   epoll_wait (pipe, sockets, ...)          -> write one byte into the pipe
//   drain the pipe; rung = 0; sleepers -= 1
//
// With the fences (transport/shm/fence.h), either the peer sees sleepers != 0, or
// the owner's re-check sees the bytes (or space): no wake-up is lost. `rung`
// keeps a burst of peers to one byte per sleep. A peer that saw rung == 1
// from the previous sleep skips its byte, but its data precedes that
// exchange, which precedes the owner's `rung = 0`, which precedes the
// owner's next heavy fence: the re-check before the next sleep sees the data.
//
// Every process opens the pipe read-write, so it always has a reader and a
// write never raises SIGPIPE, even to a rank that has already exited.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "transport/shm/ring.h"

namespace ferry::transport::shm {

// In the owner's segment, on a line of its own.
struct WakeWord {
  alignas(kCacheLine) std::atomic<uint32_t> sleepers;  // owner's threads asleep or about to be
  std::atomic<uint32_t> rung;                           // a byte is (being) written and not yet drained
  uint32_t asymmetric;  // the owner sleeps with fence::heavy() as membarrier (set before peers attach)
};
static_assert(std::atomic<uint32_t>::is_always_lock_free, "the wake word is shared between processes");

// The owner's end: the pipe it sleeps on.
class Doorbell {
 public:
  Doorbell() = default;
  ~Doorbell();
  Doorbell(const Doorbell&) = delete;
  Doorbell& operator=(const Doorbell&) = delete;

  // Makes the pipe at `path` and opens it.
  bool create(const std::string& path, WakeWord* word, std::string* error);
  // Removes the name (peers keep their descriptors).
  void unlink();
  int fd() const { return fd_; }

  // Announces a sleep; the caller must re-check for work afterwards and, if
  // it sleeps, call woke() when it returns (either way, exactly once).
  void arm();
  // After a sleep (slept: epoll_wait ran with a timeout) or an aborted one.
  void woke(bool slept);

 private:
  WakeWord* word_ = nullptr;
  int fd_ = -1;
  std::string path_;  // while the name is linked
};

// A peer's end: rings the owner if it sleeps.
class Bell {
 public:
  Bell() = default;
  ~Bell();
  Bell(const Bell&) = delete;
  Bell& operator=(const Bell&) = delete;
  Bell(Bell&& other) noexcept { *this = std::move(other); }
  Bell& operator=(Bell&& other) noexcept;

  // With `keep_open`, the pipe stays open for every ring; without, each
  // ring opens it, writes and closes it again (a rank keeps a bounded
  // number of bells open, so that its descriptors do not grow with the
  // job: a rank may have to wake every peer on the host).
  bool open(const std::string& path, WakeWord* word, bool keep_open, std::string* error);
  // Whether fence::light() toward this owner may be a compiler barrier.
  bool asymmetric() const { return asymmetric_; }
  // Call after fence::light() that follows the store the owner waits for.
  void ring_if_asleep() {
    if (word_->sleepers.load(std::memory_order_relaxed) != 0) ring();
  }

 private:
  void ring();
  WakeWord* word_ = nullptr;
  int fd_ = -1;
  std::string path_;  // opened at each ring when fd_ is not kept
  bool asymmetric_ = false;
};

}  // namespace ferry::transport::shm
