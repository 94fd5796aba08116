// One-sided communication through the NIC (rma/rdma.h) over the verbs
// transport on the in-process model of RC queue pairs: RDMA WRITE, READ and
// the NIC's atomics into a window the target exposed, with a target that
// never polls after the connection is made (its CPU takes no part: the
// model's fabric moves the bytes when the origin posts and polls), counted
// by the model device; and a refused key that comes back as an error, not
// a hang or the end of the job. (No RDMA device is used: the model stands
// in for one, as in verbs_transport_test.)
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "mpi.h"
#include "progress/progress.h"
#include "rma/active_message.h"
#include "rma/epochs.h"
#include "rma/operation.h"
#include "rma/rdma.h"
#include "rma/window.h"
#include "transport/verbs/model_device.h"
#include "transport/verbs/verbs_transport.h"

namespace ferry::rma {
namespace {

using transport::OneSided;
using transport::Started;
using transport::verbs::ModelDevice;
using transport::verbs::ModelFabric;
using transport::verbs::VerbsOptions;
using transport::verbs::VerbsTransport;

class Drop final : public transport::PacketHandler {
 public:
  transport::Destination on_header(int, const transport::PacketHeader& h) override {
    buffer.resize(h.payload_bytes);
    return transport::Destination{buffer.data(), buffer.size(), nullptr};
  }
  void on_payload(int, const transport::PacketHeader&, const transport::Destination&) override { ++packets; }
  std::vector<char> buffer;
  int packets = 0;
};

// Rank 0 (the origin, this test) and rank 1 (the target) of a job, each a
// verbs transport on a model device of one fabric. The pair is connected by
// one packet; after that only the origin's transport is ever progressed.
struct Job {
  ModelFabric fabric;
  ModelDevice* devices[2] = {};
  Drop inbox[2];
  std::unique_ptr<VerbsTransport> ranks[2];
  std::vector<std::string> fatal[2];
  std::string cards[2];
  alignas(64) uint64_t target_memory[64] = {};  // rank 1's window
  transport::RemoteBuffer exposed{};

  Job() {
    for (int r = 0; r < 2; ++r) {
      auto device = fabric.add_device();
      devices[r] = device.get();
      VerbsOptions o;
      o.my_rank = r;
      o.world_size = 2;
      o.my_job = 9;
      o.card_of = [this](int rank, std::string* card) {
        *card = cards[rank];
        return !card->empty();
      };
      o.fatal = [this, r](const std::string& m) { fatal[r].push_back(m); };
      ranks[r] = std::make_unique<VerbsTransport>(o, std::move(device), &inbox[r]);
    }
    for (int r = 0; r < 2; ++r) {
      std::string error;
      EXPECT_TRUE(ranks[r]->start(&error)) << error;
      cards[r] = transport::verbs::encode_card(ranks[r]->card());
    }
    // The target registers its window (rdma::setup does this at creation).
    EXPECT_TRUE(ranks[1]->expose_window({target_memory}, sizeof target_memory, &exposed));
    // One packet connects the pair, as the window's creation would.
    transport::SendItem item{};
    item.header.type = transport::PacketType::kEager;
    EXPECT_EQ(ranks[0]->send(1, &item), nullptr);
    for (int i = 0; i < 100000 && inbox[1].packets == 0; ++i) {
      ranks[0]->progress();
      ranks[1]->progress();
    }
    EXPECT_EQ(inbox[1].packets, 1);
  }
  ~Job() { ranks[1]->conceal(exposed); }

