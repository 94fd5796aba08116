#include "transport/verbs/port_select.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ferry::transport::verbs {

bool parse_device_setting(const std::string& text, std::string* name, int* port, std::string* error) {
  *port = 0;
  size_t colon = text.find(':');
  *name = text.substr(0, colon);
  if (colon == std::string::npos) return true;
  char* end = nullptr;
  long p = std::strtol(text.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || p < 1 || p > 255 || colon + 1 == text.size() || name->empty()) {
    *error = "FERRY_IB_DEVICE=" + text + ": expected device[:port], e.g. mlx5_0:1";
    return false;
  }
  *port = static_cast<int>(p);
  return true;
}

std::string gid_text(const Gid& gid) {
  char out[40];
  for (int i = 0; i < 16; ++i) std::snprintf(out + 2 * i, 3, "%02x", gid.raw[i]);
  return out;
}

std::string encode_card(const Card& c) {
  char text[160];
  std::snprintf(text, sizeof text, "link=%s;lid=%u;gid=%s;qpn=%u;mtu=%u",
                c.link == LinkLayer::kEthernet ? "eth" : "ib", c.lid, gid_text(c.gid).c_str(), c.datagram_qpn,
                c.mtu_bytes);
  return text;
}

bool decode_card(const std::string& text, Card* c) {
  char link[8] = {};
  char gid[40] = {};
  unsigned lid = 0, qpn = 0, mtu = 0;
  if (std::sscanf(text.c_str(), "link=%3[a-z];lid=%u;gid=%32[0-9a-f];qpn=%u;mtu=%u", link, &lid, gid, &qpn, &mtu) != 5)
    return false;
  if (std::strlen(gid) != 32 || lid > 0xffff) return false;
  c->link = std::strcmp(link, "eth") == 0 ? LinkLayer::kEthernet : LinkLayer::kInfiniBand;
  c->lid = static_cast<uint16_t>(lid);
  for (int i = 0; i < 16; ++i) {
    unsigned byte = 0;
    std::sscanf(gid + 2 * i, "%2x", &byte);
    c->gid.raw[i] = static_cast<uint8_t>(byte);
  }
  c->datagram_qpn = qpn;
  c->mtu_bytes = mtu;
  return true;
}

const char* gid_kind_name(GidKind kind) {
  switch (kind) {
    case GidKind::kInfiniBand: return "IB";
    case GidKind::kRoceV1: return "RoCE v1";
    case GidKind::kRoceV2: return "RoCE v2";
    default: return "unknown kind";
  }
}

namespace {

bool ipv4_mapped(const Gid& g) {
  static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(g.raw, prefix, 12) == 0;
}

bool zero(const Gid& g) {
  for (uint8_t b : g.raw)
    if (b != 0) return false;
  return true;
}

}  // namespace

bool select_address(Device& device, int port, int gid_index_setting, LocalPort* local, std::string* error) {
  if (!device.query_port(port, &local->info, error)) return false;
  if (!local->info.active) {
    *error = device.name() + " port " + std::to_string(port) + " is down (check ibstat, the cable and the subnet manager)";
    return false;
  }
  local->card.link = local->info.link;
  local->card.lid = local->info.lid;
  local->card.mtu_bytes = local->info.mtu_bytes;
  int chosen = gid_index_setting;
  if (chosen >= local->info.gid_count) {
    *error = "FERRY_IB_GID_INDEX=" + std::to_string(chosen) + ": " + device.name() + " port " + std::to_string(port) +
             " has " + std::to_string(local->info.gid_count) + " GID entries";
    return false;
  }
  if (chosen < 0) {
    // Best rank first: v2 + IPv4-mapped, v2, v1, anything non-zero.
    int best_score = -1;
    chosen = 0;
    for (int i = 0; i < local->info.gid_count; ++i) {
      Gid g;
      GidKind kind;
      if (!device.query_gid(port, i, &g, &kind) || zero(g)) continue;
      int score = kind == GidKind::kRoceV2 ? (ipv4_mapped(g) ? 4 : 3) : kind == GidKind::kRoceV1 ? 2 : 1;
      if (local->info.link == LinkLayer::kInfiniBand) score = i == 0 ? 5 : 0;  // the port GID
      if (score > best_score) best_score = score, chosen = i;
    }
  }
  if (!device.query_gid(port, chosen, &local->card.gid, &local->gid_kind) && local->info.link == LinkLayer::kEthernet) {
    *error = device.name() + ": cannot read GID index " + std::to_string(chosen);
    return false;
  }
  local->gid_index = chosen;
  return true;
}

}  // namespace ferry::transport::verbs
