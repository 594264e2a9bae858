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

# shellcheck source=platform-ready.sh
. "$ROOT/e2e/kind/platform-ready.sh"

t0=$(date +%s)
log "kubectl apply -k deploy/"
kubectl apply -k "$ROOT/deploy/" >&2
wait_platform_ready tandem-system
log "platform installed and Available in $(( $(date +%s) - t0 ))s"
