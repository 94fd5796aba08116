#include "io/hints.h"

#include <cerrno>
#include <cstdlib>
#include <strings.h>

#include "common/debug.h"

namespace ferry::io {
namespace {

// An aggregator's round is one message per sender; a message's count is
// an int, so a buffer stays well below 2 GiB.
constexpr uint64_t kMaxBufferSize = 1u << 30;

bool parse_size(const std::string& text, uint64_t low, uint64_t high, uint64_t* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < 0) return false;
  if (static_cast<uint64_t>(v) < low || static_cast<uint64_t>(v) > high) return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

bool parse_use(const std::string& text, Use* out) {
  if (strcasecmp(text.c_str(), "automatic") == 0) *out = Use::kAutomatic;
  else if (strcasecmp(text.c_str(), "enable") == 0) *out = Use::kEnable;
  else if (strcasecmp(text.c_str(), "disable") == 0) *out = Use::kDisable;
  else return false;
  return true;
}

const char* use_name(Use u) {
  switch (u) {
    case Use::kEnable: return "enable";
    case Use::kDisable: return "disable";
    case Use::kAutomatic: break;
  }
  return "automatic";
}

// "*:N" (any host, N aggregators), or "*" (one): the forms ROMIO's
// cb_config_list takes for every host alike. Lists naming hosts are not
// supported and are ignored.
bool parse_config_list(const std::string& text, int* per_host) {
  if (text == "*") {
    *per_host = 1;
    return true;
  }
  if (text.size() < 3 || text.compare(0, 2, "*:") != 0) return false;
  uint64_t n = 0;
  if (!parse_size(text.substr(2), 1, 1024, &n)) return false;
  *per_host = static_cast<int>(n);
  return true;
}

void ignored(const std::string& path, const std::string& key, const std::string& value, const char* why) {
  FERRY_DEBUG(kIo, "file '%s': hint %s=\"%s\" ignored (%s)", path.c_str(), key.c_str(), value.c_str(), why);
}

}  // namespace

void apply_hints(Info& all, const Info* given, Hints& h, const std::string& path) {
  if (given != nullptr)
    for (const auto& [key, value] : given->entries()) all.set(key, value);

  // Each known key: parsed if present and valid, else left at what it was.
  auto size_hint = [&](const char* key, uint64_t low, uint64_t high, uint64_t* field, const char* why) {
    if (const std::string* v = all.get(key))
      if (!parse_size(*v, low, high, field)) ignored(path, key, *v, why);
    all.set(key, std::to_string(*field));
  };
  auto use_hint = [&](const char* key, Use* field) {
    if (const std::string* v = all.get(key))
      if (!parse_use(*v, field)) ignored(path, key, *v, "enable, disable or automatic");
    all.set(key, use_name(*field));
  };

  size_hint("cb_buffer_size", 1, kMaxBufferSize, &h.cb_buffer_size, "1 to 1073741824 bytes");
  uint64_t nodes = static_cast<uint64_t>(h.cb_nodes);
  if (const std::string* v = all.get("cb_nodes"))
    if (!parse_size(*v, 1, 1u << 20, &nodes)) ignored(path, "cb_nodes", *v, "a positive number of aggregators");
  h.cb_nodes = static_cast<int>(nodes);
  if (h.cb_nodes > 0) all.set("cb_nodes", std::to_string(h.cb_nodes));
  if (const std::string* v = all.get("cb_config_list"))
    if (!parse_config_list(*v, &h.per_host)) ignored(path, "cb_config_list", *v, "only \"*:N\" is supported");
  all.set("cb_config_list", "*:" + std::to_string(h.per_host));
  use_hint("romio_cb_write", &h.cb_write);
  use_hint("romio_cb_read", &h.cb_read);
  use_hint("romio_ds_write", &h.ds_write);
  use_hint("romio_ds_read", &h.ds_read);
  size_hint("ind_rd_buffer_size", 1, kMaxBufferSize, &h.ind_rd_buffer_size, "1 to 1073741824 bytes");
  size_hint("ind_wr_buffer_size", 1, kMaxBufferSize, &h.ind_wr_buffer_size, "1 to 1073741824 bytes");
  size_hint("striping_unit", 1, kMaxBufferSize, &h.striping_unit, "1 to 1073741824 bytes");
  use_hint("ferry_cb_double_buffer", &h.double_buffer);
  if (h.double_buffer == Use::kAutomatic) h.double_buffer = Use::kEnable;
  all.set("ferry_cb_double_buffer", use_name(h.double_buffer));
}

}  // namespace ferry::io
