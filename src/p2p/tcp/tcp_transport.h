// The TCP transport: nonblocking sockets driven by one epoll set.
//
// Connections open lazily, on the first packet for a peer, so start-up cost
// does not grow with the job size. Each direction has its own connection
// (rank A sends to B on the one A opened), which removes the race of two
// ranks connecting to each other at once and keeps each stream in send
// order. The first bytes on a connection are a handshake carrying the job
// secret; a connection without it is closed before anything is read from it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "p2p/tcp/address.h"
#include "p2p/transport.h"

namespace ferry::p2p::tcp {

constexpr size_t kSecretBytes = 16;

struct Handshake {
  uint32_t magic;    // 'FRRY'
  uint32_t version;
  int32_t rank;      // the connecting rank (world)
  uint32_t reserved;
  uint8_t secret[kSecretBytes];
};
static_assert(sizeof(Handshake) == 32);
constexpr uint32_t kHandshakeMagic = 0x59525246;  // "FRRY" little-endian
constexpr uint32_t kHandshakeVersion = 1;

// True if the handshake is ours and carries this job's secret. The secret is
// compared in constant time.
bool handshake_valid(const Handshake& h, const uint8_t (&secret)[kSecretBytes], int world_size);

struct TcpOptions {
  int my_rank = 0;
  int world_size = 1;
  std::string my_hostname;
  uint8_t secret[kSecretBytes] = {};
  Family family = Family::kAuto;
  int connect_timeout_ms = 30000;
  // Looks up a peer's contact card (PMIx, on first use).
  std::function<bool(int rank, std::string* card)> card_of;
  // A failure nothing can recover from (a peer's connection lost): the
  // runtime reports it and ends the job.
  std::function<void(const std::string& message)> fatal;
};

class TcpTransport final : public Transport {
 public:
  TcpTransport(TcpOptions options, PacketHandler* handler);
  ~TcpTransport() override;

  // Opens the listening socket; returns the card to publish, or an error
  // message in `error`.
  bool listen(const std::string& interface_filter, std::string* card, std::string* error);

  const char* name() const override { return "tcp"; }
  const char* send(int peer, SendItem* item) override;
  int progress() override;
  int wait_fd() const override { return epoll_fd_; }
  bool has_pending_sends() const override;

  // Sets the job secret (before any connection is made).
  void set_secret(const uint8_t (&secret)[kSecretBytes]);

  // Connections refused for a wrong or missing secret (for tests).
  int refused_connections() const { return refused_; }

 private:
  struct Outgoing;
  struct Incoming;

  void start_connect(int peer, Outgoing& out);
  void finish_connect(int peer, Outgoing& out);
  // Writes as much of the peer's queue as the socket takes.
  void flush(int peer, Outgoing& out);
  void want_write(int peer, Outgoing& out, bool on);
  void accept_all();
  // Reads what the socket has; false if the connection was closed.
  bool read_from(Incoming& in);
  void parse(Incoming& in);
  void close_incoming(size_t slot);
  void check_connect_timeouts();

  TcpOptions options_;
  PacketHandler* handler_;
  int epoll_fd_ = -1;
  int listen_fd_ = -1;
  std::vector<Outgoing> outgoing_;               // by world rank
  std::vector<std::unique_ptr<Incoming>> incoming_;  // by slot
  int connecting_ = 0;
  int refused_ = 0;
  uint64_t queued_items_ = 0;
};

}  // namespace ferry::p2p::tcp
