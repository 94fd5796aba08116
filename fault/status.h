// The outcome of a fault/ step: success, or one message that names what
// failed (the file and the system's reason). fault/ knows nothing of MPI, so
// this stands in for the runtime's Err; the runtime turns it into an MPI
// error class at its boundary.
#pragma once

#include <string>
#include <utility>

namespace ferry::fault {

class Status {
 public:
  Status() = default;
  static Status failure(std::string message) { return Status(std::move(message)); }
  // "<what> <path>: <strerror(errno)>", read from errno at the call.
  static Status from_errno(const char* what, const std::string& path);

  bool ok() const { return message_.empty(); }
  explicit operator bool() const { return !ok(); }  // true on failure, like Err
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::string message_;
};

}  // namespace ferry::fault
