// The manifest of one checkpoint epoch: the only thing a reader trusts.
//
// An epoch is complete when its manifest exists (it is published last, by an
// atomic rename) and every file it names has the size and CRC-32C written in
// it. The format is text, one fact a line, so that people and shell or
// Python hooks can read it:
//
//   ferry-checkpoint 1
//   epoch 7
//   job_size 2
//   file 0 4096 8a9136aa state.bin          (rank, bytes, crc32c, path in rank.<r>/)
//   file 1 4096 62a8ab43 state.bin
//   copy 0 h1 1 h2                          (partner redundancy only: rank 0, on
//   copy 1 h2 0 h1                           host h1, has its copy at rank 1, on h2)
//   end 1f2e3d4c                            (crc32c of every line above)
//
// The last line's checksum catches a manifest torn or altered after the fact.
// `copy` lines are present only in node-local stores with partner copies
// (fault/partner.h); there each host keeps the same manifest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fault/status.h"

namespace ferry::fault {

struct FileEntry {
  int rank = 0;
  uint64_t size = 0;
  uint32_t crc = 0;
  std::string path;  // relative to the rank's directory; no newline
};

// Where one rank's partner copy lives (host names have no spaces).
struct PartnerCopy {
  int rank = 0;
  std::string host;  // where the rank's own files are
  int partner = 0;   // the rank that holds the copy
  std::string partner_host;
};

struct Manifest {
  int64_t epoch = 0;
  int job_size = 0;
  std::vector<FileEntry> files;  // by rank, then path
  std::vector<PartnerCopy> copies;  // by rank; empty without partner redundancy

  // The copy line of `rank`, or nullptr.
  const PartnerCopy* copy_of(int rank) const;

  std::string format() const;
  // The `file` lines alone: what each rank sends to the one that publishes.
  static std::string format_files(const std::vector<FileEntry>& files);
  static Status parse_files(const std::string& lines, std::vector<FileEntry>* files);
  // Parses `text`; on failure says which line is wrong.
  static Status parse(const std::string& text, Manifest* out);
};

}  // namespace ferry::fault
