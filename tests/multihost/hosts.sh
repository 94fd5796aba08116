#!/usr/bin/env bash
# A three-host cluster on one machine, for tests of remote launch: network
# namespaces ferry-h1..h3 on a bridge, each running a real OpenSSH server with
# its own host name (a UTS namespace), while the root namespace plays the
# launcher host (10.77.0.1).
#
#   hosts.sh up DIR      build it (tears down leftovers first); files under DIR
#   hosts.sh down DIR    stop the sshds, delete the namespaces and the bridge
#   hosts.sh env DIR     print shell lines describing it (eval "$(hosts.sh env DIR)")
#   hosts.sh check DIR   exit 0 if it is up, else 77 (skip)
#   hosts.sh run DIR [--home H] -- CMD...
#                        run CMD as the launcher host's user with H/.ssh
#                        (default DIR/home/.ssh) as ~/.ssh
#
# Why `run` and not HOME=...: libssh and OpenSSH both find ~/.ssh through the
# password database (getpwuid), not $HOME, so the test keys, config and
# known_hosts are bind-mounted over ~/.ssh in a private mount namespace. The
# hosts' sshds see the same ~/.ssh (a shared home), so hN can ssh to hM.
# Everything else (the build tree, /tmp) is the one file system of this machine.
#
# DIR/home/.ssh/config has the aliases h1..h3 (User root) and some for tests
# of failures: h2-as-nobody (a user sshd refuses), h1-closed-port (port 2222),
# nowhere (no host at the address), blackhole (packets vanish), badname
# (HostName does not resolve), h2-via-h1 (ProxyCommand), h3-with-identity
# (IdentityFile DIR/agent_key). DIR/hostfile lists h1..h3 with 2 slots each.
#
# Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN), iproute2, openssh-server and
# openssh-client; without them every command exits 77 (CTest's skip code).
set -euo pipefail

readonly HOSTS=(h1 h2 h3)
readonly BRIDGE=ferrybr0
readonly NET=10.77.0
readonly SSHD=/usr/sbin/sshd
# Routed to h1, which does not forward: packets to it vanish without an
# answer, as they do on the way to a host that is down.
readonly BLACKHOLE=10.77.5.5

die() { echo "hosts.sh: $*" >&2; exit 1; }
skip() { echo "hosts.sh: skipped: $*" >&2; exit 77; }

address_of() { echo "$NET.1${1#h}"; }   # h2 -> 10.77.0.12

home_ssh_dir() {  # the user's ~/.ssh as ssh and libssh find it
  local home
  home=$(getent passwd "$(id -u)" | cut -d: -f6)
  [[ -n $home ]] || die "no home directory for uid $(id -u) in the password database"
  echo "$home/.ssh"
}

check_usable() {
  [[ $(id -u) -eq 0 ]] || skip "needs root (network namespaces)"
  command -v ip >/dev/null || skip "needs iproute2"
  [[ -x $SSHD ]] || skip "needs openssh-server ($SSHD)"
  command -v ssh-keygen >/dev/null || skip "needs openssh-client (ssh-keygen)"
  command -v unshare >/dev/null || skip "needs unshare (util-linux)"
  # Creating a namespace needs CAP_SYS_ADMIN and CAP_NET_ADMIN: try it.
  if ! ip netns add ferry-probe 2>/dev/null; then
    skip "cannot create network namespaces here (no CAP_NET_ADMIN/CAP_SYS_ADMIN)"
  fi
  ip netns delete ferry-probe
}

down() {
  local dir=$1 h pid
  for h in "${HOSTS[@]}"; do
    # The pid file we wrote at start; sshd's own PidFile names the same process.
    for pidfile in "$dir/$h/sshd.bgpid" "$dir/$h/sshd.pid"; do
      # sshd removes its own PidFile as it exits (after the kill of the first
      # file's pid): gone between the test and the read is gone.
      pid=$(cat "$pidfile" 2>/dev/null) || continue
      if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
      fi
      rm -f "$pidfile"
    done
    # Anything still running inside (sessions, daemons a test left) ends with it.
    if ip netns list | grep -qw "ferry-$h"; then
      for pid in $(ip netns pids "ferry-$h" 2>/dev/null); do
        kill -KILL "$pid" 2>/dev/null || true
      done
      ip netns delete "ferry-$h"
    fi
    ip link delete "ferryv${h#h}" 2>/dev/null || true
  done
  ip link delete "$BRIDGE" 2>/dev/null || true
  if [[ -f $dir/created-dot-ssh ]]; then
    rmdir "$(cat "$dir/created-dot-ssh")" 2>/dev/null || true
    rm -f "$dir/created-dot-ssh"
  fi
}

