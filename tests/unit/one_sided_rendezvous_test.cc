// The single-copy rendezvous (p2p/engine.h) over a transport that works as
// an RDMA NIC does: buffers are exposed under a registration key that
// travels with the rendezvous request, a read names that key, and it
// finishes later, in progress(), as a completion queue would report it. The
// model runs on the self path, in one process; the real NIC's code path
// (verbs) plugs into the same calls.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/request.h"
#include "mpi.h"
#include "p2p/engine.h"
#include "progress/progress.h"
#include "transport/self/self_transport.h"

namespace ferry::p2p {
namespace {

std::vector<char> pattern(size_t bytes, int seed) {
  std::vector<char> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<char>((seed * 31 + i * 13 + (i >> 9)) & 0xff);
  return v;
}

class ModelNic final : public Transport {
 public:
  static constexpr size_t kThreshold = 4096;
  explicit ModelNic(PacketHandler* handler) : inner_(0, handler) {}

  const char* name() const override { return "model-nic"; }
  bool publish(transport::Exchange&, std::string*) override { return true; }
  bool connect(transport::Exchange&, std::string*) override { return true; }
  std::optional<transport::Reach> reach(int peer) const override {
    if (peer != 0) return std::nullopt;
    return transport::Reach{256, kThreshold};
  }
  const char* send(int peer, SendItem* item) override {
    sent.push_back(item->header);
    return inner_.send(peer, item);
  }
  bool has_pending_sends() const override { return inner_.has_pending_sends(); }
  // Reads finish first, as completions polled before new packets.
  int progress() override {
    int events = 0;
    while (!pending_.empty()) {
      transport::OneSided* op = pending_.front();
      pending_.pop_front();
      const char* error = check(*op);
      if (error == nullptr) std::memcpy(op->local.data, reinterpret_cast<const void*>(op->remote.address), op->bytes);
      op->on_done(op, error);
      ++events;
    }
    return events + inner_.progress();
  }

  bool expose(int peer, const transport::MemoryRef& local, size_t n, transport::RemoteBuffer* remote) override {
    if (local.kind != transport::MemoryKind::kHost) return false;
    uint32_t key = next_key_++;
    regions_[key] = Region{reinterpret_cast<uintptr_t>(local.data), n};
    remote->address = reinterpret_cast<uintptr_t>(local.data);
    remote->kind = local.kind;
    remote->key_bytes = sizeof key;
    std::memcpy(remote->key, &key, sizeof key);
    ++exposed;
    return true;
  }
  void conceal(const transport::RemoteBuffer& remote) override {
    uint32_t key = 0;
    std::memcpy(&key, remote.key, sizeof key);
    EXPECT_EQ(regions_.erase(key), 1u) << "concealed a key that was not exposed";
    ++concealed;
  }
  transport::Started start_read(transport::OneSided* op) override {
    if (!reads) return transport::Started::kUnsupported;
    if (corrupt_keys) op->remote.key[0] ^= 0xff;
    pending_.push_back(op);
    return transport::Started::kPending;
  }

  bool reads = true;          // false: a NIC that cannot reach this peer one-sidedly
  bool corrupt_keys = false;  // the key arrives damaged: the read must fail
  int exposed = 0;
  int concealed = 0;
  std::vector<transport::PacketHeader> sent;
  size_t count(transport::PacketType type) const {
    size_t n = 0;
    for (const auto& h : sent) n += h.type == type ? 1 : 0;
    return n;
  }
  size_t registered() const { return regions_.size(); }

 private:
  struct Region {
    uintptr_t address;
    size_t bytes;
  };
  // As a NIC checks an rkey: the key names a region and the read lies in it.
  const char* check(const transport::OneSided& op) const {
    if (op.remote.key_bytes != sizeof(uint32_t)) return "no registration key";
    uint32_t key = 0;
    std::memcpy(&key, op.remote.key, sizeof key);
    auto it = regions_.find(key);
    if (it == regions_.end()) return "remote access error (unknown key)";
    if (op.remote.address < it->second.address ||
        op.remote.address + op.bytes > it->second.address + it->second.bytes)
      return "remote access error (outside the region)";
    return nullptr;
  }

