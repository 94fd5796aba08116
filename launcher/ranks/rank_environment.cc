#include "launcher/ranks/rank_environment.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace ferry::launcher {
namespace {

char* make_entry(std::string_view name, std::string_view value) {
  char* entry = static_cast<char*>(std::malloc(name.size() + value.size() + 2));
  if (entry == nullptr) throw std::bad_alloc();
  std::memcpy(entry, name.data(), name.size());
  entry[name.size()] = '=';
  std::memcpy(entry + name.size() + 1, value.data(), value.size());
  entry[name.size() + value.size() + 1] = '\0';
  return entry;
}

bool has_name(const char* entry, std::string_view name) {
  return std::strncmp(entry, name.data(), name.size()) == 0 && entry[name.size()] == '=';
}

// Variables that describe some other job's process, not this one's.
bool belongs_to_enclosing_job(std::string_view entry) {
  if (entry.starts_with("PMIX_MCA_")) return false;  // user's PMIx tuning: keep
  return entry.starts_with("PMIX_") || entry.starts_with("PMI_") ||
         entry.starts_with("OMPI_COMM_WORLD_");
}

}  // namespace

Environment::Environment() {
  entries_ = static_cast<char**>(std::calloc(1, sizeof(char*)));
  if (entries_ == nullptr) throw std::bad_alloc();
}

Environment::Environment(char* const* entries) : Environment() {
  for (char* const* e = entries; e != nullptr && *e != nullptr; ++e) {
    char* copy = ::strdup(*e);
    if (copy == nullptr) throw std::bad_alloc();
    append(copy);
  }
}

Environment::Environment(const Environment& other) : Environment(other.entries_) {}

Environment::~Environment() {
  for (char** e = entries_; *e != nullptr; ++e) std::free(*e);
  std::free(entries_);
}

void Environment::append(char* entry) {
  size_t n = 0;
  while (entries_[n] != nullptr) ++n;
  char** grown = static_cast<char**>(std::realloc(entries_, (n + 2) * sizeof(char*)));
  if (grown == nullptr) {
    std::free(entry);
    throw std::bad_alloc();
  }
  entries_ = grown;
  entries_[n] = entry;
  entries_[n + 1] = nullptr;
}

void Environment::set(std::string_view name, std::string_view value) {
  char* entry = make_entry(name, value);
  for (char** e = entries_; *e != nullptr; ++e)
    if (has_name(*e, name)) {
      std::free(*e);
      *e = entry;
      return;
    }
  append(entry);
}

std::optional<std::string_view> Environment::get(std::string_view name) const {
  for (char** e = entries_; *e != nullptr; ++e)
    if (has_name(*e, name)) return std::string_view(*e + name.size() + 1);
  return std::nullopt;
}

Environment base_environment(char* const* parent,
                             const std::vector<std::pair<std::string, std::string>>& extra) {
  Environment env;
  for (char* const* e = parent; e != nullptr && *e != nullptr; ++e) {
    if (belongs_to_enclosing_job(*e)) continue;
    const char* eq = std::strchr(*e, '=');
    if (eq == nullptr) continue;
    env.set(std::string_view(*e, size_t(eq - *e)), eq + 1);
  }
  for (const auto& [name, value] : extra) env.set(name, value);
  return env;
}

void add_rank_variables(Environment& env, const RankPosition& where) {
  std::string r = std::to_string(where.rank), n = std::to_string(where.size);
  std::string local = std::to_string(where.local_rank);
  env.set("OMPI_COMM_WORLD_RANK", r);
  env.set("OMPI_COMM_WORLD_SIZE", n);
  env.set("OMPI_COMM_WORLD_LOCAL_RANK", local);
  env.set("OMPI_COMM_WORLD_LOCAL_SIZE", std::to_string(where.local_size));
  env.set("OMPI_COMM_WORLD_NODE_RANK", local);
  env.set("PMI_RANK", r);
  env.set("PMI_SIZE", n);
}

}  // namespace ferry::launcher
