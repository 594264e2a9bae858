#!/usr/bin/env bash
# Installs what the e2e suites need besides Kubernetes into the kind cluster of
# KUBECONFIG, the same as the local control plane has (e2e/control-plane/start.sh):
#   kwok            a Deployment in kube-system with Tandem's stages, usage rule and
#                   resource-metrics endpoint (e2e/control-plane/kwok/*.yaml, as a ConfigMap)
#   fake nodes      e2e/control-plane/fake-nodes.sh 3 (label type=kwok, the suites' pods
#                   select it), managed by that kwok, tainted so only those pods go there
#   metrics-server  metrics.k8s.io for the fake nodes' pods and for the real node
# then waits until kwok is available, the fake nodes are Ready and the APIService
# v1beta1.metrics.k8s.io is Available. Idempotent: a second run changes nothing (kwok
# restarts only when its config files changed).
#
# Usage: KUBECONFIG=... e2e/kind/addons.sh
#        (the kwok and metrics-server images of e2e/control-plane/common.sh present in
#        the cluster, or pullable: imagePullPolicy IfNotPresent)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR/.. source=control-plane/common.sh
. "$ROOT/e2e/control-plane/common.sh"
MANIFESTS=$ROOT/e2e/kind/addons
KWOK_CONFIG_DIR=$ROOT/e2e/control-plane/kwok
NODES=3
KWOK=app.kubernetes.io/name=kwok-controller
MS=app.kubernetes.io/name=metrics-server

log() { printf '[addons %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Never the user's current context by accident: the cluster must be named.
[[ -n ${KUBECONFIG:-} ]] || { echo "addons.sh: set KUBECONFIG to the kind cluster's kubeconfig" >&2; exit 2; }
command -v kubectl >/dev/null || PATH=$("$ROOT/e2e/control-plane/build.sh" --print-bin-dir):$PATH

# On a timeout: the pods of what failed, the recent events about it, and its logs.
explain() {
  local what=$1 selector=$2
  log "$what is not ready; its pods, events and logs follow"
  kubectl -n kube-system get pods -l "$selector" -o wide >&2 || true
  kubectl -n kube-system get events --sort-by=.lastTimestamp 2>&1 | grep -e '^LAST' -e "${selector#*=}" |
    tail -n 30 >&2 || true
  kubectl -n kube-system logs -l "$selector" --all-containers --prefix --tail=40 >&2 2>&1 || true
}
explain_nodes() {
  log "fake nodes are not Ready; their state, events and kwok's logs follow"
  kubectl get nodes -l type=kwok -o wide >&2 || true
  kubectl get nodes -l type=kwok -o jsonpath='{range .items[*]}{.metadata.name}{": "}{.status.conditions[?(@.type=="Ready")]}{"\n"}{end}' >&2 || true
  kubectl get events -A --field-selector involvedObject.kind=Node --sort-by=.lastTimestamp 2>&1 | tail -n 20 >&2 || true
  explain kwok "$KWOK"
}

# The manifests are templates: @NAME@ placeholders take values only known here.
render() {
  local out
  out=$(sed -e "s|@TANDEM_KWOK_VERSION@|$TANDEM_KWOK_VERSION|g" \
    -e "s|@TANDEM_METRICS_SERVER_VERSION@|$TANDEM_METRICS_SERVER_VERSION|g" \
    -e "s|@KWOK_CONFIGS@|$kwok_configs|g" \
    -e "s|@KWOK_CONFIG_SHA256@|$kwok_config_sha|g" "$1")
  if grep -q '@[A-Z0-9_]*@' <<<"$out"; then
    log "$1: placeholder without a value: $(grep -o '@[A-Z0-9_]*@' <<<"$out" | sort -u | tr '\n' ' ')"
    return 1
  fi
  printf '%s\n' "$out"
}

t0=$(date +%s)

# ------------------------------------------------------------------ kwok
# The very files the local control plane passes with --config, one ConfigMap key each;
# kwok gets them as one comma-separated --config (a string slice flag).
shopt -s nullglob
config_files=("$KWOK_CONFIG_DIR"/*.yaml)
shopt -u nullglob
((${#config_files[@]})) || { log "no config files in $KWOK_CONFIG_DIR"; exit 1; }
from_file=()
kwok_configs=
for f in "${config_files[@]}"; do
  from_file+=(--from-file="$f")
  kwok_configs+=${kwok_configs:+,}/etc/kwok/$(basename "$f")
done
# Of names and content, not of paths: another checkout of the same files keeps kwok running.
kwok_config_sha=$(cd "$KWOK_CONFIG_DIR" && sha256sum -- *.yaml | sha256sum | cut -c1-64)

log "kwok $TANDEM_KWOK_VERSION (config: ${config_files[*]##*/})"
kubectl create configmap kwok-config --namespace kube-system "${from_file[@]}" --dry-run=client -o yaml |
  kubectl label --local -f - -o yaml app.kubernetes.io/name=kwok-controller app.kubernetes.io/managed-by=tandem-e2e |
  kubectl apply -f - >&2
