// Partner copies as streams (runtime/checkpoint_stream.h) without MPI: a
// FileSource's bytes fed to a FileSink in pieces of odd sizes make the same
// files; damage, a short stream and a file that changed are refused.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fault/crc32c.h"
#include "fault/manifest.h"
#include "runtime/checkpoint_stream.h"

namespace fs = std::filesystem;
using ferry::fault::FileEntry;
using ferry::runtime::checkpoint::copies::FileSink;
using ferry::runtime::checkpoint::copies::FileSource;

namespace {

class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/ferry_stream_XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    root_ = templ;
    add("state.bin", std::string(3 * 1000 * 1000 + 7, 's'));
    add("empty", "");
    add("nested/more.txt", "more");
    add("z_last_empty", "");
  }
  void TearDown() override { fs::remove_all(root_); }

  void add(const std::string& path, const std::string& text) {
    const std::string full = root_ + "/from/" + path;
    fs::create_directories(fs::path(full).parent_path());
    std::ofstream(full, std::ios::binary) << text;
    FileEntry f;
    f.path = path;
    f.size = text.size();
    f.crc = ferry::fault::crc32c(0, text.data(), text.size());
    files_.push_back(f);
  }

  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  // The whole stream, pulled and pushed `piece` bytes at a time; `damage`
  // flips one byte at that offset of the stream (none when negative).
  ferry::fault::Status copy(FileSource& source, uint64_t piece, int64_t damage = -1) {
    FileSink sink(root_ + "/to/copy", source.header_bytes(), source.total_bytes());
    std::vector<char> buffer(piece);
    for (uint64_t at = 0; at < source.total_bytes(); at += piece) {
      const uint64_t n = std::min(piece, source.total_bytes() - at);
      source.next(buffer.data(), n);
      if (damage >= static_cast<int64_t>(at) && damage < static_cast<int64_t>(at + n)) buffer[damage - at] ^= 1;
      sink.take(buffer.data(), n);
    }
    return sink.finish();
  }

  std::string root_;
  std::vector<FileEntry> files_;
};

TEST_F(StreamTest, PiecesOfAnySizeMakeTheSameFiles) {
  for (uint64_t piece : {uint64_t{1} << 22, uint64_t{4093}, uint64_t{333}}) {
    FileSource source(root_ + "/from", files_);
    ferry::fault::Status s = copy(source, piece);
    ASSERT_TRUE(s.ok()) << "piece " << piece << ": " << s.message();
    ASSERT_TRUE(source.status().ok()) << source.status().message();
    for (const FileEntry& f : files_)
      EXPECT_EQ(read(root_ + "/to/copy/" + f.path), read(root_ + "/from/" + f.path)) << f.path;
    EXPECT_FALSE(fs::exists(root_ + "/to/copy/state.bin.tmp"));
  }
}

TEST_F(StreamTest, DamagedPieceIsRefusedAndLeavesNoFile) {
  FileSource source(root_ + "/from", files_);
  ferry::fault::Status s = copy(source, 65536, static_cast<int64_t>(source.header_bytes()) + 1000);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("state.bin: CRC-32C of the partner copy differs"), std::string::npos) << s.message();
  EXPECT_FALSE(fs::exists(root_ + "/to/copy/state.bin"));
  EXPECT_FALSE(fs::exists(root_ + "/to/copy/state.bin.tmp"));
}

TEST_F(StreamTest, ShortStreamIsTorn) {
  FileSource source(root_ + "/from", files_);
  FileSink sink(root_ + "/to/copy", source.header_bytes(), source.total_bytes());
  std::vector<char> buffer(source.header_bytes() + 10);
  source.next(buffer.data(), buffer.size());
  sink.take(buffer.data(), buffer.size());
  ferry::fault::Status s = sink.finish();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("torn"), std::string::npos) << s.message();
}

TEST_F(StreamTest, FileChangedSinceSealedFailsTheSource) {
  std::ofstream(root_ + "/from/nested/more.txt", std::ios::binary) << "MORE";
  FileSource source(root_ + "/from", files_);
  (void)copy(source, 1 << 20);
  ASSERT_FALSE(source.status().ok());
  EXPECT_NE(source.status().message().find("more.txt: CRC-32C changed since it was checked"), std::string::npos)
      << source.status().message();
}

TEST_F(StreamTest, NoFilesIsAnEmptyCopy) {
  FileSource source(root_ + "/from", {});
  EXPECT_EQ(source.total_bytes(), 0u);
  ferry::fault::Status s = copy(source, 4096);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(fs::is_directory(root_ + "/to/copy"));
}

}  // namespace
