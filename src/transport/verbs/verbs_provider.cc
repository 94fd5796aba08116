// The verbs transport joins a job (transport/providers.h): it opens a port
// (libibverbs, dlopen'd) and publishes how to reach it; connections are
// made later, at first send (connection.cc).
//
// No usable device is an error only when nothing could stand in: when
// FERRY_TRANSPORTS lists tcp too (as the default does), verbs steps aside
// with one FERRY_DEBUG=verbs line and tcp carries the traffic, so one
// default runs everywhere; FERRY_TRANSPORTS=verbs (or shm,verbs) insists.
#include <cstdlib>

#include "common/config.h"
#include "common/debug.h"
#include "transport/verbs/verbs_transport.h"

namespace ferry::transport::verbs {
namespace {

constexpr const char* kCardKey = "ferry.verbs";

bool tcp_stands_in() {
  std::string list = "," + config::value("FERRY_TRANSPORTS") + ",";
  return list.find(",tcp,") != std::string::npos;
}

bool parse_gid_index(std::string* error, int* index) {
  std::string text = config::value("FERRY_IB_GID_INDEX");
  *index = -1;
  if (text.empty() || text == "auto") return true;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || v < 0 || v > 255) {
    *error = "FERRY_IB_GID_INDEX=" + text + ": expected a GID table index (0-255) or auto";
    return false;
  }
  *index = static_cast<int>(v);
  return true;
}

}  // namespace

std::unique_ptr<Transport> VerbsTransport::open(const JobLayout& job, PacketHandler* handler, std::string* error) {
  // Processes of other jobs (spawn, connect) are reached over tcp only
  // (Transport::adopt): a job of one process has no use for verbs.
  if (job.size == 1) return nullptr;
  bool optional = tcp_stands_in();
  std::string name;
  int port = 0;
  if (!parse_device_setting(config::value("FERRY_IB_DEVICE"), &name, &port, error)) return nullptr;
  std::string why;
  Opened opened = open_ibverbs(name, port, &why);
  if (!opened.device) {
    if (optional) {
      FERRY_DEBUG(kVerbs, "verbs: not used, %s; tcp carries the traffic between hosts", why.c_str());
      return nullptr;
    }
    *error = why + " (FERRY_TRANSPORTS=" + config::value("FERRY_TRANSPORTS") +
             " requires verbs; add tcp to fall back to it)";
    return nullptr;
  }
  VerbsOptions options;
  options.my_rank = job.rank;
  options.world_size = job.size;
  options.my_job = job_tag(job.nspace);
  options.port = opened.port;
  options.eager_limit = static_cast<size_t>(config::integer("FERRY_IB_EAGER_LIMIT"));
  options.credits = static_cast<int>(config::integer("FERRY_IB_CREDITS"));
  options.reg_cache_bytes = static_cast<size_t>(config::integer("FERRY_IB_REG_CACHE"));
  int64_t sl = config::integer("FERRY_IB_SL"), tc = config::integer("FERRY_IB_TC");
  if (sl < 0 || sl > 15 || tc < 0 || tc > 255) {
    *error = "FERRY_IB_SL=" + std::to_string(sl) + ", FERRY_IB_TC=" + std::to_string(tc) +
             ": a service level is 0-15, a traffic class 0-255";
    return nullptr;
  }
  options.service_level = static_cast<uint8_t>(sl);
  options.traffic_class = static_cast<uint8_t>(tc);
  options.connect_timeout_ms = static_cast<int>(config::integer("FERRY_CONNECT_TIMEOUT") * 1000);
  options.fatal = job.fatal;
  if (options.credits < 2 || options.credits > 4096) {
    *error = "FERRY_IB_CREDITS=" + std::to_string(options.credits) + ": expected 2 to 4096";
    return nullptr;
  }
  if (options.eager_limit < 64 || options.eager_limit > (1u << 20)) {
    *error = "FERRY_IB_EAGER_LIMIT=" + std::to_string(options.eager_limit) + ": expected 64 bytes to 1 MiB";
    return nullptr;
  }
  if (!parse_gid_index(error, &options.gid_index)) return nullptr;
  auto verbs = std::make_unique<VerbsTransport>(std::move(options), std::move(opened.device), handler);
  if (!verbs->start(error)) return nullptr;
  return verbs;
}

bool VerbsTransport::publish(Exchange& exchange, std::string* error) {
  // Cards are looked up at first send to a peer, long after start-up.
  options_.card_of = [&exchange](int rank, std::string* card) {
    std::string ignored;
    return exchange.lookup(rank, kCardKey, card, &ignored);
  };
  return exchange.publish(kCardKey, encode_card(local_.card), error);
}

bool VerbsTransport::connect(Exchange& exchange, std::string* error) {
  (void)exchange, (void)error;
  return true;  // lazily, at first send
}

}  // namespace ferry::transport::verbs
