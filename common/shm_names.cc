#include "common/shm_names.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

namespace ferry::shm_names {
namespace {

// Stable across builds and libraries (unlike std::hash): the launcher and
// every rank must compute the same names.
uint64_t fnv1a64(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string job_prefix(const std::string& nspace) {
  char prefix[64];
  std::snprintf(prefix, sizeof prefix, "/ferry-%u-%016llx-", static_cast<unsigned>(getuid()),
                static_cast<unsigned long long>(fnv1a64(nspace)));
  return prefix;
}

std::string segment(const std::string& nspace, int rank) { return job_prefix(nspace) + std::to_string(rank); }

std::string doorbell_path(const std::string& segment_name) { return "/dev/shm" + segment_name + ".wake"; }

int remove_rank_files(const std::string& nspace, int rank) {
  std::string name = segment(nspace, rank);
  int removed = shm_unlink(name.c_str()) == 0 ? 1 : 0;
  removed += unlink(doorbell_path(name).c_str()) == 0 ? 1 : 0;
  return removed;
}

}  // namespace ferry::shm_names
