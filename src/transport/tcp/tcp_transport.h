// The TCP transport: nonblocking sockets driven by one epoll set.
//
// Connections open lazily, on the first packet for a peer, so start-up cost
// does not grow with the job size. A pair of ranks shares one connection for
// both directions: the rank that sends first connects, and the other adopts
// the connection it accepted for its own packets. Sharing one socket matters
// on the critical path: the data of a reply carries the TCP acknowledgement
// of the request, where two one-way connections cost a bare ACK segment,
// sent and processed by both kernels, per message (in a raw loopback
// ping-pong, 6.4 us per half round trip on two connections, 4.0 on one; an
// MPI round trip 13.7 against 9.0 us). The first bytes a connecting rank
// sends are a handshake carrying the job secret; an accepted connection
// without it is closed before anything else is read from it. The first bytes
// the other rank sends back on a connection it adopted are a Reply.
//
// Both ranks may connect at once (an allgather, MPI_Win_allocate's
// exchange: each sends the other its first packet before it has heard from
// it), each already sending on its own connection. The connection dialed by
// the lower process (job tag, then rank) wins; the higher one moves to it
// (crossing.cc explains how without letting any packet overtake another,
// MPI-3.1 §3.5), so even then the pair ends on one connection.
// Processes of other jobs under the same launcher (MPI-3.1 §10: spawned
// children, or a job that connected through a port) reach each other here
// too: they share the launcher's secret, the handshake names the connecting
// process by its job's tag and its rank there, and the runtime says which
// peer index that is (TcpOptions::index_of) once it has adopted the process.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "transport/tcp/address.h"
#include "transport/tcp/inbound.h"
#include "transport/providers.h"

namespace ferry::transport::tcp {

constexpr size_t kSecretBytes = 16;

struct Handshake {
  uint32_t magic;    // 'FRRY'
  uint32_t version;
  int32_t rank;      // the connecting rank in its own job
  uint32_t job;      // its job's tag (transport::job_tag of its namespace)
  uint8_t secret[kSecretBytes];
};
static_assert(sizeof(Handshake) == 32);
constexpr uint32_t kHandshakeMagic = 0x59525246;  // "FRRY" little-endian
constexpr uint32_t kHandshakeVersion = 3;  // 3: the accepting side answers with a Reply

// The first bytes on a connection the other side dialed, sent (in the same
// sendmsg as the first packet) once this side adopts it for its own packets.
struct Reply {
  uint32_t magic;    // 'FRRA'
  uint32_t crossed;  // 1: this side's own connection carried packets first; drain it before reading on
};
static_assert(sizeof(Reply) == 8);
constexpr uint32_t kReplyMagic = 0x41525246;  // "FRRA" little-endian

// True if the handshake is ours and carries this job's secret. The secret is
// compared in constant time.
bool handshake_valid(const Handshake& h, const uint8_t (&secret)[kSecretBytes], int world_size);

struct TcpOptions {
  int my_rank = 0;
  int world_size = 1;
  uint32_t my_job = 0;  // job_tag of this job's namespace
  std::string my_hostname;
  uint8_t secret[kSecretBytes] = {};
  Family family = Family::kAuto;
  int connect_timeout_ms = 30000;
  // Looks up a peer's contact card (PMIx, on first use).
  std::function<bool(int rank, std::string* card)> card_of;
  // The peer index of rank `rank` of the job tagged `job` (not this job), or
  // -1 if that process has not been adopted.
  std::function<int(uint32_t job, int rank)> index_of;
  // A failure nothing can recover from (a peer's connection lost): the
  // runtime reports it and ends the job.
  std::function<void(const std::string& message)> fatal;
};

class TcpTransport final : public Transport {
 public:
  TcpTransport(TcpOptions options, PacketHandler* handler);
  ~TcpTransport() override;

  // The provider (transport/providers.h): options from the FERRY_TCP_*
  // settings; publish, connect and reach are in tcp_provider.cc.
  static std::unique_ptr<Transport> open(const JobLayout& job, PacketHandler* handler, std::string* error);
  bool publish(Exchange& exchange, std::string* error) override;
  bool connect(Exchange& exchange, std::string* error) override;
  std::optional<Reach> reach(int peer) const override;
  std::optional<Reach> adopt(int peer) override;

