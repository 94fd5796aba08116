// The one-pass allreduce on GPU buffers (coll/device_onepass.h), its steps
// run for several ranks in one process against the host-memory model of a
// GPU (device_model.h, where an IPC mapping is the peer's own address): the
// slices cover every element once in aligned units; each rank's entry says
// no for host, managed or out-of-allocation buffers and when the kernel
// cannot run, so every rank falls back alike; each rank's kernel gets
// slice r of every rank's input in rank order and writes it into every
// rank's output, its own first; in place works; our own exports and the
// peers' mappings are made once for the same buffers; a mapping that
// cannot be opened is reported; and calls that are not eligible return at
// once, without a collective. The same steps for reduce_scatter_block
// (block r into rank r's own buffer, nobody maps the receive buffers),
// allgather (every block pulled, in place or not) and bcast (only the
// root's buffer mapped).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/op.h"
#include "coll/collectives.h"
#include "coll/device_onepass.h"
#include "coll/shm/segment.h"
#include "device/device.h"
#include "device/ipc_cache.h"
#include "device/kernels.h"
#include "device/staging.h"
#include "device_model.h"

namespace ferry::coll::gpu::onepass {
namespace {

using device::kernels::Element;
using device::kernels::Reduction;

class OnePassTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device::install(device::model::ops());
    device::model::reset_counters();
  }
  void TearDown() override {
    for (void* p : allocations_) device::model::free(p);
    device::install(nullptr);
  }

  void* gpu(size_t bytes) {
    void* p = device::model::alloc(bytes);
    allocations_.push_back(p);
    return p;
  }
  template <typename T>
  void* gpu_of(const std::vector<T>& v) {
    void* p = gpu(v.size() * sizeof(T));
    device::model::write(p, v.data(), v.size() * sizeof(T));
    return p;
  }
  template <typename T>
  static std::vector<T> read(const void* p, size_t n) {
    std::vector<T> v(n);
    device::model::read(v.data(), p, n * sizeof(T));
    return v;
  }

  // Steps 1 to 4 for p ranks, each with its own mapping cache (its own
  // process); false where a step says no.
  bool run(int p, const std::vector<const void*>& sends, const std::vector<void*>& recvs, size_t count,
           size_t element_bytes, Element element, Reduction op) {
    std::vector<Entry> entries;
    for (int r = 0; r < p; ++r)
      entries.push_back(describe_buffers(sends[r], recvs[r], count * element_bytes, true));
    if (!all_usable(entries.data(), p)) return false;
    std::vector<int> ids(p);
    for (int r = 0; r < p; ++r) ids[r] = r;
    while (caches_.size() < static_cast<size_t>(p))
      caches_.push_back(std::make_unique<device::IpcCache>(device::installed));
    std::vector<Mapped> mapped(p);
    for (int r = 0; r < p; ++r) {
      std::string error;
      if (!open_peers(entries.data(), p, r, ids.data(), sends[r], recvs[r], 0, *caches_[r], &mapped[r], &error))
        return false;
    }
    for (int r = 0; r < p; ++r)
      if (auto e = reduce_slice(mapped[r], p, r, count, element_bytes, element, op)) {
        ADD_FAILURE() << *e;
        return false;
      }
    return true;
  }

  std::vector<void*> allocations_;
  std::vector<std::unique_ptr<device::IpcCache>> caches_;
};

TEST_F(OnePassTest, SlicesCoverEveryElementOnceInWholeSixteenByteUnits) {
  for (size_t bytes : {1, 2, 4, 8})
    for (int p = 2; p <= 8; ++p)
      for (size_t count : {0, 1, 3, 4, 5, 17, 37, 1000, 1003, 4096 + 3}) {
        std::vector<int> hits(count, 0);
        const size_t unit = 16 / bytes;
        for (int r = 0; r < p; ++r) {
          Slice s = slice_of(count, bytes, p, r);
          EXPECT_EQ(s.first % unit, 0u) << "an aligned buffer's slice starts aligned";
          if (r < p - 1) {
            EXPECT_EQ(s.count % unit, 0u);
          }
          for (size_t i = s.first; i < s.first + s.count; ++i) ++hits[i];
        }
        EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }))
            << "count " << count << " on " << p << " ranks of " << bytes << "-byte elements";
        // Even: no rank's slice is more than one unit (plus the tail) over another's.
        if (count >= unit * p) {
          EXPECT_LE(slice_of(count, bytes, p, 0).count, slice_of(count, bytes, p, p - 1).count + unit);
        }
      }
}

