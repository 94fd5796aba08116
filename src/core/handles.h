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

#include <cstddef>
#include <cstdint>
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

// Objects created at run time, addressed by handle index. Freed slots are
// reused (a free list), so the table does not grow with churn; pointers to
// live objects stay valid because objects are held by pointer.
template <typename T>
class Table {
 public:
  // Takes ownership; returns the index.
  uint32_t add(T* object) {
    if (!free_.empty()) {
      uint32_t i = free_.back();
      free_.pop_back();
      slots_[i] = object;
      return i;
    }
    slots_.push_back(object);
    return static_cast<uint32_t>(slots_.size() - 1);
  }
  T* get(uint32_t index) const { return index < slots_.size() ? slots_[index] : nullptr; }
  // Returns the object (caller deletes it) and frees the slot.
  T* remove(uint32_t index) {
    T* object = get(index);
    if (object != nullptr) {
      slots_[index] = nullptr;
      free_.push_back(index);
    }
    return object;
  }
  size_t live() const { return slots_.size() - free_.size(); }

 private:
  std::vector<T*> slots_;
  std::vector<uint32_t> free_;
};

}  // namespace ferry::handle
