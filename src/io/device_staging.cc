#include "io/device_staging.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "base/type_pack.h"
#include "common/debug.h"
#include "device/device.h"
#include "device/staging.h"

namespace ferry::io::device_staging {

Err copy(void* dst, const void* src, uint64_t n) {
  if (n == 0) return {};
  if (std::optional<std::string> error = device::staging::copy(dst, src, n))
    return fail(MPI_ERR_OTHER, "GPU buffer: %s", error->c_str());
  return {};
}

namespace {

// Whether `count` elements of `t` at `data` fill their span with no holes:
// the span and the packed form are the same bytes.
bool fills_span(const Datatype& t, const void* data, uint64_t count) {
  return count == 0 || type::dense_run(t, data, count) != nullptr;
}

// The bytes `count` elements of `t` occupy, from the buffer's address;
// a negative extent lays the later elements below the first.
struct Span {
  MPI_Aint lo = 0;
  MPI_Aint hi = 0;
  uint64_t bytes() const { return static_cast<uint64_t>(hi - lo); }
};
Span span_of(const Datatype& t, uint64_t count) {
  if (count == 0) return {};
  const MPI_Aint last = static_cast<MPI_Aint>(count - 1) * t.extent;
  return Span{t.true_lb + std::min<MPI_Aint>(0, last), t.true_lb + t.true_extent + std::max<MPI_Aint>(0, last)};
}

// The host buffer for one piece of `bytes` from the pinned pool, given back
// when it goes.
class Piece {
 public:
  explicit Piece(uint64_t bytes) : bytes_(bytes), data_(static_cast<char*>(device::staging::take(bytes))) {}
  ~Piece() { device::staging::give(data_, bytes_); }
  Piece(const Piece&) = delete;
  Piece& operator=(const Piece&) = delete;
  char* data() const { return data_; }

 private:
  uint64_t bytes_;
  char* data_;
};

// Pieces cut at any byte: the buffer is one dense run and the view converts
// nothing, so a piece is plain bytes.
Err move_bytes(Direction direction, uint64_t position, char* run, uint64_t bytes, uint64_t* done,
               const HostMove& host_move) {
  const Datatype* byte = find_datatype(MPI_BYTE);
  Piece piece(std::min(bytes, kPieceBytes));
  for (uint64_t at = 0; at < bytes; at += kPieceBytes) {
    uint64_t n = std::min(kPieceBytes, bytes - at);
    if (direction == Direction::kWrite) {
      if (Err e = copy(piece.data(), run + at, n)) return e;
    }
    uint64_t moved = 0;
    Err e = host_move(position + at, Buffer{piece.data(), n, byte}, n, &moved);
    if (direction == Direction::kRead && moved > 0) {
      if (Err c = copy(run + at, piece.data(), moved)) return e ? std::move(e) : std::move(c);
    }
    *done += moved;
    if (e) return e;
    if (moved < n) break;  // the end of the file
  }
  return {};
}

// Pieces of whole elements: the span of each piece's elements is staged
// and the datatype applied to the host copy.
Err move_elements(Direction direction, uint64_t position, const Buffer& buffer, uint64_t* done,
                  const HostMove& host_move) {
  const Datatype& t = *buffer.type;
  const auto stride = static_cast<uint64_t>(std::max<MPI_Aint>(1, t.extent < 0 ? -t.extent : t.extent));
  uint64_t per_piece = std::max<uint64_t>(1, kPieceBytes / stride);
  // The last element's true extent may reach past the stride.
  while (per_piece > 1) {
    if (span_of(t, per_piece).bytes() <= kPieceBytes) break;
    per_piece = per_piece / 2;
  }
  for (uint64_t first = 0; first < buffer.count; first += per_piece) {
    uint64_t n = std::min(per_piece, buffer.count - first);
    Span s = span_of(t, n);
    const uint64_t span = s.bytes();
    char* device = static_cast<char*>(buffer.data) + static_cast<MPI_Aint>(first) * t.extent + s.lo;
    Piece piece(span);
    // A read copies the span in too: the copy back then leaves the holes,
    // and elements past the end of the file, as they were.
    if (Err e = copy(piece.data(), device, span)) return e;
    const uint64_t bytes = n * t.size;
    uint64_t moved = 0;
    Err e = host_move(position + first * t.size, Buffer{piece.data() - s.lo, n, &t}, bytes, &moved);
    if (direction == Direction::kRead && moved > 0) {
      if (Err c = copy(device, piece.data(), span)) return e ? std::move(e) : std::move(c);
    }
    *done += moved;
    if (e) return e;
    if (moved < bytes) break;  // the end of the file
  }
  return {};
}

}  // namespace

bool on_gpu(const Buffer& buffer) {
  return device::enabled() && buffer.data != nullptr && device::memory_of(buffer.data) == device::Memory::kDevice;
}

Err move_in_pieces(Direction direction, uint64_t position, const Buffer& buffer, uint64_t bytes, bool cut_anywhere,
                   uint64_t* done, const HostMove& host_move) {
  *done = 0;
  if (bytes == 0) return {};
  FERRY_DEBUG(kCuda, "MPI-IO: %llu bytes of a GPU buffer staged through host memory in pieces of at most %llu",
              static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(kPieceBytes));
  if (cut_anywhere) {
    char* run = const_cast<char*>(type::dense_run(*buffer.type, buffer.data, buffer.count));
    return move_bytes(direction, position, run, bytes, done, host_move);
  }
  return move_elements(direction, position, buffer, done, host_move);
}

Err WholeSpan::stage(Direction direction, const Buffer& buffer, bool converts, Buffer* host) {
  *host = buffer;
  Span s = span_of(*buffer.type, buffer.count);
  if (s.hi <= s.lo) return {};
  bytes_ = s.bytes();
  device_ = static_cast<char*>(buffer.data) + s.lo;
  host_ = static_cast<char*>(std::malloc(bytes_));
  if (host_ == nullptr)
    return fail(MPI_ERR_NO_MEM, "cannot stage %llu bytes of a GPU buffer in host memory",
                static_cast<unsigned long long>(bytes_));
  dense_ = !converts && fills_span(*buffer.type, buffer.data, buffer.count);
  FERRY_DEBUG(kCuda, "MPI-IO collective: %llu bytes of a GPU buffer staged through host memory",
              static_cast<unsigned long long>(bytes_));
  host->data = host_ - s.lo;
  if (direction == Direction::kWrite || !dense_) return copy(host_, device_, bytes_);
  return {};
}

Err WholeSpan::finish(Direction direction, uint64_t done) {
  Err e;
  if (host_ != nullptr && direction == Direction::kRead)
    e = copy(device_, host_, dense_ ? std::min(done, bytes_) : bytes_);
  std::free(host_);
  host_ = nullptr;
  return e;
}

WholeSpan::~WholeSpan() { std::free(host_); }

}  // namespace ferry::io::device_staging
