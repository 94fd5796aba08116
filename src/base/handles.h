// MPI handles are ints with MPICH's encoding, because the predefined values
// are part of MPICH's ABI:
//
//   bits 31-30  kind: 0 invalid (the *_NULL handles), 1 builtin, 2 direct, 3 dynamic
//   bits 29-26  object type (communicator 1, group 2, datatype 3, ...)
//   bits 25-0   index
//
// Builtin and direct handles are the predefined objects (MPI_COMM_WORLD is
// 0x44000000, MPI_FLOAT_INT 0x8c000000); objects created at run time get
// kind 3 handles, which never collide with MPICH's predefined ones.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace ferry::handle {

enum class Object : uint32_t {
  kCommunicator = 0x1,
  kGroup = 0x2,
  kDatatype = 0x3,
  kFile = 0x4,
  kErrhandler = 0x5,
  kOp = 0x6,
  kInfo = 0x7,
  kWindow = 0x8,
  kKeyval = 0x9,
  kRequest = 0xb,
  kMessage = 0xc,  // MPI_Message (matched probes); not an MPICH object type
  kSession = 0xe,  // MPI_Session (MPI_SESSION_NULL is 0x38000000)
};

constexpr uint32_t kKindBuiltin = 1;
constexpr uint32_t kKindDirect = 2;
constexpr uint32_t kKindDynamic = 3;
constexpr uint32_t kIndexMask = (1u << 26) - 1;

constexpr uint32_t kind_of(int h) { return static_cast<uint32_t>(h) >> 30; }
constexpr Object object_of(int h) { return static_cast<Object>((static_cast<uint32_t>(h) >> 26) & 0xf); }
constexpr uint32_t index_of(int h) { return static_cast<uint32_t>(h) & kIndexMask; }
constexpr int make_dynamic(Object o, uint32_t index) {
  return static_cast<int>((kKindDynamic << 30) | (static_cast<uint32_t>(o) << 26) | index);
}
constexpr bool is_dynamic(int h, Object o) { return kind_of(h) == kKindDynamic && object_of(h) == o; }

// Objects created at run time, addressed by handle index. Every MPI call
// translates its handles, from any thread (MPI_THREAD_MULTIPLE), while other
// threads create and free objects: get() is two atomic loads and no lock;
// add() and remove() take the table's mutex. Slots live in chunks that never
// move and are never freed while the table lives, so a pointer read from the
// directory stays valid, and the directory itself is a fixed array (no
// vector that a concurrent add could reallocate under a reader). Freed
// slots are reused (a free list), so the table does not grow with churn.
//
// What get() returns is only as alive as the caller knows it to be: looking
// up a handle that another thread frees at the same time is erroneous in MPI
// (MPI-3.1 §12.4.2 leaves such conflicting calls to the user).
template <typename T>
class Table {
 public:
  static constexpr uint32_t kChunkBits = 12;
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr uint32_t kChunks = (kIndexMask + 1) >> kChunkBits;
  // What add() returns when every index is taken.
  static constexpr uint32_t kFull = UINT32_MAX;

  // Constant-initialized: a table at namespace scope needs no constructor
  // to run, and its directory is zero pages until used.
  constexpr Table() = default;
  ~Table() {
    for (auto& chunk : chunks_) delete[] chunk.load(std::memory_order_relaxed);
  }
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  // Records the object (the table does not own it); returns its index, or
  // kFull.
  uint32_t add(T* object) {
    std::lock_guard<std::mutex> lock(mutex_);
    uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (next_ > kIndexMask) return kFull;
      index = next_++;
      std::atomic<std::atomic<T*>*>& chunk = chunks_[index >> kChunkBits];
      if (chunk.load(std::memory_order_relaxed) == nullptr)
        chunk.store(new std::atomic<T*>[kChunkSize](), std::memory_order_release);
    }
    slot(index)->store(object, std::memory_order_release);
    ++live_;
    return index;
  }

  T* get(uint32_t index) const {
    std::atomic<T*>* s = slot(index);
    return s == nullptr ? nullptr : s->load(std::memory_order_acquire);
  }

  // Empties the slot; returns what it held (the caller deletes it), or
  // nullptr if it was empty.
  T* remove(uint32_t index) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::atomic<T*>* s = slot(index);
    T* object = s == nullptr ? nullptr : s->load(std::memory_order_relaxed);
    if (object == nullptr) return nullptr;
    s->store(nullptr, std::memory_order_release);
    free_.push_back(index);
    --live_;
    return object;
  }

  size_t live() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_;
  }

  // Every object in the table, lowest index first (finalize, leak reports).
  std::vector<T*> all() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<T*> out;
    for (uint32_t i = 0; i < next_; ++i)
      if (T* object = get(i)) out.push_back(object);
    return out;
  }

 private:
  std::atomic<T*>* slot(uint32_t index) const {
    if (index > kIndexMask) return nullptr;
    std::atomic<T*>* chunk = chunks_[index >> kChunkBits].load(std::memory_order_acquire);
    return chunk == nullptr ? nullptr : &chunk[index & (kChunkSize - 1)];
  }

  std::atomic<std::atomic<T*>*> chunks_[kChunks] = {};
  mutable std::mutex mutex_;  // guards the rest
  std::vector<uint32_t> free_;
  uint32_t next_ = 0;
  size_t live_ = 0;
};

}  // namespace ferry::handle
