#include "launcher/tree/wire.h"

#include <cstring>
#include <utility>

namespace ferry::launcher::wire {
namespace {

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

}  // namespace

Encoder::Encoder(Type type) {
  frame_.assign(4, '\0');
  frame_.push_back(char(type));
}

Encoder& Encoder::u8(uint8_t v) {
  frame_.push_back(char(v));
  return *this;
}

Encoder& Encoder::u32(uint32_t v) {
  put_le(frame_, v, 4);
  return *this;
}

Encoder& Encoder::u64(uint64_t v) {
  put_le(frame_, v, 8);
  return *this;
}

Encoder& Encoder::str(std::string_view v) {
  u32(uint32_t(v.size()));
  frame_.append(v);
  return *this;
}

Encoder& Encoder::strings(const std::vector<std::string>& v) {
  u32(uint32_t(v.size()));
  for (const std::string& s : v) str(s);
  return *this;
}

Encoder& Encoder::raw(std::string_view v) {
  frame_.append(v);
  return *this;
}

std::string Encoder::finish() {
  uint32_t body = uint32_t(frame_.size() - 4);
  for (int i = 0; i < 4; ++i) frame_[size_t(i)] = char((body >> (8 * i)) & 0xff);
  return std::move(frame_);
}

bool Decoder::take(void* out, size_t n) {
  if (!ok_ || rest_.size() < n) {
    ok_ = false;
    std::memset(out, 0, n);
    return false;
  }
  std::memcpy(out, rest_.data(), n);
  rest_.remove_prefix(n);
  return true;
}

uint8_t Decoder::u8() {
  uint8_t v;
  take(&v, 1);
  return v;
}

uint32_t Decoder::u32() {
  unsigned char b[4];
  take(b, 4);
  return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

uint64_t Decoder::u64() {
  uint64_t lo = u32();
  uint64_t hi = u32();
  return lo | hi << 32;
}

std::string Decoder::str() {
  uint32_t n = u32();
  if (!ok_ || rest_.size() < n) {
    ok_ = false;
    return {};
  }
  std::string v(rest_.substr(0, n));
  rest_.remove_prefix(n);
  return v;
}

std::vector<std::string> Decoder::strings() {
  uint32_t n = u32();
  // Each string takes at least its 4-byte length: a count the rest cannot
  // hold is a corrupt frame, refused before anything is allocated for it.
  if (!ok_ || n > rest_.size() / 4) {
    ok_ = false;
    return {};
  }
  std::vector<std::string> v(n);
  for (std::string& s : v) s = str();
  return v;
}

}  // namespace ferry::launcher::wire
