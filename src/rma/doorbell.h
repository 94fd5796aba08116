// Passive target across hosts without the target (MPI-4.0 §12.5.3; README,
// "One-sided communication"). On one host an origin does the work itself;
// across hosts a target's service (rma/active_message.h) executes requests
// when the progress engine runs, and a target that computes without calling
// MPI runs it nowhere. The doorbell makes it run:
//
//   - Each process whose windows send active messages has one: a UDP socket
//     and one thread of Ferry's that sleeps on that socket and on nothing
//     else (no thread per peer, no polling; it is never woken by other
//     traffic).
//   - An origin rings a target's doorbell (one datagram) only when an
//     operation on it stays unanswered while the origin would go to sleep
//     waiting for it, that is after FERRY_SPIN_US of polling without news,
//     and again at most every millisecond while it stays unanswered. A
//     target inside MPI has answered long before; nothing on the origin's
//     path of an operation changes.
//   - The rung thread takes the engine lock and runs the progress engine, so
//     the services execute what has come, until nothing has moved for half a
//     millisecond (an origin's next request of an epoch comes within that)
//     or a program thread enters MPI and wants the engine; then it sleeps
//     again.
//
// Cost to the program: from the first such window on, its MPI calls take the
// engine lock as under MPI_THREAD_MULTIPLE (an uncontended mutex,
// progress::enable_locking). FERRY_RMA_PROGRESS=calls turns the doorbell off:
// a target then serves only inside its own MPI calls.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>

namespace ferry::rma {
class Service;
}

namespace ferry::rma::doorbell {

// Where a process's doorbell listens, as its window peers learn it (fixed
// size: allgathered at window creation). count 0: it has none.
struct Address {
  uint64_t machine = 0;  // the real machine (not the test split): loopback between its processes
  uint32_t count = 0;
  uint32_t reserved = 0;
  struct {
    sockaddr_storage address;
    uint32_t length;
    uint32_t loopback;
  } endpoints[4]{};
};

// Opens this process's doorbell and starts its thread (the first call;
// later ones give the same address). Must be called where this thread holds
// no engine Lock (window creation, outside any), because it turns the engine
// lock on for the rest of the run. False, with an empty address, under
// FERRY_RMA_PROGRESS=calls or when no socket can be had.
bool open(Address* mine);

// How to reach a peer's doorbell from here; length 0 when it has none or no
// endpoint suits.
struct Bell {
  sockaddr_storage address{};
  socklen_t length = 0;
};
Bell resolve(const Address& peer);

// One datagram; never blocks, never fails loudly (the next ring repeats it).
void ring(const Bell& bell);

// The services whose origins may have to ring (Service::ring_overdue),
// asked when this process is about to sleep waiting and every few thousand
// polls. Engine lock held.
void add_service(Service* s);
void remove_service(Service* s);

// MPI_Finalize: stops the thread. Holding no engine Lock.
void close();

}  // namespace ferry::rma::doorbell
