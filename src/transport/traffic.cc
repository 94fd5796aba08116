#include "transport/traffic.h"

namespace ferry::transport::traffic {

Counts counts[kMedia];

const char* name(Medium m) {
  switch (m) {
    case kSelf: return "self";
    case kShm: return "shm";
    case kTcp: return "tcp";
    default: return "?";
  }
}

}  // namespace ferry::transport::traffic
