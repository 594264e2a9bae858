#!/usr/bin/env bash
# The kind path: a kind cluster for the e2e suites, in one of two modes from one code
# path, picked by whether an image registry answers (a 5 s probe):
#   online   (laptops, GitHub Actions): upstream images, as cluster.yaml names them;
#   offline  (no registry, e.g. the development machines): every image built here from
#            Go modules and Debian packages, cached by version key (offline-images.sh).
# Both: a Docker engine (the running one, else Debian's started and later stopped by
# this script: docker-engine.sh), kind (online an installed one, else the pinned one:
# kind-tools.sh), the cluster, every Tandem app image from deploy/app.Dockerfile loaded
# into it, and a smoke check (node Ready, a pod of a locally built image on the node,
# cluster DNS and a Service).
# Online mode then installs kwok and metrics-server and runs the e2e suites; offline
# mode stops after the smoke check for now (its platform install comes next).
#
# Usage: e2e/kind/run.sh [--keep] [--smoke-only]
#   --keep        leave the cluster (and an engine this script started) running
#   --smoke-only  stop after the smoke check in online mode too
# Environment: TANDEM_KIND_MODE=online|offline skips the probe.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../control-plane/common.sh
. "$ROOT/e2e/control-plane/common.sh"

CLUSTER=${TANDEM_KIND_CLUSTER:-tandem-e2e}
KEEP=false
SMOKE_ONLY=false
for arg in "$@"; do
  case $arg in
    --keep) KEEP=true ;;
    --smoke-only) SMOKE_ONLY=true ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tandem-kind.XXXXXX")
export KUBECONFIG="$WORK/kubeconfig"
ENGINE_STARTED=false
CLUSTER_MADE=false
T0=$(date +%s)

