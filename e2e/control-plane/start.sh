#!/usr/bin/env bash
# Starts a real Kubernetes control plane on 127.0.0.1 for Tandem's e2e suites:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok (fake
# nodes, pod lifecycle, simulated usage) and metrics-server (aggregated API).
#
# Usage: start.sh [options]
#   --state-dir DIR   where certs, etcd data, logs and the kubeconfig go
#                     (default: a new mktemp dir under ${TMPDIR:-/tmp})
#   --env-file FILE   also write the KEY=VALUE lines (see below) to FILE
#   --nodes N         number of fake nodes (default: $TANDEM_CP_NODES or 3)
#   --foreground      stay in the foreground; SIGINT/SIGTERM stops the cluster,
#                     and a component that dies stops it too (exit 1)
#   --watch-pid PID   stop the cluster when PID exits (a watchdog process,
#                     started before anything else; e.g. the test runner's PID)
#   --no-build        do not run build.sh; binaries must be built already
#
# Without --foreground the script returns once everything is healthy and the
# cluster keeps running; stop it with: stop.sh <state-dir|env-file>.
# stdout carries only KEY=VALUE lines (dotenv syntax, values unquoted, no
# spaces); progress goes to stderr. Exit status 0 means healthy.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$SCRIPT_DIR/common.sh"

# ------------------------------------------------------------------ options
STATE_DIR=""
ENV_FILE=""
NODES=${TANDEM_CP_NODES:-3}
FOREGROUND=false
WATCH_PID=""
DO_BUILD=true
while [[ $# -gt 0 ]]; do
  case "$1" in
    --state-dir) STATE_DIR=$2; shift 2 ;;
    --env-file) ENV_FILE=$2; shift 2 ;;
    --nodes) NODES=$2; shift 2 ;;
    --foreground) FOREGROUND=true; shift ;;
    --watch-pid) WATCH_PID=$2; shift 2 ;;
    --no-build) DO_BUILD=false; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "start.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $NODES =~ ^[0-9]+$ ]] || { echo "start.sh: --nodes must be a number" >&2; exit 2; }

# Tunables (environment). HPA timings are shortened so tests run in seconds,
# not minutes: kwok marks pods Ready instantly, and the default 5 min CPU
# initialization period / 5 min downscale stabilization would stall tests.
HPA_SYNC_PERIOD=${TANDEM_CP_HPA_SYNC_PERIOD:-5s}
HPA_DOWNSCALE_STABILIZATION=${TANDEM_CP_HPA_DOWNSCALE_STABILIZATION:-15s}
HPA_CPU_INIT_PERIOD=${TANDEM_CP_HPA_CPU_INITIALIZATION_PERIOD:-10s}
HPA_INITIAL_READINESS_DELAY=${TANDEM_CP_HPA_INITIAL_READINESS_DELAY:-5s}
HPA_TOLERANCE=${TANDEM_CP_HPA_TOLERANCE:-0.1}
# metrics-server minimum is 10s, and it must exceed --kubelet-request-timeout (5s here).
METRIC_RESOLUTION=${TANDEM_CP_METRIC_RESOLUTION:-10s}
# InPlacePodVerticalScaling is beta and on by default in 1.34; passing it
# documents that the suites rely on pods/resize.
FEATURE_GATES=${TANDEM_CP_FEATURE_GATES:-InPlacePodVerticalScaling=true}
NODE_CPU=${TANDEM_CP_NODE_CPU:-8}
NODE_MEMORY=${TANDEM_CP_NODE_MEMORY:-32Gi}
NODE_PODS=${TANDEM_CP_NODE_PODS:-110}
TIMEOUT=${TANDEM_CP_TIMEOUT:-120}            # seconds, per wait
WAIT_NODE_METRICS=${TANDEM_CP_WAIT_NODE_METRICS:-1}
VERBOSITY=${TANDEM_CP_VERBOSITY:-1}          # klog -v for the k8s components
SERVICE_CIDR=10.96.0.0/16
POD_CIDR=10.244.0.0/16
# Extra flags per component, word-split on spaces (flags only, no quoting).
read -r -a EXTRA_ETCD <<<"${TANDEM_CP_ETCD_ARGS:-}"
read -r -a EXTRA_APISERVER <<<"${TANDEM_CP_APISERVER_ARGS:-}"
read -r -a EXTRA_KCM <<<"${TANDEM_CP_KCM_ARGS:-}"
read -r -a EXTRA_SCHEDULER <<<"${TANDEM_CP_SCHEDULER_ARGS:-}"
read -r -a EXTRA_KWOK <<<"${TANDEM_CP_KWOK_ARGS:-}"
read -r -a EXTRA_MS <<<"${TANDEM_CP_METRICS_SERVER_ARGS:-}"

