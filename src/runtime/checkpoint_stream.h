// One rank's checkpoint files as a byte stream to another rank, moved in
// pieces of at most kStreamPieceBytes: neither side holds more than one
// piece per stream, however large the checkpoint (partner copies,
// runtime/checkpoint_copies.h, at commit and at restore).
//
// The stream is the `file` lines of fault/manifest.h, then each file's bytes
// in that order; both sides know its length and where the bytes start
// beforehand (the copies' first round). The source checks each file against
// the CRC-32C it was sealed or verified with as it reads it. The sink writes
// each file beside its name (`<path>.tmp`), checks its CRC-32C at its last
// byte, fdatasyncs and renames it, and syncs the directories at the end
// (fault/durable.h order): a copy is whole and checked, or absent.
//
// Schedule (move_streams): rounds of one piece per stream; in each round a
// rank posts the receive of every incoming stream's next piece, reads and
// sends every outgoing stream's next piece, waits, then writes what came.
// Memory: one piece per stream a rank takes part in. Time: the file read,
// the transfer and the file write of a piece follow one another, so a copy
// costs about their sum (each a few ms per 4 MiB), not their maximum.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/error.h"
#include "fault/manifest.h"
#include "fault/status.h"

namespace ferry::runtime::checkpoint::copies {

constexpr uint64_t kStreamPieceBytes = 4u << 20;

// The sending side: files under `dir`, each expected to have its entry's
// size and CRC-32C.
class FileSource {
 public:
  FileSource(std::string dir, const std::vector<fault::FileEntry>& files);
  ~FileSource();
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  uint64_t header_bytes() const { return header_.size(); }
  uint64_t total_bytes() const { return total_; }
  // The next `n` bytes (n <= what is left). A file that cannot be read or no
  // longer matches its entry fails the stream, which is still filled to its
  // length (with zeros) so that the other side is not left waiting.
  void next(char* into, uint64_t n);
  const fault::Status& status() const { return status_; }

 private:
  void read_file_bytes(char* into, uint64_t n);
  void fail(fault::Status s);

  std::string dir_;
  std::vector<fault::FileEntry> files_;
  std::string header_;
  uint64_t total_ = 0;
  uint64_t at_ = 0;          // bytes of the stream produced so far
  size_t file_ = 0;          // the file being read
  uint64_t file_at_ = 0;     // bytes of it read
  uint32_t file_crc_ = 0;
  int fd_ = -1;
  fault::Status status_;
};

// The receiving side: writes the files under `dir`, emptied first.
class FileSink {
 public:
  FileSink(std::string dir, uint64_t header_bytes, uint64_t total_bytes);
  ~FileSink();
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  uint64_t total_bytes() const { return total_; }
  // The next `n` bytes of the stream. After a failure the rest is ignored.
  void take(const char* data, uint64_t n);
  // After the last byte: the directories synced; or the first failure.
  fault::Status finish();

 private:
  void start_files();
  void open_file();
  void close_file();
  void fail(fault::Status s);

  std::string dir_;
  uint64_t header_bytes_;
  uint64_t total_;
  uint64_t at_ = 0;
  std::string header_;
  std::vector<fault::FileEntry> files_;
  std::vector<std::string> directories_;
  size_t file_ = 0;
  uint64_t file_at_ = 0;
  uint32_t file_crc_ = 0;
  int fd_ = -1;
  fault::Status status_;
};

struct Outgoing {
  int dest;
  FileSource* source;
};
struct Incoming {
  int source;
  FileSink* sink;
};

// Moves every stream, piece by piece, on one tag of the collective context
// (the caller's next collective tag, taken on every rank of `c`). Each pair
// of ranks must agree on the streams between them and their lengths. Fails
// only when a message fails; the sources' and sinks' own outcomes are theirs.
// *most_buffered: the largest number of bytes this rank held in pieces at once.
Err move_streams(Communicator* c, int tag, const std::vector<Outgoing>& out, const std::vector<Incoming>& in,
                 uint64_t* most_buffered);

}  // namespace ferry::runtime::checkpoint::copies
