// TCP contact cards and endpoint choice (transport/tcp/address.h), and the
// connection handshake check (transport/tcp/tcp_transport.h).
#include "transport/tcp/address.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "transport/tcp/tcp_transport.h"

namespace ferry::transport::tcp {
namespace {

Endpoint ipv4(const char* address, int port) {
  Endpoint e;
  auto* a = reinterpret_cast<sockaddr_in*>(&e.address);
  a->sin_family = AF_INET;
  EXPECT_EQ(inet_pton(AF_INET, address, &a->sin_addr), 1) << address;
  a->sin_port = htons(static_cast<uint16_t>(port));
  e.length = sizeof(sockaddr_in);
  e.loopback = std::strncmp(address, "127.", 4) == 0;
  return e;
}

Endpoint ipv6(const char* address, int port) {
  Endpoint e;
  auto* a = reinterpret_cast<sockaddr_in6*>(&e.address);
  a->sin6_family = AF_INET6;
  EXPECT_EQ(inet_pton(AF_INET6, address, &a->sin6_addr), 1) << address;
  a->sin6_port = htons(static_cast<uint16_t>(port));
  e.length = sizeof(sockaddr_in6);
  e.loopback = std::strcmp(address, "::1") == 0;
  return e;
}

int port_of(const Endpoint& e) {
  if (e.address.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&e.address)->sin_port);
  return ntohs(reinterpret_cast<const sockaddr_in6*>(&e.address)->sin6_port);
}

TEST(EndpointText, WritesIpv4AndBracketedIpv6) {
  EXPECT_EQ(ipv4("10.0.0.2", 41234).text(), "10.0.0.2:41234");
  EXPECT_EQ(ipv6("::1", 41234).text(), "[::1]:41234");
  EXPECT_EQ(ipv6("fd00::2", 7).text(), "[fd00::2]:7");
}

TEST(ContactCard, HasTheDocumentedLayout) {
  EXPECT_EQ(make_card("node7", {ipv4("10.0.0.2", 5000), ipv6("fd00::2", 5000)}),
            "host=node7;tcp=10.0.0.2:5000,[fd00::2]:5000");
}

TEST(ContactCard, RoundTripsIpv4AndIpv6Endpoints) {
  std::vector<Endpoint> endpoints = {ipv4("127.0.0.1", 41000), ipv4("192.0.2.2", 41000), ipv6("::1", 41000),
                                     ipv6("fd00::2", 41000), ipv6("2001:db8::17", 65535)};
  std::string card = make_card("node-a.example", endpoints);

  std::string host;
  std::vector<Endpoint> parsed;
  ASSERT_TRUE(parse_card(card, &host, &parsed)) << card;
  EXPECT_EQ(host, "node-a.example");
  ASSERT_EQ(parsed.size(), endpoints.size());
  for (size_t i = 0; i < endpoints.size(); ++i) {
    EXPECT_EQ(parsed[i].text(), endpoints[i].text());
    EXPECT_EQ(parsed[i].address.ss_family, endpoints[i].address.ss_family) << endpoints[i].text();
    EXPECT_EQ(parsed[i].length, endpoints[i].length) << endpoints[i].text();
    EXPECT_EQ(parsed[i].loopback, endpoints[i].loopback) << endpoints[i].text();
    EXPECT_EQ(port_of(parsed[i]), port_of(endpoints[i]));
  }
}

TEST(ContactCard, FieldsMayComeInAnyOrder) {
  std::string host;
  std::vector<Endpoint> parsed;
  ASSERT_TRUE(parse_card("tcp=10.1.2.3:99;host=n1", &host, &parsed));
  EXPECT_EQ(host, "n1");
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0].text(), "10.1.2.3:99");
}

