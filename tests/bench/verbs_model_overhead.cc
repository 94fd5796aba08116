// The verbs transport's software overhead per message, measured against the
// in-process model of RC queue pairs (src/transport/verbs/model_device.h),
// until it can be measured on RDMA hardware. Two transports in one thread:
//   raw:      an 8-byte send and its receive straight on the model's device
//             table (post_send, post_receive, poll): what the model costs
//   protocol: an 8-byte packet through VerbsTransport::send and progress on
//             both sides (framing, credits, completions, delivery), one way
// protocol - raw estimates what the protocol adds per message on top of
// libibverbs' own post/poll. Also: expose() of a 4 MiB buffer the first
// time (a registration) and again (cache hits: no registration).
//   build/tests/bench/verbs_model_overhead [messages]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "transport/verbs/memory_hooks.h"
#include "transport/verbs/model_device.h"
#include "transport/verbs/verbs_transport.h"

using namespace ferry::transport;
using namespace ferry::transport::verbs;

namespace {

double now_ns() {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

struct Counter final : PacketHandler {
  char sink[64];
  long arrived = 0;
  Destination on_header(int, const PacketHeader& h) override { return Destination{sink, sizeof sink, nullptr}; }
  void on_payload(int, const PacketHeader&, const Destination&) override { ++arrived; }
};

double raw_ns(long n) {
  ModelFabric fabric;
  auto a = fabric.add_device(), b = fabric.add_device();
  std::string error;
  Resources r;
  a->setup(1, r, &error);
  b->setup(1, r, &error);
  uint32_t na, nb;
  int qa = a->create_qp(&na, &error);
  int qb = b->create_qp(&nb, &error);
  QpTarget ta, tb;
  ta.remote.lid = b->lid();
  ta.remote_qpn = nb;
  tb.remote.lid = a->lid();
  tb.remote_qpn = na;
  a->connect_qp(qa, ta, &error);
  b->connect_qp(qb, tb, &error);
  std::vector<char> buffers(1 << 16);
  Region region;
  b->register_memory(buffers.data(), buffers.size(), &region, &error);
  b->post_receive(0, buffers.data(), 4096, region.lkey);
  char message[8] = {};
  Completion c[4];
  double start = now_ns();
  for (long i = 0; i < n; ++i) {
    SendRequest s;
    s.local = message;
    s.bytes = sizeof message;
    s.inline_data = true;
    s.signaled = (i % 16) == 15;
    a->post_send(qa, s, &error);
    while (b->poll(c, 4) == 0) {
    }
    b->post_receive(0, buffers.data(), 4096, region.lkey);
    if (s.signaled) while (a->poll(c, 4) == 0) {
      }
  }
  return (now_ns() - start) / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 1000000;
  memory_hooks::prepare_allocator();  // what loading libmpi does on an RDMA host
  ModelFabric fabric;
  Counter inbox[2];
  std::unique_ptr<VerbsTransport> t[2];
  ModelDevice* devices[2] = {};
  std::string cards[2];
  for (int r = 0; r < 2; ++r) {
    VerbsOptions o;
    o.my_rank = r;
    o.world_size = 2;
    o.reg_cache_bytes = 256 << 20;
    o.card_of = [&cards](int rank, std::string* card) {
      *card = cards[rank];
      return true;
    };
    o.fatal = [](const std::string& m) {
      std::fprintf(stderr, "fatal: %s\n", m.c_str());
      std::exit(1);
    };
    auto device = fabric.add_device();
    devices[r] = device.get();
    t[r] = std::make_unique<VerbsTransport>(o, std::move(device), &inbox[r]);
    std::string error;
    if (!t[r]->start(&error)) {
      std::fprintf(stderr, "start: %s\n", error.c_str());
      return 1;
    }
    cards[r] = encode_card(t[r]->card());
  }
  char payload[8] = {};
  SendItem item;
  item.header.type = PacketType::kEager;
  item.header.payload_bytes = sizeof payload;
  item.payload = payload;
  // Connect, warm up.
  for (long i = 0; i < 1000; ++i) {
    t[0]->send(1, &item);
    while (inbox[1].arrived <= i) t[0]->progress(), t[1]->progress();
  }
  long base = inbox[1].arrived;
  double start = now_ns();
  for (long i = 0; i < n; ++i) {
    t[0]->send(1, &item);
    while (inbox[1].arrived - base <= i) t[1]->progress();
    t[0]->progress();
  }
  double protocol = (now_ns() - start) / static_cast<double>(n);
  double raw = raw_ns(n);
  std::vector<char> big(4 << 20, 1);
  RemoteBuffer remote;
  double t0 = now_ns();
  t[0]->expose(1, MemoryRef{big.data()}, big.size(), &remote);
  double first = now_ns() - t0;
  t[0]->conceal(remote);
  int registrations = devices[0]->registrations();
  const int kRepeats = 10000;
  t0 = now_ns();
  for (int i = 0; i < kRepeats; ++i) {
    t[0]->expose(1, MemoryRef{big.data()}, big.size(), &remote);
    t[0]->conceal(remote);
  }
  double second = (now_ns() - t0) / kRepeats;
  int again = devices[0]->registrations() - registrations;
  std::printf("8-byte message, one way, %ld messages:\n", n);
  std::printf("  raw model post/poll:        %7.1f ns\n", raw);
  std::printf("  through VerbsTransport:     %7.1f ns\n", protocol);
  std::printf("  protocol overhead:          %7.1f ns per message\n", protocol - raw);
  std::printf("  signaled sends:             %llu of %llu frames\n",
              static_cast<unsigned long long>(t[0]->signaled_sends()), static_cast<unsigned long long>(t[0]->frames_sent()));
  std::printf("4 MiB buffer: first expose %.1f us (a registration; the model's costs nothing like a NIC's),\n"
              "  then expose+conceal %.0f ns each over %d repeats, %d registrations (%s)\n",
              first / 1000, second, kRepeats, again,
              again == 0 ? "cache hits" : "registered again: the cache is off");
  return 0;
}
