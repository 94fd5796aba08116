// How this process touches one target's window memory: through a pointer
// (memory mapped here, or its own) or through cross-memory attach (a
// same-host process's own memory). The operations of rma/apply.h work on
// an Access, so the origin that reaches a target directly and the target's
// service that executes a remote origin's request run the same code.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "base/error.h"
#include "mpi.h"
#include "rma/control.h"

namespace ferry::rma {

// A contiguous piece of target memory, at an address of the target's.
struct Run {
  uint64_t address;
  uint64_t bytes;
};

struct Access {
  enum class Mode : uint8_t { kPointer, kCma } mode = Mode::kPointer;
  char* mapped = nullptr;  // kPointer: where target address `base` is here
  uint64_t base = 0;
  pid_t pid = 0;           // kCma
  // CPU atomics on this memory are seen by everyone who accumulates on it
  // (a segment Ferry allocated, mapped by every rank of the host): elements
  // of 1 to 8 bytes are updated with compare-and-swap instead of the lock.
  bool atomics = false;
  Slot* slot = nullptr;    // the target's accumulate lock

  char* at(uint64_t address) const { return mapped + (address - base); }
  // Copies between target memory and here; a failed cross-memory copy
  // (a bad address) is MPI_ERR_RMA_RANGE naming `call`.
  Err read(uint64_t address, void* out, size_t n) const;
  Err write(uint64_t address, const void* in, size_t n) const;
};

}  // namespace ferry::rma