TEST(ContactCard, ReparsingReplacesEarlierEndpoints) {
  std::string host;
  std::vector<Endpoint> parsed = {ipv4("1.1.1.1", 1), ipv4("2.2.2.2", 2)};
  ASSERT_TRUE(parse_card("host=n;tcp=10.0.0.9:9", &host, &parsed));
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0].text(), "10.0.0.9:9");
}

TEST(ContactCard, MalformedCardsAreRejected) {
  const char* bad[] = {
      "",                                  // nothing
      "host=n",                            // no endpoints
      "host=n;tcp=",                       // empty list
      "host=n;tcp=10.0.0.1",               // no port
      "host=n;tcp=10.0.0.1:",              // empty port
      "host=n;tcp=10.0.0.1:0",             // port 0
      "host=n;tcp=10.0.0.1:-4",            // negative port
      "host=n;tcp=10.0.0.1:http",          // not a number
      "host=n;tcp=10.0.0.1:70000",         // beyond 65535
      "host=n;tcp=10.0.0.256:80",          // not an address
      "host=n;tcp=node7:80",               // a name, not an address
      "host=n;tcp=[::1:80",                // unclosed bracket
      "host=n;tcp=[::1]80",                // no colon after the bracket
      "host=n;tcp=[::1]:",                 // empty port
      "host=n;tcp=[10.0.0.1]:80",          // IPv4 in brackets
      "host=n;tcp=[zz::1]:80",             // bad IPv6
      "host=n;tcp=::1:80",                 // IPv6 without brackets
      "host=n;tcp=10.0.0.1:80,garbage",    // one bad endpoint spoils the card
      "host=n;tcp=,10.0.0.1:80",           // empty endpoint
  };
  for (const char* card : bad) {
    std::string host;
    std::vector<Endpoint> parsed;
    EXPECT_FALSE(parse_card(card, &host, &parsed)) << '"' << card << "\" was accepted";
  }
}

TEST(ContactCard, PortWithTrailingGarbageIsRejected) {
  std::string host;
  std::vector<Endpoint> parsed;
  EXPECT_FALSE(parse_card("host=n;tcp=10.0.0.1:80x", &host, &parsed));
  EXPECT_FALSE(parse_card("host=n;tcp=[::1]:80x", &host, &parsed));
}

TEST(ChooseEndpoint, SameHostUsesLoopback) {
  std::vector<Endpoint> endpoints = {ipv4("192.0.2.2", 5000), ipv6("fd00::2", 5000), ipv4("127.0.0.1", 5000),
                                     ipv6("::1", 5000)};
  auto chosen = choose_endpoint(endpoints, /*same_host=*/true, Family::kAuto);
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->text(), "127.0.0.1:5000");
  EXPECT_TRUE(chosen->loopback);
}

TEST(ChooseEndpoint, OtherHostUsesANonLoopbackAddressPreferringIpv4) {
  std::vector<Endpoint> endpoints = {ipv4("127.0.0.1", 5000), ipv6("::1", 5000), ipv6("fd00::2", 5000),
                                     ipv4("192.0.2.2", 5000)};
  auto chosen = choose_endpoint(endpoints, /*same_host=*/false, Family::kAuto);
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->text(), "192.0.2.2:5000");
  EXPECT_FALSE(chosen->loopback);
}

TEST(ChooseEndpoint, OtherHostWithOnlyIpv6UsesIpv6InAuto) {
  std::vector<Endpoint> endpoints = {ipv4("127.0.0.1", 5000), ipv6("fd00::2", 5000)};
  auto chosen = choose_endpoint(endpoints, false, Family::kAuto);
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->text(), "[fd00::2]:5000");
}

