#include "rma/access.h"

#include <cerrno>
#include <cstring>

#include "transport/shm/cma.h"

namespace ferry::rma {
namespace {

Err cma_error(int err, const char* what, uint64_t address, size_t n) {
  int cls = err == EFAULT ? MPI_ERR_RMA_RANGE : MPI_ERR_OTHER;
  return fail(cls, "cannot %s %zu bytes at target address 0x%llx by cross-memory attach: %s", what, n,
              static_cast<unsigned long long>(address), std::strerror(err));
}

}  // namespace

Err Access::read(uint64_t address, void* out, size_t n) const {
  if (n == 0) return {};
  if (mode == Mode::kPointer) {
    std::memcpy(out, at(address), n);
    return {};
  }
  if (int err = transport::shm::cma::read(pid, address, out, n)) return cma_error(err, "read", address, n);
  return {};
}

Err Access::write(uint64_t address, const void* in, size_t n) const {
  if (n == 0) return {};
  if (mode == Mode::kPointer) {
    std::memcpy(at(address), in, n);
    return {};
  }
  if (int err = transport::shm::cma::write(pid, address, const_cast<void*>(in), n))
    return cma_error(err, "write", address, n);
  return {};
}

}  // namespace ferry::rma
