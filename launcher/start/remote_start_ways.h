// The two ways start_remote reaches a host (remote_start.h): in process
// with libssh (remote_start_ssh.cc), or through a launch agent command
// (remote_start_agent.cc). Both read the first line the same way (first_line.h).
#pragma once

#include "launcher/start/remote_start.h"

namespace ferry::launcher {

RemoteStartResult start_with_libssh(const RemoteCommand& command, const RemoteStartOptions& options);
RemoteStartResult start_with_agent(const RemoteCommand& command, const RemoteStartOptions& options);

// "mpirun: h2: " + what, the form of every error; with the address for
// errors of the connection itself: "mpirun: h4 (10.0.0.4:22): " + what.
RemoteStartResult remote_start_error(const RemoteCommand& command, const std::string& what,
                                     const std::string& address = "");

// The program's name for messages: "ferryd" for "/opt/ferry/bin/ferryd".
std::string remote_program_name(const RemoteCommand& command);

}  // namespace ferry::launcher
