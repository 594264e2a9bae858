#!/usr/bin/env bash
# A Docker engine for the kind path: use the one that runs, else start one and
# later stop it, leaving the host as it was found.
#
# Usage: docker-engine.sh start   prints `export DOCKER_HOST=...` for eval (empty
#                                 when an engine already answers)
#        docker-engine.sh stop    stops the engine this script started (by PID),
#                                 restores iptables, sysctls, bridges and mounts
#
# When no engine answers: Debian's docker.io is installed with apt if missing,
# and dockerd runs with its own data root (in the cache, so images survive a
# run), exec root, socket and pidfile (in the state dir). Where the capability
# bounding set lacks CAP_SYS_RESOURCE (bit 24), privileged containers (the kind
# node) cannot start with stock runc, so dockerd's default runtime becomes a
# wrapper that drops that one capability from the OCI spec; where the bit is
# there (GitHub Actions, laptops), stock runc runs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../control-plane/common.sh
. "$HERE/../control-plane/common.sh"

STATE=${TANDEM_KIND_STATE_DIR:-/run/tandem-kind}
DATA_ROOT=$(tandem_kind_cache_root)/docker
SOCK=$STATE/docker.sock
PIDFILE=$STATE/dockerd.pid

log() { printf '[docker-engine %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

engine_answers() { timeout 10 docker info >/dev/null 2>&1; }

# The PID of the dockerd this script started, if that process still runs as dockerd
# (a stale pidfile's PID may belong to another process by now).
our_dockerd_pid() {
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null || cat "$STATE/dockerd.started-pid" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == dockerd ]] || return 1
  printf '%s\n' "$pid"
}

# Counters and comments differ run to run; the rules are what must match.
rules_of() { "$1" 2>/dev/null | sed -e '/^#/d' -e 's/\[[0-9]*:[0-9]*\]//'; }