  // Drives the origin alone until `done`.
  template <typename F>
  bool origin_until(F done) {
    for (int i = 0; i < 100000 && !done(); ++i) ranks[0]->progress();
    return done();
  }
};

// A one-sided request and what its completion said.
struct Tracked : OneSided {
  bool done = false;
  std::string error;
};

void record(OneSided* op, const char* error) {
  auto* t = static_cast<Tracked*>(op);
  t->done = true;
  if (error != nullptr) t->error = error;
}

// A request on `bytes` at `offset` of the target's window.
void aim(Job& job, Tracked* op, uint64_t offset, void* local, size_t bytes) {
  op->peer = 1;
  op->remote = job.exposed;
  op->remote.address = reinterpret_cast<uint64_t>(job.target_memory) + offset;
  op->local.data = local;
  op->bytes = bytes;
  op->caller_reports = true;
  op->on_done = record;
}

TEST(VerbsRdma, WritesReadsAndAtomicsReachATargetThatNeverPolls) {
  Job job;
  // Large enough not to go inline: the local buffer is registered.
  std::vector<uint64_t> out(32);
  for (size_t i = 0; i < out.size(); ++i) out[i] = 0x1111111111111111ull * (i % 15) + i;
  Tracked write;
  aim(job, &write, 0, out.data(), 256);
  ASSERT_EQ(job.ranks[0]->start_write(&write), Started::kPending);
  ASSERT_TRUE(job.origin_until([&] { return write.done; }));
  EXPECT_EQ(write.error, "");
  EXPECT_EQ(std::memcmp(job.target_memory, out.data(), 256), 0);

  std::vector<uint64_t> in(32, 0);
  Tracked read;
  aim(job, &read, 0, in.data(), 256);
  ASSERT_EQ(job.ranks[0]->start_read(&read), Started::kPending);
  ASSERT_TRUE(job.origin_until([&] { return read.done; }));
  EXPECT_EQ(in, out);

  job.target_memory[40] = 1000;
  uint64_t old_add = 0;
  Tracked add;
  aim(job, &add, 40 * 8, &old_add, 8);
  add.atomic = transport::AtomicKind::kFetchAdd;
  add.operand = static_cast<uint64_t>(-7);  // a signed addend: two's complement
  ASSERT_EQ(job.ranks[0]->start_atomic(&add), Started::kPending);
  ASSERT_TRUE(job.origin_until([&] { return add.done; }));
  EXPECT_EQ(add.error, "");
  EXPECT_EQ(old_add, 1000u);
  EXPECT_EQ(job.target_memory[40], 993u);

  uint64_t old_swap = 0;
  Tracked cas;
  aim(job, &cas, 40 * 8, &old_swap, 8);
  cas.atomic = transport::AtomicKind::kCompareSwap;
  cas.compare = 993;
  cas.operand = 42;
  ASSERT_EQ(job.ranks[0]->start_atomic(&cas), Started::kPending);
  ASSERT_TRUE(job.origin_until([&] { return cas.done; }));
  EXPECT_EQ(old_swap, 993u);
  EXPECT_EQ(job.target_memory[40], 42u);

  EXPECT_EQ(job.devices[0]->rdma_writes(), 1u);
  EXPECT_EQ(job.devices[0]->rdma_reads(), 1u);
  EXPECT_EQ(job.devices[0]->atomic_ops(), 2u);
  EXPECT_EQ(job.inbox[1].packets, 1) << "nothing but the connecting packet reached the target's CPU";
  EXPECT_TRUE(job.fatal[0].empty() && job.fatal[1].empty());
}

TEST(VerbsRdma, AMisalignedOrUnsupportedAtomicIsNotStarted) {
  Job job;
  uint64_t old = 0;
  Tracked misaligned;
  aim(job, &misaligned, 4, &old, 8);
  EXPECT_EQ(job.ranks[0]->start_atomic(&misaligned), Started::kUnsupported);
  job.devices[0]->set_atomics(false);  // a NIC without atomics
  EXPECT_FALSE(job.ranks[0]->has_atomics(1));
  Tracked aligned;
  aim(job, &aligned, 8, &old, 8);
  EXPECT_EQ(job.ranks[0]->start_atomic(&aligned), Started::kUnsupported);
  EXPECT_EQ(job.devices[0]->atomic_ops(), 0u);
}

// ---- Through the RMA layer: a window whose target 1 is reached by messages
// and whose memory the NIC reaches (what rdma::setup finds across hosts).

struct RmaJob : Job {
  Communicator comm;
  Window w;

  RmaJob() {
    comm.handle = MPI_COMM_WORLD;
    comm.context = 0;
    comm.rank = 0;
    comm.size = 2;
    comm.world_ranks = {0, 1};
    w.comm = &comm;
    w.flavor = Flavor::kCreate;
    w.targets.resize(2);
    Target& t = w.targets[1];
    t.reach = Reach::kMessages;
    t.base = reinterpret_cast<uint64_t>(target_memory);
    t.size = sizeof target_memory;
    t.disp_unit = 8;
    w.epochs.fence = true;
    w.epochs.locks.assign(2, LockState::kNone);
    auto s = std::make_shared<rdma::State>();
    s->remote.assign(2, transport::RemoteBuffer{});
    s->via.assign(2, nullptr);
    s->in_flight.assign(2, 0);
    s->remote[1] = exposed;
    s->via[1] = ranks[0].get();
    s->nic_atomics = true;  // every rank gave "ferry_nic_atomics" = "true"
    w.rdma = s;
    // The flushes ask the service too; never started, it has nothing in
    // flight (every operation here goes through the NIC).
    w.service = std::make_shared<Service>(w);
    progress::add_source(ranks[0].get());  // the origin's engine; the target's is never run
  }
  ~RmaJob() { progress::remove_all_sources(); }

