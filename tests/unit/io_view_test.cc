// The pure parts of MPI-IO (src/io): the access-mode rules, errno to error
// classes, and a view's mapping from positions to file offsets, checked
// against the obvious byte-by-byte model of a tiled filetype.
#include <gtest/gtest.h>

#include <cerrno>
#include <vector>

#include "base/datatype.h"
#include "base/type_constructors.h"
#include "io/errors.h"
#include "io/file.h"
#include "io/view.h"
#include "mpi.h"

namespace ferry::io {
namespace {

TEST(IoAmode, ExactlyOneAccessModeAndNoForbiddenPairs) {
  EXPECT_TRUE(check_amode(MPI_MODE_RDONLY).ok());
  EXPECT_TRUE(check_amode(MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE).ok());
  EXPECT_TRUE(check_amode(MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND).ok());
  for (int bad : {0, MPI_MODE_CREATE, MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_MODE_RDONLY | MPI_MODE_RDWR,
                  MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_MODE_RDONLY | MPI_MODE_EXCL,
                  MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_MODE_RDWR | 0x10000}) {
    Err e = check_amode(bad);
    EXPECT_EQ(e.mpi_class(), MPI_ERR_AMODE) << "amode 0x" << std::hex << bad;
  }
}

TEST(IoErrors, ErrnoMapsToTheIoClasses) {
  EXPECT_EQ(error_class_of_errno(ENOENT), MPI_ERR_NO_SUCH_FILE);
  EXPECT_EQ(error_class_of_errno(EEXIST), MPI_ERR_FILE_EXISTS);
  EXPECT_EQ(error_class_of_errno(EACCES), MPI_ERR_ACCESS);
  EXPECT_EQ(error_class_of_errno(ENOSPC), MPI_ERR_NO_SPACE);
  EXPECT_EQ(error_class_of_errno(EDQUOT), MPI_ERR_QUOTA);
  EXPECT_EQ(error_class_of_errno(EROFS), MPI_ERR_READ_ONLY);
  EXPECT_EQ(error_class_of_errno(EISDIR), MPI_ERR_BAD_FILE);
  EXPECT_EQ(error_class_of_errno(EIO), MPI_ERR_IO);
  Err e = system_error(ENOENT, "cannot open", "/no/such");
  EXPECT_EQ(e.mpi_class(), MPI_ERR_NO_SUCH_FILE);
  EXPECT_NE(e.message().find("'/no/such'"), std::string::npos) << e.message();
}

// File offset of every view byte, the slow way: tile after tile, the
// filetype's data bytes in order.
std::vector<uint64_t> model_offsets(uint64_t disp, const std::vector<uint64_t>& element_bytes, MPI_Aint extent,
                                    uint64_t positions) {
  std::vector<uint64_t> out;
  for (uint64_t tile = 0; out.size() < positions; ++tile)
    for (uint64_t b : element_bytes)
      if (out.size() < positions) out.push_back(disp + tile * static_cast<uint64_t>(extent) + b);
  return out;
}

TEST(IoView, PositionsMapThroughTheTiledFiletype) {
  // A strided filetype with a hole at the end: 3 blocks of 2 ints, stride 3
  // ints, resized to 12 ints.
  const Datatype* vec = nullptr;
  const Datatype* filetype = nullptr;
  ASSERT_TRUE(datatypes::vector(3, 2, 3, *find_datatype(MPI_INT), &vec).ok());
  ASSERT_TRUE(datatypes::resized(*vec, 0, 48, &filetype).ok());
  datatypes::commit(filetype);
  std::vector<uint64_t> bytes;
  for (int block = 0; block < 3; ++block)
    for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<uint64_t>(block * 12 + b));

  View view;
  ASSERT_TRUE(check_view(100, *find_datatype(MPI_INT), *filetype, "native", MPI_MODE_RDWR).ok());
  view.set(100, find_datatype(MPI_INT), filetype, "native");
  std::vector<uint64_t> want = model_offsets(100, bytes, 48, 24 * 5);
  for (uint64_t p = 0; p < want.size(); ++p) ASSERT_EQ(view.file_offset(p), want[p]) << "position " << p;

  // Runs of a range that starts and ends inside blocks, merged where the
  // file is contiguous.
  struct Runs final : type::RunVisitor {
    std::vector<std::pair<uint64_t, uint64_t>> list;
    void run(uint64_t a, uint64_t n) override { list.emplace_back(a, n); }
  } runs;
  view.for_each_run(5, 30, runs);
  uint64_t covered = 0;
  for (auto [a, n] : runs.list) {
    for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(a + i, want[5 + covered + i]);
    covered += n;
  }
  EXPECT_EQ(covered, 30u);

