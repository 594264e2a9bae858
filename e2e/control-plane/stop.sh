#!/usr/bin/env bash
# Stops a control plane started by start.sh and removes its state dir.
#
# Usage: stop.sh [--keep-logs DIR] [--keep-state] <state-dir | env-file>
#   --keep-logs DIR  copy the component logs to DIR before removing the state
#   --keep-state     stop the processes but leave the state dir in place
#
# Every process start.sh started is signalled by process group (SIGTERM,
# then SIGKILL after $TANDEM_CP_STOP_TIMEOUT seconds, default 15) and waited
# for. A last sweep kills any process still carrying this cluster's random
# tag in its environment, so nothing is left behind. Exit status 1 if some
# process could not be stopped.
set -euo pipefail

KEEP_LOGS=""
KEEP_STATE=false
TARGET=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --keep-logs) KEEP_LOGS=$2; shift 2 ;;
    --keep-state) KEEP_STATE=true; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "stop.sh: unknown option $1" >&2; exit 2 ;;
    *) TARGET=$1; shift ;;
  esac
done
[[ -n $TARGET ]] || { echo "usage: stop.sh [--keep-logs DIR] [--keep-state] <state-dir|env-file>" >&2; exit 2; }

log() { printf '[tandem-cp stop %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [[ -f $TARGET ]]; then
  STATE_DIR=$(sed -n 's/^TANDEM_CP_STATE_DIR=//p' "$TARGET" | tail -1)
else
  STATE_DIR=$TARGET
fi
if [[ ! -d $STATE_DIR ]]; then
  log "nothing to stop: $STATE_DIR does not exist"
  exit 0
fi
STATE_DIR=$(cd "$STATE_DIR" && pwd)
# Refuse to act on (and later rm -rf) a directory start.sh did not create.
[[ -f $STATE_DIR/.tandem-cp ]] || { log "refusing: $STATE_DIR is not a tandem control-plane state dir"; exit 2; }

TIMEOUT=${TANDEM_CP_STOP_TIMEOUT:-15}
PIDS=$STATE_DIR/pids
TAG=$(cat "$STATE_DIR/process-tag" 2>/dev/null || true)

proc_field() { # PID N: field N of /proc/PID/stat counted after the comm field
  awk -v n="$2" '{ sub(/^.*\) /, ""); print $n }' "/proc/$1/stat" 2>/dev/null
}
is_alive() {
  local st
  st=$(proc_field "$1" 1) || return 1
  [[ -n $st && $st != Z && $st != X ]]
}
# Our own ancestry: the watchdog runs this script, and a harness may have
# the tag in its environment; never signal ourselves or a parent.
declare -A SELF=()
p=$$
while [[ -n $p && $p != 0 && $p != 1 ]]; do
  SELF[$p]=1
  p=$(proc_field "$p" 2 || true)
done

# name pid starttime, in start order; stop in reverse order (metrics-server
# and kwok first, etcd last) so clients go before the servers they use.
names=() pids=()
if [[ -f $PIDS ]]; then
  while read -r name pid start; do
    [[ -n ${pid:-} ]] || continue
    [[ -n ${SELF[$pid]:-} ]] && continue
    # Skip a PID that was recycled by an unrelated process.
    [[ -n ${start:-} && $(proc_field "$pid" 20) != "$start" ]] && continue
    names=("$name" "${names[@]}")
    pids=("$pid" "${pids[@]}")
  done <"$PIDS"
fi

signal_all() { # SIGNAL
  local i
  for i in "${!pids[@]}"; do
    is_alive "${pids[$i]}" || continue
    # The component is its own process-group leader (setsid); signal the
    # group so helpers it may have spawned go too.
    kill "-$1" -- "-${pids[$i]}" 2>/dev/null || kill "-$1" "${pids[$i]}" 2>/dev/null || true
  done
}
wait_all() { # SECONDS -> 0 if all exited
  local deadline=$(( $(date +%s) + $1 )) i any
  while :; do
    any=false
    for i in "${!pids[@]}"; do
      if is_alive "${pids[$i]}"; then any=true; break; fi
    done
    $any || return 0
    (( $(date +%s) < deadline )) || return 1
    sleep 0.1
  done
}

if (( ${#pids[@]} )); then
  log "stopping ${names[*]} ($STATE_DIR)"
  signal_all TERM
  if ! wait_all "$TIMEOUT"; then
    for i in "${!pids[@]}"; do
      is_alive "${pids[$i]}" && log "${names[$i]} (pid ${pids[$i]}) ignored SIGTERM for ${TIMEOUT}s; sending SIGKILL"
    done
    signal_all KILL
    wait_all 5 || true
  fi
fi

# Last resort: anything still carrying this cluster's tag (e.g. a child that
# left its process group). Matched on the exact tag, never on a name.
leftover=()
if [[ -n $TAG ]]; then
  for env in /proc/[0-9]*/environ; do
    pid=${env#/proc/}; pid=${pid%/environ}
    [[ -n ${SELF[$pid]:-} ]] && continue
    if { tr '\0' '\n' <"$env"; } 2>/dev/null | grep -qx "TANDEM_CP_PROCESS_TAG=$TAG"; then
      is_alive "$pid" || continue
      log "killing stray process $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80))"
      kill -KILL "$pid" 2>/dev/null || true
      leftover+=("$pid")
    fi
  done
  for pid in "${leftover[@]}"; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do is_alive "$pid" || break; sleep 0.1; done
  done
fi
still=()
for i in "${!pids[@]}"; do is_alive "${pids[$i]}" && still+=("${names[$i]}:${pids[$i]}"); done
for pid in "${leftover[@]}"; do is_alive "$pid" && still+=("stray:$pid"); done

# Release the port reservations taken by start.sh.
if [[ -f $STATE_DIR/ports ]]; then
  locks=$(cat "$STATE_DIR/port-locks-dir" 2>/dev/null || echo "${TMPDIR:-/tmp}/tandem-cp-ports")
  while read -r port; do
    [[ -n $port && -d $locks/$port ]] || continue
    [[ $(cat "$locks/$port/owner" 2>/dev/null) == "$STATE_DIR" ]] && rm -rf "${locks:?}/$port"
  done <"$STATE_DIR/ports"
fi

if [[ -n $KEEP_LOGS && -d $STATE_DIR/logs ]]; then
  mkdir -p "$KEEP_LOGS"
  cp -a "$STATE_DIR/logs/." "$KEEP_LOGS/"
fi

if (( ${#still[@]} )); then
  log "FAILED: still running: ${still[*]}; state dir kept: $STATE_DIR"
  exit 1
fi
if $KEEP_STATE; then
  log "stopped; state dir kept: $STATE_DIR"
else
  rm -rf "${STATE_DIR:?}"
  log "stopped; removed $STATE_DIR"
fi
