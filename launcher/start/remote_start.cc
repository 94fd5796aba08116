#include "launcher/start/remote_start.h"

#include "common/debug.h"
#include "launcher/start/remote_start_ways.h"

namespace ferry::launcher {

RemoteStartResult remote_start_error(const RemoteCommand& command, const std::string& what,
                                     const std::string& address) {
  RemoteStartResult result;
  result.error = "mpirun: " + command.host + (address.empty() ? "" : " (" + address + ")") + ": " + what;
  return result;
}

std::string remote_program_name(const RemoteCommand& command) {
  if (command.argv.empty()) return "the command";
  const std::string& path = command.argv.front();
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

RemoteStartResult start_remote(const RemoteCommand& command, const RemoteStartOptions& options) {
  if (command.argv.empty()) return remote_start_error(command, "no command to start");
  if (options.timeout_ms <= 0) return remote_start_error(command, "the start timeout must be positive");
  RemoteStartResult result =
      options.launch_agent.empty() ? start_with_libssh(command, options) : start_with_agent(command, options);
  if (result.ok) {
    FERRY_DEBUG(kLaunch, "%s: %s started (%s%s%s): %s", command.host.c_str(), remote_program_name(command).c_str(),
                options.launch_agent.empty() ? "libssh" : options.launch_agent.c_str(),
                result.peer_address.empty() ? "" : ", ", result.peer_address.c_str(), result.first_line.c_str());
  }
  return result;
}

}  // namespace ferry::launcher
