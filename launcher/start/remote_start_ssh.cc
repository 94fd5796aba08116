// Starting a command on a host through libssh, the way `ssh HOST COMMAND`
// would: ~/.ssh/config (aliases, User, Port, IdentityFile), known_hosts,
// then the agent and the user's keys. Steps, each bounded by what is left
// of one deadline:
//
//   1. options: the host as given, then ~/.ssh/config
//   2. connect: our own TCP connect (precise errors), handed to libssh
//   3. host key: known (go on), changed (refuse, always), unknown (refuse,
//      or record it when asked to accept new keys)
//   4. authenticate: "none", then agent + default keys + IdentityFile
//   5. exec, write stdin, send EOF, read until the first line of stdout
//
// One session per call and nothing shared but libssh's global init, so
// several calls may run at once on threads. libssh itself is loaded by the
// first call (libssh_api.h).
#include <mutex>
#include <string>

#include "common/config.h"
#include "common/debug.h"
#include "launcher/start/first_line.h"
#include "launcher/start/libssh_api.h"
#include "launcher/start/remote_start_ways.h"
#include "launcher/start/shell_quote.h"
#include "launcher/start/tcp_connect.h"

namespace ferry::launcher {
namespace {

// libssh appends to known_hosts with a plain fopen("a"); starts run on threads.
std::mutex known_hosts_mutex;

constexpr int kReadSliceMs = 100;  // how often the read loop looks at the deadline

class SshStart {
 public:
  SshStart(const LibSsh& ssh, const RemoteCommand& command, const RemoteStartOptions& options)
      : ssh_(ssh), command_(command), options_(options), deadline_(options.timeout_ms) {}
  ~SshStart();
  SshStart(const SshStart&) = delete;
  SshStart& operator=(const SshStart&) = delete;

  RemoteStartResult run();

 private:
  // Each step returns the error (what follows "mpirun: <host>: "), or "".
  std::string configure();
  std::string connect();
  std::string verify_host_key();
  std::string authenticate();
  std::string run_command();

  void limit_blocking_calls();
  std::string libssh_error() const { return ssh_.ssh_get_error(session_); }
  std::string session_option(ssh_options_e option) const;

  const LibSsh& ssh_;
  const RemoteCommand& command_;
  const RemoteStartOptions& options_;
  Deadline deadline_;
  ssh_session session_ = nullptr;
  ssh_channel channel_ = nullptr;
  std::string host_;     // after ~/.ssh/config: its HostName, if any
  unsigned port_ = 22;
  std::string address_;  // "10.0.0.4:22", once known, for messages
  bool handed_socket_ = false;
  RemoteStartResult result_;
};

SshStart::~SshStart() {
  // Closing must not wait long for a host that stopped answering.
  if (session_ != nullptr) {
    long close_timeout_s = 1;
    ssh_.ssh_options_set(session_, SSH_OPTIONS_TIMEOUT, &close_timeout_s);
  }
  if (channel_ != nullptr) {
    if (ssh_.ssh_channel_is_open(channel_)) ssh_.ssh_channel_close(channel_);
    ssh_.ssh_channel_free(channel_);
  }
  if (session_ != nullptr) {
    // Since libssh 0.10, ssh_disconnect leaves a socket given through
    // SSH_OPTIONS_FD open, while its error paths may have closed it already.
    // Forgetting the option makes ssh_disconnect close the socket if, and
    // only if, libssh still holds it: never twice, never leaked.
    if (handed_socket_) {
      socket_t none = SSH_INVALID_SOCKET;
      ssh_.ssh_options_set(session_, SSH_OPTIONS_FD, &none);
    }
    ssh_.ssh_disconnect(session_);
    ssh_.ssh_free(session_);
  }
}

std::string SshStart::session_option(ssh_options_e option) const {
  char* value = nullptr;
  if (ssh_.ssh_options_get(session_, option, &value) != SSH_OK || value == nullptr) return "";
  std::string text = value;
  ssh_.ssh_string_free_char(value);
  return text;
}

// libssh's blocking calls take their limit from the session's timeout:
// keep it at what is left of ours (at least 1 ms; 0 would mean its default).
void SshStart::limit_blocking_calls() {
  long left_ms = std::max(1, deadline_.remaining_ms());
  long seconds = left_ms / 1000;
  long microseconds = (left_ms % 1000) * 1000;
  ssh_.ssh_options_set(session_, SSH_OPTIONS_TIMEOUT, &seconds);
  ssh_.ssh_options_set(session_, SSH_OPTIONS_TIMEOUT_USEC, &microseconds);
}

std::string SshStart::configure() {
  session_ = ssh_.ssh_new();
  if (session_ == nullptr) return "cannot create an ssh session (out of memory)";
  // "user@host" sets both; a User from ~/.ssh/config then does not override
  // it, as with ssh.
  if (ssh_.ssh_options_set(session_, SSH_OPTIONS_HOST, command_.host.c_str()) != SSH_OK) {
    return "not a host name: " + libssh_error();
  }
  // nullptr: ~/.ssh/config, then /etc/ssh/ssh_config.
  if (ssh_.ssh_options_parse_config(session_, nullptr) != SSH_OK) {
    return "cannot use the ssh configuration: " + libssh_error();
  }
  limit_blocking_calls();
  host_ = session_option(SSH_OPTIONS_HOST);
  if (host_.empty()) host_ = command_.host;
  ssh_.ssh_options_get_port(session_, &port_);
  return "";
}

std::string SshStart::connect() {
  // A ProxyCommand (or ProxyJump) in ~/.ssh/config: only libssh knows how.
  bool proxied = !session_option(SSH_OPTIONS_PROXYCOMMAND).empty();
  if (!proxied) {
    TcpConnection connection = tcp_connect(host_, int(port_), deadline_);
    address_ = connection.address;
    if (connection.unresolved) {
      std::string error = connection.error;
      if (host_ != command_.host) error += " " + host_;  // the HostName from ~/.ssh/config
      if (!command_.origin.empty()) error += " (" + command_.origin + ")";
      return error;
    }
    if (connection.fd < 0) return connection.error;
    ssh_.ssh_options_set(session_, SSH_OPTIONS_FD, &connection.fd);  // libssh's from here on (see ~SshStart)
    handed_socket_ = true;
  }
  limit_blocking_calls();
  if (ssh_.ssh_connect(session_) != SSH_OK) {
    if (deadline_.passed()) return "no ssh handshake within " + deadline_.text();
    return "ssh handshake failed: " + libssh_error();
  }
  int fd = ssh_.ssh_get_fd(session_);
  result_.peer_address = socket_peer_address(fd);
  result_.local_address = socket_local_address(fd);
  return "";
}

std::string SshStart::verify_host_key() {
  ssh_key key = nullptr;
  if (ssh_.ssh_get_server_publickey(session_, &key) != SSH_OK) return "no host key from the server: " + libssh_error();
  unsigned char* hash = nullptr;
  size_t hash_length = 0;
  std::string fingerprint = "(no fingerprint)";
  if (ssh_.ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hash_length) == SSH_OK) {
    char* text = ssh_.ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hash_length);  // "SHA256:..."
    if (text != nullptr) fingerprint = text;
    ssh_.ssh_string_free_char(text);
    ssh_.ssh_clean_pubkey_hash(&hash);
  }
  std::string key_text = std::string(ssh_.ssh_key_type_to_char(ssh_.ssh_key_type(key))) + " key " + fingerprint;
  ssh_.ssh_key_free(key);

