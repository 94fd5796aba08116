// The manifest's text round-trips, and every kind of damage is refused with
// a message that says what is wrong.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

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

TEST(Manifest, PartnerCopiesRoundTrip) {
  Manifest m = sample();
  m.copies = {{0, "h1", 1, "h2"}, {1, "h2", 2, "h3"}, {2, "h3", 0, "h1"}};
  std::string text = m.format();
  EXPECT_NE(text.find("\ncopy 0 h1 1 h2\ncopy 1 h2 2 h3\ncopy 2 h3 0 h1\nend "), std::string::npos) << text;
  Manifest back;
  Status s = Manifest::parse(text, &back);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(back.copies.size(), 3u);
  ASSERT_NE(back.copy_of(1), nullptr);
  EXPECT_EQ(back.copy_of(1)->host, "h2");
  EXPECT_EQ(back.copy_of(1)->partner, 2);
  EXPECT_EQ(back.copy_of(1)->partner_host, "h3");
  EXPECT_EQ(back.copy_of(3), nullptr);
  // A shared store's manifest has no copy lines.
  ASSERT_TRUE(Manifest::parse(sample().format(), &back).ok());
  EXPECT_TRUE(back.copies.empty());
}

TEST(Manifest, BadPartnerCopiesAreRefused) {
  Manifest m = sample();
  for (const auto& [copy, why] : std::vector<std::pair<ferry::fault::PartnerCopy, std::string>>{
           {{0, "h1", 0, "h1"}, "bad partner rank"},
           {{0, "h1", 3, "h2"}, "bad partner rank"},
           {{1, "h1", 0, "h2"}, ""}}) {
    m.copies = {copy};
    Manifest back;
    Status s = Manifest::parse(m.format(), &back);
    if (why.empty()) {
      EXPECT_TRUE(s.ok()) << s.message();
    } else {
      EXPECT_NE(s.message().find(why), std::string::npos) << s.message();
    }
  }
  m.copies = {{1, "h1", 0, "h2"}, {1, "h1", 2, "h3"}};
  Manifest back;
  EXPECT_NE(Manifest::parse(m.format(), &back).message().find("a second copy line"), std::string::npos);
  m.copies = {{0, "h1", 1, ""}};  // a missing word
  EXPECT_NE(Manifest::parse(m.format(), &back).message().find("expected 'copy"), std::string::npos);
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
