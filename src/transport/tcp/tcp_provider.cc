// The TCP transport joins a job (transport/providers.h): a listening socket
// whose addresses go in the rank's card, and the job secret that every
// connection's handshake must carry.
#include <sys/random.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/config.h"
#include "transport/tcp/tcp_transport.h"

namespace ferry::transport::tcp {
namespace {

constexpr const char* kCardKey = "ferry.card";
// Set by Ferry's launcher for the whole job; under another PMIx server
// (Slurm's) rank 0 makes one and publishes it in its card.
constexpr const char* kSecretKey = "ferry.job.secret";

std::string to_hex(const uint8_t* bytes, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[bytes[i] >> 4];
    s += digits[bytes[i] & 0xf];
  }
  return s;
}

bool from_hex(const std::string& text, uint8_t* bytes, size_t n) {
  if (text.size() != 2 * n) return false;
  for (size_t i = 0; i < n; ++i) {
    unsigned v = 0;
    if (std::sscanf(text.c_str() + 2 * i, "%2x", &v) != 1) return false;
    bytes[i] = static_cast<uint8_t>(v);
  }
  return true;
}

// The value of `field=` in a `;`-separated card.
std::string card_field(const std::string& card, const std::string& field) {
  size_t at = 0;
  while (at < card.size()) {
    size_t end = card.find(';', at);
    if (end == std::string::npos) end = card.size();
    if (card.compare(at, field.size() + 1, field + "=") == 0)
      return card.substr(at + field.size() + 1, end - at - field.size() - 1);
    at = end + 1;
  }
  return {};
}

}  // namespace

std::unique_ptr<Transport> TcpTransport::open(const JobLayout& job, PacketHandler* handler, std::string* error) {
  // A job of one process still listens when a launcher started it: it may
  // spawn or connect to other jobs (MPI-3.1 §10). A singleton cannot.
  if (job.size == 1 && job.singleton) return nullptr;
  TcpOptions options;
  options.my_rank = job.rank;
  options.world_size = job.size;
  options.my_job = job_tag(job.nspace);
  options.index_of = job.index_of;
  options.my_hostname = job.hostname;
  std::string family = config::value("FERRY_TCP_FAMILY");
  if (family == "ipv4") options.family = Family::kIpv4;
  else if (family == "ipv6") options.family = Family::kIpv6;
  else if (family != "auto") {
    *error = "FERRY_TCP_FAMILY=" + family + ": expected auto, ipv4 or ipv6";
    return nullptr;
  }
  options.connect_timeout_ms = static_cast<int>(config::integer("FERRY_CONNECT_TIMEOUT") * 1000);
  options.fatal = job.fatal;
  auto tcp = std::make_unique<TcpTransport>(options, handler);
  tcp->eager_limit_ = static_cast<size_t>(config::integer("FERRY_TCP_EAGER_LIMIT"));
  return tcp;
}

// The listening socket and the card come before the fence, so any rank may
// connect to us as soon as it has our card.
bool TcpTransport::publish(Exchange& exchange, std::string* error) {
  // Cards of peers are looked up on first use, long after start-up: the
  // exchange lives as long as the transports (runtime.cc).
  options_.card_of = [&exchange](int rank, std::string* card) {
    std::string ignored;
    return exchange.lookup(rank, kCardKey, card, &ignored);
  };
  std::string card;
  if (!listen(config::value("FERRY_TCP_INTERFACE"), &card, error)) return false;
  auto secret_hex = exchange.job_value(kSecretKey);
  secret_from_rank0_ = !secret_hex.has_value();
  if (secret_hex) {
    if (!from_hex(*secret_hex, options_.secret, sizeof options_.secret)) {
      *error = "the launcher's job secret is malformed";
      return false;
    }
  } else if (options_.my_rank == 0) {
    if (getrandom(options_.secret, sizeof options_.secret, 0) != sizeof options_.secret) {
      *error = std::string("getrandom failed: ") + std::strerror(errno);
      return false;
    }
    card += ";secret=" + to_hex(options_.secret, sizeof options_.secret);
  }
  return exchange.publish(kCardKey, card, error);
}

// Nobody connects before MPI_Init returns, so a secret read from rank 0's
// card now is in time for every handshake.
bool TcpTransport::connect(Exchange& exchange, std::string* error) {
  if (!secret_from_rank0_ || options_.my_rank == 0) return true;
  std::string rank0_card;
  if (!exchange.lookup(0, kCardKey, &rank0_card, error)) return false;
  uint8_t secret[kSecretBytes];
  if (!from_hex(card_field(rank0_card, "secret"), secret, sizeof secret)) {
    *error = "rank 0 published no job secret";
    return false;
  }
  set_secret(secret);
  return true;
}

}  // namespace ferry::transport::tcp