  std::string known_hosts = session_option(SSH_OPTIONS_KNOWNHOSTS);
  // The name the key is filed under: what ssh-keygen -R wants.
  std::string entry = port_ == 22 ? host_ : "[" + host_ + "]:" + std::to_string(port_);
  std::lock_guard lock(known_hosts_mutex);
  switch (ssh_.ssh_session_is_known_server(session_)) {
    case SSH_KNOWN_HOSTS_OK:
      return "";
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:  // a key of another type: as suspicious as a changed one
      return "host key changed: the server offers the " + key_text + ", not the key for " + entry + " in " +
             known_hosts + " (someone may be intercepting the connection; if the host was reinstalled, run " +
             "ssh-keygen -R " + entry + ")";
    case SSH_KNOWN_HOSTS_NOT_FOUND:  // no known_hosts file yet
    case SSH_KNOWN_HOSTS_UNKNOWN:
      if (!options_.accept_new_host_keys) {
        return "unknown host key " + fingerprint + " (" + entry + " is not in " + known_hosts +
               "); connect once with ssh, or run mpirun with --accept-new-host-keys";
      }
      if (ssh_.ssh_session_update_known_hosts(session_) != SSH_OK) {
        return "cannot add the host key to " + known_hosts + ": " + libssh_error();
      }
      FERRY_DEBUG(kLaunch, "%s: added %s to %s", entry.c_str(), key_text.c_str(), known_hosts.c_str());
      return "";
    case SSH_KNOWN_HOSTS_ERROR:
      break;
  }
  return "cannot check the host key against " + known_hosts + ": " + libssh_error();
}

std::string SshStart::authenticate() {
  limit_blocking_calls();
  // "none" first: it tells libssh which methods the server offers.
  int rc = ssh_.ssh_userauth_none(session_, nullptr);
  // The ssh agent (SSH_AUTH_SOCK, or IdentityAgent), the default keys and
  // IdentityFile; keys with a passphrase are only usable through the agent.
  if (rc == SSH_AUTH_DENIED) rc = ssh_.ssh_userauth_publickey_auto(session_, nullptr, nullptr);
  if (rc == SSH_AUTH_SUCCESS) return "";
  if (deadline_.passed()) return "no answer to authentication within " + deadline_.text();
  std::string user = session_option(SSH_OPTIONS_USER);
  if (rc == SSH_AUTH_ERROR) return "authentication failed for user " + user + ": " + libssh_error();
  std::string tried = config::environment("SSH_AUTH_SOCK") ? "the ssh agent and ~/.ssh keys"
                                                             : "~/.ssh keys; no ssh agent (SSH_AUTH_SOCK unset)";
  if (rc == SSH_AUTH_PARTIAL) {
    return "authentication for user " + user + " needs more than a key (tried " + tried + ")";
  }
  return "authentication refused for user " + user + " (tried " + tried + ")";
}

