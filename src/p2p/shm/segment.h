// A named POSIX shared-memory segment (shm_open + mmap).
//
// Each rank creates one, publishes its name, and its local peers map it; the
// owner unlinks the name once they all have, so nothing is left in /dev/shm
// even if the job is killed later.
#pragma once

#include <cstddef>
#include <string>

namespace ferry::p2p::shm {

class Segment {
 public:
  Segment() = default;
  ~Segment();
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  Segment(Segment&& other) noexcept { *this = std::move(other); }
  Segment& operator=(Segment&& other) noexcept;

  // Creates `name` with `bytes` of zeroed memory, all of it backed now (so a
  // full /dev/shm fails here with a message, not later with SIGBUS).
  bool create(const std::string& name, size_t bytes, std::string* error);
  // Maps an existing segment; it must hold at least `bytes`.
  bool attach(const std::string& name, size_t bytes, std::string* error);
  // Removes the name (the memory stays mapped until every mapping goes).
  void unlink();

  char* data() const { return static_cast<char*>(base_); }
  size_t size() const { return bytes_; }

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
  std::string name_;  // while we own a name still linked
};

}  // namespace ferry::p2p::shm
