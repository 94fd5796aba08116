// Errors inside the runtime are values: an MPI error class and a message.
//
// Success costs one null pointer and no allocation, so core functions on the
// fast path can return an Err freely. The API layer prefixes the call name
// ("MPI_Send: ") and turns the error into an MPI error code that remembers the
// message, so MPI_Error_string(code) can say exactly what went wrong.
#pragma once

#include <memory>
#include <string>

namespace ferry {

class [[nodiscard]] Err {
 public:
  Err() = default;  // success
  Err(int mpi_class, std::string message)
      : detail_(std::make_unique<Detail>(Detail{mpi_class, std::move(message)})) {}

  bool ok() const { return detail_ == nullptr; }
  explicit operator bool() const { return !ok(); }  // true when it is an error
  int mpi_class() const;                            // MPI_SUCCESS when ok()
  const std::string& message() const;

 private:
  struct Detail {
    int mpi_class;
    std::string message;
  };
  std::unique_ptr<Detail> detail_;
};

// printf-style constructor: fail(MPI_ERR_RANK, "invalid rank %d (communicator size %d)", r, n).
Err fail(int mpi_class, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// MPI error codes. A code carries its class in the low 7 bits and, above them,
// the slot of a remembered message (0: none, the class's own text applies).
namespace error_code {
int make(int mpi_class, const std::string& message);  // remembers the message
int class_of(int code);
// Writes the text for a code: its remembered message, or the class's text.
std::string text(int code);
bool is_valid(int code);
}  // namespace error_code

// The standard text of an error class ("MPI_ERR_RANK: invalid rank").
const char* error_class_text(int mpi_class);
// The class's name alone ("MPI_ERR_RANK").
const char* error_class_name(int mpi_class);

}  // namespace ferry