render "$MANIFESTS/kwok.yaml" | kubectl apply -f - >&2

# Applied now, so that kwok picks the nodes up as soon as it runs. JSON between the two
# kubectl: `label --local -o yaml` prints several objects without `---` between them.
applied=$("$ROOT/e2e/control-plane/fake-nodes.sh" "$NODES" |
  kubectl label --local -f - -o json app.kubernetes.io/managed-by=tandem-e2e |
  kubectl apply -f - -o name)
mapfile -t nodes <<<"$applied"   # node/kwok-node-0 ...
# Unlike the local control plane's, this cluster has a real node, where the platform's
# own pods must run: the fake nodes take only pods that tolerate this taint (the suites'
# pods do: ON_FAKE_NODES in e2e/harness/workloads.ts).
kubectl taint nodes "${nodes[@]#node/}" kwok.x-k8s.io/node=fake:NoSchedule --overwrite >&2

log "metrics-server $TANDEM_METRICS_SERVER_VERSION"
render "$MANIFESTS/metrics-server.yaml" | kubectl apply -f - >&2

# ---------------------------------------------------------------- waits
if ! kubectl -n kube-system rollout status deployment/kwok-controller --timeout=120s >&2; then
  explain kwok "$KWOK"
  exit 1
fi

# kwok writes a node's InternalIP (its pod IP) only when it initializes the node, that
# is while the node is not Ready. Nodes initialized by an earlier kwok pod would keep
# sending metrics-server to that pod's old IP: setting their Ready condition to Unknown
# makes the current pod initialize them again (stage tandem-node-initialize), once it
# has taken over their Leases: when the old pod's expire, up to 40 s after it stopped.
kwok_ip=$(kubectl -n kube-system get pods -l "$KWOK" --no-headers \
  -o custom-columns=IP:.status.podIP,DELETING:.metadata.deletionTimestamp | awk '$2 == "<none>" {print $1}')
[[ $kwok_ip =~ ^[0-9a-f.:]+$ ]] || { log "expected one running kwok pod with an IP, got: '$kwok_ip'"; explain kwok "$KWOK"; exit 1; }
node_ips() {
  kubectl get "${nodes[@]}" -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.addresses[?(@.type=="InternalIP")].address}{"\n"}{end}'
}
ips=$(node_ips)
while read -r name ip; do
  if [[ -n ${ip:-} && $ip != "$kwok_ip" ]]; then
    log "node $name points at $ip, kwok now runs at $kwok_ip: re-initializing it"
    kubectl patch node "$name" --subresource=status --type=strategic -p '{"status":{"conditions":[
      {"type":"Ready","status":"Unknown","reason":"KwokMoved","message":"tandem addons.sh: kwok pod replaced"}]}}' >&2
  fi
done <<<"$ips"

if ! kubectl wait --for=condition=Ready "${nodes[@]}" --timeout=120s >&2; then
  explain_nodes
  exit 1
fi
stale=$(node_ips | awk -v ip="$kwok_ip" '$2 != ip {print $1}')
if [[ -n $stale ]]; then
  log "Ready, but not pointing at kwok ($kwok_ip): $stale"
  explain_nodes
  exit 1
fi

if ! kubectl -n kube-system rollout status deployment/metrics-server --timeout=180s >&2; then
  explain metrics-server "$MS"
  exit 1
fi
if ! kubectl wait --for=condition=Available apiservice/v1beta1.metrics.k8s.io --timeout=120s >&2; then
  kubectl get apiservice v1beta1.metrics.k8s.io \
    -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}' >&2 || true
  explain metrics-server "$MS"
  exit 1
fi
log "kwok, $NODES fake nodes and metrics-server ready in $(( $(date +%s) - t0 ))s"
