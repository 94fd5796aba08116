#!/usr/bin/env bash
# Cases of start_remote (launcher/start/remote_start.h) against the test hosts of
# hosts.sh, through remote_start_probe: remote_start_cases.sh CASE.
# Needs HOSTS_SH, TESTBED (the fixture's directory) and PROBE in the
# environment; exits 77 when the test bed is not up (no root, no namespaces).
set -uo pipefail

: "${HOSTS_SH:?}" "${TESTBED:?}" "${PROBE:?}"
bash "$HOSTS_SH" check "$TESTBED" || exit $?

T=$(mktemp -d /tmp/ferry-remote-start.XXXXXX)
AGENT_PID=
cleanup() {
  [[ -n $AGENT_PID ]] && kill "$AGENT_PID" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# probe [--home DIR] [ENV=VALUE...] -- PROBE-ARGS...: sets $out, $rc, $ms.
probe() {
  local home=$TESTBED/home settings=()
  if [[ $1 == --home ]]; then home=$2; shift 2; fi
  while [[ $1 != -- ]]; do settings+=("$1"); shift; done
  shift
  local start end
  start=$(date +%s%N)
  out=$(bash "$HOSTS_SH" run "$TESTBED" --home "$home" -- env "${settings[@]}" "$PROBE" "$@" 2>&1)
  rc=$?
  end=$(date +%s%N)
  ms=$(((end - start) / 1000000))
  printf '$ probe %s\n%s\n(exit %d, %d ms)\n' "$*" "$out" "$rc" "$ms"
}

expect_ok() {  # expect_ok LINE: exit 0 and "ok: LINE"
  [[ $rc -eq 0 ]] || fail "exit status $rc, expected 0"
  grep -qxF "ok: $1" <<<"$out" || fail "expected 'ok: $1'"
}

expect_error() {  # expect_error REGEX: exit 1 and an "mpirun: " line matching REGEX (grep -E)
  [[ $rc -eq 1 ]] || fail "exit status $rc, expected 1"
  grep -qE "$1" <<<"$out" || fail "expected a line matching: $1"
  grep -q '^mpirun: ' <<<"$out" || fail "the error does not start with 'mpirun: '"
  [[ $(grep -c '^mpirun: ' <<<"$out") -eq 1 ]] || fail "the error is not one line"
}

expect_faster_than() {  # expect_faster_than MS
  [[ $ms -lt $1 ]] || fail "took $ms ms, expected under $1 ms"
}

fingerprint() {  # the SHA256 fingerprint of host hN's key
  ssh-keygen -l -E sha256 -f "$TESTBED/$1/ssh_host_ed25519_key.pub" | cut -d' ' -f2
}

# A copy of the test home to change.
copy_home() {
  cp -a "$TESTBED/home" "$T/home"
  echo "$T/home"
}

# Escapes a fixed string for grep -E.
re() { sed 's/[][\.*^$+?(){}|/]/\\&/g' <<<"$1"; }

case_runs_on_host() {
  probe -- h2 hostname
  expect_ok h2
  grep -qxF "peer: 10.77.0.12  local: 10.77.0.1" <<<"$out" || fail "peer/local addresses"
  probe -- h3 sh -c 'echo first; echo second'
  expect_ok first
}

case_config_alias_and_user() {
  # The alias's User (nobody) is used, and sshd lets only root in.
  probe -- h2-as-nobody id -un
  expect_error '^mpirun: h2-as-nobody: authentication refused for user nobody \(tried ~/\.ssh keys; no ssh agent'
  # user@host wins over the alias's User, as with ssh.
  probe -- root@h2-as-nobody id -un
  expect_ok root
  # An address works as well as an alias (known_hosts holds addresses).
  probe -- 10.77.0.12 hostname
  expect_ok h2
  # The alias's Port.
  probe -- h1-closed-port hostname
  expect_error '^mpirun: h1-closed-port \(10\.77\.0\.11:2222\): connection refused$'
}

case_unknown_host_key() {
  local home fp
  home=$(copy_home)
  fp=$(fingerprint h3)
  grep -v '^10\.77\.0\.13 ' "$TESTBED/home/.ssh/known_hosts" >"$home/.ssh/known_hosts"
  probe --home "$home" -- h3 hostname
  expect_error "^mpirun: h3: unknown host key $(re "$fp") \(10\.77\.0\.13 is not in .*/known_hosts\); \
connect once with ssh, or run mpirun with --accept-new-host-keys$"
  grep -q '^10\.77\.0\.13 ' "$home/.ssh/known_hosts" && fail "the key was recorded without --accept-new"
  probe --home "$home" -- --accept-new h3 hostname
  expect_ok h3
  grep -qF "10.77.0.13 $(cut -d' ' -f1,2 "$TESTBED/h3/ssh_host_ed25519_key.pub")" "$home/.ssh/known_hosts" ||
    fail "known_hosts did not gain h3's key"
  probe --home "$home" -- h3 hostname
  expect_ok h3
  # No known_hosts file at all: the same, and accepting creates it.
  rm "$home/.ssh/known_hosts"
  probe --home "$home" -- h1 hostname
  expect_error "^mpirun: h1: unknown host key $(re "$(fingerprint h1)") "
  # Three at once, as mpirun starts them: three whole lines.
  probe --home "$home" -- --accept-new h1,h2,h3 hostname
  [[ $rc -eq 0 ]] || fail "exit status $rc"
  [[ $(grep -c . "$home/.ssh/known_hosts") -eq 3 ]] || fail "known_hosts should hold three lines"
  probe --home "$home" -- h1,h2,h3 hostname
  [[ $rc -eq 0 && $(grep -c ': ok: ' <<<"$out") -eq 3 ]] || fail "the recorded keys are not accepted"
}

case_changed_host_key() {
  local home fp
  home=$(copy_home)
  fp=$(fingerprint h3)
  # h3's entry holds h1's key: the same type, another key.
  sed -i "s|^10\.77\.0\.13 .*|10.77.0.13 $(cut -d' ' -f1,2 "$TESTBED/h1/ssh_host_ed25519_key.pub")|" \
    "$home/.ssh/known_hosts"
  cp "$home/.ssh/known_hosts" "$T/known_hosts.before"
  for accept in "" --accept-new; do
    probe --home "$home" -- $accept h3 hostname
    expect_error "^mpirun: h3: host key changed: the server offers the ssh-ed25519 key $(re "$fp"), \
not the key for 10\.77\.0\.13 in .*/known_hosts .*ssh-keygen -R 10\.77\.0\.13\)$"
  done
  cmp -s "$home/.ssh/known_hosts" "$T/known_hosts.before" || fail "known_hosts was changed"
  # A key of another type on file for the host: refused the same way.
  ssh-keygen -q -t ecdsa -N '' -f "$T/other_key"
  sed -i "s|^10\.77\.0\.13 .*|10.77.0.13 $(cut -d' ' -f1,2 "$T/other_key.pub")|" "$home/.ssh/known_hosts"
  probe --home "$home" -- --accept-new h3 hostname
  expect_error "^mpirun: h3: host key changed: the server offers the ssh-ed25519 key $(re "$fp")"
}

case_unreachable_host() {
  # Packets to it vanish: the timeout is what ends the wait.
  probe -- --timeout-ms 2000 blackhole hostname
  expect_error '^mpirun: blackhole \(10\.77\.5\.5:22\): no answer within 2 s$'
  expect_faster_than 5000
  # No host at that address on the link: ARP gives up after about 3 s.
  probe -- --timeout-ms 10000 nowhere hostname
  expect_error '^mpirun: nowhere \(10\.77\.0\.99:22\): no route to host$'
  expect_faster_than 8000
}

case_unknown_host_name() {
  probe -- --origin hosts:4 h9.invalid hostname
  expect_error '^mpirun: h9\.invalid: cannot resolve host name(: [^(]*)? \(hosts:4\)$'
  # An alias whose HostName does not resolve: both names are given.
  probe -- --origin hosts:2 badname hostname
  expect_error '^mpirun: badname: cannot resolve host name(: [^(]*)? h9\.invalid \(hosts:2\)$'
}

case_command_fails() {
  probe -- h2 /nonexistent/ferryd --port 1
  expect_error '^mpirun: h2: ferryd exited with status 127: .*/nonexistent/ferryd: No such file or directory$'
  probe -- h2 sh -c 'echo "first problem" >&2; echo second >&2; echo third >&2; exit 3'
  expect_error '^mpirun: h2: sh exited with status 3: first problem / second$'
  probe -- h2 true
  expect_error '^mpirun: h2: true exited with status 0 without printing a line$'
  # Still silent when the deadline comes: the stderr so far is shown. (The
  # deadline leaves room for an ssh login on a loaded machine, ~2 s.)
  probe -- --timeout-ms 4000 h2 sh -c 'echo waiting >&2; sleep 20'
  expect_error '^mpirun: h2: sh printed no line within 4 s \(stderr: waiting\)$'
  expect_faster_than 8000
}

case_stdin_and_quoting() {
  probe -- --stdin $'hello\nworld\n' h2 head -n1
  expect_ok hello
  # More than one ssh window's worth.
  probe -- --stdin "$(head -c 100000 /dev/zero | tr '\0' x)" h2 sh -c 'wc -c | tr -d " "'
  expect_ok 100000
  # Words with quotes, spaces and shell syntax arrive as they were.
  # shellcheck disable=SC2016  # unexpanded on purpose
  probe -- h2 printf '%s|%s|%s|%s\n' "it's" 'a  b' '$HOME;`x`' ''
  expect_ok "it's|a  b|\$HOME;\`x\`|"
}

case_launch_agent() {
  probe -- --agent ssh h2 hostname
  expect_ok h2
  grep -qxF "peer:   local: " <<<"$out" || fail "addresses should be unknown through an agent"
  probe -- --agent "ssh -F $TESTBED/home/.ssh/config -o LogLevel=ERROR" --stdin $'hello\n' h3 head -n1
  expect_ok hello
  probe -- --agent ssh h2 printf '%s|%s\n' "it's" 'a  b'
  expect_ok "it's|a  b"
  probe -- --agent ssh --timeout-ms 10000 nowhere hostname
  expect_error '^mpirun: nowhere: launch agent ssh exited with status 255: ssh: connect to host 10\.77\.0\.99 port 22: No route to host$'
  # ssh would wait 5 s (ConnectTimeout); the start gives up at 2 s and kills it.
  probe -- --agent ssh --timeout-ms 2000 blackhole hostname
  expect_error '^mpirun: blackhole: launch agent ssh printed no line within 2 s$'
  expect_faster_than 4500
  pgrep -f 'ssh blackhole' >/dev/null && fail "the agent was left running"
  probe -- --agent ssh h2 /nonexistent/ferryd
  expect_error '^mpirun: h2: launch agent ssh exited with status 127: .*/nonexistent/ferryd: No such file or directory$'
  probe -- --agent /nonexistent/agent h2 hostname
  expect_error '^mpirun: h2: cannot run launch agent /nonexistent/agent: No such file or directory$'
}

case_parallel_starts_no_leaks() {
  local h
  probe -- --repeat 3 h1,h2,h3,h1,h2,h3 hostname
  [[ $rc -eq 0 ]] || fail "exit status $rc"
  for h in h1 h2 h3; do
    [[ $(grep -cxF "$h: ok: $h" <<<"$out") -eq 6 ]] || fail "expected 6 starts on $h"
  done
  # Descriptors and sockets come back, on success and on every kind of failure.
  grep -qE '^fds: ([0-9]+) \1$' <<<"$out" || fail "descriptors leaked"
  probe -- --repeat 3 --timeout-ms 3000 h1,h1-closed-port,h2-as-nobody,h9.invalid,blackhole /nonexistent/ferryd
  grep -qE '^fds: ([0-9]+) \1$' <<<"$out" || fail "descriptors leaked on failures"
  probe -- --repeat 3 --agent ssh h1,h2,h3,h1-closed-port hostname
  grep -qE '^fds: ([0-9]+) \1$' <<<"$out" || fail "descriptors leaked through the agent"
  [[ $(grep -c ': ok: ' <<<"$out") -eq 9 ]] || fail "expected 9 starts through the agent"
}

case_ssh_agent_used() {
  # home-agent has config and known_hosts but no private key; the key that
  # sshd accepts is in the agent only.
  local home=$TESTBED/home-agent sock=$T/agent.sock
  eval "$(ssh-agent -s -a "$sock")" >/dev/null
  AGENT_PID=$SSH_AGENT_PID
  probe --home "$home" SSH_AUTH_SOCK="$sock" -- h2 hostname
  expect_error '^mpirun: h2: authentication refused for user root \(tried the ssh agent and ~/\.ssh keys\)$'
  SSH_AUTH_SOCK=$sock ssh-add -q "$TESTBED/agent_key" 2>/dev/null || fail "ssh-add"
  probe --home "$home" SSH_AUTH_SOCK="$sock" -- h2 hostname
  expect_ok h2
  probe --home "$home" -- h2 hostname
  expect_error '^mpirun: h2: authentication refused for user root \(tried ~/\.ssh keys; no ssh agent \(SSH_AUTH_SOCK unset\)\)$'
  probe --home "$home" SSH_AUTH_SOCK="$sock" -- --agent ssh h3 hostname
  expect_ok h3
}

case_identity_file() {
  # home-agent holds no key of its own; the alias names one with IdentityFile.
  probe --home "$TESTBED/home-agent" -- h3-with-identity hostname
  expect_ok h3
  probe --home "$TESTBED/home-agent" -- h3 hostname
  expect_error '^mpirun: h3: authentication refused for user root '
}

case_proxy_command() {
  # ProxyCommand in ~/.ssh/config: libssh connects through it (a socket
  # pair, so no addresses), not straight to the HostName.
  probe -- h2-via-h1 hostname
  expect_ok h2
  grep -qxF "peer:   local: " <<<"$out" || fail "connected directly instead of through the ProxyCommand"
}

case_known_hosts_lookup_name() {
  # Keys filed under the aliases only: libssh (like ssh) looks them up under
  # the HostName that ~/.ssh/config gives, so the alias entries do not count.
  local home
  home=$(copy_home)
  sed -i 's/^10\.77\.0\.1\([0-9]\) /h\1 /' "$home/.ssh/known_hosts"
  probe --home "$home" -- h2 hostname
  expect_error '^mpirun: h2: unknown host key SHA256:[^ ]+ \(10\.77\.0\.12 is not in '
  probe --home "$home" -- --agent ssh h2 hostname
  expect_error '^mpirun: h2: launch agent ssh exited with status 255: .*Host key verification failed'
}

case=${1:?usage: remote_start_cases.sh CASE}
if ! declare -F "case_$case" >/dev/null; then
  echo "remote_start_cases.sh: unknown case '$case'" >&2
  exit 2
fi
"case_$case"
if [[ $failures -gt 0 ]]; then
  echo "$case: $failures failed check(s)" >&2
  exit 1
fi
echo "$case: passed"
