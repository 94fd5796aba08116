// remote_start_probe: runs start_remote (launcher/start/remote_start.h) the way
// mpirun does, for remote_start_cases.sh.
//
//   remote_start_probe [--agent CMD] [--accept-new] [--timeout-ms N]
//                      [--stdin TEXT] [--origin WHERE] [--repeat N] HOSTS CMD...
//
// HOSTS is one host or a comma-separated list, started at once on one
// thread each (as mpirun starts its daemons). For each start it prints
//   ok: <first line>            (prefixed "HOST: " for a list)
//   peer: <address>  local: <address>
// or the error line; exit status 0 when every start succeeded, else 1.
// --repeat N does it all N times and then prints "fds: <before> <after>":
// the open descriptors before and after, which must be equal (no leaks).
#include <dirent.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "launcher/start/remote_start.h"

using ferry::launcher::RemoteCommand;
using ferry::launcher::RemoteStartOptions;
using ferry::launcher::RemoteStartResult;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: remote_start_probe [--agent CMD] [--accept-new] [--timeout-ms N] [--stdin TEXT] "
               "[--origin WHERE] [--repeat N] HOSTS CMD...\n");
  return 2;
}

int open_fds() {
  int count = 0;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  while (dirent* entry = ::readdir(dir)) count += entry->d_name[0] != '.';
  ::closedir(dir);
  return count - 1;  // the directory's own descriptor
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t at = 0;
  for (;;) {
    size_t comma = text.find(',', at);
    parts.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) return parts;
    at = comma + 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  RemoteStartOptions options;
  RemoteCommand base;
  int repeat = 1;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    std::string option = argv[i];
    bool has_value = i + 1 < argc;
    if (option == "--accept-new") {
      options.accept_new_host_keys = true;
    } else if (option == "--agent" && has_value) {
      options.launch_agent = argv[++i];
    } else if (option == "--timeout-ms" && has_value) {
      options.timeout_ms = std::atoi(argv[++i]);
    } else if (option == "--stdin" && has_value) {
      base.stdin_data = argv[++i];
    } else if (option == "--origin" && has_value) {
      base.origin = argv[++i];
    } else if (option == "--repeat" && has_value) {
      repeat = std::atoi(argv[++i]);
    } else {
      return usage();
    }
  }
  if (argc - i < 2 || repeat < 1) return usage();
  std::vector<std::string> hosts = split_commas(argv[i++]);
  base.argv.assign(argv + i, argv + argc);

  int fds_before = open_fds();
  bool all_ok = true;
  for (int round = 0; round < repeat; ++round) {
    std::vector<RemoteStartResult> results(hosts.size());
    std::vector<std::thread> threads;
    for (size_t h = 0; h < hosts.size(); ++h) {
      threads.emplace_back([&, h] {
        RemoteCommand command = base;
        command.host = hosts[h];
        results[h] = ferry::launcher::start_remote(command, options);
      });
    }
    for (std::thread& t : threads) t.join();
    for (size_t h = 0; h < hosts.size(); ++h) {
      std::string prefix = hosts.size() > 1 ? hosts[h] + ": " : "";
      const RemoteStartResult& r = results[h];
      if (r.ok) {
        std::printf("%sok: %s\n%speer: %s  local: %s\n", prefix.c_str(), r.first_line.c_str(), prefix.c_str(),
                    r.peer_address.c_str(), r.local_address.c_str());
      } else {
        std::printf("%s%s\n", prefix.c_str(), r.error.c_str());
        all_ok = false;
      }
    }
  }
  if (repeat > 1) std::printf("fds: %d %d\n", fds_before, open_fds());
  return all_ok ? 0 : 1;
}
