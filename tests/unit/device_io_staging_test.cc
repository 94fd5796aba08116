// MPI-IO on GPU buffers (io/device_staging.h), against the host-memory model
// of a GPU whose "device" memory the host cannot touch: a write_at from GPU
// memory lands in the file byte for byte, a read_at fills GPU memory, a
// strided memory datatype on the GPU leaves its holes alone, a large
// transfer is staged in several bounded pieces, an access that meets the end
// of the file copies back only what it read, the nonblocking forms copy on
// the I/O worker before their request completes, a failed copy is the
// access's error naming the CUDA call, and a host buffer takes the host path
// with no copy at all. The collective forms' whole-span stand-in is checked
// alone (a collective access needs a communicator: tests/gpu/io.cu).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/datatype.h"
#include "base/request.h"
#include "base/type_constructors.h"
#include "device/device.h"
#include "device/staging.h"
#include "device_model.h"
#include "io/access.h"
#include "io/device_staging.h"
#include "io/file.h"
#include "io/worker.h"

namespace ferry::io {
namespace {

class IoStagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device::install(device::model::ops());
    device::model::reset_counters();
    char name[] = "/tmp/ferry_device_io_XXXXXX";
    int fd = ::mkstemp(name);
    ASSERT_GE(fd, 0);
    file_.fd = fd;
    file_.path = name;
    file_.amode = MPI_MODE_RDWR | MPI_MODE_CREATE;
  }
  void TearDown() override {
    ::close(file_.fd);
    ::unlink(file_.path.c_str());
    device::install(nullptr);
  }

  std::vector<char> file_bytes() const {
    std::vector<char> all(static_cast<size_t>(::lseek(file_.fd, 0, SEEK_END)));
    EXPECT_EQ(::pread(file_.fd, all.data(), all.size(), 0), static_cast<ssize_t>(all.size()));
    return all;
  }
  void put_file_bytes(const std::vector<char>& bytes, off_t at = 0) {
    ASSERT_EQ(::pwrite(file_.fd, bytes.data(), bytes.size(), at), static_cast<ssize_t>(bytes.size()));
  }

  static std::vector<char> pattern(size_t n, int seed) {
    std::vector<char> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>((i * 131 + static_cast<size_t>(seed)) % 251);
    return v;
  }

  static int64_t count_of(const MPI_Status& s) { return static_cast<int64_t>(status_bytes(s)); }

  File file_;
};

TEST_F(IoStagingTest, WriteAtFromGpuMemoryLandsInTheFileByteForByte) {
  constexpr size_t n = 100000;
  std::vector<char> data = pattern(n, 1);
  void* d = device::model::alloc(n);
  device::model::write(d, data.data(), n);
  MPI_Status status{};
  Buffer b{d, n, find_datatype(MPI_BYTE)};
  ASSERT_TRUE(access(file_, Direction::kWrite, Where::kExplicitOffset, 10, b, &status).ok());
  std::vector<char> in_file = file_bytes();
  ASSERT_EQ(in_file.size(), n + 10);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), in_file.begin() + 10));
  EXPECT_EQ(device::model::counters().copies, 1u) << "one piece";
  device::model::free(d);
}

TEST_F(IoStagingTest, ReadAtFillsGpuMemory) {
  constexpr size_t n = 4096 * sizeof(int);
  std::vector<char> data = pattern(n + 8, 2);
  put_file_bytes(data);
  void* d = device::model::alloc(n);
  MPI_Status status{};
  Buffer b{d, n / sizeof(int), find_datatype(MPI_INT)};
  ASSERT_TRUE(access(file_, Direction::kRead, Where::kExplicitOffset, 8, b, &status).ok());
  std::vector<char> got(n);
  device::model::read(got.data(), d, n);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), data.begin() + 8));
  EXPECT_EQ(device::model::counters().copies, 1u) << "a dense read is copied back only";
  device::model::free(d);
}

TEST_F(IoStagingTest, TheIndividualPointerMovesPastAGpuAccess) {
  constexpr size_t n = 1000;
  std::vector<char> data = pattern(n, 3);
  void* d = device::model::alloc(n);
  device::model::write(d, data.data(), n);
  Buffer b{d, n, find_datatype(MPI_BYTE)};
  ASSERT_TRUE(access(file_, Direction::kWrite, Where::kIndividualPointer, 0, b, MPI_STATUS_IGNORE).ok());
  ASSERT_TRUE(access(file_, Direction::kWrite, Where::kIndividualPointer, 0, b, MPI_STATUS_IGNORE).ok());
  EXPECT_EQ(file_.position, 2 * static_cast<MPI_Offset>(n));
  std::vector<char> in_file = file_bytes();
  ASSERT_EQ(in_file.size(), 2 * n);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), in_file.begin() + n));
  device::model::free(d);
}

