// The manifest's text round-trips, and every kind of damage is refused with
// a message that says what is wrong.
#include <gtest/gtest.h>

#include <string>

#include "fault/manifest.h"

using ferry::fault::FileEntry;
using ferry::fault::Manifest;
using ferry::fault::Status;

namespace {

Manifest sample() {
  Manifest m;
  m.epoch = 7;
  m.job_size = 3;
  m.files = {{0, 4096, 0x8a9136aau, "state.bin"},
             {1, 0, 0, "empty"},
             {2, 12345678901ull, 0xdeadbeefu, "sub dir/with space.dat"}};
  return m;
}

TEST(Manifest, RoundTrips) {
  Manifest back;
  std::string text = sample().format();
  Status s = Manifest::parse(text, &back);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(back.epoch, 7);
  EXPECT_EQ(back.job_size, 3);
  ASSERT_EQ(back.files.size(), 3u);
  EXPECT_EQ(back.files[2].rank, 2);
  EXPECT_EQ(back.files[2].size, 12345678901ull);
  EXPECT_EQ(back.files[2].crc, 0xdeadbeefu);
  EXPECT_EQ(back.files[2].path, "sub dir/with space.dat");
}

TEST(Manifest, IsReadableText) {
  std::string text = sample().format();
  EXPECT_EQ(text.rfind("ferry-checkpoint 1\nepoch 7\njob_size 3\nfile 0 4096 8a9136aa state.bin\n", 0), 0u) << text;
}

TEST(Manifest, TornAtEveryLengthIsRefused) {
  std::string text = sample().format();
  for (size_t n = 0; n < text.size(); ++n) {
    Manifest back;
    EXPECT_FALSE(Manifest::parse(text.substr(0, n), &back).ok()) << "accepted " << n << " of " << text.size();
  }
}

TEST(Manifest, AnyFlippedBitIsRefused) {
  std::string text = sample().format();
  for (size_t i = 0; i < text.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = text;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      Manifest back;
      EXPECT_FALSE(Manifest::parse(bad, &back).ok()) << "byte " << i << " bit " << bit;
    }
  }
}

TEST(Manifest, ChecksumMismatchIsNamed) {
  std::string text = sample().format();
  text.replace(text.find("4096"), 4, "4097");
  Manifest back;
  Status s = Manifest::parse(text, &back);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("checksum"), std::string::npos) << s.message();
}

TEST(Manifest, FileLinesAloneRoundTrip) {
  std::vector<FileEntry> files;
  Status s = Manifest::parse_files(Manifest::format_files(sample().files), &files);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[1].path, "empty");
  EXPECT_FALSE(Manifest::parse_files("file 0 12 nothex x\n", &files).ok());
}

}  // namespace