  transport::SelfTransport inner_;
  std::map<uint32_t, Region> regions_;
  uint32_t next_key_ = 0x1000;
  std::deque<transport::OneSided*> pending_;
};

class OneSidedRendezvousTest : public ::testing::Test {
 protected:
  void SetUp() override {
    baseline_ = requests::live();
    init(0, 1);
    nic_ = std::make_unique<ModelNic>(packet_handler());
    set_route(0, Route{nic_.get(), *nic_->reach(0)});
    comm_.handle = MPI_COMM_WORLD;
    comm_.context = 0;
    comm_.rank = 0;
    comm_.size = 1;
  }
  void TearDown() override {
    EXPECT_EQ(unexpected_messages(), 0u);
    EXPECT_EQ(nic_->registered(), 0u) << "a registration outlived its message";
    for (Request* r : held_) requests::release(r);
    finalize();
    nic_.reset();
    EXPECT_EQ(requests::live(), baseline_);
  }

  Request* describe(Request::Kind kind, void* buffer, size_t bytes, int tag) {
    Request* r = requests::acquire();
    held_.push_back(r);
    r->kind = kind;
    r->comm = &comm_;
    r->buffer = buffer;
    r->count = static_cast<int>(bytes);
    r->datatype = find_datatype(MPI_BYTE);
    r->bytes = bytes;
    r->peer = 0;
    r->tag = tag;
    r->active = true;
    return r;
  }
  Request* isend(const std::vector<char>& data, int tag) {
    Request* r = describe(Request::Kind::kSend, const_cast<char*>(data.data()), data.size(), tag);
    r->world_peer = 0;
    Err e = start_send(r);
    EXPECT_TRUE(e.ok()) << e.message();
    return r;
  }
  Request* irecv(std::vector<char>& buffer, int tag) {
    Request* r = describe(Request::Kind::kRecv, buffer.data(), buffer.size(), tag);
    start_recv(r);
    return r;
  }
  bool drive(const std::function<bool()>& done) {
    for (int i = 0; i < 10000 && !done(); ++i) nic_->progress();
    return done();
  }

