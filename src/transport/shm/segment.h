// A named POSIX shared-memory segment (shm_open + mmap).
//
// Each rank creates one under a name its local peers can compute
// (common/shm_names.h), and a peer maps it on first contact, which may come
// at any time in the job: the owner removes the name when its transport
// ends (after MPI_Finalize's fence), and the launcher removes what a killed
// job left (launcher/ranks/local_ranks.cc).
//
// Memory is backed by the ranges that will be used (back()), not all at
// once: a rank's segment holds a ring for every local peer, and most pairs
// of a large job never talk. Backing a range allocates it in /dev/shm, so a
// full /dev/shm fails there with a message naming the size, never later
// with SIGBUS on a store.
#pragma once

#include <cstddef>
#include <string>

namespace ferry::transport::shm {

class Segment {
 public:
  Segment() = default;
  ~Segment();
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  Segment(Segment&& other) noexcept { *this = std::move(other); }
  Segment& operator=(Segment&& other) noexcept;

  // Creates `name` with `bytes` of zeroed memory, none of it backed yet.
  bool create(const std::string& name, size_t bytes, std::string* error);
  // Maps an existing segment; it must hold at least `bytes`.
  bool attach(const std::string& name, size_t bytes, std::string* error);
  // Backs [offset, offset + bytes) with memory now (idempotent). Until
  // done_backing() through the descriptor kept open, after it by opening
  // the name again (while it is linked).
  bool back(size_t offset, size_t bytes, std::string* error);
  // Closes the descriptor: a mapped segment needs none.
  void done_backing();
  // Removes the name (the memory stays mapped until every mapping goes).
  void unlink();

  char* data() const { return static_cast<char*>(base_); }
  size_t size() const { return bytes_; }

 private:
  bool map(int fd, size_t bytes, std::string* error);

  void* base_ = nullptr;
  size_t bytes_ = 0;
  int fd_ = -1;         // until done_backing()
  std::string label_;   // the name, for messages
  std::string name_;    // while we own a name still linked
};

}  // namespace ferry::transport::shm
