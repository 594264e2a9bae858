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

# Every app as an image, built from the one shared recipe at the app's own version.
for manifest in "$ROOT"/apps/*/package.json; do
  app=$(basename "$(dirname "$manifest")")
  version=$(node -p "require('$manifest').version")
  entry=$(node -p "Object.values(require('$manifest').bin ?? {})[0] ?? ''")
  [[ -n $entry ]] || continue
  log "building image tandem/$app:$version"
  docker build -f "$ROOT/deploy/app.Dockerfile" --build-arg "APP=$app" --build-arg "ENTRY=$entry" \
    -t "tandem/$app:$version" "$ROOT"
  kind load docker-image --name "$CLUSTER" "tandem/$app:$version"
done
# The suites start Tandem's apps themselves (as on the local path), so only the CRDs are
# applied here; the images above prove the apps build and are loaded for manual use of
# deploy/<app>/.
log "applying deploy/crds"
kubectl apply -f "$ROOT/deploy/crds/"

log "running the e2e suites against kind"
cd "$ROOT"
npx nx test e2e --outputStyle=stream