log() { printf '[kind %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
elapsed() { echo "$(( $(date +%s) - T0 ))s"; }

# On failure: the node's logs (kubelet, containerd), the cluster's pods and events,
# and the engine's log when this script started the engine.
print_failure_logs() {
  local node=$CLUSTER-control-plane
  if $CLUSTER_MADE; then
    log "failed; kind export logs -> $WORK/logs (kept)"
    "$KIND" export logs --name "$CLUSTER" "$WORK/logs" >/dev/null 2>&1 || true
    log "node $node: journal of kubelet and containerd (last 60 lines)"
    docker exec "$node" journalctl --no-pager -u kubelet -u containerd 2>/dev/null | tail -n 60 >&2 || true
    log "pods and recent events"
    kubectl get pods -A -o wide >&2 2>&1 || true
    kubectl get events -A --sort-by=.lastTimestamp 2>&1 | tail -n 30 >&2 || true
  fi
  if $ENGINE_STARTED && [[ -f ${TANDEM_KIND_STATE_DIR:-/run/tandem-kind}/dockerd.log ]]; then
    log "dockerd log: last 30 warnings and errors"
    grep -E 'level=(warning|error|fatal)' "${TANDEM_KIND_STATE_DIR:-/run/tandem-kind}/dockerd.log" | tail -n 30 >&2 || true
  fi
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [[ $status -ne 0 ]]; then print_failure_logs; fi
  if ! $KEEP; then
    if $CLUSTER_MADE; then "$KIND" delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true; fi
    if $ENGINE_STARTED; then
      docker network rm kind >/dev/null 2>&1 || true
      # Our engine's data root is a cache: untagged images (replaced app images, build
      # stages of older trees) go after a day; newer ones are the next run's layer cache.
      docker image prune -f --filter until=24h >/dev/null 2>&1 || true
      "$ROOT/e2e/kind/docker-engine.sh" stop || true
    fi
  else
    log "kept: cluster $CLUSTER, KUBECONFIG=$KUBECONFIG"
    if $ENGINE_STARTED; then
      log "kept: dockerd (DOCKER_HOST=$DOCKER_HOST); end with: $KIND delete cluster --name $CLUSTER" \
        "&& DOCKER_HOST=$DOCKER_HOST docker network rm kind && e2e/kind/docker-engine.sh stop"
    fi
  fi
  if ! $KEEP && [[ $status -eq 0 || ! -d $WORK/logs ]]; then rm -rf "$WORK"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

registry_answers() {
  local host code
  for host in registry-1.docker.io registry.k8s.io; do
    code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "https://$host/v2/" 2>/dev/null || true)
    [[ $code != 000 && -n $code ]] || return 1
  done
}
for tool in docker go curl; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is required for the kind path" >&2; exit 2; }
done
MODE=${TANDEM_KIND_MODE:-}
if [[ -z $MODE ]]; then
  if registry_answers; then MODE=online; else MODE=offline; fi
fi
log "mode: $MODE"


engine_env=$("$ROOT/e2e/kind/docker-engine.sh" start)
if [[ -n $engine_env ]]; then
  eval "$engine_env"
  ENGINE_STARTED=true
fi
# Online, a kind already installed (GitHub Actions' kind-action) serves; else the pinned one.
if [[ $MODE == online ]] && command -v kind >/dev/null; then
  KIND=$(command -v kind)
else
  KIND=$("$ROOT/e2e/kind/kind-tools.sh")/kind
fi

config=$WORK/cluster.yaml
if [[ $MODE == offline ]]; then
  { read -r node_image; read -r extra_images; } < <("$ROOT/e2e/kind/offline-images.sh")
  [[ -n ${extra_images:-} ]] || { log "offline-images.sh gave no images"; exit 1; }
  PATH=$("$ROOT/e2e/control-plane/build.sh" --with-node --print-bin-dir):$PATH
  # cluster.yaml with the local node image, and kind's CNI (kindnetd, not buildable
  # offline) replaced by the bridge conflist baked into that image.
  sed "s#^\([[:space:]]*image:\).*#\1 $node_image#" "$ROOT/e2e/kind/cluster.yaml" >"$config"
  printf 'networking:\n  disableDefaultCNI: true\n' >>"$config"
else
  command -v kubectl >/dev/null || PATH=$("$ROOT/e2e/control-plane/build.sh" --print-bin-dir):$PATH
  cp "$ROOT/e2e/kind/cluster.yaml" "$config"
fi
log "images ready at $(elapsed)"

log "creating kind cluster $CLUSTER"
# A cluster of that name left by a run that was killed, or kept (--keep), goes first.
"$KIND" delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true
CLUSTER_MADE=true
"$KIND" create cluster --name "$CLUSTER" --config "$config" --kubeconfig "$KUBECONFIG" --wait 180s
kubectl wait --for=condition=Ready "node/$CLUSTER-control-plane" --timeout=120s >/dev/null
log "cluster Ready at $(elapsed)"

node_base=()
if [[ $MODE == offline ]]; then
  node_base=(--node-image "$("$ROOT/e2e/kind/node-base-image.sh")")
  "$KIND" load image-archive --name "$CLUSTER" "$extra_images" >&2
fi
mapfile -t app_images < <("$ROOT/e2e/kind/app-images.sh" --cluster "$CLUSTER" --kind "$KIND" "${node_base[@]}")
((${#app_images[@]})) || { log "no app image built"; exit 1; }
log "cluster Ready with ${#app_images[@]} app images loaded at $(elapsed)"

"$ROOT/e2e/kind/smoke.sh" "${app_images[0]}"
log "smoke check passed at $(elapsed)"

if [[ $MODE == offline ]] || $SMOKE_ONLY; then
  log "done ($MODE mode, smoke only) in $(elapsed)"
  exit 0
fi

# kwok in the cluster: the same fake nodes, stages and usage rules as the local path, so
# the suites' pods (nodeSelector type=kwok) never land on the real node.
log "installing kwok $TANDEM_KWOK_VERSION with Tandem's stages"
kubectl apply -f "https://github.com/kubernetes-sigs/kwok/releases/download/$TANDEM_KWOK_VERSION/kwok.yaml"
kubectl -n kube-system rollout status deployment/kwok-controller --timeout=120s
kubectl apply -f "$ROOT/e2e/control-plane/kwok/"
"$ROOT/e2e/control-plane/fake-nodes.sh" 3 | kubectl apply -f -

log "installing metrics-server $TANDEM_METRICS_SERVER_VERSION"
kubectl apply -f "https://github.com/kubernetes-sigs/metrics-server/releases/download/$TANDEM_METRICS_SERVER_VERSION/components.yaml"
kubectl -n kube-system patch deployment metrics-server --type=json -p '[
  {"op": "add", "path": "/spec/template/spec/containers/0/args/-", "value": "--kubelet-insecure-tls"},
  {"op": "add", "path": "/spec/template/spec/containers/0/args/-", "value": "--metric-resolution=10s"}]'
kubectl -n kube-system rollout status deployment/metrics-server --timeout=180s

# The suites start Tandem's apps themselves (as on the local path), so only the CRDs are
# applied here; the app images above prove the apps build and are loaded for manual use
# of deploy/<app>/.
log "applying deploy/crds"
kubectl apply -f "$ROOT/deploy/crds/"

log "running the e2e suites against kind"
cd "$ROOT"
npx nx test e2e --outputStyle=stream
