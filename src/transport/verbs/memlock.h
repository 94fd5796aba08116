// RLIMIT_MEMLOCK and the verbs transport: registered memory is pinned, and
// pinned pages count against the locked-memory limit. Distributions default
// to 64 KiB or 8 MiB, far below what receive buffers alone need, and the
// failure the hardware gives (ibv_reg_mr: Cannot allocate memory) says
// nothing of the limit; so start-up checks it and says how to raise it.
#pragma once

#include <cstddef>
#include <string>

namespace ferry::transport::verbs {

// False with the message if the soft limit is below `needed` bytes.
bool check_memlock(size_t needed, std::string* error);

}  // namespace ferry::transport::verbs
