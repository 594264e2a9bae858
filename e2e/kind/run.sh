#!/usr/bin/env bash
# The kind path: the same e2e suites against a kind cluster, for machines that have
# Docker and the internet (laptops, GitHub Actions). Here (no Docker engine) the suites
# run against e2e/control-plane instead; both paths share every test and every kwok stage.
#
# Usage: e2e/kind/run.sh [--keep]    (--keep leaves the cluster running afterwards)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../control-plane/common.sh
. "$ROOT/e2e/control-plane/common.sh"

CLUSTER=${TANDEM_KIND_CLUSTER:-tandem-e2e}
KEEP=false
[[ ${1:-} == --keep ]] && KEEP=true
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tandem-kind.XXXXXX")
export KUBECONFIG="$WORK/kubeconfig"

log() { printf '[kind %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
cleanup() {
  local status=$?
  if [[ $status -ne 0 ]]; then
    log "failed; recent events and pods:"
    kubectl get events -A --sort-by=.lastTimestamp 2>/dev/null | tail -30 || true
    kubectl get pods -A -o wide 2>/dev/null || true
  fi
  if ! $KEEP; then kind delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT

for tool in kind kubectl docker; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is required for the kind path" >&2; exit 2; }
done

log "creating kind cluster $CLUSTER"
kind create cluster --name "$CLUSTER" --config "$ROOT/e2e/kind/cluster.yaml" --kubeconfig "$KUBECONFIG" --wait 120s

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

# Each app that ships an image: build it at the app's own version and load it into kind.
for dockerfile in "$ROOT"/apps/*/Dockerfile; do
  [[ -e $dockerfile ]] || continue
  app=$(basename "$(dirname "$dockerfile")")
  version=$(node -p "require('$ROOT/apps/$app/package.json').version")
  log "building image tandem/$app:$version"
  docker build -t "tandem/$app:$version" -f "$dockerfile" "$ROOT"
  kind load docker-image --name "$CLUSTER" "tandem/$app:$version"
done
if compgen -G "$ROOT/deploy/*.yaml" >/dev/null || compgen -G "$ROOT/deploy/*/*.yaml" >/dev/null; then
  log "applying deploy/"
  kubectl apply -R -f "$ROOT/deploy/"
fi

log "running the e2e suites against kind"
cd "$ROOT"
npx nx test e2e --outputStyle=stream
