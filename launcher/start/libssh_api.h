// libssh, loaded when the first remote start needs it (remote_start_ssh.cc).
// Linked into mpirun, it costs every job about 2 ms before its first rank
// starts, 1 ms of them CPU: libssh brings libcrypto and Kerberos with it, and
// its constructor initializes OpenSSL. Only jobs that reach other hosts
// through libssh use it.
#pragma once

#include <libssh/libssh.h>

#include <string>

namespace ferry::launcher {

// Every libssh function Ferry calls.
#define FERRY_LIBSSH_FUNCTIONS(X)                                                                              \
  X(ssh_channel_close) X(ssh_channel_free) X(ssh_channel_get_exit_status) X(ssh_channel_is_open)               \
  X(ssh_channel_new) X(ssh_channel_open_session) X(ssh_channel_poll_timeout) X(ssh_channel_read_nonblocking)   \
  X(ssh_channel_request_exec) X(ssh_channel_send_eof) X(ssh_channel_write) X(ssh_clean_pubkey_hash)            \
  X(ssh_connect) X(ssh_disconnect) X(ssh_free) X(ssh_get_error) X(ssh_get_fd) X(ssh_get_fingerprint_hash)      \
  X(ssh_get_publickey_hash) X(ssh_get_server_publickey) X(ssh_init) X(ssh_key_free) X(ssh_key_type)            \
  X(ssh_key_type_to_char) X(ssh_new) X(ssh_options_get) X(ssh_options_get_port) X(ssh_options_parse_config)    \
  X(ssh_options_set) X(ssh_session_is_known_server) X(ssh_session_update_known_hosts)                         \
  X(ssh_string_free_char) X(ssh_userauth_none) X(ssh_userauth_publickey_auto)

// The functions, under their own names: lib.ssh_new() calls ssh_new().
struct LibSsh {
#define FERRY_LIBSSH_MEMBER(name) decltype(&::name) name = nullptr;
  FERRY_LIBSSH_FUNCTIONS(FERRY_LIBSSH_MEMBER)
#undef FERRY_LIBSSH_MEMBER
};

// libssh, loaded and initialized (ssh_init) by the first call from any
// thread; nullptr if it cannot be loaded, with the reason in *error.
const LibSsh* libssh(std::string* error);

}  // namespace ferry::launcher
