// The checkpoint store on real files: a commit is visible only once its
// manifest is published; torn, truncated and altered epochs are skipped with
// a reason; pruning keeps the newest complete epochs.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fault/crc32c.h"
#include "fault/durable.h"
#include "fault/store.h"

namespace fs = std::filesystem;
using ferry::fault::FileEntry;
using ferry::fault::Manifest;
using ferry::fault::Status;
using ferry::fault::Store;

namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/ferry_store_XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    root_ = templ;
  }
  void TearDown() override { fs::remove_all(root_); }

  static void write(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }

  // What MPIX_Checkpoint does for `ranks` ranks, up to and (with `publish`)
  // including the manifest.
  void commit(const Store& s, int64_t epoch, int ranks, bool publish = true) {
    Manifest m;
    m.epoch = epoch;
    m.job_size = ranks;
    for (int r = 0; r < ranks; ++r) {
      ASSERT_TRUE(s.prepare_rank(epoch, r).ok());
      write(s.rank_dir(epoch, r) + "/state.bin", "epoch " + std::to_string(epoch) + " rank " + std::to_string(r));
      write(s.rank_dir(epoch, r) + "/nested/more.txt", std::string(1000, 'a' + r));
      std::vector<FileEntry> files;
      Status st = s.seal_rank(epoch, r, &files);
      ASSERT_TRUE(st.ok()) << st.message();
      ASSERT_EQ(files.size(), 2u);
      m.files.insert(m.files.end(), files.begin(), files.end());
    }
    if (publish) {
      Status st = s.publish(m);
      ASSERT_TRUE(st.ok()) << st.message();
    }
  }

  std::string root_;
};

TEST_F(StoreTest, EmptyStoreHasNoEpoch) {
  Store s(root_);
  EXPECT_EQ(s.latest_complete(nullptr), -1);
  EXPECT_EQ(s.next_epoch(), 0);
  Store missing(root_ + "/not/there");
  EXPECT_EQ(missing.latest_complete(nullptr), -1);
}

TEST_F(StoreTest, PublishedEpochIsLatestAndLaidOutPlainly) {
  Store s(root_);
  commit(s, 0, 2);
  commit(s, 1, 2);
  EXPECT_EQ(s.latest_complete(nullptr), 1);
  EXPECT_TRUE(fs::is_regular_file(root_ + "/epoch.1/MANIFEST"));
  EXPECT_TRUE(fs::is_regular_file(root_ + "/epoch.1/rank.1/state.bin"));
  EXPECT_FALSE(fs::exists(root_ + "/epoch.1/MANIFEST.tmp"));
  EXPECT_EQ(s.next_epoch(), 2);
}

TEST_F(StoreTest, UnpublishedEpochIsSkippedWithReason) {
  Store s(root_);
  commit(s, 0, 2);
  commit(s, 1, 2, /*publish=*/false);  // the job died between the writes and the publish
  // ... or after writing the manifest beside, before the rename.
  write(root_ + "/epoch.1/MANIFEST.tmp", "ferry-checkpoint 1\nepoch 1\n");
  std::vector<std::string> skipped;
  EXPECT_EQ(s.latest_complete(&skipped), 0);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("epoch 1"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[0].find("no manifest"), std::string::npos) << skipped[0];
  EXPECT_EQ(s.next_epoch(), 2);  // the torn epoch's name is not reused
}

TEST_F(StoreTest, TruncatedFileIsSkippedWithItsName) {
  Store s(root_);
  commit(s, 0, 2);
  commit(s, 1, 2);
  fs::resize_file(root_ + "/epoch.1/rank.1/nested/more.txt", 10);
  std::vector<std::string> skipped;
  EXPECT_EQ(s.latest_complete(&skipped), 0);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("rank.1/nested/more.txt"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[0].find("truncated"), std::string::npos) << skipped[0];
}

TEST_F(StoreTest, FlippedBitIsSkippedWithItsName) {
  Store s(root_);
  commit(s, 0, 2);
  commit(s, 1, 2);
  std::string path = root_ + "/epoch.1/rank.0/state.bin";
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(3);
  char c = 0;
  f.get(c);
  f.seekp(3);
  f.put(static_cast<char>(c ^ 0x10));
  f.close();
  std::vector<std::string> skipped;
  EXPECT_EQ(s.latest_complete(&skipped), 0);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("rank.0/state.bin"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[0].find("CRC-32C"), std::string::npos) << skipped[0];
  // A rank checks only its own files: rank 1's still verify.
  Manifest m;
  ASSERT_TRUE(s.read_manifest(1, &m).ok());
  EXPECT_TRUE(s.verify(m, 1).ok());
  EXPECT_FALSE(s.verify(m, 0).ok());
}

TEST_F(StoreTest, MissingFileAndDamagedManifestAreSkipped) {
  Store s(root_);
  commit(s, 0, 2);
  commit(s, 1, 2);
  commit(s, 2, 2);
  fs::remove(root_ + "/epoch.2/rank.0/state.bin");
  std::string manifest = root_ + "/epoch.1/MANIFEST";
  fs::resize_file(manifest, fs::file_size(manifest) - 4);
  std::vector<std::string> skipped;
  EXPECT_EQ(s.latest_complete(&skipped), 0);
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].find("state.bin"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[1].find("MANIFEST"), std::string::npos) << skipped[1];
}

TEST_F(StoreTest, PruneKeepsTheNewestCompleteEpochs) {
  Store s(root_);
  commit(s, 0, 1);
  commit(s, 1, 1);
  commit(s, 2, 1, /*publish=*/false);  // a failed commit's leftovers
  commit(s, 3, 1);
  commit(s, 4, 1);
  ASSERT_TRUE(s.prune(2, 4).ok());
  EXPECT_EQ(s.epochs(), (std::vector<int64_t>{4, 3}));
  ASSERT_TRUE(s.prune(1, 4).ok());
  EXPECT_EQ(s.epochs(), (std::vector<int64_t>{4}));
}

// The seal (fault/seal.h): a file of several read blocks and an odd tail,
// and an empty one, get the checksum and size of their bytes.
TEST_F(StoreTest, SealChecksumsLargeAndEmptyFiles) {
  Store s(root_);
  ASSERT_TRUE(s.prepare_rank(0, 0).ok());
  std::string big((3u << 20) + 12345, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 + (i >> 20));
  write(s.rank_dir(0, 0) + "/big.bin", big);
  write(s.rank_dir(0, 0) + "/empty", "");
  std::vector<FileEntry> files;
  Status st = s.seal_rank(0, 0, &files);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "big.bin");
  EXPECT_EQ(files[0].size, big.size());
  EXPECT_EQ(files[0].crc, ferry::fault::crc32c(0, big.data(), big.size()));
  EXPECT_EQ(files[1].path, "empty");
  EXPECT_EQ(files[1].size, 0u);
  EXPECT_EQ(files[1].crc, 0u);
}

TEST_F(StoreTest, WriteAtomicallyReplacesWhole) {
  std::string path = root_ + "/file";
  ASSERT_TRUE(ferry::fault::write_atomically(path, "old").ok());
  ASSERT_TRUE(ferry::fault::write_atomically(path, "new contents").ok());
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "new contents");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_FALSE(ferry::fault::write_atomically(root_ + "/no/such/dir/file", "x").ok());
}

}  // namespace