T0=$(date +%s.%N)
log() { printf '[tandem-cp %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }

# ----------------------------------------------------------------- binaries
if [[ -n ${TANDEM_CP_BIN_DIR:-} ]]; then
  BIN=$TANDEM_CP_BIN_DIR
elif $DO_BUILD; then
  BIN=$("$SCRIPT_DIR/build.sh" --print-bin-dir) || { log "FAILED: build.sh (see its output above)"; exit 1; }
else
  BIN=$(tandem_cp_cache_root)/$(tandem_cp_version_key)/bin
fi
for b in $TANDEM_CP_BINARIES; do
  [[ -x $BIN/$b ]] || { log "FAILED: binary $BIN/$b missing; run $SCRIPT_DIR/build.sh"; exit 1; }
done
KUBECTL=$BIN/kubectl
for tool in openssl curl setsid; do
  command -v "$tool" >/dev/null || { log "FAILED: '$tool' is required (Debian: apt-get install $tool)"; exit 1; }
done

# ---------------------------------------------------------------- state dir
if [[ -z $STATE_DIR ]]; then
  STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tandem-cp.XXXXXX")
else
  mkdir -p "$STATE_DIR"
  [[ -z $(ls -A "$STATE_DIR") ]] || { log "FAILED: state dir $STATE_DIR is not empty"; exit 1; }
fi
STATE_DIR=$(cd "$STATE_DIR" && pwd)
case $STATE_DIR in *[[:space:]]*) log "FAILED: state dir path must not contain spaces: $STATE_DIR"; exit 1 ;; esac
PKI=$STATE_DIR/pki
LOGS=$STATE_DIR/logs
KUBECONFIG_FILE=$STATE_DIR/kubeconfig
PIDS=$STATE_DIR/pids
mkdir -p "$PKI" "$LOGS" "$STATE_DIR/etcd" "$STATE_DIR/kwok" "$STATE_DIR/manifests"
chmod 700 "$STATE_DIR"
# The marker lets stop.sh refuse to rm -rf a directory that is not ours.
echo "tandem e2e control plane state dir" >"$STATE_DIR/.tandem-cp"
# A random tag in every component's environment: stop.sh's last-resort sweep
# finds processes by it (never by name), so it cannot hit anything else.
PROCESS_TAG=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "$PROCESS_TAG" >"$STATE_DIR/process-tag"
: >"$PIDS"

