#!/usr/bin/env bash
# Installs the whole platform into the cluster of KUBECONFIG exactly as a user does,
# `kubectl apply -k deploy/`, then waits for every Deployment in tandem-system to be
# Available and for the adapter's APIServices to be Available: the API server then
# reaches the webhook and the adapter through their Services, nothing on the host.
#
# Usage: platform.sh [KUSTOMIZATION]   (the app images tandem/<app>:<version> loaded in the
#   cluster; KUSTOMIZATION, relative to the repository, defaults to deploy/: run.sh passes
#   e2e/kind/installed-platform, deploy/ with certificate lifetimes of seconds and the
#   CPUStartupBoost and NativeSidecar gates on)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { printf '[platform %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# shellcheck source=platform-ready.sh
. "$ROOT/e2e/kind/platform-ready.sh"

KUSTOMIZATION=${1:-deploy/}
t0=$(date +%s)
log "kubectl apply -k $KUSTOMIZATION"
kubectl apply -k "$ROOT/$KUSTOMIZATION" >&2
wait_platform_ready tandem-system
log "platform installed and Available in $(( $(date +%s) - t0 ))s"
