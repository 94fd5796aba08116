// The messages between mpirun and its node daemons: typed frames on a TCP
// stream, each a 4-byte length, a 1-byte type and a body that Encoder
// writes and Decoder reads (little-endian integers, length-prefixed
// strings). Both ends are the same build of Ferry, so there is no version
// negotiation: a daemon of another build fails the hello (see daemon_link).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::launcher::wire {

enum class Type : uint8_t {
  // Upwards, daemon -> parent (and on to mpirun).
  kHello = 1,     // position, secret, hostname: first frame on a link
  kOutput,        // rank, stream (1 stdout, 2 stderr), whole lines
  kRankExited,    // rank, pid, wait status
  kAbort,         // rank, code: the rank called PMIx_Abort
  kFenceData,     // sequence, the subtree's concatenated PMIx fence data
  kNodeLost,      // position, reason: a daemon's link closed
  kError,         // exit status, message: the daemon cannot go on
  kStartFailed,   // position, error: a daemon could not start its child there
  kSubtreeUp,     // daemons, depth: every daemon of a subtree is up (to mpirun: all)
  // Both ways (forwarded_requests.h): a PMIx request that a daemon's server
  // cannot answer alone goes up to mpirun, or from mpirun down to the host
  // that can (a direct modex); its answer goes back to the server that asked.
  kRequest,       // origin, id, target, kind, process, packed arguments
  kReply,         // origin, id, status, packed answer
  // A job that PMIx_Spawn placed on a daemon's host (daemon_spawned_jobs.h).
  kSpawnJob,      // down: target position, the job and its apps
  kSpawnStarted,  // up: job id, status, why not, the daemon's position
  kDropJob,       // down: target position, job id: end a job that did not start whole
  kSpawnedExited, // up: job id, rank, pid, wait status
  kSpawnedAbort,  // up: job id, rank, code
  kKnowJob,       // down to all: nspace, size, the positions running it
  kJobFence,      // up: nspace, sequence, a host's fence data (spawned_fences.h)
  kJobFenceRelease, // down: nspace, sequence, ok, every host's data
  // Downwards, mpirun -> every daemon.
  kFenceRelease,  // sequence, every node's fence data
  kSignal,        // signal, rank spared (-1: none)
  kShutdown,      // the job is over: exit
  kStdin,         // bytes of mpirun's stdin for rank 0 (empty: end of input),
                  // sent only along the path to rank 0's daemon
  kCheckpointDue, // raise ferry::checkpoint::kDueEvent for the host's ranks
  // Upwards, once a job's ranks on a daemon's host have ended, for the
  // first job and for each spawned one (FERRY_PROFILE without a shared
  // directory, launcher/profile/counter_forwarding.h).
  kProfileChunk,  // file name (<nspace>.rank.<r>), offset, file size, bytes: a piece of a counter file
  kProfileDone,   // position, files sent, nspace: every counter file of that job on that host is up
};

// Frames larger than this are refused (a corrupt or foreign stream).
inline constexpr uint32_t kMaxFrame = 256u << 20;
inline constexpr size_t kFrameHeader = 5;

class Encoder {
 public:
  explicit Encoder(Type type);
  Encoder& u8(uint8_t v);
  Encoder& u32(uint32_t v);
  Encoder& i32(int32_t v) { return u32(uint32_t(v)); }
  Encoder& u64(uint64_t v);
  Encoder& str(std::string_view v);
  Encoder& strings(const std::vector<std::string>& v);  // a count, then each str
  Encoder& raw(std::string_view v);  // bytes as they are (a body passed on)
  // The whole frame, length header filled in; the encoder is spent. By
  // value, so that `const std::string& f = Encoder(...).finish()` cannot
  // dangle.
  std::string finish();

 private:
  std::string frame_;
};

// Reads a frame's body; after a read past the end, ok() is false and every
// further read returns zero/empty.
class Decoder {
 public:
  explicit Decoder(std::string_view body) : rest_(body) {}
  uint8_t u8();
  uint32_t u32();
  int32_t i32() { return int32_t(u32()); }
  uint64_t u64();
  std::string str();
  std::vector<std::string> strings();
  bool ok() const { return ok_; }

 private:
  bool take(void* out, size_t n);
  std::string_view rest_;
  bool ok_ = true;
};

}  // namespace ferry::launcher::wire