TEST_F(OnePassTest, FourRanksEachReduceTheirSliceIntoEveryRanksOutput) {
  const int p = 4;
  const size_t count = 1003;  // not a multiple of 4 x 4 floats: uneven slices and a tail
  std::vector<const void*> sends;
  std::vector<void*> recvs;
  std::vector<float> expected(count, 0.0f);
  for (int r = 0; r < p; ++r) {
    std::vector<float> in(count);
    for (size_t i = 0; i < count; ++i) {
      in[i] = static_cast<float>(r * 1000 + i % 97);
      expected[i] += in[i];
    }
    sends.push_back(gpu_of(in));
    recvs.push_back(gpu(count * sizeof(float)));
  }
  ASSERT_TRUE(run(p, sends, recvs, count, sizeof(float), Element::kFloat, Reduction::kSum));
  for (int r = 0; r < p; ++r) EXPECT_EQ(read<float>(recvs[r], count), expected) << "rank " << r;
  EXPECT_EQ(device::model::counters().launches, static_cast<uint64_t>(p)) << "one kernel per rank";

  // The last kernel was rank 3's: slice 3 of every input, in rank order,
  // into slice 3 of every output, its own first.
  const auto& last = device::model::last_reduce();
  Slice s = slice_of(count, sizeof(float), p, p - 1);
  EXPECT_EQ(last.count, s.count);
  ASSERT_EQ(last.inputs.size(), static_cast<size_t>(p));
  ASSERT_EQ(last.outputs.size(), static_cast<size_t>(p));
  const size_t at = s.first * sizeof(float);
  for (int q = 0; q < p; ++q)
    EXPECT_EQ(last.inputs[q], static_cast<const char*>(sends[q]) + at) << "input " << q;
  EXPECT_EQ(last.outputs[0], static_cast<char*>(recvs[p - 1]) + at) << "its own output first (its context)";
  for (int q = 0; q < p - 1; ++q) EXPECT_EQ(last.outputs[q + 1], static_cast<char*>(recvs[q]) + at);
}

TEST_F(OnePassTest, InPlaceTheReceiveBuffersAreTheInputs) {
  const int p = 3;
  const size_t count = 70;
  std::vector<const void*> sends(p, MPI_IN_PLACE);
  std::vector<void*> recvs;
  std::vector<int> expected(count, -1000000);
  for (int r = 0; r < p; ++r) {
    std::vector<int> in(count);
    for (size_t i = 0; i < count; ++i) {
      in[i] = static_cast<int>((i * 7 + r * 13) % 50) - 25;
      expected[i] = std::max(expected[i], in[i]);
    }
    recvs.push_back(gpu_of(in));
  }
  ASSERT_TRUE(run(p, sends, recvs, count, sizeof(int), Element::kInt32, Reduction::kMax));
  for (int r = 0; r < p; ++r) EXPECT_EQ(read<int>(recvs[r], count), expected) << "rank " << r;
  const auto& last = device::model::last_reduce();
  Slice s = slice_of(count, sizeof(int), p, p - 1);
  EXPECT_EQ(last.inputs[0], static_cast<const char*>(recvs[0]) + s.first * sizeof(int));
}

TEST_F(OnePassTest, OneRankWhoseBuffersCannotTakePartMakesEveryRankFallBack) {
  const size_t bytes = 4096;
  void* send = gpu(bytes);
  void* recv = gpu(bytes);
  Entry good = describe_buffers(send, recv, bytes, true);
  EXPECT_EQ(good.usable, 1u);

  std::vector<char> host(bytes);
  void* managed = device::model::alloc_managed(bytes);
  Entry no[] = {
      describe_buffers(host.data(), recv, bytes, true),     // host send buffer
      describe_buffers(send, host.data(), bytes, true),     // host receive buffer
      describe_buffers(managed, recv, bytes, true),         // managed memory moves as host memory
      describe_buffers(send, recv, bytes + 1, true),        // past the end of the allocation
      describe_buffers(send, recv, bytes, false),           // no kernel here
      describe_buffers(MPI_IN_PLACE, host.data(), bytes, true),
  };
  for (const Entry& e : no) {
    EXPECT_EQ(e.usable, 0u);
    Entry all[3] = {good, e, good};
    EXPECT_FALSE(all_usable(all, 3)) << "every rank sees the one that says no";
  }
  Entry all[3] = {good, good, good};
  EXPECT_TRUE(all_usable(all, 3));
  device::model::free(managed);
}