TEST_F(IoStagingTest, AStridedMemoryTypeOnTheGpuKeepsItsHoles) {
  // 100 vectors of 3 blocks of 2 ints every 4: the file holds the 600
  // ints the blocks name, and a read back leaves the holes as they were.
  const Datatype* vec = nullptr;
  ASSERT_TRUE(datatypes::vector(3, 2, 4, *find_datatype(MPI_INT), &vec).ok());
  datatypes::commit(vec);
  constexpr int count = 100;
  const size_t span = static_cast<size_t>((count - 1) * vec->extent + vec->true_extent);
  std::vector<int> memory(span / sizeof(int));
  for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<int>(i);
  void* d = device::model::alloc(span);
  device::model::write(d, memory.data(), span);

  MPI_Status status{};
  ASSERT_TRUE(access(file_, Direction::kWrite, Where::kExplicitOffset, 0, Buffer{d, count, vec}, &status).ok());
  EXPECT_EQ(count_of(status), count * 6 * static_cast<int64_t>(sizeof(int)));
  std::vector<char> raw = file_bytes();
  ASSERT_EQ(raw.size(), count * 6 * sizeof(int));
  std::vector<int> in_file(raw.size() / sizeof(int));
  std::memcpy(in_file.data(), raw.data(), raw.size());
  std::vector<int> expected;
  for (int e = 0; e < count; ++e)
    for (int block = 0; block < 3; ++block)
      for (int k = 0; k < 2; ++k) expected.push_back(static_cast<int>(e * (vec->extent / 4) + block * 4 + k));
  EXPECT_EQ(in_file, expected);

  // Read the file back negated into the GPU buffer: the blocks change,
  // the holes keep what they held.
  for (int& v : in_file) v = -v;
  std::memcpy(raw.data(), in_file.data(), raw.size());
  put_file_bytes(raw);
  ASSERT_TRUE(access(file_, Direction::kRead, Where::kExplicitOffset, 0, Buffer{d, count, vec}, &status).ok());
  std::vector<int> after(memory.size());
  device::model::read(after.data(), d, span);
  std::vector<bool> in_block(memory.size(), false);
  for (int v : expected) in_block[static_cast<size_t>(v)] = true;
  for (size_t i = 0; i < after.size(); ++i)
    ASSERT_EQ(after[i], in_block[i] ? -static_cast<int>(i) : static_cast<int>(i)) << "int " << i;
  device::model::free(d);
  datatypes::release(vec);
}

TEST_F(IoStagingTest, ALargeTransferIsStagedInBoundedPieces) {
  const size_t n = 3 * device_staging::kPieceBytes + 12345;
  std::vector<char> data = pattern(n, 4);
  void* d = device::model::alloc(n);
  device::model::write(d, data.data(), n);
  MPI_Status status{};
  ASSERT_TRUE(access(file_, Direction::kWrite, Where::kExplicitOffset, 0, Buffer{d, n, find_datatype(MPI_BYTE)},
                     &status)
                  .ok());
  EXPECT_EQ(device::model::counters().copies, 4u) << "four pieces of at most kPieceBytes";
  EXPECT_TRUE(file_bytes() == data);

  // Read it back into a second buffer: four copies onto the GPU.
  void* back = device::model::alloc(n);
  device::model::reset_counters();
  ASSERT_TRUE(access(file_, Direction::kRead, Where::kExplicitOffset, 0, Buffer{back, n, find_datatype(MPI_BYTE)},
                     &status)
                  .ok());
  EXPECT_EQ(device::model::counters().copies, 4u);
  EXPECT_EQ(count_of(status), static_cast<int64_t>(n));
  std::vector<char> got(n);
  device::model::read(got.data(), back, n);
  EXPECT_TRUE(got == data);
  device::model::free(d);
  device::model::free(back);
}