  // A put or get of `count` elements of `type` at displacement `disp` of rank 1.
  Err move(OpKind kind, const void* data, MPI_Count count, MPI_Datatype type, MPI_Aint disp, const char* call) {
    Operation o{kind};
    o.origin = data;
    o.origin_count = count;
    o.origin_type = find_datatype(type);
    o.target = 1;
    o.disp = disp;
    o.target_count = count;
    o.target_type = find_datatype(type);
    return start(w, o, nullptr, call);
  }
  Err put(const void* data, MPI_Count count, MPI_Datatype type, MPI_Aint disp) {
    return move(OpKind::kPut, data, count, type, disp, "MPI_Put");
  }
  Err get(void* data, MPI_Count count, MPI_Datatype type, MPI_Aint disp) {
    return move(OpKind::kGet, data, count, type, disp, "MPI_Get");
  }
  Err fetch_and_op(const void* in, void* out, MPI_Op op, MPI_Aint disp) {
    Operation o{OpKind::kGetAccumulate};
    bool no_op = op == MPI_NO_OP;
    o.origin = no_op ? nullptr : in;
    o.origin_count = no_op ? 0 : 1;
    o.origin_type = no_op ? nullptr : find_datatype(MPI_INT64_T);
    o.result = out;
    o.result_count = 1;
    o.result_type = find_datatype(MPI_INT64_T);
    o.target = 1;
    o.disp = disp;
    o.target_count = 1;
    o.target_type = find_datatype(MPI_INT64_T);
    o.op = find_op(op);
    return start(w, o, nullptr, "MPI_Fetch_and_op");
  }
  Err compare_and_swap(const void* in, const void* compare, void* out, MPI_Aint disp) {
    Operation o{OpKind::kCompareAndSwap};
    o.origin = in;
    o.origin_count = 1;
    o.origin_type = find_datatype(MPI_INT64_T);
    o.compare = compare;
    o.result = out;
    o.result_count = 1;
    o.result_type = find_datatype(MPI_INT64_T);
    o.target = 1;
    o.disp = disp;
    o.target_count = 1;
    o.target_type = find_datatype(MPI_INT64_T);
    o.op = find_op(MPI_REPLACE);
    return start(w, o, nullptr, "MPI_Compare_and_swap");
  }
};

TEST(VerbsRdmaWindow, PutGetAndFetchAndOpGoThroughTheNicAndTheFlushWaitsForThem) {
  RmaJob job;
  int64_t values[16];
  for (int i = 0; i < 16; ++i) values[i] = -3 * i + (int64_t{1} << 40);
  ASSERT_TRUE(job.put(values, 16, MPI_INT64_T, 2).ok());  // disp 2: bytes 16..143
  Err flushed = flush(job.w, 1);  // MPI_Win_flush
  ASSERT_TRUE(flushed.ok()) << flushed.message();
  EXPECT_EQ(std::memcmp(job.target_memory + 2, values, sizeof values), 0);
  int64_t back[16] = {};
  ASSERT_TRUE(job.get(back, 16, MPI_INT64_T, 2).ok());
  ASSERT_TRUE(flush_all(job.w).ok());  // MPI_Win_flush_all
  EXPECT_EQ(std::memcmp(back, values, sizeof values), 0);
  // Small: inline, no registration of the origin's buffer.
  char small[5] = {'r', 'd', 'm', 'a', '!'};
  ASSERT_TRUE(job.put(small, 5, MPI_CHAR, 60).ok());
  ASSERT_TRUE(flush(job.w, 1).ok());
  EXPECT_EQ(std::memcmp(job.target_memory + 60, small, 5), 0);

  job.target_memory[50] = 100;
  int64_t add = -30, old_sum = 0, old_read = 0, old_replace = 0, old_cas = 0;
  ASSERT_TRUE(job.fetch_and_op(&add, &old_sum, MPI_SUM, 50).ok());
  ASSERT_TRUE(job.fetch_and_op(nullptr, &old_read, MPI_NO_OP, 50).ok());
  ASSERT_TRUE(flush(job.w, 1).ok());
  EXPECT_EQ(old_sum, 100);
  EXPECT_EQ(old_read, 70);
  int64_t seven = 7;
  ASSERT_TRUE(job.fetch_and_op(&seven, &old_replace, MPI_REPLACE, 50).ok());
  EXPECT_EQ(old_replace, 70);
  EXPECT_EQ(job.target_memory[50], 7u);
  int64_t expect = 7, nine = 9, wrong = 8;
  ASSERT_TRUE(job.compare_and_swap(&nine, &expect, &old_cas, 50).ok());
  ASSERT_TRUE(flush(job.w, 1).ok());
  EXPECT_EQ(old_cas, 7);
  EXPECT_EQ(job.target_memory[50], 9u);
  ASSERT_TRUE(job.compare_and_swap(&seven, &wrong, &old_cas, 50).ok());
  ASSERT_TRUE(flush(job.w, 1).ok());
  EXPECT_EQ(old_cas, 9);
  EXPECT_EQ(job.target_memory[50], 9u) << "a compare that fails leaves the word";

  EXPECT_EQ(job.devices[0]->rdma_writes(), 2u);
  EXPECT_EQ(job.devices[0]->rdma_reads(), 1u);
  // SUM, NO_OP, REPLACE (a fetch that guessed 0, then the swap that took), two CAS.
  EXPECT_EQ(job.devices[0]->atomic_ops(), 6u);
  EXPECT_EQ(job.w.rdma->writes, 2u);
  EXPECT_EQ(job.inbox[1].packets, 1) << "no active message reached the target";
  EXPECT_TRUE(job.fatal[0].empty() && job.fatal[1].empty());
}

TEST(VerbsRdmaWindow, WithoutTheHintOrARouteTheActiveMessagesStay) {
  RmaJob job;
  job.w.rdma->nic_atomics = false;
  job.w.rdma->via[1] = nullptr;  // and a target the NIC does not reach: nothing starts through it
  // With neither path open to it, try_start declines: the caller would
  // send an active message.
  Operation o{OpKind::kPut};
  int64_t v = 1;
  o.origin = &v;
  o.origin_count = 1;
  o.origin_type = find_datatype(MPI_INT64_T);
  o.target = 1;
  o.target_count = 1;
  o.target_type = o.origin_type;
  Err e;
  EXPECT_FALSE(rdma::try_start(job.w, o, job.w.targets[1].base, false, &e));
  job.w.rdma->via[1] = job.ranks[0].get();
  EXPECT_FALSE(rdma::try_start(job.w, o, job.w.targets[1].base, true, &e)) << "request forms keep the messages";
  Operation f{OpKind::kGetAccumulate};
  int64_t out = 0;
  f.origin = &v;
  f.origin_count = 1;
  f.origin_type = o.origin_type;
  f.result = &out;
  f.result_count = 1;
  f.result_type = o.origin_type;
  f.target = 1;
  f.target_count = 1;
  f.target_type = o.origin_type;
  f.op = find_op(MPI_SUM);
  EXPECT_FALSE(rdma::try_start(job.w, f, job.w.targets[1].base, false, &e)) << "no hint: no NIC atomics";
  job.w.rdma->nic_atomics = true;
  f.op = find_op(MPI_PROD);
  EXPECT_FALSE(rdma::try_start(job.w, f, job.w.targets[1].base, false, &e)) << "the NIC has no product";
  f.op = find_op(MPI_SUM);
  EXPECT_FALSE(rdma::try_start(job.w, f, job.w.targets[1].base + 4, false, &e)) << "misaligned";
  EXPECT_EQ(job.devices[0]->atomic_ops(), 0u);
}

TEST(VerbsRdmaWindow, ARefusedKeyIsAnErrorOfTheFlushNamingTheCallNotAHang) {
  RmaJob job;
  job.w.rdma->remote[1].key[0] ^= 0x5a;  // planted: a key the target never gave
  int64_t values[16] = {1, 2, 3};
  ASSERT_TRUE(job.put(values, 16, MPI_INT64_T, 0).ok());  // started: the NIC finds out
  Err e = flush(job.w, 1);  // MPI_Win_flush returns it
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OTHER);
  EXPECT_NE(e.message().find("MPI_Put"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("remote access error"), std::string::npos) << e.message();
  EXPECT_EQ(job.target_memory[0], 0u) << "nothing was written";
  EXPECT_TRUE(job.fatal[0].empty()) << "the job goes on: " << job.fatal[0][0];
  // The pair's queue pair is in error, as on hardware: a later put is not
  // started through the NIC (the messages then report the failed link).
  Err later;
  Operation o{OpKind::kPut};
  o.origin = values;
  o.origin_count = 16;
  o.origin_type = find_datatype(MPI_INT64_T);
  o.target = 1;
  o.target_count = 16;
  o.target_type = o.origin_type;
  EXPECT_FALSE(rdma::try_start(job.w, o, job.w.targets[1].base, false, &later));
  EXPECT_TRUE(flush_all(job.w).ok()) << "reported once";
}

}  // namespace
}  // namespace ferry::rma
