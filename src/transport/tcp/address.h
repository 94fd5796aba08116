// TCP contact cards: where a rank listens, as published through PMIx.
//
// A card reads `host=<hostname>;tcp=<addr>:<port>,[<v6addr>]:<port>,...`.
// One dual-stack socket listens for IPv4 and IPv6; the card lists every up
// interface's address so that a peer on another host can pick one it
// reaches, and a peer on the same host uses loopback.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <optional>
#include <string>
#include <vector>

namespace ferry::transport::tcp {

enum class Family { kAuto, kIpv4, kIpv6 };

struct Endpoint {
  sockaddr_storage address{};
  socklen_t length = 0;
  bool loopback = false;
  std::string text() const;  // "10.0.0.2:41234", "[::1]:41234"
};

// Opens the listening socket (dual-stack where the kernel has IPv6). Returns
// the fd and fills `port`, or -1 with `error` set.
int listen_any(int* port, std::string* error);

// The addresses to publish: every up interface (or only `interface_filter`,
// an interface name or address, when not empty), with `port`.
std::vector<Endpoint> local_endpoints(int port, const std::string& interface_filter);

std::string make_card(const std::string& hostname, const std::vector<Endpoint>& endpoints);
// Parses a card; false if it is malformed.
bool parse_card(const std::string& card, std::string* hostname, std::vector<Endpoint>* endpoints);

// True if both ends of the connected socket `fd` are on this host (its
// local and remote addresses are the same): the kernel then carries its
// bytes over the loopback device, whichever address was dialed.
bool same_host_connection(int fd);

// Which of a peer's endpoints to connect to: loopback when the peer shares
// our host, else its first address of the wanted family.
std::optional<Endpoint> choose_endpoint(const std::vector<Endpoint>& endpoints, bool same_host, Family family);

}  // namespace ferry::transport::tcp
