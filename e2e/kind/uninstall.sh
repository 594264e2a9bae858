#!/usr/bin/env bash
# Removes the platform from the cluster of KUBECONFIG exactly as a user does,
# `kubectl delete -k deploy/ --wait`, checks that nothing of Tandem is left, then installs
# it again with platform.sh (ADR 0019):
#   - every object deploy/ renders is gone: the namespace tandem-system with all it held,
#     the CRDs, ClusterRoles, ClusterRoleBindings, APIServices, admission policies and
#     the PriorityClass (the list comes from deploy/ itself, so it follows new manifests);
#   - vpa-webhook-config, which the webhook registered itself and deploy/ does not name,
#     is gone too: its owner, the registration ClusterRole, went, and the garbage
#     collector took it;
#   - a pod is still created in a fresh namespace: no webhook or policy is left in its way;
#   - reinstalled, every Deployment is Available again and the webhook registered itself
#     again, owned by the new ClusterRole (its new uid, not the deleted one's).
#
# Usage: uninstall.sh      (KUBECONFIG: a cluster where platform.sh installed the platform)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CONFIGURATION=mutatingwebhookconfiguration/vpa-webhook-config
log() { printf '[uninstall %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

# Never the user's current context by accident: the cluster must be named.
[[ -n ${KUBECONFIG:-} ]] || { echo "uninstall.sh: set KUBECONFIG to the kind cluster's kubeconfig" >&2; exit 2; }

# The ClusterRole the registration names as its owner, as kind/name/uid lines.
registration_owners() {
  kubectl get "$CONFIGURATION" \
    -o jsonpath='{range .metadata.ownerReferences[*]}{.kind}/{.name}/{.uid}{"\n"}{end}'
}

t0=$(date +%s)
# What deploy/ installs, rendered here (no request sent): the objects to see go.
rendered=$(kubectl create -k "$ROOT/deploy/" --dry-run=client -o name)
log "deploy/ renders $(wc -l <<<"$rendered") objects"

kubectl wait --for=create "$CONFIGURATION" --timeout=60s >/dev/null ||
  fail "the installed webhook has not registered $CONFIGURATION"
owner=$(registration_owners)
[[ $owner == ClusterRole/* && $owner != *$'\n'* ]] ||
  fail "$CONFIGURATION is owned by '${owner:-nothing}', not by one ClusterRole: is" \
    "--webhook-owner-cluster-role missing from deploy/admission-webhook/deployment.yaml?"
owner_name=${owner#ClusterRole/}
owner_name=${owner_name%/*}
grep -qxF "clusterrole.rbac.authorization.k8s.io/$owner_name" <<<"$rendered" ||
  fail "$CONFIGURATION is owned by ClusterRole $owner_name, which deploy/ does not install"
log "$CONFIGURATION is owned by ClusterRole $owner_name (uid ${owner##*/})"

log "kubectl delete -k deploy/ --wait"
kubectl delete -k "$ROOT/deploy/" --wait --timeout=300s >&2 ||
  fail "kubectl delete -k deploy/ did not finish in 300s; left: $(kubectl get -k "$ROOT/deploy/" --ignore-not-found -o name | tr '\n' ' ')"

if ! kubectl wait --for=delete "$CONFIGURATION" --timeout=60s >/dev/null; then
  kubectl get "$CONFIGURATION" -o yaml >&2 || true
  fail "$CONFIGURATION outlived its owner ClusterRole $owner_name by 60s: the garbage collector did not take it"
fi
left=$(kubectl get -k "$ROOT/deploy/" --ignore-not-found -o name)
[[ -z $left ]] || fail "left behind by kubectl delete -k deploy/: $(tr '\n' ' ' <<<"$left")"
log "nothing of Tandem is left: the $(wc -l <<<"$rendered") objects of deploy/ and $CONFIGURATION are gone"

# A pod that schedules nowhere: only admission is asked, no kubelet involved.
namespace=tandem-uninstalled-$(date +%s)
kubectl create namespace "$namespace" >/dev/null
pod=$(kubectl -n "$namespace" create --request-timeout=30s -o name -f - <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: after-uninstall
spec:
  nodeSelector: { tandem.dev/uninstall-check: none }
  containers:
    - name: app
      image: registry.invalid/never-pulled:1
      resources: { requests: { cpu: 10m, memory: 16Mi } }
EOF
) || fail "a pod could not be created in the fresh namespace $namespace after the uninstall"
kubectl delete namespace "$namespace" --wait=false >/dev/null
log "$pod created in the fresh namespace $namespace: nothing in admission's way"

log "reinstalling with platform.sh"
"$ROOT/e2e/kind/platform.sh"
kubectl wait --for=create "$CONFIGURATION" --timeout=120s >/dev/null ||
  fail "the reinstalled webhook did not register $CONFIGURATION in 120s"
# The new ClusterRole's uid: a registration still naming the deleted one would be
# garbage-collected at once.
uid=$(kubectl get "clusterrole/$owner_name" -o jsonpath='{.metadata.uid}')
kubectl wait --for=jsonpath='{.metadata.ownerReferences[0].uid}'="$uid" "$CONFIGURATION" --timeout=60s >/dev/null ||
  fail "the reinstalled $CONFIGURATION is owned by '$(registration_owners)', not by ClusterRole $owner_name ($uid)"
log "reinstalled: Available, $CONFIGURATION owned by the new ClusterRole $owner_name; $(( $(date +%s) - t0 ))s in all"