  std::unique_ptr<ModelNic> nic_;
  Communicator comm_;
  std::vector<Request*> held_;
  size_t baseline_ = 0;
};

TEST_F(OneSidedRendezvousTest, ThePostedReceiveReadsWithTheKeyThatCameWithTheRequest) {
  std::vector<char> out = pattern(100000, 1), in(100000, 0);
  Request* r = irecv(in, 4);
  Request* s = isend(out, 4);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
  EXPECT_EQ(r->error, MPI_SUCCESS);
  ASSERT_EQ(nic_->count(transport::PacketType::kRendezvousRequest), 1u);
  const transport::PacketHeader& rts = nic_->sent[0];
  EXPECT_NE(rts.flags & transport::kFlagDirect, 0);
  EXPECT_EQ(rts.payload_bytes, sizeof(uint32_t)) << "the key is the request's payload";
  EXPECT_EQ(nic_->count(transport::PacketType::kRendezvousReady), 0u) << "no round trip for the data";
  EXPECT_EQ(nic_->count(transport::PacketType::kRendezvousData), 0u);
  EXPECT_EQ(nic_->count(transport::PacketType::kRendezvousDone), 1u);
  EXPECT_EQ(nic_->exposed, 1);
  EXPECT_EQ(nic_->concealed, 1);
}

// A send whose buffer the receiver reads in place sets the deadline until
// which this rank's waits poll rather than sleep: as long as that read may
// take at the planned slowest rate (progress.h, expect_peer_copy), dropped
// once no offered send is unanswered. A copy that fits the spin sets none,
// and a huge one is capped.
TEST_F(OneSidedRendezvousTest, AnOfferedSendSetsThePeerCopyDeadlineUntilItIsAnswered) {
  progress::peer_copy_until.store(0);
  std::vector<char> small = pattern(64 * 1024, 2), small_in(64 * 1024, 0);
  Request* r = irecv(small_in, 5);
  Request* s = isend(small, 5);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(progress::peer_copy_until.load(), 0) << "16 us of copy is within the spin";

  const size_t bytes = size_t{8} << 20;
  std::vector<char> big = pattern(bytes, 3), big_in(bytes, 0);
  const long long before = progress::now_us();
  r = irecv(big_in, 6);
  s = isend(big, 6);
  const long long after = progress::now_us();
  const long long lasts = static_cast<long long>(bytes / progress::kPeerCopyBytesPerUs);
  EXPECT_GE(progress::peer_copy_until.load(), before + lasts);
  EXPECT_LE(progress::peer_copy_until.load(), after + lasts);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(big_in, big);
  EXPECT_EQ(progress::peer_copy_until.load(), 0) << "answered: waits may sleep again";

  // An earlier, longer deadline stays; a copy of a gigabyte polls at most the cap.
  const long long later = progress::now_us() + 5 * progress::kPeerCopySpinMaxUs;
  progress::peer_copy_until.store(later);
  progress::expect_peer_copy(bytes);
  EXPECT_EQ(progress::peer_copy_until.load(), later);
  progress::peer_copy_until.store(0);
  const long long start = progress::now_us();
  progress::expect_peer_copy(size_t{1} << 30);
  EXPECT_GE(progress::peer_copy_until.load(), start + progress::kPeerCopySpinMaxUs);
  EXPECT_LE(progress::peer_copy_until.load(), progress::now_us() + progress::kPeerCopySpinMaxUs);
  progress::peer_copy_until.store(0);
}

TEST_F(OneSidedRendezvousTest, AnUnexpectedRequestKeepsItsKeyUntilItsReceiveComes) {
  std::vector<char> first = pattern(20000, 2), second = pattern(30000, 3);
  Request* s1 = isend(first, 1);
  Request* s2 = isend(second, 1);
  for (int i = 0; i < 50; ++i) nic_->progress();
  EXPECT_EQ(unexpected_messages(), 2u);
  EXPECT_FALSE(s1->complete);
  std::vector<char> in1(20000, 0), in2(30000, 0);
  Request* r1 = irecv(in1, 1);
  Request* r2 = irecv(in2, 1);
  ASSERT_TRUE(drive([&] { return r1->complete && r2->complete && s1->complete && s2->complete; }));
  EXPECT_EQ(in1, first) << "messages with keys keep their order (MPI-3.1 §3.5)";
  EXPECT_EQ(in2, second);
  EXPECT_EQ(nic_->concealed, 2);
}

TEST_F(OneSidedRendezvousTest, AReceiverThatCannotReadAsksForTheDataAndTheSenderConceals) {
  nic_->reads = false;
  std::vector<char> out = pattern(50000, 4), in(50000, 0);
  Request* r = irecv(in, 9);
  Request* s = isend(out, 9);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
  EXPECT_EQ(nic_->count(transport::PacketType::kRendezvousReady), 1u);
  EXPECT_EQ(nic_->count(transport::PacketType::kRendezvousDone), 0u);
  EXPECT_EQ(nic_->concealed, 1) << "the exposure ends when the ready packet says it was not used";
}

TEST_F(OneSidedRendezvousTest, AFailedReadFailsTheReceiveAndStillCompletesTheSend) {
  nic_->corrupt_keys = true;
  std::vector<char> out = pattern(8192, 5), in(8192, 0);
  Request* r = irecv(in, 2);
  Request* s = isend(out, 2);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; })) << "a failed read must not hang the sender";
  EXPECT_EQ(error_code::class_of(r->error), MPI_ERR_OTHER);
  EXPECT_NE(error_code::text(r->error).find("remote access error"), std::string::npos) << error_code::text(r->error);
  EXPECT_EQ(s->error, MPI_SUCCESS);
}

TEST_F(OneSidedRendezvousTest, BelowTheThresholdNothingIsExposed) {
  std::vector<char> out = pattern(ModelNic::kThreshold - 1, 6), in(ModelNic::kThreshold - 1, 0);
  Request* r = irecv(in, 3);
  Request* s = isend(out, 3);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
  EXPECT_EQ(nic_->exposed, 0);
  EXPECT_EQ(nic_->count(transport::PacketType::kRendezvousReady), 1u);
}

}  // namespace
}  // namespace ferry::p2p