TEST_F(OnePassTest, TheSameBuffersAreExportedAndMappedOnceAcrossCalls) {
  const int p = 2;
  const size_t count = 512;
  std::vector<const void*> sends;
  std::vector<void*> recvs;
  for (int r = 0; r < p; ++r) {
    sends.push_back(gpu_of(std::vector<double>(count, 1.5 + r)));
    recvs.push_back(gpu(count * sizeof(double)));
  }
  ASSERT_TRUE(run(p, sends, recvs, count, sizeof(double), Element::kDouble, Reduction::kSum));
  EXPECT_EQ(device::model::counters().ipc_exports, 4u) << "each rank's two allocations, once";
  EXPECT_EQ(device::model::counters().ipc_opens, 4u) << "each rank maps the other's two";
  ASSERT_TRUE(run(p, sends, recvs, count, sizeof(double), Element::kDouble, Reduction::kSum));
  EXPECT_EQ(device::model::counters().ipc_exports, 4u) << "no cuIpcGetMemHandle on a second call";
  EXPECT_EQ(device::model::counters().ipc_opens, 4u) << "no cuIpcOpenMemHandle on a second call";
  for (int r = 0; r < p; ++r) EXPECT_EQ(read<double>(recvs[r], count), std::vector<double>(count, 4.0));
}

TEST_F(OnePassTest, AMappingThatCannotBeOpenedIsReported) {
  void* send = gpu(1024);
  void* recv = gpu(1024);
  Entry e[2] = {describe_buffers(send, recv, 1024, true), describe_buffers(send, recv, 1024, true)};
  int ids[2] = {0, 1};
  device::IpcCache cache(device::installed);
  Mapped m;
  std::string error;
  device::model::fail_next_ipc_open(400);
  EXPECT_FALSE(open_peers(e, 2, 0, ids, send, recv, 0, cache, &m, &error));
  EXPECT_NE(error.find("cuIpcOpenMemHandle"), std::string::npos) << error;
}

TEST_F(OnePassTest, CallsThatAreNotEligibleReturnAtOnceWithoutACollective) {
  Communicator c;
  c.handle = MPI_COMM_WORLD;
  c.context = 0;
  c.rank = 0;
  c.size = 4;
  void* send = gpu(1 << 22);
  void* recv = gpu(1 << 22);
  const Datatype* f = find_datatype(MPI_FLOAT);
  const size_t big = (size_t(threshold()) + 64) / sizeof(float);
  Request* request = nullptr;
  // Each would block in a collective over ranks that are not there if it
  // went on; returning nothing means the caller runs today's path.
  EXPECT_FALSE(onepass::allreduce(send, recv, 4, f, find_op(MPI_SUM), &c, {}));                // below the threshold
  EXPECT_FALSE(onepass::allreduce(send, recv, big, f, find_op(MPI_MAXLOC), &c, {}));           // no kernel
  EXPECT_FALSE(onepass::allreduce(send, recv, big, f, find_op(MPI_BAND), &c, {}));             // not defined for float
  EXPECT_FALSE(onepass::allreduce(send, recv, big, f, find_op(MPI_SUM), &c, nonblocking(&request)));
  c.size = 9;
  EXPECT_FALSE(onepass::allreduce(send, recv, big, f, find_op(MPI_SUM), &c, {}));              // more than 8 ranks
  c.size = 1;
  EXPECT_FALSE(onepass::allreduce(send, recv, big, f, find_op(MPI_SUM), &c, {}));
  EXPECT_FALSE(shm::onepass_slot(&c)) << "no agreement was started";
  EXPECT_EQ(device::model::counters().ipc_exports, 0u);
}

