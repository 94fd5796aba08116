#include "debug.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "config.h"

namespace ferry::debug {

std::atomic<uint32_t> enabled_topics{0};

namespace {
char identity[64] = "ferry";

struct Name {
  const char* name;
  uint32_t bits;
};
constexpr Name kNames[] = {{"init", kInit},         {"pmix", kPmix}, {"tcp", kTcp},
                           {"p2p", kP2p},           {"progress", kProgress},
                           {"coll", kColl},         {"launch", kLaunch},
                           {"comm", kComm},         {"checkpoint", kCheckpoint},
                           {"io", kIo},             {"verbs", kVerbs},
                           {"cuda", kCuda},         {"rma", kRma},
                           {"all", 0xffffffffu}};
}  // namespace

void configure() {
  std::string topics = config::value("FERRY_DEBUG");
  uint32_t bits = 0;
  size_t start = 0;
  while (start <= topics.size()) {
    size_t end = topics.find(',', start);
    if (end == std::string::npos) end = topics.size();
    std::string_view word(topics.data() + start, end - start);
    for (const Name& n : kNames)
      if (word == n.name) bits |= n.bits;
    start = end + 1;
  }
  enabled_topics.store(bits, std::memory_order_relaxed);
}

void set_identity(const char* who) { std::snprintf(identity, sizeof identity, "%s", who); }

void print(const char* fmt, ...) {
  char line[1024];
  int n = std::snprintf(line, sizeof line, "ferry INFO %s: ", identity);
  va_list ap;
  va_start(ap, fmt);
  int m = std::vsnprintf(line + n, sizeof line - size_t(n) - 1, fmt, ap);
  va_end(ap);
  size_t len = size_t(n) + size_t(m < 0 ? 0 : m);
  if (len > sizeof line - 2) len = sizeof line - 2;
  line[len++] = '\n';
  // One write, so lines from several threads or ranks do not interleave.
  ssize_t ignored = ::write(STDERR_FILENO, line, len);
  (void)ignored;
}

}  // namespace ferry::debug