missing_cap_sys_resource() {
  local bnd
  bnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)
  (( (16#$bnd >> 24 & 1) == 0 ))
}

nft_backend() { iptables --version 2>/dev/null | grep -q nf_tables; }

install_engine() {
  local pkgs=()
  command -v dockerd >/dev/null || pkgs+=(docker.io)
  command -v iptables-save >/dev/null || pkgs+=(iptables)
  # Removing a table that iptables-nft made needs nft.
  if { ! command -v iptables >/dev/null || nft_backend; } && ! command -v nft >/dev/null; then
    pkgs+=(nftables)
  fi
  ((${#pkgs[@]})) || return 0
  log "installing ${pkgs[*]} from Debian"
  # The package's own service must not start: this script runs the engine.
  local policy=/usr/sbin/policy-rc.d made_policy=false
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=true
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2 ||
    { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2; }
  if $made_policy; then rm -f "$policy"; fi
}

# What dockerd changes on the host, recorded before it starts.
snapshot_host() {
  rules_of iptables-save >"$STATE/iptables.before"
  if command -v ip6tables-save >/dev/null; then rules_of ip6tables-save >"$STATE/ip6tables.before"; fi
  iptables-save >"$STATE/iptables.restore"
  if command -v ip6tables-save >/dev/null; then ip6tables-save >"$STATE/ip6tables.restore"; fi
  ip -o link show type bridge | awk -F': ' '{print $2}' | sed 's/@.*//' | sort >"$STATE/bridges.before"
  local s
  : >"$STATE/sysctls.before"
  for s in net/ipv4/ip_forward net/ipv6/conf/all/forwarding net/bridge/bridge-nf-call-iptables \
    net/bridge/bridge-nf-call-ip6tables; do
    [[ -f /proc/sys/$s ]] && printf '%s %s\n' "$s" "$(cat "/proc/sys/$s")" >>"$STATE/sysctls.before"
  done
}

write_runc_wrapper() {
  local runc
  runc=$(command -v runc) || { log "runc not found"; return 1; }
  cat >"$STATE/tandem-runc" <<EOF
#!/bin/bash
# Written by e2e/kind/docker-engine.sh: this host's capability bounding set lacks
# CAP_SYS_RESOURCE, which a privileged spec asks for; drop it, then run runc.
strip() { sed -i -e 's/"CAP_SYS_RESOURCE",//g' -e 's/,"CAP_SYS_RESOURCE"//g' -e 's/"CAP_SYS_RESOURCE"//g' "\$1"; }
args=("\$@")
for ((i = 0; i < \${#args[@]}; i++)); do
  case \${args[i]} in
    --bundle|-b) [[ -f \${args[i+1]}/config.json ]] && strip "\${args[i+1]}/config.json" ;;
    --bundle=*) [[ -f \${args[i]#--bundle=}/config.json ]] && strip "\${args[i]#--bundle=}/config.json" ;;
    --process|-p) [[ -f \${args[i+1]} ]] && strip "\${args[i+1]}" ;;
    --process=*) [[ -f \${args[i]#--process=} ]] && strip "\${args[i]#--process=}" ;;
  esac
done
exec $runc "\$@"
EOF
  chmod 755 "$STATE/tandem-runc"
}

# A connection to a Service IP that kube-proxy has not programmed yet (the API server
# checks an APIService the moment it is created) leaves the kind node by its default
# route. On a network whose gateway intercepts any TCP 443, something answers it (404),
# and the API server keeps that keep-alive connection, and the APIService unavailable,
# for good. Rejected here, it fails at once, as it would on a network that routes
# nowhere, and the retry finds the Service. DOCKER-USER is Docker's chain for this; the
# rule goes with the rest of Docker's rules when the engine stops.
reject_escaping_service_traffic() {
  iptables -I DOCKER-USER -d "$TANDEM_KIND_SERVICE_SUBNET" -p tcp -j REJECT --reject-with tcp-reset
  iptables -I DOCKER-USER -d "$TANDEM_KIND_SERVICE_SUBNET" ! -p tcp -j REJECT
}

start() {
  if engine_answers; then
    log "a Docker engine answers (${DOCKER_HOST:-default socket}); using it"
    return 0
  fi
  if [[ -d $STATE ]] && our_dockerd_pid >/dev/null; then
    log "dockerd $(our_dockerd_pid) from an earlier run still runs; using it"
    printf 'export DOCKER_HOST=unix://%s\n' "$SOCK"
    return 0
  fi
  install_engine
  mkdir -p "$STATE" "$DATA_ROOT"
  snapshot_host
  local args=(--data-root "$DATA_ROOT" --exec-root "$STATE/exec" --pidfile "$PIDFILE"
    --host "unix://$SOCK" --storage-driver overlay2 --iptables=true)
  if missing_cap_sys_resource; then
    log "CapBnd lacks CAP_SYS_RESOURCE: default runtime drops it from OCI specs"
    write_runc_wrapper
    args+=(--add-runtime "tandem-runc=$STATE/tandem-runc" --default-runtime tandem-runc)
  fi
  log "starting dockerd (data root $DATA_ROOT, log $STATE/dockerd.log)"
  setsid dockerd "${args[@]}" </dev/null >"$STATE/dockerd.log" 2>&1 &
  echo $! >"$STATE/dockerd.started-pid"
  local i
  for ((i = 0; i < 60; i++)); do
    if DOCKER_HOST=unix://$SOCK engine_answers; then
      log "dockerd $(cat "$PIDFILE") ready"
      reject_escaping_service_traffic
      printf 'export DOCKER_HOST=unix://%s\n' "$SOCK"
      return 0
    fi
    sleep 1
  done
  log "dockerd did not answer in 60 s; its log:"
  tail -n 40 "$STATE/dockerd.log" >&2
  stop
  return 1
}

# Put back the iptables rules dockerd changed: the tables it touches go (with
# nf_tables, deleted outright; with legacy iptables, tables that were not there are
# flushed), then the saved rules come back with iptables-restore.
restore_iptables() {
  [[ -f $STATE/iptables.before ]] || return 0
  local family table save
  if nft_backend; then
    for family in ip ip6; do
      for table in filter nat mangle raw; do nft delete table "$family" "$table" 2>/dev/null || true; done
    done
  fi
  for save in iptables-save ip6tables-save; do
    if ! command -v "$save" >/dev/null || [[ ! -f $STATE/${save%-save}.restore ]]; then continue; fi
    if ! nft_backend; then
      for table in $(rules_of "$save" | sed -n 's/^\*//p'); do
        grep -qx "\*$table" "$STATE/${save%-save}.before" && continue
        { "${save%-save}" -t "$table" -F && "${save%-save}" -t "$table" -X; } || true
      done
    fi
    if grep -q '^\*' "$STATE/${save%-save}.restore"; then
      "${save%-save}-restore" <"$STATE/${save%-save}.restore"
    fi
    if diff -u "$STATE/${save%-save}.before" <(rules_of "$save") >&2; then
      log "$save: as before"
    else
      log "WARNING: $save differs from before (diff above)"
    fi
  done
}

stop() {
  [[ -d $STATE ]] || { log "nothing to stop ($STATE absent)"; return 0; }
  local pid i
  if pid=$(our_dockerd_pid); then
    log "stopping dockerd $pid"
    kill -TERM "$pid"
    for ((i = 0; i < 60; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then log "dockerd $pid ignores TERM; KILL"; kill -KILL "$pid" || true; fi
  fi
  # dockerd stops the containerd it started; after a KILL that one is left over.
  pid=$(cat "$STATE/exec/containerd/containerd.pid" 2>/dev/null || true)
  if [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == containerd ]]; then
    log "stopping dockerd's containerd $pid"
    kill -TERM "$pid" || true
    for ((i = 0; i < 20; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  fi
  # Mounts under our roots (container rootfs, netns files), deepest first.
  local m
  while read -r m; do umount -l "$m" 2>/dev/null || true; done < <(
    awk '{print $5}' /proc/self/mountinfo | grep -E "^($STATE|$DATA_ROOT)(/|$)" | sort -r)
  # Bridges dockerd made (docker0, kind's br-*).
  if [[ -f $STATE/bridges.before ]]; then
    local b
    while read -r b; do
      [[ -n $b ]] || continue
      log "deleting bridge $b"
      ip link delete "$b" 2>/dev/null || true
    done < <(comm -13 "$STATE/bridges.before" <(ip -o link show type bridge | awk -F': ' '{print $2}' | sed 's/@.*//' | sort))
  fi
  restore_iptables
  if [[ -f $STATE/sysctls.before ]]; then
    local key value
    while read -r key value; do
      [[ -f /proc/sys/$key ]] && echo "$value" >"/proc/sys/$key"
    done <"$STATE/sysctls.before"
  fi
  rm -rf "$STATE"
  log "stopped; host restored"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  *) sed -n '2,16p' "$0" >&2; exit 2 ;;
esac
