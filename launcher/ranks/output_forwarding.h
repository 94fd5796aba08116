// Forwarding the ranks' stdout and stderr to mpirun's, whole lines at a
// time: each rank writes into its own pipe, mpirun reads what is there,
// writes out the complete lines in one write() and keeps the unfinished line
// until its end arrives. Lines of different ranks therefore never mix.
#pragma once

#include <functional>
#include <string>

namespace ferry::launcher {

// mpirun's stdout or stderr. Once writing fails for good (EPIPE: the reader
// went away, as in `mpirun ... | head`), further output is dropped and
// `broken` tells the job to end, as a shell pipeline would.
// In a node daemon the sink is not a file but the link to mpirun: then
// `deliver` takes the bytes (already whole lines) instead of fd.
struct OutputSink {
  int fd;
  bool broken = false;
  std::function<void(const char* data, size_t len)> deliver{};
};

// Writes all of [data, data+len), waiting for a non-blocking fd to drain.
// Returns false (and marks the sink broken) if the fd cannot be written.
bool write_all(OutputSink& sink, const char* data, size_t len);

class LineForwarder {
 public:
  // `source` is the read end of the rank's pipe (non-blocking), owned here.
  // `prefix` starts every line ("[3] " under --tag-output, else empty).
  LineForwarder(int source, OutputSink* sink, std::string prefix);
  ~LineForwarder();
  LineForwarder(LineForwarder&& other) noexcept;
  LineForwarder(const LineForwarder&) = delete;
  LineForwarder& operator=(const LineForwarder&) = delete;

  int fd() const { return source_; }

  // The pipe is readable: forward what is there. Returns false once the
  // rank's end is closed (EOF) and the pipe is done with.
  bool on_readable();

  // The rank has exited: everything it wrote is in the pipe. Forward it,
  // flush the unfinished last line (ending it with a newline when
  // `end_line`, so that it cannot run into another rank's output), close.
  void finish(bool end_line);

 private:
  // Emits [data, data+len): complete lines out, the tail kept in partial_.
  void consume(const char* data, size_t len);
  void emit(const char* data, size_t len);  // whole lines, prefixed
  // Reads once; returns bytes read, 0 at EOF, -1 when nothing is there.
  ssize_t read_some(char* buffer, size_t size);

  int source_;
  OutputSink* sink_;
  std::string prefix_;
  std::string partial_;  // the current line, not yet ended
};

}  // namespace ferry::launcher