TEST_F(IoStagingTest, LargeElementPiecesOfAStridedTypeStayBounded) {
  // 2 MiB of ints in vectors of 1 int every 2: 4 MiB of span, staged
  // as whole elements in pieces of at most kPieceBytes.
  const Datatype* vec = nullptr;
  ASSERT_TRUE(datatypes::vector(1024, 1, 2, *find_datatype(MPI_INT), &vec).ok());
  datatypes::commit(vec);
  const int count = 600;  // 600 elements of 8 KiB span: 4.7 MiB, two pieces
  const size_t span = static_cast<size_t>((count - 1) * vec->extent + vec->true_extent);
  std::vector<char> memory = pattern(span, 5);
  void* d = device::model::alloc(span);
  device::model::write(d, memory.data(), span);
  MPI_Status status{};
  ASSERT_TRUE(access(file_, Direction::kWrite, Where::kExplicitOffset, 0, Buffer{d, count, vec}, &status).ok());
  EXPECT_EQ(device::model::counters().copies, 2u);
  std::vector<char> in_file = file_bytes();
  ASSERT_EQ(in_file.size(), static_cast<size_t>(count) * 1024 * sizeof(int));
  for (size_t i = 0; i < in_file.size(); i += 4097) {
    size_t element = i / 4096, which_int = i % 4096 / 4;  // every other int of each element
    size_t memory_byte = element * static_cast<size_t>(vec->extent) + which_int * 8 + i % 4;
    ASSERT_EQ(in_file[i], memory[memory_byte]) << "file byte " << i;
  }
  device::model::free(d);
  datatypes::release(vec);
}

TEST_F(IoStagingTest, AReadThatMeetsTheEndOfTheFileCopiesBackWhatItRead) {
  std::vector<char> data = pattern(300, 6);
  put_file_bytes(data);
  constexpr size_t n = 1000;
  std::vector<char> before(n, 'x');
  void* d = device::model::alloc(n);
  device::model::write(d, before.data(), n);
  MPI_Status status{};
  ASSERT_TRUE(access(file_, Direction::kRead, Where::kExplicitOffset, 100, Buffer{d, n, find_datatype(MPI_BYTE)},
                     &status)
                  .ok());
  EXPECT_EQ(count_of(status), 200);
  std::vector<char> got(n);
  device::model::read(got.data(), d, n);
  EXPECT_TRUE(std::equal(data.begin() + 100, data.end(), got.begin()));
  EXPECT_TRUE(std::all_of(got.begin() + 200, got.end(), [](char c) { return c == 'x'; })) << "past the end";
  device::model::free(d);
}

TEST_F(IoStagingTest, NonblockingAccessesCopyOnTheWorkerBeforeTheyComplete) {
  constexpr size_t n = 6u << 20;  // two pieces
  std::vector<char> data = pattern(n, 9);
  void* d = device::model::alloc(n);
  device::model::write(d, data.data(), n);
  Buffer b{d, n, find_datatype(MPI_BYTE)};
  Request* r = nullptr;
  ASSERT_TRUE(worker::start_access(file_, "MPI_File_iwrite_at", Direction::kWrite, Where::kExplicitOffset, 0, b, &r)
                  .ok());
  worker::drain(file_);
  ASSERT_TRUE(r->complete);
  EXPECT_EQ(r->status.MPI_ERROR, MPI_SUCCESS);
  EXPECT_EQ(status_bytes(r->status), n);
  requests::release(r);
  EXPECT_TRUE(file_bytes() == data);

  void* back = device::model::alloc(n);
  ASSERT_TRUE(worker::start_access(file_, "MPI_File_iread_at", Direction::kRead, Where::kExplicitOffset, 0,
                                   Buffer{back, n, find_datatype(MPI_BYTE)}, &r)
                  .ok());
  worker::drain(file_);
  ASSERT_TRUE(r->complete);
  EXPECT_EQ(status_bytes(r->status), n);
  requests::release(r);
  std::vector<char> got(n);
  device::model::read(got.data(), back, n);
  EXPECT_TRUE(got == data) << "on the GPU when the request completes";

  // A failed copy on the worker is the request's error, reported at the wait.
  device::model::fail_next_copy(700);
  ASSERT_TRUE(worker::start_access(file_, "MPI_File_iread_at", Direction::kRead, Where::kExplicitOffset, 0,
                                   Buffer{back, n, find_datatype(MPI_BYTE)}, &r)
                  .ok());
  worker::drain(file_);
  ASSERT_TRUE(r->complete);
  EXPECT_NE(r->status.MPI_ERROR, MPI_SUCCESS);
  requests::release(r);
  device::model::free(d);
  device::model::free(back);
}

