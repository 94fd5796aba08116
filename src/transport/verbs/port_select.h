// Which port and GID a rank uses, and the contact card that tells peers how
// to reach it.
//
// Port: FERRY_IB_DEVICE=name[:port], else the first active port of the first
// device (ibverbs_device.cc). Address: on InfiniBand the LID; on RoCE a GID,
// FERRY_IB_GID_INDEX or, by default, as NCCL and UCX choose: a RoCE v2 entry
// (routable over IP, ECN-capable) with an IPv4-mapped address first, then
// any RoCE v2, then RoCE v1, then index 0.
#pragma once

#include <cstdint>
#include <string>

#include "transport/verbs/device.h"

namespace ferry::transport::verbs {

// FERRY_IB_DEVICE: "mlx5_0" or "mlx5_0:1"; port 0 = any.
bool parse_device_setting(const std::string& text, std::string* name, int* port, std::string* error);

// What a rank publishes: how to reach its port and its handshake UD QP.
struct Card {
  LinkLayer link = LinkLayer::kInfiniBand;
  uint16_t lid = 0;
  Gid gid;
  uint32_t datagram_qpn = 0;
  uint32_t mtu_bytes = 0;
};
std::string encode_card(const Card& card);
bool decode_card(const std::string& text, Card* card);

// The local end: port facts, the GID index (-1 = choose), and the card.
struct LocalPort {
  PortInfo info;
  int gid_index = 0;
  GidKind gid_kind = GidKind::kUnknown;
  Card card;
};
bool select_address(Device& device, int port, int gid_index_setting, LocalPort* local, std::string* error);

const char* gid_kind_name(GidKind kind);
std::string gid_text(const Gid& gid);

}  // namespace ferry::transport::verbs
