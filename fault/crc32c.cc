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
// The crc32 instruction takes 3 cycles and a new one can start every cycle:
// one chain of them runs at a third of what the core can do. So a long
// buffer is checksummed as three lanes of kLane bytes at once, each its own
// chain, and the lanes' CRCs are joined: the CRC register is linear over
// GF(2), so crc(A || B) = shift(crc(A), |B|) ^ crc0(B), where crc0 starts
// from zero and shift(x, n) is x times x^(8n) modulo the polynomial -- the
// register after n zero bytes. shift by kLane is one lookup per byte of x
// in tables made once from the 32 single-bit registers.
constexpr size_t kLane = 8192;

struct LaneShift {
  uint32_t table[4][256];
};

__attribute__((target("sse4.2"))) uint32_t zeros_sse42(uint32_t c, size_t n) {
  uint64_t r = c;
  for (; n >= 8; n -= 8) r = __builtin_ia32_crc32di(r, 0);
  while (n-- > 0) r = __builtin_ia32_crc32qi(static_cast<uint32_t>(r), 0);
  return static_cast<uint32_t>(r);
}

const LaneShift& lane_shift() {
  static const LaneShift shift = [] {
    LaneShift s{};
    uint32_t bit[32];
    for (int i = 0; i < 32; ++i) bit[i] = zeros_sse42(uint32_t{1} << i, kLane);
    for (int k = 0; k < 4; ++k)
      for (int v = 0; v < 256; ++v) {
        uint32_t x = 0;
        for (int i = 0; i < 8; ++i)
          if (v & (1 << i)) x ^= bit[8 * k + i];
        s.table[k][v] = x;
      }
    return s;
  }();
  return shift;
}

uint32_t shift_lane(const LaneShift& s, uint32_t x) {
  return s.table[0][x & 0xff] ^ s.table[1][(x >> 8) & 0xff] ^ s.table[2][(x >> 16) & 0xff] ^ s.table[3][x >> 24];
}

__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(uint32_t crc, const unsigned char* p, size_t n) {
  uint64_t c = ~crc;
  // Byte steps to an 8-byte boundary, then one instruction per 8 bytes.
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c = __builtin_ia32_crc32qi(static_cast<uint32_t>(c), *p++);
    --n;
  }
  if (n >= 3 * kLane) {
    const LaneShift& s = lane_shift();
    for (; n >= 3 * kLane; n -= 3 * kLane, p += 3 * kLane) {
      uint64_t c1 = 0, c2 = 0;
      for (size_t i = 0; i < kLane; i += 8) {
        uint64_t w0, w1, w2;
        std::memcpy(&w0, p + i, 8);
        std::memcpy(&w1, p + kLane + i, 8);
        std::memcpy(&w2, p + 2 * kLane + i, 8);
        c = __builtin_ia32_crc32di(c, w0);
        c1 = __builtin_ia32_crc32di(c1, w1);
        c2 = __builtin_ia32_crc32di(c2, w2);
      }
      uint32_t joined = shift_lane(s, static_cast<uint32_t>(c)) ^ static_cast<uint32_t>(c1);
      c = shift_lane(s, joined) ^ static_cast<uint32_t>(c2);
    }
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
