// The pure parts of collective IO (src/io/two_phase.h): hints parsed and
// reported in effect, an access flattened lazily (checked against a byte
// model of the view), and the plan: aggregators over hosts, domains and
// rounds, for host layouts a one-host test machine cannot show.
#include <gtest/gtest.h>

#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/type_constructors.h"
#include "io/file.h"
#include "io/flatten.h"
#include "io/hints.h"
#include "io/two_phase.h"
#include "mpi.h"

namespace ferry::io {
namespace {

TEST(IoHints, ParsedValidatedAndReportedInEffect) {
  Info all, given;
  Hints h;
  given.set("cb_buffer_size", "65536");
  given.set("cb_config_list", "*:3");
  given.set("romio_cb_write", "DISABLE");
  given.set("striping_unit", "0");          // out of range: ignored
  given.set("romio_ds_read", "maybe");      // not a mode: ignored
  given.set("ind_wr_buffer_size", "12abc");  // not a number: ignored
  given.set("somebody_elses_key", "x");
  apply_hints(all, &given, h, "/f");
  EXPECT_EQ(h.cb_buffer_size, 65536u);
  EXPECT_EQ(h.per_host, 3);
  EXPECT_EQ(h.cb_write, Use::kDisable);
  EXPECT_EQ(h.cb_read, Use::kAutomatic);
  EXPECT_EQ(h.striping_unit, 4096u);
  EXPECT_EQ(h.ds_read, Use::kAutomatic);
  EXPECT_EQ(h.ind_wr_buffer_size, 512u << 10);
  EXPECT_EQ(*all.get("cb_buffer_size"), "65536");
  EXPECT_EQ(*all.get("romio_cb_write"), "disable");
  EXPECT_EQ(*all.get("striping_unit"), "4096");
  EXPECT_EQ(*all.get("romio_ds_read"), "automatic");
  EXPECT_EQ(*all.get("ind_wr_buffer_size"), "524288");
  EXPECT_EQ(*all.get("somebody_elses_key"), "x");
  EXPECT_EQ(h.double_buffer, Use::kEnable);
  EXPECT_EQ(*all.get("ferry_cb_double_buffer"), "enable");
  // Later hints change what they name and keep the rest.
  Info more;
  more.set("cb_buffer_size", "2147483648");  // above 1 GiB: ignored
  more.set("cb_nodes", "2");
  apply_hints(all, &more, h, "/f");
  EXPECT_EQ(h.cb_buffer_size, 65536u);
  EXPECT_EQ(h.cb_nodes, 2);
  EXPECT_EQ(*all.get("cb_nodes"), "2");
  EXPECT_EQ(*all.get("cb_config_list"), "*:3");
  // ferry_cb_double_buffer: enable or disable ("automatic" is enable).
  Info db;
  db.set("ferry_cb_double_buffer", "Disable");
  apply_hints(all, &db, h, "/f");
  EXPECT_EQ(h.double_buffer, Use::kDisable);
  EXPECT_EQ(*all.get("ferry_cb_double_buffer"), "disable");
  db.set("ferry_cb_double_buffer", "sometimes");  // ignored: stays disabled
  apply_hints(all, &db, h, "/f");
  EXPECT_EQ(h.double_buffer, Use::kDisable);
  EXPECT_EQ(*all.get("ferry_cb_double_buffer"), "disable");
  db.set("ferry_cb_double_buffer", "automatic");
  apply_hints(all, &db, h, "/f");
  EXPECT_EQ(h.double_buffer, Use::kEnable);
  EXPECT_EQ(*all.get("ferry_cb_double_buffer"), "enable");
}

TEST(IoFlatten, PackedRangesOfFileRangesMatchAByteModel) {
  // 3 blocks of 5 bytes every 8, resized to 32: a tile holds 15 data bytes.
  const Datatype* vec = nullptr;
  const Datatype* filetype = nullptr;
  ASSERT_TRUE(datatypes::vector(3, 5, 8, *find_datatype(MPI_BYTE), &vec).ok());
  ASSERT_TRUE(datatypes::resized(*vec, 0, 32, &filetype).ok());
  datatypes::commit(filetype);
  View view;
  view.set(7, find_datatype(MPI_BYTE), filetype, "native");
  ASSERT_TRUE(FlatAccess::ordered(view));
  // The file offset of each view byte.
  std::vector<uint64_t> offset;
  for (uint64_t tile = 0; offset.size() < 200; ++tile)
    for (uint64_t b = 0; b < 3; ++b)
      for (uint64_t i = 0; i < 5; ++i) offset.push_back(7 + tile * 32 + b * 8 + i);

  const uint64_t start = 4, bytes = 150;  // from inside a block, to inside one
  FlatAccess access(view, start, bytes);
  EXPECT_EQ(access.first(), offset[start]);
  EXPECT_EQ(access.end(), offset[start + bytes - 1] + 1);
  EXPECT_FALSE(access.contiguous());
  for (uint64_t lo = 0; lo < access.end() + 10; lo += 3) {
    uint64_t below = 0;
    for (uint64_t p = start; p < start + bytes; ++p)
      if (offset[p] < lo) ++below;
    ASSERT_EQ(access.packed_below(lo), below) << "file offset " << lo;
  }
  struct Runs final : type::RunVisitor {
    std::vector<std::pair<uint64_t, uint64_t>> list;
    void run(uint64_t a, uint64_t n) override { list.emplace_back(a, n); }
  } runs;
  access.runs(20, 77, runs);
  uint64_t p = start + 20;
  for (auto [a, n] : runs.list)
    for (uint64_t i = 0; i < n; ++i, ++p) ASSERT_EQ(a + i, offset[p]);
  EXPECT_EQ(p, start + 77);
  datatypes::release(vec);
  datatypes::release(filetype);
}

// Six processes on two hosts (named by their lowest world rank, 0 and 3),
// each with a range of the file.
std::vector<RankRange> six_on_two_hosts(int64_t cb_nodes, int64_t per_host, int64_t unit, int64_t buffer) {
  std::vector<RankRange> r;
  for (int64_t i = 0; i < 6; ++i)
    r.push_back(RankRange{0, 1000 + i * 10, 1000 + i * 10 + 100000, 5000, i < 3 ? 0 : 3, buffer, cb_nodes, per_host,
                          0, unit, 0, 0});
  return r;
}

Plan plan_for(std::vector<RankRange> ranges, int rank) {
  Communicator comm;
  comm.size = static_cast<int>(ranges.size());
  comm.rank = rank;
  File f;
  f.comm = &comm;
  Plan plan;
  plan_domains(f, std::move(ranges), &plan);
  return plan;
}

TEST(IoPlan, AggregatorsRoundRobinOverHosts) {
  EXPECT_EQ(plan_for(six_on_two_hosts(0, 1, 4096, 1 << 20), 0).aggregators, (std::vector<int>{0, 3}));
  EXPECT_EQ(plan_for(six_on_two_hosts(0, 2, 4096, 1 << 20), 0).aggregators, (std::vector<int>{0, 3, 1, 4}));
  EXPECT_EQ(plan_for(six_on_two_hosts(3, 1, 4096, 1 << 20), 0).aggregators, (std::vector<int>{0, 3, 1}));
  EXPECT_EQ(plan_for(six_on_two_hosts(100, 1, 4096, 1 << 20), 0).aggregators.size(), 6u);
  EXPECT_EQ(plan_for(six_on_two_hosts(0, 9, 4096, 1 << 20), 0).aggregators.size(), 6u);  // 3 per host at most
  Plan p = plan_for(six_on_two_hosts(0, 1, 4096, 1 << 20), 3);
  EXPECT_EQ(p.my_domain, 1);
  EXPECT_EQ(p.hosts, 2);
  EXPECT_EQ(plan_for(six_on_two_hosts(0, 1, 4096, 1 << 20), 2).my_domain, -1);
}

TEST(IoPlan, DomainsCoverTheRangeOnStripeBoundaries) {
  for (int64_t nodes : {1, 2, 4, 5, 6})
    for (int64_t unit : {1, 7, 4096, 65536}) {
      Plan p = plan_for(six_on_two_hosts(nodes, 1, unit, 3000), 0);
      ASSERT_EQ(p.first, 1000u);
      ASSERT_EQ(p.end, 1000u + 50 + 100000);
      uint64_t at = p.first, largest = 0;
      for (size_t i = 0; i < p.aggregators.size(); ++i) {
        ASSERT_EQ(p.domain_lo[i], at) << nodes << " aggregators, unit " << unit;
        ASSERT_GE(p.domain_hi[i], p.domain_lo[i]);
        if (i + 1 < p.aggregators.size() && p.domain_hi[i] < p.end) {
          ASSERT_EQ(p.domain_hi[i] % static_cast<uint64_t>(unit), 0u) << "domain " << i;
        }
        largest = std::max(largest, p.domain_hi[i] - p.domain_lo[i]);
        at = p.domain_hi[i];
      }
      ASSERT_EQ(at, p.end);
      // Not double-buffered (double_buffer 0): a block and a landing area of
      // half of cb_buffer_size each.
      ASSERT_EQ(p.window, 1500u);
      ASSERT_EQ(p.rounds, static_cast<int64_t>((largest + 1499) / 1500));
      // Windows of round k tile each domain.
      for (size_t i = 0; i < p.aggregators.size(); ++i) {
        uint64_t w = p.domain_lo[i];
        for (int64_t k = 0; k < p.rounds; ++k) {
          ASSERT_EQ(p.window_lo(i, k), w);
          w = p.window_hi(i, k);
        }
        ASSERT_EQ(w, p.domain_hi[i]);
      }
    }
}

TEST(IoPlan, BlocksAndLandingAreaShareTheCollectiveBuffer) {
  // Issue 14: an aggregator holds at most cb_buffer_size. Double-buffered,
  // two blocks and the landing area, a third each; rank 0's choice is
  // everyone's.
  std::vector<RankRange> r = six_on_two_hosts(1, 1, 4096, 3000);
  for (RankRange& one : r) one.double_buffer = 0;
  r[0].double_buffer = 1;
  Plan p = plan_for(r, 0);
  EXPECT_TRUE(p.double_buffered);
  EXPECT_EQ(p.window, 1000u);
  EXPECT_EQ(p.landing, 1000u);
  EXPECT_EQ(p.rounds, static_cast<int64_t>((p.end - p.first + 999) / 1000));
  // One block: a block and the landing area, a half each.
  r[0].double_buffer = 0;
  for (size_t i = 1; i < r.size(); ++i) r[i].double_buffer = 1;
  p = plan_for(r, 0);
  EXPECT_FALSE(p.double_buffered);
  EXPECT_EQ(p.window, 1500u);
  EXPECT_EQ(p.landing, 1500u);
  // Windows in whole pages where they can be; the landing area takes the rest.
  for (int64_t buffer : {int64_t{65536}, int64_t{16} << 20, int64_t{12289}, int64_t{100000}})
    for (int64_t db : {0, 1}) {
      r = six_on_two_hosts(1, 1, 4096, buffer);
      r[0].double_buffer = db;
      p = plan_for(r, 0);
      const uint64_t blocks = p.double_buffered ? 2 : 1;
      EXPECT_EQ(p.window % 4096, 0u) << buffer;
      EXPECT_GE(p.landing, p.window) << buffer;
      EXPECT_EQ(blocks * p.window + p.landing, static_cast<uint64_t>(buffer)) << buffer << " double " << db;
    }
  r = six_on_two_hosts(1, 1, 4096, 65536);
  r[0].double_buffer = 1;
  p = plan_for(r, 0);
  EXPECT_EQ(p.window, 20480u);
  EXPECT_EQ(p.landing, 24576u);
  // Under 3 bytes there are no three parts: one block.
  r = six_on_two_hosts(1, 1, 4096, 2);
  r[0].double_buffer = 1;
  p = plan_for(r, 0);
  EXPECT_FALSE(p.double_buffered);
  EXPECT_EQ(p.window, 1u);
  EXPECT_EQ(p.landing, 1u);
  // One byte is the one budget not kept: a block of 1 and a landing area of 1.
  r = six_on_two_hosts(1, 1, 4096, 1);
  p = plan_for(r, 0);
  EXPECT_EQ(p.window, 1u);
  EXPECT_EQ(p.landing, 1u);
}

TEST(IoPlan, ProcessesWithoutDataDoNotStretchTheRange) {
  std::vector<RankRange> r = six_on_two_hosts(0, 1, 4096, 1 << 20);
  r[5].bytes = 0;
  r[5].first = 0;
  r[5].end = 0;
  Plan p = plan_for(r, 0);
  EXPECT_EQ(p.first, 1000u);
  EXPECT_EQ(p.end, 1000u + 40 + 100000);
  EXPECT_EQ(p.total_bytes, 25000u);
}

}  // namespace
}  // namespace ferry::io