  // Where the end of a file lies in view positions: the data below it.
  for (uint64_t size : {0u, 100u, 104u, 109u, 148u, 160u, 200u}) {
    uint64_t expect = 0;
    for (uint64_t off : want)
      if (off < size) ++expect;
    EXPECT_EQ(view.position_of_offset(size), expect) << "file size " << size;
  }
  datatypes::release(vec);
  datatypes::release(filetype);
}

// MPI-3.1 §13.5: a view in a representation that resizes elements is
// read in the file's sizes. vector(3, 2, 3, MPI_LONG) in external32 is
// blocks of 2 4-byte longs, 12 bytes apart, the stride counted in longs of
// the file; a resized extent is the program's, in file bytes.
TEST(IoView, External32LongsMapInTheirFileSize) {
  if (sizeof(long) != 8) GTEST_SKIP() << "MPI_LONG keeps its size in external32 here";
  const Datatype* vec = nullptr;
  const Datatype* filetype = nullptr;
  ASSERT_TRUE(datatypes::vector(3, 2, 3, *find_datatype(MPI_LONG), &vec).ok());
  ASSERT_TRUE(datatypes::resized(*vec, 0, 40, &filetype).ok());
  datatypes::commit(filetype);
  ASSERT_TRUE(check_view(8, *find_datatype(MPI_LONG), *filetype, "external32", MPI_MODE_RDWR).ok());
  View view;
  view.set(8, find_datatype(MPI_LONG), filetype, "external32");
  EXPECT_EQ(view.etype().size, 4u);
  EXPECT_EQ(view.filetype().size, 24u);
  EXPECT_EQ(view.filetype().extent, 40);
  EXPECT_EQ(&view.given_filetype(), filetype);
  EXPECT_EQ(view.file_bytes(*find_datatype(MPI_LONG), 10), 40u);
  std::vector<uint64_t> bytes;
  for (int block = 0; block < 3; ++block)
    for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<uint64_t>(block * 12 + b));
  std::vector<uint64_t> want = model_offsets(8, bytes, 40, 24 * 3);
  for (uint64_t p = 0; p < want.size(); ++p) ASSERT_EQ(view.file_offset(p), want[p]) << "position " << p;

  // The extents MPI_File_get_type_extent reports: the file forms'.
  EXPECT_EQ(file_extent(*find_datatype(MPI_LONG), "external32"), 4);
  EXPECT_EQ(file_extent(*vec, "external32"), 32);  // (3-1)*3 + 2 longs of 4 bytes
  EXPECT_EQ(file_extent(*vec, "native"), vec->extent);
  datatypes::release(vec);
  datatypes::release(filetype);
}

TEST(IoView, TypemapRulesUseRomiosClasses) {
  const Datatype* decreasing = nullptr;
  int blocklengths[2] = {1, 1}, displacements[2] = {3, 0};
  ASSERT_TRUE(datatypes::indexed(2, blocklengths, displacements, *find_datatype(MPI_INT), &decreasing).ok());
  datatypes::commit(decreasing);
  const Datatype& i32 = *find_datatype(MPI_INT);
  EXPECT_EQ(check_view(0, i32, *decreasing, "native", MPI_MODE_RDONLY).mpi_class(), MPI_ERR_IO);
  EXPECT_EQ(check_view(-1, i32, i32, "native", MPI_MODE_RDWR).mpi_class(), MPI_ERR_ARG);
  // external32 views, also of types it resizes (MPI_LONG: 4 bytes in
  // external32, 8 here), whose filetype must then hold whole etypes in the
  // file's sizes (large-count constructed ones too); unknown names are
  // refused.
  EXPECT_TRUE(check_view(0, i32, i32, "external32", MPI_MODE_RDWR).ok());
  EXPECT_TRUE(check_view(0, i32, i32, "EXTERNAL32", MPI_MODE_RDWR).ok());
  const Datatype& long_type = *find_datatype(MPI_LONG);
  EXPECT_TRUE(check_view(0, long_type, long_type, "external32", MPI_MODE_RDWR).ok());
  if (long_type.size == 8) {
    const Datatype* two_ints = nullptr;
    const Datatype* large = nullptr;
    ASSERT_TRUE(datatypes::contiguous(2, i32, &two_ints).ok());
    datatypes::commit(two_ints);
    ASSERT_TRUE(datatypes::vector(2, 1, 2, long_type, &large, datatypes::Form::kLarge).ok());
    datatypes::commit(large);
    EXPECT_TRUE(check_view(0, *two_ints, long_type, "native", MPI_MODE_RDWR).ok());
    EXPECT_EQ(check_view(0, *two_ints, long_type, "external32", MPI_MODE_RDWR).mpi_class(), MPI_ERR_TYPE);
    EXPECT_TRUE(check_view(0, long_type, *large, "external32", MPI_MODE_RDWR).ok());
    EXPECT_EQ(file_extent(*large, "external32"), 12);  // (2-1)*2 + 1 longs of 4 bytes
    datatypes::release(two_ints);
    datatypes::release(large);
  }
  EXPECT_EQ(check_view(0, i32, i32, "no-such-representation", MPI_MODE_RDWR).mpi_class(),
            MPI_ERR_UNSUPPORTED_DATAREP);
  EXPECT_EQ(check_view(0, i32, *find_datatype(MPI_SHORT), "native", MPI_MODE_RDWR).mpi_class(), MPI_ERR_TYPE);
  EXPECT_TRUE(check_view(0, i32, i32, "internal", MPI_MODE_RDWR).ok());
  datatypes::release(decreasing);
}

}  // namespace
}  // namespace ferry::io