std::string SshStart::run_command() {
  std::string program = remote_program_name(command_);
  channel_ = ssh_.ssh_channel_new(session_);
  if (channel_ == nullptr) return "cannot open a channel: " + libssh_error();
  limit_blocking_calls();
  if (ssh_.ssh_channel_open_session(channel_) != SSH_OK) return "cannot open a session channel: " + libssh_error();
  std::string command_line = shell_command(command_.argv);
  if (ssh_.ssh_channel_request_exec(channel_, command_line.c_str()) != SSH_OK) {
    return "cannot start " + program + ": " + libssh_error();
  }
  const std::string& input = command_.stdin_data;
  for (size_t written = 0; written < input.size();) {
    int n = ssh_.ssh_channel_write(channel_, input.data() + written, uint32_t(input.size() - written));
    if (n == SSH_ERROR) return "cannot write to the stdin of " + program + ": " + libssh_error();
    written += size_t(n);
  }
  ssh_.ssh_channel_send_eof(channel_);

  FirstLine output;
  char buffer[4096];
  // stderr is read along the way so that its window never stalls the command.
  auto drain_stderr = [&] {
    int n;
    while ((n = ssh_.ssh_channel_read_nonblocking(channel_, buffer, sizeof buffer, 1)) > 0) {
      output.add_stderr({buffer, size_t(n)});
    }
  };
  while (!output.complete()) {
    int available = ssh_.ssh_channel_poll_timeout(channel_, std::min(kReadSliceMs, deadline_.remaining_ms()), 0);
    drain_stderr();
    if (available == SSH_ERROR) return "connection lost while waiting for " + program + ": " + libssh_error();
    if (available == SSH_EOF) break;
    if (available > 0) {
      int n = ssh_.ssh_channel_read_nonblocking(channel_, buffer, sizeof buffer, 0);
      if (n > 0) output.add_stdout({buffer, size_t(n)});
      continue;
    }
    if (deadline_.passed()) return output.no_line_within(program, deadline_);
  }
  if (!output.complete()) output.stdout_ended();
  if (output.complete()) {
    result_.first_line = output.line();
    return "";
  }
  // The exit status follows EOF closely; it is missing if a signal ended
  // the command, or if the deadline passes first.
  limit_blocking_calls();
  int status = ssh_.ssh_channel_get_exit_status(channel_);
  drain_stderr();
  return output.ended_without_line(program, status >= 0 ? std::optional<int>(status) : std::nullopt);
}

RemoteStartResult SshStart::run() {
  std::string error = configure();
  std::string where;  // the address, named in errors of the connection only
  if (error.empty()) {
    error = connect();
    if (!error.empty()) where = address_;
  }
  if (error.empty()) error = verify_host_key();
  if (error.empty()) error = authenticate();
  if (error.empty()) error = run_command();
  if (!error.empty()) {
    RemoteStartResult failed = remote_start_error(command_, error, where);
    failed.peer_address = result_.peer_address;
    failed.local_address = result_.local_address;
    return failed;
  }
  result_.ok = true;
  return result_;
}

}  // namespace

RemoteStartResult start_with_libssh(const RemoteCommand& command, const RemoteStartOptions& options) {
  std::string error;
  const LibSsh* ssh = libssh(&error);
  if (ssh == nullptr) return remote_start_error(command, error + "; --launch-agent ssh works without it");
  return SshStart(*ssh, command, options).run();
}

}  // namespace ferry::launcher

namespace ferry::launcher {

std::string connection_name(const std::string& host, const RemoteStartOptions& options) {
  std::string plain = host.substr(host.find('@') == std::string::npos ? 0 : host.find('@') + 1);
  if (!options.launch_agent.empty()) return host;
  std::string error;
  const LibSsh* ssh = libssh(&error);
  if (ssh == nullptr) return plain;
  ssh_session session = ssh->ssh_new();
  if (session == nullptr) return plain;
  std::string name = plain;
  char* value = nullptr;
  if (ssh->ssh_options_set(session, SSH_OPTIONS_HOST, host.c_str()) == SSH_OK &&
      ssh->ssh_options_parse_config(session, nullptr) == SSH_OK &&
      ssh->ssh_options_get(session, SSH_OPTIONS_HOST, &value) == SSH_OK && value != nullptr) {
    name = value;
    ssh->ssh_string_free_char(value);
  }
  ssh->ssh_free(session);
  return name;
}

}  // namespace ferry::launcher
