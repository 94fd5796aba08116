// CRC-32C against the published check values, in hardware and in the table
// fallback, and over files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fault/crc32c.h"

using ferry::fault::crc32c;
using ferry::fault::crc32c_portable;

namespace {

// RFC 3720 §B.4 (iSCSI) test patterns and the usual "123456789" check value.
struct Vector {
  std::vector<unsigned char> data;
  uint32_t crc;
};

std::vector<Vector> known_vectors() {
  std::vector<Vector> v;
  v.push_back({std::vector<unsigned char>(32, 0x00), 0x8A9136AAu});
  v.push_back({std::vector<unsigned char>(32, 0xFF), 0x62A8AB43u});
  std::vector<unsigned char> up(32), down(32);
  for (int i = 0; i < 32; ++i) {
    up[i] = static_cast<unsigned char>(i);
    down[i] = static_cast<unsigned char>(31 - i);
  }
  v.push_back({up, 0x46DD794Eu});
  v.push_back({down, 0x113FDB5Cu});
  const char* digits = "123456789";
  v.push_back({std::vector<unsigned char>(digits, digits + 9), 0xE3069283u});
  v.push_back({{}, 0x00000000u});
  return v;
}

TEST(Crc32c, KnownVectorsInHardwareOrTable) {
  for (const Vector& v : known_vectors()) EXPECT_EQ(crc32c(0, v.data.data(), v.data.size()), v.crc);
}

TEST(Crc32c, KnownVectorsInTheTableFallback) {
  for (const Vector& v : known_vectors()) EXPECT_EQ(crc32c_portable(0, v.data.data(), v.data.size()), v.crc);
}

TEST(Crc32c, BothAgreeAtEveryAlignmentAndLength) {
  std::mt19937 gen(15);
  std::vector<unsigned char> buf(4096 + 16);
  for (auto& b : buf) b = static_cast<unsigned char>(gen());
  for (size_t offset = 0; offset < 9; ++offset)
    for (size_t length : {0, 1, 7, 8, 9, 63, 64, 65, 1000, 4096})
      ASSERT_EQ(crc32c(0, buf.data() + offset, length), crc32c_portable(0, buf.data() + offset, length))
          << "offset " << offset << " length " << length;
}

TEST(Crc32c, BothAgreeOnLongBuffersCheckedInThreeLanes) {
  // From 3 x 8 KiB on, the hardware path runs three lanes and joins them.
  std::mt19937 gen(16);
  std::vector<unsigned char> buf((1 << 20) + 16);
  for (auto& b : buf) b = static_cast<unsigned char>(gen());
  for (size_t offset : {0, 3})
    for (size_t length : {24575, 24576, 24577, 49152 + 5, 100000, 1 << 20})
      ASSERT_EQ(crc32c(0x1234u, buf.data() + offset, length), crc32c_portable(0x1234u, buf.data() + offset, length))
          << "offset " << offset << " length " << length;
}

TEST(Crc32c, ExtendsAcrossPieces) {
  const char* text = "The quick brown fox jumps over the lazy dog";
  size_t n = std::strlen(text);
  uint32_t whole = crc32c(0, text, n);
  for (size_t cut = 0; cut <= n; ++cut) EXPECT_EQ(crc32c(crc32c(0, text, cut), text + cut, n - cut), whole);
}

TEST(Crc32c, OfAFileEqualsOfItsBytes) {
  char path[] = "/tmp/ferry_crc32c_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::vector<unsigned char> data(3 * (1 << 20) + 123);  // more than one read block
  std::mt19937 gen(3720);
  for (auto& b : data) b = static_cast<unsigned char>(gen());
  ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  close(fd);
  uint32_t crc = 0;
  uint64_t size = 0;
  ferry::fault::Status s = ferry::fault::crc32c_file(path, &crc, &size);
  unlink(path);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(size, data.size());
  EXPECT_EQ(crc, crc32c_portable(0, data.data(), data.size()));
}

TEST(Crc32c, MissingFileIsNamed) {
  uint32_t crc;
  uint64_t size;
  ferry::fault::Status s = ferry::fault::crc32c_file("/nonexistent/ferry/file", &crc, &size);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent/ferry/file"), std::string::npos) << s.message();
}

}  // namespace