write_sshd_config() {
  local dir=$1 h=$2
  cat >"$dir/$h/sshd_config" <<EOF
# sshd for test host $h (tests/multihost/hosts.sh); listens only on its namespace address.
ListenAddress $(address_of "$h")
Port 22
HostKey $dir/$h/ssh_host_ed25519_key
PidFile $dir/$h/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
AllowUsers root
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
PrintMotd no
PrintLastLog no
LogLevel VERBOSE
# Tests start on all hosts at once, several times.
MaxStartups 100
MaxSessions 100
EOF
}

write_user_ssh_dir() {  # DIR/home/.ssh: the launcher user's key, config and known_hosts
  local dir=$1 ssh_dir=$1/home/.ssh h
  mkdir -p "$ssh_dir"
  chmod 700 "$dir/home" "$ssh_dir"
  ssh-keygen -q -t ed25519 -N '' -C ferry-test-user -f "$ssh_dir/id_ed25519"
  {
    for h in "${HOSTS[@]}"; do
      printf 'Host %s\n  HostName %s\n  User root\n\n' "$h" "$(address_of "$h")"
    done
    # For the tests of ~/.ssh/config: a user sshd refuses, a closed port, no host.
    printf 'Host h2-as-nobody\n  HostName %s\n  User nobody\n\n' "$(address_of h2)"
    printf 'Host h1-closed-port\n  HostName %s\n  Port 2222\n\n' "$(address_of h1)"
    printf 'Host nowhere\n  HostName %s.99\n\n' "$NET"
    printf 'Host blackhole\n  HostName %s\n\n' "$BLACKHOLE"
    printf 'Host badname\n  HostName h9.invalid\n\n'
    printf 'Host h2-via-h1\n  HostName %s\n  ProxyCommand ssh -W %%h:%%p h1\n\n' "$(address_of h2)"
    printf 'Host h3-with-identity\n  HostName %s\n  IdentityFile %s\n\n' "$(address_of h3)" "$dir/agent_key"
    # OpenSSH as a launch agent must fail instead of asking anything.
    printf 'Host *\n  BatchMode yes\n  ConnectTimeout 5\n'
  } >"$ssh_dir/config"
  # By address: both libssh and OpenSSH look the key up under the HostName
  # that ~/.ssh/config gives, not under the alias.
  : >"$ssh_dir/known_hosts"
  for h in "${HOSTS[@]}"; do
    echo "$(address_of "$h") $(cut -d' ' -f1,2 "$dir/$h/ssh_host_ed25519_key.pub")" >>"$ssh_dir/known_hosts"
  done
  chmod 600 "$ssh_dir"/*
}

wait_for_port() {
  local address=$1
  for _ in $(seq 1 50); do
    if timeout 1 bash -c "exec 3<>/dev/tcp/$address/22" 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

up() {
  local dir=$1 h n address
  check_usable
  down "$dir"
  rm -rf "${dir:?}"
  mkdir -p "$dir"
  mkdir -p /run/sshd  # sshd's privilege-separation directory

  # ssh and libssh look in the real ~/.ssh; `run` needs it to exist to mount over it.
  local dot_ssh
  dot_ssh=$(home_ssh_dir)
  if [[ ! -d $dot_ssh ]]; then
    mkdir -m 700 "$dot_ssh"
    echo "$dot_ssh" >"$dir/created-dot-ssh"
  fi

  ip link add "$BRIDGE" type bridge
  ip addr add "$NET.1/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up

  for h in "${HOSTS[@]}"; do
    n=${h#h}
    address=$(address_of "$h")
    mkdir -p "$dir/$h"
    ip netns add "ferry-$h"
    ip link add "ferryv$n" type veth peer name eth0 netns "ferry-$h"
    ip link set "ferryv$n" master "$BRIDGE" up
    ip -n "ferry-$h" link set lo up
    ip -n "ferry-$h" addr add "$address/24" dev eth0
    ip -n "ferry-$h" link set eth0 up
    ip -n "ferry-$h" route add default via "$NET.1"

    ssh-keygen -q -t ed25519 -N '' -C "$h" -f "$dir/$h/ssh_host_ed25519_key"
    write_sshd_config "$dir" "$h"
    "$SSHD" -t -f "$dir/$h/sshd_config" || die "$h: sshd rejects $dir/$h/sshd_config"
  done

  write_user_ssh_dir "$dir"
  cp "$dir/home/.ssh/id_ed25519.pub" "$dir/authorized_keys"
  # A key that only an ssh-agent holds, for the test that the agent is used.
  ssh-keygen -q -t ed25519 -N '' -C ferry-test-agent -f "$dir/agent_key"
  cat "$dir/agent_key.pub" >>"$dir/authorized_keys"
  # A home without private keys (config and known_hosts only), for that test.
  mkdir -p "$dir/home-agent"
  cp -a "$dir/home/.ssh" "$dir/home-agent/.ssh"
  rm "$dir/home-agent/.ssh/id_ed25519" "$dir/home-agent/.ssh/id_ed25519.pub"

  printf '%s slots=2\n' "${HOSTS[@]}" >"$dir/hostfile"

  for h in "${HOSTS[@]}"; do
    # Its own host name, and the test home's ~/.ssh as the hosts' too (as a
    # cluster shares home directories), so that a host can ssh to another.
    # setsid and no inherited output: CTest waits for the setup test's pipes
    # to close, and sshd must outlive that test.
    setsid ip netns exec "ferry-$h" unshare --uts --mount --propagation private \
      sh -c "mount --bind '$dir/home/.ssh' '$dot_ssh' && hostname $h &&
             exec $SSHD -D -f '$dir/$h/sshd_config' -E '$dir/$h/sshd.log'" \
      </dev/null >"$dir/$h/sshd.out" 2>&1 &
    echo $! >"$dir/$h/sshd.bgpid"
  done
  ip route add "$BLACKHOLE/32" via "$(address_of h1)"
  for h in "${HOSTS[@]}"; do
    wait_for_port "$(address_of "$h")" ||
      die "$h: sshd does not listen on $(address_of "$h"):22 (see $dir/$h/sshd.log, $dir/$h/sshd.out)"
  done
  echo "hosts.sh: ${HOSTS[*]} up ($NET.11-13 on $BRIDGE, files in $dir)"
}

print_env() {
  local dir=$1 h addresses=()
  for h in "${HOSTS[@]}"; do addresses+=("$(address_of "$h")"); done
  local self
  self=$(readlink -f "${BASH_SOURCE[0]}")
  cat <<EOF
export TESTBED_DIR='$dir'
export TESTBED_HOSTS='${HOSTS[*]}'
export TESTBED_ADDRESSES='${addresses[*]}'
export TESTBED_LAUNCHER_ADDRESS='$NET.1'
export TESTBED_HOSTFILE='$dir/hostfile'
export TESTBED_RUN='bash $self run $dir --'
unset SSH_AUTH_SOCK
EOF
}

run() {
  local dir=$1
  shift
  local home=$dir/home
  if [[ ${1:-} == --home ]]; then
    home=$2
    shift 2
  fi
  [[ ${1:-} == -- ]] && shift
  [[ $# -gt 0 ]] || die "run: no command"
  [[ $(id -u) -eq 0 ]] || skip "needs root"
  [[ -d $dir/h1 ]] || skip "the test bed is not up in $dir (run: hosts.sh up $dir)"
  [[ -d $home/.ssh ]] || die "run: no $home/.ssh"
  local dot_ssh
  dot_ssh=$(home_ssh_dir)
  # A private mount namespace: the bind mount is seen by CMD and its children only.
  # SSH_AUTH_SOCK: the developer's own agent must not stand in for the test keys.
  # shellcheck disable=SC2016  # $1, $2, $@ are the inner shell's
  exec env -u SSH_AUTH_SOCK unshare --mount --propagation private \
    sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$home/.ssh" "$dot_ssh" "$@"
}

[[ $# -ge 2 ]] || die "usage: hosts.sh up|down|env|check DIR | hosts.sh run DIR [--home H] -- CMD..."
command=$1
dir=$(realpath -m "$2")
shift 2
case $command in
  up) up "$dir" ;;
  down)
    [[ $(id -u) -eq 0 ]] || skip "needs root"
    down "$dir"
    echo "hosts.sh: down" ;;
  env) print_env "$dir" ;;
  check)
    [[ $(id -u) -eq 0 ]] || skip "needs root"
    if [[ ! -f $dir/hostfile ]] || ! ip netns list 2>/dev/null | grep -qw ferry-h1; then
      skip "the test bed is not up in $dir (hosts.sh up $dir)"
    fi ;;
  run) run "$dir" "$@" ;;
  *) die "unknown command '$command' (up, down, env, check, run)" ;;
esac