STARTED=false
CURRENT=""
# Any failure before the cluster is healthy: stop what was started, keep the
# logs next to the state dir (unless TANDEM_CP_KEEP_LOGS_ON_FAILURE=0).
on_exit() {
  local rc=$?
  if ! $STARTED || [[ ${FOREGROUND_STOP:-false} == true ]]; then
    trap - EXIT INT TERM HUP
    if [[ $rc -ne 0 && ${TANDEM_CP_KEEP_LOGS_ON_FAILURE:-1} == 1 ]]; then
      "$SCRIPT_DIR/stop.sh" --keep-logs "$STATE_DIR-logs" "$STATE_DIR" >&2 || true
      log "logs kept in $STATE_DIR-logs"
    else
      "$SCRIPT_DIR/stop.sh" "$STATE_DIR" >&2 || true
    fi
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM HUP

fail() {
  log "FAILED: component '${CURRENT:-setup}': $*"
  if [[ -n $CURRENT && -f $LOGS/$CURRENT.log ]]; then
    log "last 40 lines of $LOGS/$CURRENT.log:"
    tail -n 40 "$LOGS/$CURRENT.log" >&2
  fi
  exit 1
}

# ---------------------------------------------------------------------- PKI
# EC P-256 keys: instant to generate, accepted by every component and by
# Node's TLS stack. Two CAs: the cluster CA and a separate front-proxy CA for
# the aggregation layer (aggregated servers trust only the latter for the
# X-Remote-User headers).
CURRENT=pki
cat >"$PKI/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
[v3_ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
EOF
gen_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>>"$LOGS/pki.log"; }
gen_ca() { # NAME CN
  gen_key "$PKI/$1.key"
  openssl req -x509 -new -config "$PKI/openssl.cnf" -extensions v3_ca -key "$PKI/$1.key" \
    -subj "/CN=$2" -days 3650 -out "$PKI/$1.crt" 2>>"$LOGS/pki.log"
}
gen_cert() { # NAME CA SUBJECT EKU [SANS]
  local name=$1 ca=$2 subj=$3 eku=$4 sans=${5:-}
  gen_key "$PKI/$name.key"
  openssl req -new -config "$PKI/openssl.cnf" -key "$PKI/$name.key" -subj "$subj" \
    -out "$PKI/$name.csr" 2>>"$LOGS/pki.log"
  {
    echo "[leaf]"
    echo "basicConstraints = critical,CA:FALSE"
    echo "keyUsage = critical,digitalSignature"
    echo "extendedKeyUsage = $eku"
    echo "authorityKeyIdentifier = keyid"
    if [[ -n $sans ]]; then echo "subjectAltName = $sans"; fi
  } >"$PKI/$name.ext"
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/$ca.crt" -CAkey "$PKI/$ca.key" \
    -set_serial "0x$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" -days 3650 \
    -extfile "$PKI/$name.ext" -extensions leaf -out "$PKI/$name.crt" 2>>"$LOGS/pki.log"
  rm -f "$PKI/$name.csr" "$PKI/$name.ext"
}
{
  gen_ca ca tandem-e2e-ca
  gen_ca front-proxy-ca tandem-e2e-front-proxy-ca
  gen_cert apiserver ca "/CN=kube-apiserver" serverAuth \
    "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1,IP:10.96.0.1"
  gen_cert admin ca "/O=system:masters/CN=tandem-e2e-admin" clientAuth
  gen_cert front-proxy-client front-proxy-ca "/CN=front-proxy-client" clientAuth
  # One serving cert for everything else on loopback: kcm, scheduler, kwok,
  # metrics-server, and the platform's webhook / metrics adapter under test.
  # *.<ns>.svc names are what the aggregator verifies for an APIService
  # backed by a Service; add more with TANDEM_CP_EXTRA_SERVING_SANS.
  sans="DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1,DNS:metrics-server.kube-system.svc"
  sans+=",DNS:*.kube-system.svc,DNS:*.default.svc,DNS:*.tandem-system.svc"
  [[ -n ${TANDEM_CP_EXTRA_SERVING_SANS:-} ]] && sans+=",$TANDEM_CP_EXTRA_SERVING_SANS"
  gen_cert serving ca "/CN=tandem-e2e-serving" serverAuth,clientAuth "$sans"
  gen_key "$PKI/sa.key"
  openssl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>>"$LOGS/pki.log"
} || fail "openssl failed"
chmod 600 "$PKI"/*.key

# -------------------------------------------------------------------- ports
# Free ports, never fixed ones, so several clusters can run side by side.
# A port is taken only if nothing listens on it AND we win an atomic mkdir
# reservation (two start.sh racing cannot pick the same port); stop.sh
# releases the reservations. The range stays below Linux's ephemeral range
# (32768+) so outgoing connections cannot be sitting on it.
CURRENT=ports
PORT_LOCKS=${TMPDIR:-/tmp}/tandem-cp-ports
mkdir -p "$PORT_LOCKS"
echo "$PORT_LOCKS" >"$STATE_DIR/port-locks-dir"   # stop.sh may run with another TMPDIR
port_in_use() {
  local hex
  hex=$(printf ':%04X' "$1")
  awk -v h="$hex" 'NR > 1 && substr($2, length($2) - 4) == h { found = 1 } END { exit !found }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
pick_port() {
  local p tries=0 owner
  while (( tries++ < 200 )); do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 12000 ))
    port_in_use "$p" && continue
    if ! mkdir "$PORT_LOCKS/$p" 2>/dev/null; then
      # Reclaim a reservation whose owner state dir is gone (crashed run).
      owner=$(cat "$PORT_LOCKS/$p/owner" 2>/dev/null || true)
      if [[ -n $owner && ! -d $owner ]]; then
        rm -rf "${PORT_LOCKS:?}/$p"
        mkdir "$PORT_LOCKS/$p" 2>/dev/null || continue
      else
        continue
      fi
    fi
    echo "$STATE_DIR" >"$PORT_LOCKS/$p/owner"
    echo "$p" >>"$STATE_DIR/ports"
    echo "$p"
    return 0
  done
  return 1
}
for var in P_ETCD P_ETCD_PEER P_APISERVER P_KCM P_SCHEDULER P_KWOK P_METRICS_SERVER; do
  port=$(pick_port) || fail "could not find a free port for $var"
  printf -v "$var" '%s' "$port"
done

# --------------------------------------------------------------- kubeconfig
# One admin (system:masters) kubeconfig with embedded certs, for the control
# plane components, kubectl, and the TypeScript client alike.
b64() { base64 -w0 <"$1"; }
cat >"$KUBECONFIG_FILE" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: tandem-e2e
  cluster:
    server: https://127.0.0.1:$P_APISERVER
    certificate-authority-data: $(b64 "$PKI/ca.crt")
users:
- name: tandem-e2e-admin
  user:
    client-certificate-data: $(b64 "$PKI/admin.crt")
    client-key-data: $(b64 "$PKI/admin.key")
contexts:
- name: tandem-e2e
  context:
    cluster: tandem-e2e
    user: tandem-e2e-admin
current-context: tandem-e2e
EOF
chmod 600 "$KUBECONFIG_FILE"
kc() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" "$@"; }

# ------------------------------------------------------- process management
# Each component runs in its own session (setsid, which execs in place since
# a background job is never a process-group leader here, so $! is the
# component itself). Its process group is then killable as a unit, it is
# immune to the terminal's Ctrl-C aimed at this script, and it survives this
# script in detached mode. pids holds "name pid starttime" so stop.sh never
# signals a recycled PID.
proc_starttime() { awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null; }
declare -A PID_OF=()
start_proc() { # NAME CMD...
  local name=$1; shift
  CURRENT=$name
  log "starting $name"
  printf '$ %s\n' "$*" >"$LOGS/$name.log"
  (cd "$STATE_DIR" && TANDEM_CP_PROCESS_TAG=$PROCESS_TAG exec setsid "$@") \
    </dev/null >>"$LOGS/$name.log" 2>&1 &
  local pid=$!
  PID_OF[$name]=$pid
  echo "$name $pid $(proc_starttime "$pid")" >>"$PIDS"
}
is_alive() { # PID: running and not a zombie
  local st
  st=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $st && $st != Z && $st != X ]]
}
# wait_for NAME DESCRIPTION CMD...: polls CMD until it succeeds, failing fast
# if the component died and with a timeout otherwise. No fixed sleeps.
wait_for() {
  local name=$1 desc=$2; shift 2
  CURRENT=$name
  local deadline=$(( $(date +%s) + TIMEOUT ))
  while ! "$@" >/dev/null 2>&1; do
    if [[ -n $WATCH_PID ]] && ! is_alive "$WATCH_PID"; then
      CURRENT=watcher
      fail "the --watch-pid process $WATCH_PID exited during startup; the watchdog stops the cluster"
    fi
    if [[ -n ${PID_OF[$name]:-} ]] && ! is_alive "${PID_OF[$name]}"; then
      fail "exited during startup (waiting for: $desc)"
    fi
    (( $(date +%s) < deadline )) || fail "not healthy after ${TIMEOUT}s (waiting for: $desc)"
    sleep 0.25
  done
  log "$name: $desc ($(elapsed)s)"
}
https_ok() { curl -sf --max-time 2 --cacert "$PKI/ca.crt" "$1" | grep -qx ok; }

# Watchdog (--watch-pid): stops the cluster when the given process (e.g. the
# test harness) is gone, even if it died without calling stop.sh, and even if
# this script itself was killed halfway through startup. Started first for
# that reason. A zombie counts as gone (its parent may not have reaped it).
if [[ -n $WATCH_PID ]]; then
  kill -0 "$WATCH_PID" 2>/dev/null || { log "FAILED: --watch-pid $WATCH_PID is not running"; exit 1; }
  # shellcheck disable=SC2016 # expanded by the inner shell
  start_proc watcher bash -c 'while kill -0 "$1" 2>/dev/null && ! grep -q "^State:[[:space:]]*Z" "/proc/$1/status" 2>/dev/null; do sleep 1; done; exec "$2" "$3"' \
    tandem-cp-watcher "$WATCH_PID" "$SCRIPT_DIR/stop.sh" "$STATE_DIR"
  CURRENT=""
fi

# --------------------------------------------------------------------- etcd
# Single member on loopback. --unsafe-no-fsync: test data, speed over
# durability (the store is thrown away at stop).
start_proc etcd "$BIN/etcd" \
  --name=tandem-e2e \
  --data-dir="$STATE_DIR/etcd" \
  --listen-client-urls="http://127.0.0.1:$P_ETCD" \
  --advertise-client-urls="http://127.0.0.1:$P_ETCD" \
  --listen-peer-urls="http://127.0.0.1:$P_ETCD_PEER" \
  --initial-advertise-peer-urls="http://127.0.0.1:$P_ETCD_PEER" \
  --initial-cluster="tandem-e2e=http://127.0.0.1:$P_ETCD_PEER" \
  --unsafe-no-fsync \
  --quota-backend-bytes=$((2 * 1024 * 1024 * 1024)) \
  --auto-compaction-mode=periodic --auto-compaction-retention=5m \
  --log-level=warn \
  "${EXTRA_ETCD[@]}"
etcd_ok() { curl -sf --max-time 2 "http://127.0.0.1:$P_ETCD/health" | grep -q '"health":"true"'; }
wait_for etcd "/health" etcd_ok

# ----------------------------------------------------------- kube-apiserver
# Admission stays ON (default plugin set: the suites need the mutating
# webhook and ServiceAccount admission). --advertise-address=127.0.0.1: the
# default-route guess fails on hosts without one. Aggregation layer: a
# dedicated front-proxy client cert, allowed by name.
start_proc kube-apiserver "$BIN/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$P_ETCD" \
  --etcd-prefix=/registry \
  --bind-address=127.0.0.1 \
  --advertise-address=127.0.0.1 \
  --secure-port="$P_APISERVER" \
  --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
  --client-ca-file="$PKI/ca.crt" \
  --authorization-mode=Node,RBAC \
  --allow-privileged=true \
  --service-cluster-ip-range="$SERVICE_CIDR" \
  --endpoint-reconciler-type=none \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$PKI/sa.pub" \
  --service-account-signing-key-file="$PKI/sa.key" \
  --proxy-client-cert-file="$PKI/front-proxy-client.crt" \
  --proxy-client-key-file="$PKI/front-proxy-client.key" \
  --requestheader-client-ca-file="$PKI/front-proxy-ca.crt" \
  --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User \
  --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- \
  --feature-gates="$FEATURE_GATES" \
  --v="$VERBOSITY" \
  "${EXTRA_APISERVER[@]}"
wait_for kube-apiserver "/readyz" https_ok "https://127.0.0.1:$P_APISERVER/readyz"

# ------------------------------------------- controller-manager, scheduler
# Started together (independent of each other) to save start time. Both get
# our serving cert: without --tls-cert-file they would write a self-signed
# one to /var/run/kubernetes, outside the state dir. --leader-elect=false:
# one instance, and no waiting out a stale lease.
start_proc kube-controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig="$KUBECONFIG_FILE" \
  --bind-address=127.0.0.1 \
  --secure-port="$P_KCM" \
  --tls-cert-file="$PKI/serving.crt" --tls-private-key-file="$PKI/serving.key" \
  --authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics \
  --leader-elect=false \
  --controllers='*' \
  --root-ca-file="$PKI/ca.crt" \
  --service-account-private-key-file="$PKI/sa.key" \
  --service-cluster-ip-range="$SERVICE_CIDR" \
  --kube-api-qps=100 --kube-api-burst=200 \
  --horizontal-pod-autoscaler-sync-period="$HPA_SYNC_PERIOD" \
  --horizontal-pod-autoscaler-downscale-stabilization="$HPA_DOWNSCALE_STABILIZATION" \
  --horizontal-pod-autoscaler-cpu-initialization-period="$HPA_CPU_INIT_PERIOD" \
  --horizontal-pod-autoscaler-initial-readiness-delay="$HPA_INITIAL_READINESS_DELAY" \
  --horizontal-pod-autoscaler-tolerance="$HPA_TOLERANCE" \
  --feature-gates="$FEATURE_GATES" \
  --v="$VERBOSITY" \
  "${EXTRA_KCM[@]}"
start_proc kube-scheduler "$BIN/kube-scheduler" \
  --kubeconfig="$KUBECONFIG_FILE" \
  --bind-address=127.0.0.1 \
  --secure-port="$P_SCHEDULER" \
  --tls-cert-file="$PKI/serving.crt" --tls-private-key-file="$PKI/serving.key" \
  --authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics \
  --leader-elect=false \
  --kube-api-qps=100 --kube-api-burst=200 \
  --feature-gates="$FEATURE_GATES" \
  --v="$VERBOSITY" \
  "${EXTRA_SCHEDULER[@]}"
wait_for kube-controller-manager "/healthz" https_ok "https://127.0.0.1:$P_KCM/healthz"
wait_for kube-scheduler "/healthz" https_ok "https://127.0.0.1:$P_SCHEDULER/healthz"

# --------------------------------------------------------------------- kwok
# Manages only nodes annotated kwok.x-k8s.io/node=fake. Its server (same
# port, TLS with our serving cert) exposes the per-node kubelet resource
# metrics. KWOK_WORKDIR keeps it from reading a user's ~/.kwok/kwok.yaml.
kwok_configs=()
for f in "$SCRIPT_DIR"/kwok/*.yaml; do kwok_configs+=(--config="$f"); done
KWOK_WORKDIR=$STATE_DIR/kwok start_proc kwok "$BIN/kwok" \
  --kubeconfig="$KUBECONFIG_FILE" \
  "${kwok_configs[@]}" \
  --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --node-ip=127.0.0.1 \
  --node-port="$P_KWOK" \
  --server-address="127.0.0.1:$P_KWOK" \
  --tls-cert-file="$PKI/serving.crt" --tls-private-key-file="$PKI/serving.key" \
  --node-lease-duration-seconds=40 \
  --cidr="$POD_CIDR" \
  "${EXTRA_KWOK[@]}"
kwok_ok() { curl -sf --max-time 2 --cacert "$PKI/ca.crt" "https://127.0.0.1:$P_KWOK/healthz" >/dev/null; }
wait_for kwok "/healthz" kwok_ok

# -------------------------------------------------------------------- nodes
# Fake nodes with realistic capacity, spread over three zones. They carry no
# address: kwok's node stage sets InternalIP=127.0.0.1 and the kwok port as
# kubelet port, which is where metrics-server then scrapes.
CURRENT=nodes
NODE_NAMES=()
for (( i = 0; i < NODES; i++ )); do NODE_NAMES+=("kwok-node-$i"); done
TANDEM_NODE_CPU=$NODE_CPU TANDEM_NODE_MEMORY=$NODE_MEMORY TANDEM_NODE_PODS=$NODE_PODS \
  "$SCRIPT_DIR/fake-nodes.sh" "$NODES" >"$STATE_DIR/manifests/nodes.yaml"
if (( NODES > 0 )); then
  kc apply -f "$STATE_DIR/manifests/nodes.yaml" >>"$LOGS/kubectl.log" 2>&1 || { CURRENT=kubectl; fail "creating nodes failed"; }
  nodes_ready() {
    local ready
    ready=$(kc get nodes -l type=kwok -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c '^True$')
    [[ $ready -ge $NODES ]]
  }
  wait_for kwok "$NODES nodes Ready" nodes_ready
fi
# ServiceAccount admission rejects pods until the namespace's default
# ServiceAccount exists; make sure kcm has created it for "default".
sa_ok() { kc get serviceaccount default -n default; }
wait_for kube-controller-manager "default ServiceAccount" sa_ok

# ----------------------------------------------------------- metrics-server
# Registered as an aggregated API through a Service of type ExternalName
# pointing at 127.0.0.1: Endpoints cannot hold loopback addresses, but the
# aggregator resolves an ExternalName Service to host:port of the APIService
# itself. The aggregator verifies metrics-server.kube-system.svc against our
# CA (caBundle), which the serving cert carries as a SAN.
start_proc metrics-server "$BIN/metrics-server" \
  --kubeconfig="$KUBECONFIG_FILE" \
  --authentication-kubeconfig="$KUBECONFIG_FILE" \
  --authorization-kubeconfig="$KUBECONFIG_FILE" \
  --bind-address=127.0.0.1 \
  --secure-port="$P_METRICS_SERVER" \
  --tls-cert-file="$PKI/serving.crt" --tls-private-key-file="$PKI/serving.key" \
  --kubelet-preferred-address-types=InternalIP \
  --kubelet-use-node-status-port \
  --kubelet-certificate-authority="$PKI/ca.crt" \
  --metric-resolution="$METRIC_RESOLUTION" \
  --kubelet-request-timeout=5s \
  --v="$VERBOSITY" \
  "${EXTRA_MS[@]}"
cat >"$STATE_DIR/manifests/metrics-server.yaml" <<EOF
apiVersion: v1
kind: Service
metadata:
  name: metrics-server
  namespace: kube-system
  labels: {app.kubernetes.io/name: metrics-server, app.kubernetes.io/managed-by: tandem-e2e}
spec:
  type: ExternalName
  externalName: 127.0.0.1
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.metrics.k8s.io
  labels: {app.kubernetes.io/name: metrics-server, app.kubernetes.io/managed-by: tandem-e2e}
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  caBundle: $(b64 "$PKI/ca.crt")
  service:
    namespace: kube-system
    name: metrics-server
    port: $P_METRICS_SERVER
EOF
ms_live() { https_ok "https://127.0.0.1:$P_METRICS_SERVER/livez"; }
wait_for metrics-server "/livez" ms_live
kc apply -f "$STATE_DIR/manifests/metrics-server.yaml" >>"$LOGS/kubectl.log" 2>&1 || { CURRENT=kubectl; fail "registering the metrics APIService failed"; }
apiservice_ok() {
  [[ $(kc get apiservice v1beta1.metrics.k8s.io -o jsonpath='{.status.conditions[?(@.type=="Available")].status}') == True ]]
}
wait_for metrics-server "APIService v1beta1.metrics.k8s.io Available" apiservice_ok
if [[ $WAIT_NODE_METRICS == 1 && $NODES -gt 0 ]]; then
  # CPU is a rate: metrics need two scrapes (up to 2 x metric resolution).
  node_metrics_ok() {
    [[ $(kc get --raw /apis/metrics.k8s.io/v1beta1/nodes | grep -o '"window"' | wc -l) -ge $NODES ]]
  }
  wait_for metrics-server "node metrics served through the aggregator" node_metrics_ok
fi

# ------------------------------------------------------------------ outputs
START_SECONDS=$(elapsed)
node_list=$(IFS=,; echo "${NODE_NAMES[*]}")
ENV_CONTENT="TANDEM_CP_STATE_DIR=$STATE_DIR
KUBECONFIG=$KUBECONFIG_FILE
TANDEM_CP_KUBECONFIG=$KUBECONFIG_FILE
TANDEM_CP_APISERVER_URL=https://127.0.0.1:$P_APISERVER
TANDEM_CP_APISERVER_PORT=$P_APISERVER
TANDEM_CP_ETCD_URL=http://127.0.0.1:$P_ETCD
TANDEM_CP_ETCD_PORT=$P_ETCD
TANDEM_CP_KCM_PORT=$P_KCM
TANDEM_CP_SCHEDULER_PORT=$P_SCHEDULER
TANDEM_CP_KWOK_PORT=$P_KWOK
TANDEM_CP_METRICS_SERVER_PORT=$P_METRICS_SERVER
TANDEM_CP_LOG_DIR=$LOGS
TANDEM_CP_PID_FILE=$PIDS
TANDEM_CP_CA_CERT=$PKI/ca.crt
TANDEM_CP_CA_KEY=$PKI/ca.key
TANDEM_CP_FRONT_PROXY_CA_CERT=$PKI/front-proxy-ca.crt
TANDEM_CP_SERVING_CERT=$PKI/serving.crt
TANDEM_CP_SERVING_KEY=$PKI/serving.key
TANDEM_CP_BIN_DIR=$BIN
TANDEM_CP_KUBECTL=$KUBECTL
TANDEM_CP_NODE_NAMES=$node_list
TANDEM_CP_K8S_VERSION=$TANDEM_K8S_VERSION
TANDEM_CP_STOP_COMMAND=$SCRIPT_DIR/stop.sh
TANDEM_CP_START_SECONDS=$START_SECONDS"
printf '%s\n' "$ENV_CONTENT" >"$STATE_DIR/cluster.env"
if [[ -n $ENV_FILE ]]; then
  printf '%s\n' "$ENV_CONTENT" >"$ENV_FILE.tmp.$$" && mv -f "$ENV_FILE.tmp.$$" "$ENV_FILE"
fi
STARTED=true
CURRENT=""
log "control plane healthy in ${START_SECONDS}s (state: $STATE_DIR)"
log "stop with: $SCRIPT_DIR/stop.sh $STATE_DIR"
printf '%s\n' "$ENV_CONTENT"
log "export KUBECONFIG=$KUBECONFIG_FILE"

if ! $FOREGROUND; then
  trap - EXIT INT TERM HUP
  exit 0
fi

# ------------------------------------------------------- foreground: supervise
FOREGROUND_STOP=false
trap 'log "signal received, stopping"; FOREGROUND_STOP=true; exit 0' INT TERM HUP
while true; do
  for name in "${!PID_OF[@]}"; do
    if ! is_alive "${PID_OF[$name]}"; then
      CURRENT=$name
      FOREGROUND_STOP=true
      fail "exited unexpectedly"
    fi
  done
  # sleep in the background + wait, so a signal is handled at once.
  sleep 1 & wait $! || true
done
