#include "fault/crc32c.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

namespace ferry::fault {

Status Status::from_errno(const char* what, const std::string& path) {
  return failure(std::string(what) + " " + path + ": " + std::strerror(errno));
}

namespace {

// Byte-at-a-time table of the reflected polynomial 0x82F63B78.
constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kTable = make_table();

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(uint32_t crc, const unsigned char* p, size_t n) {
  uint64_t c = ~crc;
  // Byte steps to an 8-byte boundary, then one instruction per 8 bytes.
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c = __builtin_ia32_crc32qi(static_cast<uint32_t>(c), *p++);
    --n;
  }
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = __builtin_ia32_crc32di(c, word);
  }
  while (n-- > 0) c = __builtin_ia32_crc32qi(static_cast<uint32_t>(c), *p++);
  return ~static_cast<uint32_t>(c);
}
#endif

}  // namespace

uint32_t crc32c_portable(uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  while (size-- > 0) c = kTable[(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

bool crc32c_in_hardware() {
#if defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
#else
  return false;
#endif
}

uint32_t crc32c(uint32_t crc, const void* data, size_t size) {
#if defined(__x86_64__)
  if (crc32c_in_hardware()) return crc32c_sse42(crc, static_cast<const unsigned char*>(data), size);
#endif
  return crc32c_portable(crc, data, size);
}

Status crc32c_file(const std::string& path, uint32_t* crc, uint64_t* size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::from_errno("cannot open", path);
  // 1 MiB blocks: large enough that the read calls cost nothing next to the
  // checksum, small enough to stay in the cache the checksum reads from.
  std::vector<unsigned char> block(1 << 20);
  uint32_t c = 0;
  uint64_t total = 0;
  for (;;) {
    ssize_t got = ::read(fd, block.data(), block.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      Status s = Status::from_errno("cannot read", path);
      ::close(fd);
      return s;
    }
    if (got == 0) break;
    c = crc32c(c, block.data(), static_cast<size_t>(got));
    total += static_cast<uint64_t>(got);
  }
  ::close(fd);
  *crc = c;
  *size = total;
  return {};
}

}  // namespace ferry::fault
