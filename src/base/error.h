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

// MPI error codes. A code of a predefined class carries the class in the low
// 7 bits and, above them, the slot of a remembered message (0: none, the
// class's own text applies). User-defined classes and codes (MPI-3.1 §8.5)
// lie above MPI_ERR_LASTCODE; base/error.cc has the layout. Every function
// here may be called from any thread.
namespace error_code {
int make(int mpi_class, const std::string& message);  // remembers the message
int class_of(int code);
// Writes the text for a code: its remembered message, or the class's text
// (a user-defined class or code: its MPI_Add_error_string text, "" if none).
std::string text(int code);
bool is_valid(int code);
// Whether `value` is an error class, predefined or user-defined.
bool is_class(int value);

// MPI_Add_error_class, MPI_Add_error_code (to a predefined or user-defined
// class) and MPI_Add_error_string (for those only: MPI_ERR_ARG otherwise).
Err add_class(int* mpi_class);
Err add_code(int mpi_class, int* code);
Err set_string(int code, const std::string& text);
// MPIX_Delete_error_class (a user class without codes), _code (a user
// code) and _string (back to ""), as MPICH 4.0.2 exports them.
Err delete_class(int mpi_class);
Err delete_code(int code);
Err delete_string(int code);
// MPI_LASTUSEDCODE's value (MPI-3.1 §8.5): the largest class or code added,
// MPI_ERR_LASTCODE before any. The int lives as long as the library.
const int* last_used();
}  // namespace error_code

// The standard text of an error class ("MPI_ERR_RANK: invalid rank").
const char* error_class_text(int mpi_class);
// The class's name alone ("MPI_ERR_RANK"; "a user-defined error class").
const char* error_class_name(int mpi_class);

}  // namespace ferry