  // Opens the listening socket; returns the card to publish, or an error
  // message in `error`.
  bool listen(const std::string& interface_filter, std::string* card, std::string* error);

  const char* name() const override { return "tcp"; }
  const char* send(int peer, SendItem* item) override;
  int progress() override;
  int wait_fd() const override { return epoll_fd_; }
  bool arm_wakeup() override;
  bool has_pending_sends() const override;

  // Sets the job secret (before any connection is made).
  void set_secret(const uint8_t (&secret)[kSecretBytes]);

  // Connections refused for a wrong or missing secret (for tests).
  int refused_connections() const { return refused_; }
  // Sockets open to or from peers, the listener aside (for tests).
  int open_connections() const;
  // Whether the connection progress() reads directly is in the epoll set
  // now (for tests; false when there is none).
  bool sole_connection_watched() const;

 private:
  struct Peer;
  struct Connection;

  // Connections live in slots; the slot's index and a generation count make
  // a connection's epoll key.
  Connection& add_connection(int fd, int peer, bool dialed);
  void close_connection(Connection& c);
  // Finds the sole connection, if any, and puts every other one in the
  // epoll set.
  void find_sole_connection();
  // Puts the connection in the epoll set (or updates it), for reading, and
  // for writing too if `want_write`.
  void watch(Connection& c, bool want_write);
  void unwatch(Connection& c);
  // Whether the connection waits for writability; it is watched if so.
  void set_events(Connection& c, bool want_write);

  void start_connect(int peer, Peer& p);
  void finish_connect(Peer& p);
  // Stops sending to the peer for good: later sends fail at once, and
  // packets still queued are dropped (a caller that drops any reports it
  // through options_.fatal, which ends the job). Leaves the connection
  // open: this may run inside a packet handler reading from it.
  void fail_peer(Peer& p);
  // Writes as much of the peer's queue as its connection takes.
  void flush(Peer& p);
  void accept_all();
  // Reads and checks the handshake of an accepted connection; false if the
  // connection is to be closed.
  bool read_handshake(Connection& c);
  // Crossed connections (crossing.cc). The peer's handshake has arrived on
  // `accepted`: makes it our link to the peer, unless we dialed too and our
  // connection wins.
  void on_peer_connected(Peer& p, Connection& accepted);
  // Moves our packets to the connection we adopted once the one we dialed
  // is at a packet boundary (now, or when flush() reaches one).
  void move_link_if_between_packets(Peer& p);
  // Reads the Reply on a connection we dialed; false if it is to be closed.
  bool read_reply(Connection& c);
  // An accepted connection that was not our link has ended: every packet
  // the peer sent before it moved to our connection has been delivered.
  void peer_dial_drained(Peer& p);
  void handle(Connection& c, uint32_t events);
  // Reads what an authenticated connection has; closes it if the peer did.
  Inbound::Status receive(Connection& c);
  // Whether progress() reads the sole connection without epoll.
  bool reading_sole_directly() const;
  void check_connect_timeouts();

  TcpOptions options_;
  PacketHandler* handler_;
  int epoll_fd_ = -1;
  int listen_fd_ = -1;
  std::vector<Peer> peers_;                               // by peer index: world ranks, then adopted ones
  std::vector<std::unique_ptr<Connection>> connections_;  // by slot
  Connection* sole_ = nullptr;  // the only connection, if there is one (progress())
  unsigned direct_passes_ = 0;  // progress() passes that read sole_ without epoll
  uint32_t generations_ = 0;
  int connecting_ = 0;
  int refused_ = 0;
  uint64_t queued_items_ = 0;
  size_t eager_limit_ = 64 * 1024;  // FERRY_TCP_EAGER_LIMIT
  bool secret_from_rank0_ = false;  // no secret from the launcher: rank 0's card carries it
};

}  // namespace ferry::transport::tcp
