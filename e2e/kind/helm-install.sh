#!/usr/bin/env bash
# Installs the platform with the Helm chart (deploy/helm/tandem) into the cluster of
# KUBECONFIG as a Helm user does, waits for it as platform.sh waits for `kubectl apply -k`
# (every Deployment Available, the custom.metrics.k8s.io APIServices Available), then
# uninstalls it and checks that nothing of the release is left: every object of its
# manifest is gone, and so is the webhook's self-registered `vpa-webhook-config` (garbage
# collected through its ownerReference to the ClusterRole
# tandem-admission-webhook-registration). The CRDs stay, by Helm's rule for crds/.
#
# Usage: helm-install.sh   (the app images tandem/<app>:<version> loaded in the cluster,
#                           and no other install of the platform in it)
# Helm is the one e2e/helm/build.sh builds (a no-op when cached).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { printf '[helm-install %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Never the user's current context by accident: the cluster must be named.
[[ -n ${KUBECONFIG:-} ]] || { echo "helm-install.sh: set KUBECONFIG to the kind cluster's kubeconfig" >&2; exit 2; }

NAMESPACE=tandem-system
RELEASE=tandem
HELM=$("$ROOT/e2e/helm/build.sh" --print-bin)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# shellcheck source=platform-ready.sh
. "$ROOT/e2e/kind/platform-ready.sh"

fail() { log "FAILED: $*"; exit 1; }

t0=$(date +%s)
log "helm install $RELEASE deploy/helm/tandem -n $NAMESPACE --create-namespace --wait"
if ! "$HELM" install "$RELEASE" "$ROOT/deploy/helm/tandem" --namespace "$NAMESPACE" \
  --create-namespace --wait --timeout 240s >&2; then
  explain "$NAMESPACE"
  exit 1
fi
wait_platform_ready "$NAMESPACE"
log "installed and Available in $(( $(date +%s) - t0 ))s"

"$HELM" get manifest "$RELEASE" --namespace "$NAMESPACE" >"$WORK/release.yaml"
t1=$(date +%s)
log "helm uninstall $RELEASE -n $NAMESPACE --wait"
"$HELM" uninstall "$RELEASE" --namespace "$NAMESPACE" --wait --timeout 180s >&2
left=$(kubectl get -f "$WORK/release.yaml" --ignore-not-found -o name)
[[ -z $left ]] || fail "left behind by helm uninstall: $(tr '\n' ' ' <<<"$left")"
if ! kubectl wait --for=delete mutatingwebhookconfiguration/vpa-webhook-config --timeout=120s >&2; then
  kubectl get mutatingwebhookconfiguration vpa-webhook-config -o yaml >&2 || true
  fail "vpa-webhook-config outlived the release by 120s: the garbage collector did not take it"
fi
# Helm never deletes what crds/ installed: the VPAs of the cluster survive an uninstall.
kubectl get -f "$ROOT/deploy/helm/tandem/crds/" -o name >/dev/null ||
  fail "helm uninstall took the CRDs of crds/"
log "uninstalled in $(( $(date +%s) - t1 ))s: nothing of the release left, CRDs kept"
