#!/usr/bin/env bash
# Installs the whole platform into the cluster of KUBECONFIG exactly as a user does,
# `kubectl apply -k deploy/`, then waits for every Deployment in tandem-system to be
# Available and for the adapter's APIServices to be Available: the API server then
# reaches the webhook and the adapter through their Services, nothing on the host.
#
# Usage: platform.sh      (the app images tandem/<app>:<version> loaded in the cluster)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { printf '[platform %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# On a timeout: what each Tandem pod is doing and what it said.
explain() {
  log "not ready; pods, events and logs of tandem-system follow"
  kubectl -n tandem-system get pods -o wide >&2 || true
  kubectl -n tandem-system get events --sort-by=.lastTimestamp 2>&1 | tail -n 30 >&2 || true
  kubectl -n tandem-system logs --all-containers --prefix --tail=30 \
    -l 'app.kubernetes.io/name' >&2 2>&1 || true
  kubectl get apiservices -o wide 2>&1 | grep -e NAME -e custom.metrics >&2 || true
}

t0=$(date +%s)
log "kubectl apply -k deploy/"
kubectl apply -k "$ROOT/deploy/" >&2
if ! kubectl -n tandem-system wait --for=condition=Available deployment --all --timeout=240s >&2; then
  explain
  exit 1
fi
apiservices=$(kubectl get apiservices -o name | grep 'custom\.metrics\.k8s\.io$' || true)
[[ -n $apiservices ]] || { log "deploy/ made no custom.metrics.k8s.io APIService"; exit 1; }
# shellcheck disable=SC2086  # one argument per APIService
if ! kubectl wait --for=condition=Available $apiservices --timeout=120s >&2; then
  explain
  exit 1
fi
log "platform installed and Available in $(( $(date +%s) - t0 ))s"