TEST(ChooseEndpoint, FamilyFilterPicksThatFamily) {
  std::vector<Endpoint> endpoints = {ipv4("127.0.0.1", 5000), ipv6("::1", 5000), ipv4("192.0.2.2", 5000),
                                     ipv6("fd00::2", 5000)};
  EXPECT_EQ(choose_endpoint(endpoints, false, Family::kIpv6)->text(), "[fd00::2]:5000");
  EXPECT_EQ(choose_endpoint(endpoints, false, Family::kIpv4)->text(), "192.0.2.2:5000");
  EXPECT_EQ(choose_endpoint(endpoints, true, Family::kIpv6)->text(), "[::1]:5000");
  EXPECT_EQ(choose_endpoint(endpoints, true, Family::kIpv4)->text(), "127.0.0.1:5000");
}

TEST(ChooseEndpoint, NoEndpointOfTheWantedFamilyGivesNothing) {
  EXPECT_FALSE(choose_endpoint({ipv4("192.0.2.2", 5000), ipv4("127.0.0.1", 5000)}, false, Family::kIpv6));
  EXPECT_FALSE(choose_endpoint({ipv6("fd00::2", 5000), ipv6("::1", 5000)}, true, Family::kIpv4));
  EXPECT_FALSE(choose_endpoint({}, true, Family::kAuto));
}

TEST(ChooseEndpoint, SameHostWithoutPublishedLoopbackUsesItsOtherAddresses) {
  // An interface filter removed loopback from the card: still reachable.
  auto chosen = choose_endpoint({ipv4("192.0.2.2", 5000)}, true, Family::kAuto);
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->text(), "192.0.2.2:5000");
}

TEST(ChooseEndpoint, OtherHostNeverGetsALoopbackAddress) {
  // A peer on another host that publishes only loopback (FERRY_TCP_INTERFACE
  // matching none of its interfaces) is unreachable: connecting to our own
  // 127.0.0.1 would reach whatever listens on that port here.
  EXPECT_FALSE(choose_endpoint({ipv4("127.0.0.1", 5000), ipv6("::1", 5000)}, false, Family::kAuto));
  EXPECT_FALSE(choose_endpoint({ipv4("127.0.0.1", 5000)}, false, Family::kIpv4));
}

TEST(ListenAny, GivesAListeningSocketWithAPort) {
  int port = 0;
  std::string error;
  int fd = listen_any(&port, &error);
  ASSERT_GE(fd, 0) << error;
  EXPECT_GT(port, 0);
  EXPECT_LE(port, 65535);
  int port2 = 0;
  int fd2 = listen_any(&port2, &error);
  ASSERT_GE(fd2, 0) << error;
  EXPECT_NE(port2, port);
  close(fd);
  close(fd2);
}

// A connection from this host to its own loopback listener, and the
// listener's end of it.
TEST(SameHostConnection, BothEndsOfALoopbackConnectionAreOnThisHost) {
  std::string error;
  int port = 0;
  int listener = listen_any(&port, &error);
  ASSERT_GE(listener, 0) << error;
  Endpoint target = ipv4("127.0.0.1", port);
  int dialed = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_EQ(connect(dialed, reinterpret_cast<const sockaddr*>(&target.address), target.length), 0);
  int accepted = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  ASSERT_GE(accepted, 0);
  EXPECT_TRUE(same_host_connection(dialed));
  EXPECT_TRUE(same_host_connection(accepted));  // the dual-stack listener's IPv4-mapped addresses
  close(accepted);
  close(dialed);
  close(listener);
}

TEST(SameHostConnection, AnUnconnectedSocketIsNot) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_FALSE(same_host_connection(fd));
  close(fd);
}

TEST(LocalEndpoints, CarryThePortAndIncludeLoopback) {
  std::vector<Endpoint> endpoints = local_endpoints(4321, "");
  ASSERT_FALSE(endpoints.empty());
  bool any_loopback = false;
  for (const Endpoint& e : endpoints) {
    EXPECT_EQ(port_of(e), 4321) << e.text();
    any_loopback |= e.loopback;
    // Link-local IPv6 needs a scope id that means nothing elsewhere.
    if (e.address.ss_family == AF_INET6) {
      EXPECT_FALSE(IN6_IS_ADDR_LINKLOCAL(&reinterpret_cast<const sockaddr_in6*>(&e.address)->sin6_addr))
          << e.text();
    }
  }
  EXPECT_TRUE(any_loopback);
}

