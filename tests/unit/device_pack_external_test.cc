// MPI_Pack_external and MPI_Unpack_external with GPU buffers
// (p2p/data_access.h pack_external_into, unpack_external_from), against the
// host-memory model of a GPU, whose device memory the host cannot touch:
// the data, the external32 bytes, or both on the GPU give exactly the bytes
// the host path gives, an unpack into a GPU buffer leaves the bytes between
// the elements as they were, and a failed GPU copy is MPI_ERR_OTHER naming
// the CUDA call (MPI_Pack_external refused GPU buffers with MPI_ERR_BUFFER
// before).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/datatype.h"
#include "base/external32.h"
#include "base/type_constructors.h"
#include "device/device.h"
#include "device_model.h"
#include "p2p/data_access.h"

namespace ferry::p2p {
namespace {

class PackExternalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device::install(device::model::ops());
    device::model::reset_counters();
    // Ints 0, 2, 4, ... of 2 * kInts: one vector element with holes.
    ASSERT_TRUE(datatypes::vector(kInts, 1, 2, *find_datatype(MPI_INT), &every_other_).ok());
    datatypes::commit(every_other_);
    for (int i = 0; i < 2 * kInts; ++i) data_[static_cast<size_t>(i)] = 1000 + i;
    bytes_ = type::external32::packed_bytes(*every_other_, 1);
    want_.resize(bytes_);
    type::external32::pack(*every_other_, data_.data(), 1, want_.data());  // the host path's answer
  }
  void TearDown() override {
    datatypes::release(every_other_);
    device::install(nullptr);
  }

  static constexpr int kInts = 3000;
  const Datatype* every_other_ = nullptr;
  std::vector<int> data_ = std::vector<int>(2 * kInts);
  uint64_t bytes_ = 0;
  std::vector<char> want_;
};

TEST_F(PackExternalTest, EitherSideOnTheGpuGivesTheHostPathsBytes) {
  ASSERT_EQ(bytes_, 4u * kInts);
  for (bool data_on_gpu : {false, true})
    for (bool packed_on_gpu : {false, true}) {
      SCOPED_TRACE(std::string(data_on_gpu ? "GPU" : "host") + " data, " + (packed_on_gpu ? "GPU" : "host") +
                   " external32 bytes");
      size_t data_bytes = data_.size() * sizeof(int);
      void* buf = data_.data();
      if (data_on_gpu) {
        buf = device::model::alloc(data_bytes);
        device::model::write(buf, data_.data(), data_bytes);
      }
      std::vector<char> host_packed(bytes_, 0);
      void* packed = packed_on_gpu ? device::model::alloc(bytes_) : host_packed.data();
      ASSERT_TRUE(pack_external_into(buf, 1, every_other_, bytes_, packed).ok());
      std::vector<char> got(bytes_);
      if (packed_on_gpu) device::model::read(got.data(), packed, bytes_);
      else got = host_packed;
      EXPECT_EQ(got, want_) << "big-endian ints, in type-map order";

      // Back into a buffer of -1s: the elements return, the holes stay -1.
      std::vector<int> minus(data_.size(), -1);
      void* back = minus.data();
      if (data_on_gpu) {
        back = device::model::alloc(data_bytes);
        device::model::write(back, minus.data(), data_bytes);
      }
      ASSERT_TRUE(unpack_external_from(packed, bytes_, back, 1, every_other_).ok());
      std::vector<int> out(data_.size());
      if (data_on_gpu) device::model::read(out.data(), back, data_bytes);
      else out = minus;
      for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], i % 2 == 0 ? data_[i] : -1) << i;
      if (data_on_gpu) {
        device::model::free(buf);
        device::model::free(back);
      }
      if (packed_on_gpu) device::model::free(packed);
    }
}

TEST_F(PackExternalTest, AFailedCopyToAGpuOutbufIsMpiErrOtherNamingTheCall) {
  void* packed = device::model::alloc(bytes_);
  device::model::fail_next_copy(700);
  Err e = pack_external_into(data_.data(), 1, every_other_, bytes_, packed);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OTHER);
  EXPECT_NE(e.message().find("cuMemcpyAsync"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("illegal memory access"), std::string::npos) << e.message();

  // And from GPU data: the span's copy to the host fails.
  void* buf = device::model::alloc(data_.size() * sizeof(int));
  std::vector<char> host_packed(bytes_);
  device::model::fail_next_copy(700);
  e = pack_external_into(buf, 1, every_other_, bytes_, host_packed.data());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OTHER);
  device::model::fail_next_copy(700);
  e = unpack_external_from(packed, bytes_, data_.data(), 1, every_other_);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OTHER);
  device::model::free(buf);
  device::model::free(packed);
}

TEST_F(PackExternalTest, NothingToPackTouchesNoBuffer) {
  void* buf = device::model::alloc(16);
  EXPECT_TRUE(pack_external_into(buf, 0, every_other_, 0, buf).ok());
  EXPECT_TRUE(unpack_external_from(buf, 0, buf, 0, every_other_).ok());
  EXPECT_EQ(device::model::counters().copies, 0u);
  device::model::free(buf);
}

}  // namespace
}  // namespace ferry::p2p
