// Starting a command on another host and reading the first line it prints:
// in process through libssh (the user's keys and agent, ~/.ssh/config,
// known_hosts), or through a launch agent command (`--launch-agent ssh`, a
// kubectl wrapper, ...) run as `AGENT HOST COMMAND...`.
//
// Used to start node daemons: the daemon reads its secret from stdin, prints
// one line once it is reachable, and detaches, so the command ends and the
// connection closes. Blocking; mpirun and each daemon run several at once
// on threads (daemon_start.h).
#pragma once

#include <string>
#include <vector>

namespace ferry::launcher {

struct RemoteStartOptions {
  std::string launch_agent;          // empty: libssh
  bool accept_new_host_keys = false; // add unknown (never changed) keys to known_hosts
  int timeout_ms = 30000;            // connect + authenticate + first line
};

struct RemoteCommand {
  std::string host;                  // name, ~/.ssh/config alias, user@host
  std::string origin;                // where the host was named ("hosts:3"), for messages
  std::vector<std::string> argv;     // quoted for the remote shell here
  std::string stdin_data;            // written to the command's stdin, then EOF
};

struct RemoteStartResult {
  bool ok = false;
  std::string first_line;  // ok: the command's first line of stdout, without '\n'
  // !ok: one line starting "mpirun: <host>: " that says what went wrong
  // (unknown host, unreachable within the timeout, authentication refused,
  // unknown or changed host key with its fingerprint, the command failing
  // with its stderr).
  std::string error;
  std::string peer_address;  // the address used to reach the host ("10.0.0.2"), if known
  std::string local_address; // our side of that connection, if known: reachable from the host
};

RemoteStartResult start_remote(const RemoteCommand& command, const RemoteStartOptions& options);

// The name a connection to `host` goes to: the HostName that ~/.ssh/config
// gives an alias (as libssh reads it), else `host` without its "user@". With
// a launch agent, or without libssh, `host` itself.
std::string connection_name(const std::string& host, const RemoteStartOptions& options);

}  // namespace ferry::launcher
