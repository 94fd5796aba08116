#include "base/process.h"

#include <unistd.h>

namespace ferry::process {
namespace {

Facts the_facts;
AbortFn the_abort = nullptr;

}  // namespace

void set_facts(const Facts& facts) { the_facts = facts; }
const Facts& facts() { return the_facts; }

void set_abort(AbortFn abort) { the_abort = abort; }

void abort_job(int exit_code, const std::string& message) {
  if (the_abort != nullptr) the_abort(exit_code, message);
  std::string line = "ferry: " + message + "\n";
  ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  _exit(exit_code & 0xff);
}

}  // namespace ferry::process