TEST(LocalEndpoints, FilterMatchingNoInterfaceLeavesOnlyLoopback) {
  std::vector<Endpoint> endpoints = local_endpoints(4321, "no-such-interface0");
  for (const Endpoint& e : endpoints) EXPECT_TRUE(e.loopback) << e.text();
}

TEST(LocalEndpoints, CardOfLocalEndpointsRoundTrips) {
  std::vector<Endpoint> endpoints = local_endpoints(4321, "");
  std::string host;
  std::vector<Endpoint> parsed;
  ASSERT_TRUE(parse_card(make_card("me", endpoints), &host, &parsed));
  ASSERT_EQ(parsed.size(), endpoints.size());
  for (size_t i = 0; i < endpoints.size(); ++i) EXPECT_EQ(parsed[i].text(), endpoints[i].text());
}

// --- the handshake ---

class HandshakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (size_t i = 0; i < kSecretBytes; ++i) secret_[i] = static_cast<uint8_t>(0xa0 + i * 7);
    good_ = Handshake{kHandshakeMagic, kHandshakeVersion, 3, 0, {}};
    std::memcpy(good_.secret, secret_, kSecretBytes);
  }
  uint8_t secret_[kSecretBytes];
  Handshake good_{};
  static constexpr int kWorldSize = 4;
};

TEST_F(HandshakeTest, OurHandshakeIsValid) { EXPECT_TRUE(handshake_valid(good_, secret_, kWorldSize)); }

TEST_F(HandshakeTest, MagicSpellsFrryOnTheWire) {
  uint8_t bytes[4];
  std::memcpy(bytes, &kHandshakeMagic, 4);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(bytes), 4), "FRRY");
}

TEST_F(HandshakeTest, WrongMagicIsInvalid) {
  Handshake h = good_;
  h.magic = 0x46525259;  // byte-swapped
  EXPECT_FALSE(handshake_valid(h, secret_, kWorldSize));
  h.magic = 0;
  EXPECT_FALSE(handshake_valid(h, secret_, kWorldSize));
}

TEST_F(HandshakeTest, WrongVersionIsInvalid) {
  Handshake h = good_;
  h.version = kHandshakeVersion + 1;
  EXPECT_FALSE(handshake_valid(h, secret_, kWorldSize));
  h.version = 0;
  EXPECT_FALSE(handshake_valid(h, secret_, kWorldSize));
}

TEST_F(HandshakeTest, RankOutOfRangeIsInvalid) {
  Handshake h = good_;
  for (int rank : {-1, kWorldSize, kWorldSize + 1, INT32_MIN, INT32_MAX}) {
    h.rank = rank;
    EXPECT_FALSE(handshake_valid(h, secret_, kWorldSize)) << rank;
  }
  for (int rank : {0, kWorldSize - 1}) {
    h.rank = rank;
    EXPECT_TRUE(handshake_valid(h, secret_, kWorldSize)) << rank;
  }
}

TEST_F(HandshakeTest, OneWrongBitOfTheSecretIsInvalid) {
  for (size_t byte = 0; byte < kSecretBytes; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      Handshake h = good_;
      h.secret[byte] ^= static_cast<uint8_t>(1u << bit);
      EXPECT_FALSE(handshake_valid(h, secret_, kWorldSize)) << "byte " << byte << " bit " << bit;
    }
  }
}

TEST_F(HandshakeTest, AllZeroSecretDoesNotMatchARealOne) {
  Handshake h = good_;
  std::memset(h.secret, 0, kSecretBytes);
  EXPECT_FALSE(handshake_valid(h, secret_, kWorldSize));
}

}  // namespace
}  // namespace ferry::transport::tcp
