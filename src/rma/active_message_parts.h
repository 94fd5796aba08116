// The active-message service's private parts (rma/active_message.cc, and
// rma/data_apart.cc for large data): its messages' tags and layouts, and
// what it keeps of the messages in flight.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/datatype.h"
#include "base/error.h"
#include "base/request.h"
#include "rma/active_message.h"

namespace ferry::rma::wire {

constexpr int kTagRequest = 1;
constexpr int kTagReply = 2;
constexpr int kTagData = 3;       // a large request's data, apart from it
constexpr int kTagReplyData = 4;  // a large answer's data, apart from it

// A request carrying this much data or more sends it as a message of its
// own after the request (kTagData), straight from the origin's buffer when
// that is dense. The target, once it reaches the request, receives the
// data straight into its window for a put of one run, or else into a
// buffer of the request's own: large data then crosses with the
// transport's single copy (a rendezvous) instead of being copied into a
// zeroed request buffer on both sides and out of it again (a TCP put of
// 4 MiB spent more time in memset and memcpy than in the socket). Large
// answers likewise (kTagReplyData): a get of one run is sent from the
// window itself, and the origin receives it into its result buffer when
// that is dense.
constexpr uint64_t kDataApartBytes = 64 * 1024;

enum : uint32_t { kLock = 100, kUnlock = 101, kSync = 102 };

struct WireRequest {
  uint32_t kind;  // OpKind, kLock or kUnlock
  int32_t op;
  int32_t basic;
  uint32_t exclusive;
  uint32_t epoch;  // the origin's fence epoch (Service::end_fence_epoch)
  uint32_t silent;  // answer only with an error
  uint32_t data_apart;  // the data follows as a kTagData message
  uint32_t reserved;
  uint64_t id;
  uint64_t basic_size;
  uint64_t runs;
  uint64_t data_bytes;
  uint64_t result_bytes;
};

struct WireReply {
  uint64_t id;
  int32_t error_class;  // MPI_SUCCESS or the class of the target's error
  int32_t data_apart;   // the data follows as a kTagReplyData message
  uint64_t bytes;       // data that follows
  char message[200];
};

inline const Datatype& bytes_type() { return *find_datatype(MPI_BYTE); }

}  // namespace ferry::rma::wire

namespace ferry::rma {

struct Service::Pending {
  int target;
  void* result;
  MPI_Count count;
  const Datatype* type;
  uint64_t bytes;
  Request* request;
  uint64_t flight_bytes;  // sent and expected back (flow control)
  bool awaited;           // a fence waits for its answer (data to bring, a request to complete)
  Err error;
};

// A message's bytes, written by a copy or a receive right after they are
// sized: std::vector<char> would zero them first, a pass over the whole
// message that nobody reads (a TCP put of 4 MiB spent 7-8% of each side's
// time in that memset, docs/performance.md).
class MessageBytes {
 public:
  void resize(size_t n) {
    bytes_.reset(new char[n]);  // default-initialised: not zeroed
    size_ = n;
  }
  char* data() { return bytes_.get(); }
  const char* data() const { return bytes_.get(); }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<char[]> bytes_;
  size_t size_ = 0;
};

struct Service::Incoming {
  MessageBytes data;  // the request (or answer) as it came
  Request* r = nullptr;
  int source = 0;
  // A request whose data comes apart (kDataApartBytes): where it lands,
  // the window itself (`direct`) or `payload`, and its receive.
  Request* data_r = nullptr;
  std::unique_ptr<char[]> payload;
  bool direct = false;
};

struct Service::Outgoing {
  MessageBytes data;
  Request* r = nullptr;
  // Large data apart: its send, and the packed copy (or result) it is sent
  // from, empty when it is sent from memory this service does not own:
  // the origin's buffer (`from_user`: a fence waits for it, since a silent
  // operation's answer never comes) or the target's window (`from_window`:
  // a get's answer; the request counts as executed, and the origin's next
  // requests wait, until the window is read).
  Request* data_r = nullptr;
  std::vector<char> packed;
  bool from_user = false;
  bool from_window = false;
  int origin = 0;
  uint32_t epoch = 0;
};

}  // namespace ferry::rma