TEST_F(OnePassTest, ReduceScatterBlockRankRReducesBlockRIntoItsOwnBufferOnly) {
  const int p = 3;
  const size_t block = 37;
  std::vector<const void*> sends;
  std::vector<void*> recvs;
  std::vector<int> sum(p * block, 0);
  std::vector<Entry> entries;
  for (int r = 0; r < p; ++r) {
    std::vector<int> in(p * block);
    for (size_t i = 0; i < in.size(); ++i) sum[i] += in[i] = static_cast<int>(i * 3 + r * 100);
    sends.push_back(gpu_of(in));
    recvs.push_back(gpu(block * sizeof(int)));
    Buffers b;
    b.send = sends[r];
    b.send_bytes = p * block * sizeof(int);
    b.recv = recvs[r];
    b.recv_bytes = block * sizeof(int);
    b.share_recv = false;
    entries.push_back(describe_buffers(b));
    EXPECT_EQ(entries[r].has_recv, 0u);
  }
  ASSERT_TRUE(all_usable(entries.data(), p));
  int ids[p] = {0, 1, 2};
  for (int r = 0; r < p; ++r) {
    device::IpcCache cache(device::installed);
    Mapped m;
    std::string error;
    ASSERT_TRUE(open_peers(entries.data(), p, r, ids, sends[r], recvs[r], 0, cache, &m, &error)) << error;
    ASSERT_FALSE(reduce_block(m, p, r, block, sizeof(int), Element::kInt32, Reduction::kSum));
    EXPECT_EQ(device::model::last_reduce().outputs, std::vector<void*>{recvs[r]}) << "its own buffer only";
    EXPECT_EQ(read<int>(recvs[r], block), std::vector<int>(sum.begin() + r * block, sum.begin() + (r + 1) * block));
  }
  EXPECT_EQ(device::model::counters().ipc_opens, static_cast<uint64_t>(p * (p - 1))) << "the send buffers only";
}

TEST_F(OnePassTest, AllgatherPullsEveryBlockWhetherItsOwnerIsInPlaceOrNot) {
  const int p = 3;
  const size_t block = 100;  // bytes
  std::vector<const void*> sends;
  std::vector<void*> recvs;
  std::vector<char> expected(p * block);
  std::vector<Entry> entries;
  for (int r = 0; r < p; ++r) {
    std::vector<char> mine(block, static_cast<char>('a' + r));
    std::copy(mine.begin(), mine.end(), expected.begin() + r * block);
    const bool in_place = r == 1;
    std::vector<char> out(p * block, '.');
    if (in_place) std::copy(mine.begin(), mine.end(), out.begin() + r * block);
    recvs.push_back(gpu_of(out));
    sends.push_back(in_place ? MPI_IN_PLACE : gpu_of(mine));
    Buffers b;
    b.send = sends[r];
    b.send_bytes = block;
    b.recv = recvs[r];
    b.recv_bytes = p * block;
    b.share_recv = in_place;
    entries.push_back(describe_buffers(b));
  }
  ASSERT_TRUE(all_usable(entries.data(), p));
  int ids[p] = {0, 1, 2};
  for (int r = 0; r < p; ++r) {
    device::IpcCache cache(device::installed);
    Mapped m;
    std::string error;
    ASSERT_TRUE(open_peers(entries.data(), p, r, ids, sends[r], recvs[r], 0, cache, &m, &error)) << error;
    ASSERT_FALSE(gather_blocks(entries.data(), m, p, r, block));
  }
  for (int r = 0; r < p; ++r) EXPECT_EQ(read<char>(recvs[r], p * block), expected) << "rank " << r;
}

TEST_F(OnePassTest, BcastMapsOnlyTheRootsBuffer) {
  const int p = 4, root = 2;
  const size_t bytes = 256;
  std::vector<void*> bufs;
  std::vector<Entry> entries;
  for (int r = 0; r < p; ++r) {
    bufs.push_back(gpu_of(std::vector<char>(bytes, static_cast<char>(r == root ? 'R' : '-'))));
    Buffers b;
    if (r == root) {
      b.send = bufs[r];
      b.send_bytes = bytes;
    } else {
      b.recv = bufs[r];
      b.recv_bytes = bytes;
      b.share_recv = false;
    }
    entries.push_back(describe_buffers(b));
  }
  ASSERT_TRUE(all_usable(entries.data(), p));
  EXPECT_EQ(device::model::counters().ipc_exports, 1u) << "the root's buffer alone is exported";
  int ids[p] = {0, 1, 2, 3};
  for (int r = 0; r < p; ++r) {
    if (r == root) continue;
    device::IpcCache cache(device::installed);
    Mapped m;
    std::string error;
    ASSERT_TRUE(open_peers(entries.data(), p, r, ids, nullptr, bufs[r], 0, cache, &m, &error, root)) << error;
    device::staging::Copy copy{bufs[r], m.inputs[root], bytes};
    ASSERT_FALSE(device::staging::copy_many(device::describe(bufs[r]), &copy, 1));
  }
  EXPECT_EQ(device::model::counters().ipc_opens, static_cast<uint64_t>(p - 1)) << "each non-root maps the root";
  for (int r = 0; r < p; ++r) EXPECT_EQ(read<char>(bufs[r], bytes), std::vector<char>(bytes, 'R'));
}

}  // namespace
}  // namespace ferry::coll::gpu::onepass
