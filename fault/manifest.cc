#include "fault/manifest.h"

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "fault/crc32c.h"

namespace ferry::fault {

namespace {
constexpr const char* kMagic = "ferry-checkpoint 1";

std::string hex32(uint32_t v) {
  char b[9];
  std::snprintf(b, sizeof b, "%08" PRIx32, v);
  return b;
}

// Eight lowercase hex digits, as hex32() writes them.
bool is_hex32(const std::string& word) {
  if (word.size() != 8) return false;
  for (char ch : word)
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  return true;
}

bool parse_unsigned(const std::string& word, int base, uint64_t* out) {
  if (word.empty() || word[0] == '-' || word[0] == '+') return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(word.c_str(), &end, base);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}
}  // namespace

std::string Manifest::format_files(const std::vector<FileEntry>& files) {
  std::string lines;
  for (const FileEntry& f : files)
    lines += "file " + std::to_string(f.rank) + " " + std::to_string(f.size) + " " + hex32(f.crc) + " " + f.path + "\n";
  return lines;
}

const PartnerCopy* Manifest::copy_of(int rank) const {
  for (const PartnerCopy& c : copies)
    if (c.rank == rank) return &c;
  return nullptr;
}

std::string Manifest::format() const {
  std::string body = std::string(kMagic) + "\n";
  body += "epoch " + std::to_string(epoch) + "\n";
  body += "job_size " + std::to_string(job_size) + "\n";
  body += format_files(files);
  for (const PartnerCopy& c : copies)
    body += "copy " + std::to_string(c.rank) + " " + c.host + " " + std::to_string(c.partner) + " " +
            c.partner_host + "\n";
  return body + "end " + hex32(crc32c(0, body.data(), body.size())) + "\n";
}

Status Manifest::parse_files(const std::string& lines, std::vector<FileEntry>* files) {
  // The same parser as a whole manifest's, under a header and end line of our own.
  std::string body = std::string(kMagic) + "\nepoch 0\njob_size " + std::to_string(INT32_MAX) + "\n" + lines;
  Manifest m;
  if (Status s = parse(body + "end " + hex32(crc32c(0, body.data(), body.size())) + "\n", &m)) return s;
  *files = std::move(m.files);
  return {};
}

Status Manifest::parse(const std::string& text, Manifest* out) {
  Manifest m;
  size_t end_line = text.rfind("\nend ");
  if (end_line == std::string::npos) return Status::failure("no end line (the manifest is torn)");
  std::string body = text.substr(0, end_line + 1);
  uint64_t recorded = 0;
  std::string tail = text.substr(end_line + 5);
  // Exactly as format() writes it: a torn last byte or a changed digit case
  // must not pass.
  if (tail.size() != 9 || tail.back() != '\n') return Status::failure("malformed end line (the manifest is torn)");
  tail.pop_back();
  if (!is_hex32(tail) || !parse_unsigned(tail, 16, &recorded))
    return Status::failure("malformed end line 'end " + tail + "'");
  uint32_t actual = crc32c(0, body.data(), body.size());
  if (actual != recorded)
    return Status::failure("manifest checksum " + hex32(actual) + " differs from the recorded " + hex32(static_cast<uint32_t>(recorded)));

  std::istringstream lines(body);
  std::string line;
  int number = 0;
  bool have_epoch = false, have_size = false;
  while (std::getline(lines, line)) {
    ++number;
    auto bad = [&](const char* why) {
      return Status::failure("line " + std::to_string(number) + " '" + line + "': " + why);
    };
    if (number == 1) {
      if (line != kMagic) return bad("expected 'ferry-checkpoint 1'");
      continue;
    }
    std::istringstream words(line);
    std::string key;
    words >> key;
    uint64_t v = 0;
    if (key == "epoch") {
      std::string w;
      if (!(words >> w) || !parse_unsigned(w, 10, &v) || v > INT32_MAX) return bad("bad epoch");
      m.epoch = static_cast<int64_t>(v);
      have_epoch = true;
    } else if (key == "job_size") {
      std::string w;
      if (!(words >> w) || !parse_unsigned(w, 10, &v) || v < 1 || v > INT32_MAX) return bad("bad job size");
      m.job_size = static_cast<int>(v);
      have_size = true;
    } else if (key == "file") {
      FileEntry f;
      std::string rank, size, crc;
      if (!(words >> rank >> size >> crc)) return bad("expected 'file <rank> <bytes> <crc32c> <path>'");
      if (!parse_unsigned(rank, 10, &v) || v >= static_cast<uint64_t>(INT32_MAX)) return bad("bad rank");
      f.rank = static_cast<int>(v);
      if (!parse_unsigned(size, 10, &f.size)) return bad("bad size");
      if (!is_hex32(crc) || !parse_unsigned(crc, 16, &v)) return bad("bad crc32c");
      f.crc = static_cast<uint32_t>(v);
      std::getline(words >> std::ws, f.path);
      if (f.path.empty()) return bad("no path");
      if (have_size && f.rank >= m.job_size) return bad("rank outside the job");
      m.files.push_back(std::move(f));
    } else if (key == "copy") {
      PartnerCopy c;
      std::string rank, partner, rest;
      if (!(words >> rank >> c.host >> partner >> c.partner_host) || (words >> rest))
        return bad("expected 'copy <rank> <host> <partner rank> <partner host>'");
      if (!parse_unsigned(rank, 10, &v) || !have_size || v >= static_cast<uint64_t>(m.job_size))
        return bad("bad rank");
      c.rank = static_cast<int>(v);
      if (!parse_unsigned(partner, 10, &v) || v >= static_cast<uint64_t>(m.job_size) ||
          static_cast<int>(v) == c.rank)
        return bad("bad partner rank");
      c.partner = static_cast<int>(v);
      if (m.copy_of(c.rank) != nullptr) return bad("a second copy line for the rank");
      m.copies.push_back(std::move(c));
    } else {
      return bad("unknown line");
    }
  }
  if (!have_epoch || !have_size) return Status::failure("epoch or job_size line missing");
  *out = std::move(m);
  return {};
}

}  // namespace ferry::fault
