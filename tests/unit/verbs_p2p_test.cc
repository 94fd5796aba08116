// MPI point-to-point (the p2p engine) over the verbs transport on the
// in-process model: eager messages and the zero-copy rendezvous (RDMA READ
// from the sender's registered buffer), end to end through matching. One
// rank, talking to itself through a loopback RC queue pair, so that the
// engine's single-process state suffices.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/request.h"
#include "mpi.h"
#include "p2p/engine.h"
#include "transport/verbs/memory_hooks.h"
#include "transport/verbs/model_device.h"
#include "transport/verbs/verbs_transport.h"

namespace ferry::p2p {
namespace {

using transport::verbs::ModelDevice;
using transport::verbs::ModelFabric;
using transport::verbs::VerbsOptions;
using transport::verbs::VerbsTransport;

std::vector<char> pattern(size_t bytes, int seed) {
  std::vector<char> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<char>((seed * 31 + i * 13 + (i >> 9)) & 0xff);
  return v;
}

class VerbsP2pTest : public ::testing::Test {
 protected:
  void SetUp() override {
    baseline_ = requests::live();
    // What loading libmpi does on a host with an RDMA device (memory_hooks.h).
    transport::verbs::memory_hooks::prepare_allocator();
    init(0, 1);
    auto device = fabric_.add_device();
    device_ = device.get();
    VerbsOptions o;
    o.my_rank = 0;
    o.world_size = 1;
    o.eager_limit = 4096;
    o.reg_cache_bytes = 64 << 20;
    o.card_of = [this](int, std::string* card) {
      *card = card_;
      return true;
    };
    o.fatal = [this](const std::string& m) { fatal_.push_back(m); };
    verbs_ = std::make_unique<VerbsTransport>(o, std::move(device), packet_handler());
    std::string error;
    ASSERT_TRUE(verbs_->start(&error)) << error;
    card_ = transport::verbs::encode_card(verbs_->card());
    set_route(0, Route{verbs_.get(), *verbs_->reach(0)});
    comm_.handle = MPI_COMM_WORLD;
    comm_.context = 0;
    comm_.rank = 0;
    comm_.size = 1;
  }
  void TearDown() override {
    EXPECT_TRUE(fatal_.empty()) << fatal_[0];
    EXPECT_EQ(unexpected_messages(), 0u);
    for (Request* r : held_) requests::release(r);
    finalize();
    verbs_.reset();
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
    for (int i = 0; i < 100000 && !done(); ++i) verbs_->progress();
    return done();
  }

  ModelFabric fabric_;
  ModelDevice* device_ = nullptr;
  std::unique_ptr<VerbsTransport> verbs_;
  std::string card_;
  std::vector<std::string> fatal_;
  Communicator comm_;
  std::vector<Request*> held_;
  size_t baseline_ = 0;
};

TEST_F(VerbsP2pTest, EagerMessagesMatchInOrder) {
  std::vector<std::vector<char>> out, in;
  std::vector<size_t> sizes = {0, 8, 100, 4000, 4096};
  for (size_t i = 0; i < sizes.size(); ++i) {
    out.push_back(pattern(sizes[i], static_cast<int>(i)));
    in.emplace_back(sizes[i]);
  }
  std::vector<Request*> sends, recvs;
  for (size_t i = 0; i < sizes.size(); ++i) sends.push_back(isend(out[i], 7));  // unexpected first
  for (size_t i = 0; i < sizes.size(); ++i) recvs.push_back(irecv(in[i], 7));
  ASSERT_TRUE(drive([&] {
    for (size_t i = 0; i < sizes.size(); ++i)
      if (!sends[i]->complete || !recvs[i]->complete) return false;
    return true;
  }));
  for (size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(in[i], out[i]) << "message " << i;
}

TEST_F(VerbsP2pTest, ALargeMessageIsReadInPlaceAndItsBufferRegisteredOnce) {
  std::vector<char> out = pattern(1 << 20, 3), in(1 << 20, 0);
  Request* r = irecv(in, 1);
  Request* s = isend(out, 1);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(r->error, MPI_SUCCESS);
  EXPECT_EQ(in, out);
  int registrations = device_->registrations();
  // The same buffers again: both registrations come from the cache.
  std::fill(in.begin(), in.end(), 0);
  r = irecv(in, 2);
  s = isend(out, 2);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
  ASSERT_TRUE(verbs_->registrations().caching()) << "the munmap hooks are not in effect in this test";
  EXPECT_EQ(device_->registrations(), registrations) << "no registration on the second send of a buffer";
  EXPECT_GE(verbs_->registrations().hits(), 2u);
}

TEST_F(VerbsP2pTest, AnUnexpectedLargeMessageWaitsForItsReceive) {
  std::vector<char> out = pattern(300000, 4), in(300000, 0);
  Request* s = isend(out, 9);
  for (int i = 0; i < 100; ++i) verbs_->progress();
  EXPECT_FALSE(s->complete) << "a rendezvous send completes only once the data is read";
  Request* r = irecv(in, 9);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(in, out);
}

TEST_F(VerbsP2pTest, ATruncatedLargeMessageIsReportedAndTheSendCompletes) {
  std::vector<char> out = pattern(100000, 5), in(50000, 0);
  Request* r = irecv(in, 3);
  Request* s = isend(out, 3);
  ASSERT_TRUE(drive([&] { return r->complete && s->complete; }));
  EXPECT_EQ(error_code::class_of(r->error), MPI_ERR_TRUNCATE);
  EXPECT_EQ(std::memcmp(in.data(), out.data(), in.size()), 0);
}

}  // namespace
}  // namespace ferry::p2p
