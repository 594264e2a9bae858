# shellcheck shell=bash
# Shared by platform.sh and helm-install.sh: waiting for an installed platform to serve,
# whichever way it was installed. Sourced, never executed; the sourcing script defines
# log().

# On a timeout: what each Tandem pod of namespace $1 is doing and what it said.
explain() {
  local namespace=$1
  log "not ready; pods, events and logs of $namespace follow"
  kubectl -n "$namespace" get pods -o wide >&2 || true
  kubectl -n "$namespace" get events --sort-by=.lastTimestamp 2>&1 | tail -n 30 >&2 || true
  kubectl -n "$namespace" logs --all-containers --prefix --tail=30 \
    -l 'app.kubernetes.io/name' >&2 2>&1 || true
  kubectl get apiservices -o wide 2>&1 | grep -e NAME -e custom.metrics >&2 || true
}

# wait_platform_ready NAMESPACE: every Deployment in NAMESPACE Available, the webhook
# registered, then the adapter's custom.metrics.k8s.io APIServices Available (the API server reaches the
# adapter through its Service). Explains and fails on a timeout.
wait_platform_ready() {
  local namespace=$1 apiservices
  if ! kubectl -n "$namespace" wait --for=condition=Available deployment --all --timeout=240s >&2; then
    explain "$namespace"
    return 1
  fi
  # The webhook registers itself once it serves: pods created before would be admitted
  # as declared.
  if ! kubectl wait --for=create mutatingwebhookconfiguration/vpa-webhook-config --timeout=60s >&2; then
    log "the webhook has not registered vpa-webhook-config"
    explain "$namespace"
    return 1
  fi
  apiservices=$(kubectl get apiservices -o name | grep 'custom\.metrics\.k8s\.io$' || true)
  [[ -n $apiservices ]] || { log "the install made no custom.metrics.k8s.io APIService"; return 1; }
  # shellcheck disable=SC2086  # one argument per APIService
  if ! kubectl wait --for=condition=Available $apiservices --timeout=120s >&2; then
    explain "$namespace"
    return 1
  fi
}
