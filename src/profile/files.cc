#include "profile/files.h"

#include <cstring>

#include "io/file.h"
#include "profile/counters.h"

namespace ferry::profile::files {
namespace {

namespace layout = profile_layout;

layout::File early[layout::kMaxFiles];
uint32_t early_count = 0;
layout::File* slots = early;
uint32_t* count = &early_count;

// Open handles and their slots: a fixed table, so an access allocates nothing. A program with more
// files open at once than this counts the rest's accesses under no file (the calls still count).
constexpr int kOpen = 256;
struct OpenFile {
  MPI_File fh;
  layout::File* slot;
  uint64_t aggregations, aggregated_bytes;  // io::File's, when last added to the slot
};
OpenFile open_files[kOpen];

layout::File* slot_of(MPI_File fh) {
  for (OpenFile& o : open_files)
    if (o.slot != nullptr && o.fh == fh) return o.slot;
  return nullptr;
}

// The slot of `name`: the one it had, a new one, or the last (shared by the files past kMaxFiles).
layout::File* slot_named(const char* name) {
  for (uint32_t i = 0; i < *count; ++i)
    if (std::strncmp(slots[i].name, name, layout::kFileNameBytes - 1) == 0) return &slots[i];
  if (*count == layout::kMaxFiles) return &slots[layout::kMaxFiles - 1];
  layout::File* s = &slots[(*count)++];
  std::strncpy(s->name, name, layout::kFileNameBytes - 1);
  return s;
}

}  // namespace

void opened(MPI_File fh, const char* name, uint64_t ticks) {
  layout::File* s = slot_named(name != nullptr ? name : "");
  add(s->opens, 1);
  add(s->ticks, ticks);
  for (OpenFile& o : open_files)
    if (o.slot == nullptr) {
      o = {fh, s, 0, 0};
      return;
    }
}

void closing(MPI_File fh) {
  for (OpenFile& o : open_files)
    if (o.slot != nullptr && o.fh == fh) o.slot = nullptr;
}

void note_access(MPI_File fh, bool write, bool collective, uint64_t bytes, uint64_t ticks) {
  layout::File* s = slot_of(fh);
  if (s == nullptr) return;
  add(write ? s->bytes_written : s->bytes_read, bytes);
  add(write ? s->writes : s->reads, 1);
  add(collective ? s->collective_accesses : s->independent_accesses, 1);
  add(s->ticks, ticks);
  add(s->sizes[layout::bucket(bytes)], 1);
  if (!collective) return;
  // Whether the call made this process an aggregator (io/collective.cc counts per open file).
  const io::File* f = io::files::find(fh);
  if (f == nullptr) return;
  for (OpenFile& o : open_files)
    if (o.slot == s && o.fh == fh) {
      uint64_t n = f->aggregations.load(std::memory_order_relaxed);
      uint64_t b = f->aggregated_bytes.load(std::memory_order_relaxed);
      add(s->aggregations, n - o.aggregations);
      add(s->aggregated_bytes, b - o.aggregated_bytes);
      o.aggregations = n, o.aggregated_bytes = b;
    }
}

void note_time(MPI_File fh, uint64_t ticks) {
  if (layout::File* s = slot_of(fh)) add(s->ticks, ticks);
}

void move_to(layout::File* mapped, uint32_t* mapped_count) {
  std::memcpy(mapped, early, sizeof early);
  *mapped_count = early_count;
  for (OpenFile& o : open_files)
    if (o.slot != nullptr) o.slot = mapped + (o.slot - early);
  slots = mapped;
  count = mapped_count;
}

}  // namespace ferry::profile::files