TEST_F(IoStagingTest, AFailedCopyIsTheAccessErrorNamingTheCudaCall) {
  constexpr size_t n = 4096;
  void* d = device::model::alloc(n);
  device::model::fail_next_copy(700);  // CUDA_ERROR_ILLEGAL_ADDRESS
  Err e = access(file_, Direction::kWrite, Where::kExplicitOffset, 0, Buffer{d, n, find_datatype(MPI_BYTE)},
                 MPI_STATUS_IGNORE);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OTHER);
  EXPECT_NE(e.message().find("cuMemcpyAsync"), std::string::npos) << e.message();
  EXPECT_EQ(file_bytes().size(), 0u) << "nothing written";

  // And copying back a read.
  put_file_bytes(pattern(n, 7));
  device::model::fail_next_copy(700);
  e = access(file_, Direction::kRead, Where::kExplicitOffset, 0, Buffer{d, n, find_datatype(MPI_BYTE)},
             MPI_STATUS_IGNORE);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OTHER);
  EXPECT_NE(e.message().find("cuMemcpyAsync"), std::string::npos) << e.message();
  device::model::free(d);
}

TEST_F(IoStagingTest, TheCollectiveStandInIsTheWholeSpanCopiedWhereNeeded) {
  constexpr size_t n = 3000;
  std::vector<char> data = pattern(n, 10);
  void* d = device::model::alloc(n);
  device::model::write(d, data.data(), n);
  const Buffer b{d, n, find_datatype(MPI_BYTE)};
  {
    // A write: copied in whole, nothing copied back.
    device_staging::WholeSpan whole;
    Buffer host{};
    ASSERT_TRUE(whole.stage(Direction::kWrite, b, false, &host).ok());
    ASSERT_NE(host.data, d);
    EXPECT_EQ(std::memcmp(host.data, data.data(), n), 0);
    ASSERT_TRUE(whole.finish(Direction::kWrite, n).ok());
    EXPECT_EQ(device::model::counters().copies, 1u);
  }
  device::model::reset_counters();
  {
    // A dense read: not copied in; what was read (1000 bytes) copied back.
    device_staging::WholeSpan whole;
    Buffer host{};
    ASSERT_TRUE(whole.stage(Direction::kRead, b, false, &host).ok());
    EXPECT_EQ(device::model::counters().copies, 0u);
    std::memset(host.data, 'r', n);
    ASSERT_TRUE(whole.finish(Direction::kRead, 1000).ok());
    EXPECT_EQ(device::model::counters().copies, 1u);
    std::vector<char> got(n);
    device::model::read(got.data(), d, n);
    EXPECT_TRUE(std::all_of(got.begin(), got.begin() + 1000, [](char c) { return c == 'r'; }));
    EXPECT_TRUE(std::equal(got.begin() + 1000, got.end(), data.begin() + 1000)) << "past what was read";
  }
  device::model::reset_counters();
  {
    // A read through a type with holes: copied in first, back whole.
    const Datatype* vec = nullptr;
    ASSERT_TRUE(datatypes::vector(10, 1, 3, *find_datatype(MPI_INT), &vec).ok());
    datatypes::commit(vec);
    device_staging::WholeSpan whole;
    Buffer host{};
    ASSERT_TRUE(whole.stage(Direction::kRead, Buffer{d, 2, vec}, false, &host).ok());
    EXPECT_EQ(device::model::counters().copies, 1u);
    ASSERT_TRUE(whole.finish(Direction::kRead, 0).ok());
    EXPECT_EQ(device::model::counters().copies, 2u);
    datatypes::release(vec);
  }
  device::model::fail_next_copy(700);
  device_staging::WholeSpan whole;
  Buffer host{};
  Err e = whole.stage(Direction::kWrite, b, false, &host);
  EXPECT_EQ(e.mpi_class(), MPI_ERR_OTHER);
  EXPECT_NE(e.message().find("cuMemcpyAsync"), std::string::npos) << e.message();
  device::model::free(d);
}

TEST_F(IoStagingTest, HostAndManagedBuffersTakeTheHostPathWithNoCopy) {
  std::vector<char> data = pattern(5000, 8);
  ASSERT_TRUE(access(file_, Direction::kWrite, Where::kExplicitOffset, 0,
                     Buffer{data.data(), data.size(), find_datatype(MPI_BYTE)}, MPI_STATUS_IGNORE)
                  .ok());
  void* managed = device::model::alloc_managed(data.size());
  ASSERT_TRUE(access(file_, Direction::kRead, Where::kExplicitOffset, 0,
                     Buffer{managed, data.size(), find_datatype(MPI_BYTE)}, MPI_STATUS_IGNORE)
                  .ok());
  EXPECT_EQ(std::memcmp(managed, data.data(), data.size()), 0);
  EXPECT_EQ(device::model::counters().copies, 0u);
  EXPECT_EQ(device::model::counters().copies_2d, 0u);
  EXPECT_EQ(device::model::counters().pinned_allocs, 0u);
  EXPECT_TRUE(file_bytes() == data);
  device::model::free(managed);
}

}  // namespace
}  // namespace ferry::io
