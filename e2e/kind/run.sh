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
# Then, in both modes: kwok and metrics-server (addons.sh), the e2e suites that run on
# any cluster, the Helm chart installed and uninstalled (helm-install.sh), the platform
# installed as a user does (`kubectl apply -k`, platform.sh, with certificate lifetimes
# of seconds), the suites of the installed platform on the real kubelet
# (suites/installed-platform.spec.ts: a CPU burner resized in place, the webhook through
# its Service; suites/installed-boost.spec.ts: a CPU startup boost at creation, ended in
# place by the updater; suites/installed-sidecars.spec.ts: a native sidecar recommended
# and counted in the adapter's pod metric; suites/installed-certificates.spec.ts: renewals and a CA rotation with no
# admission skipped and no metric read failed; suites/metrics-adapter.spec.ts: the
# headline and the Object metric), and last the uninstall and a reinstall (uninstall.sh). ADR 0015.
#
# Usage: e2e/kind/run.sh [--prepare] [--keep] [--smoke-only] [--platform-suites-only] [--if-possible]
#   --prepare      build (or find cached) every image, then stop: no cluster. At nice 19,
#                  so it can run beside the local control plane's suites (e2e:kind-prepare)
#   --keep         leave the cluster (and an engine this script started) running
#   --smoke-only   stop after the smoke check
#   --platform-suites-only
#                  skip the suites that already ran on the local control plane (npm test)
#   --if-possible  where no Docker engine answers or can be started, say why and
#                  succeed (npm test's calls: e2e:kind-prepare, e2e:kind)
# Environment: TANDEM_KIND_MODE=online|offline skips the probe; TANDEM_KIND=off skips
# the whole path (with --if-possible).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../control-plane/common.sh
. "$ROOT/e2e/control-plane/common.sh"

CLUSTER=${TANDEM_KIND_CLUSTER:-tandem-e2e}
KEEP=false
SMOKE_ONLY=false
IF_POSSIBLE=false
PREPARE=false
PLATFORM_SUITES_ONLY=false
for arg in "$@"; do
  case $arg in
    --platform-suites-only) PLATFORM_SUITES_ONLY=true ;;
    --prepare) PREPARE=true ;;
    --keep) KEEP=true ;;
    --smoke-only) SMOKE_ONLY=true ;;
    --if-possible) IF_POSSIBLE=true ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done
# Preparing is background work: whatever else runs (the local suites) goes first.
if $PREPARE; then renice -n 19 -p $$ >/dev/null; fi
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
# Why the kind path cannot run here, if it cannot: no Docker engine answers and none can
# be started (docker-engine.sh needs root, and dockerd or apt-get to install Debian's).
why_impossible() {
  if [[ ${TANDEM_KIND:-} == off ]]; then echo "TANDEM_KIND=off"; return; fi
  local tool
  for tool in go curl; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed"; return; }
  done
  if command -v docker >/dev/null && timeout 10 docker info >/dev/null 2>&1; then return; fi
  if [[ $(id -u) -ne 0 ]]; then
    echo "no Docker engine answers, and only root can start one"
  elif ! command -v dockerd >/dev/null && ! command -v apt-get >/dev/null; then
    echo "no Docker engine answers, and neither dockerd nor apt-get is here to start one"
  fi
}
impossible=$(why_impossible)
if [[ -n $impossible ]]; then
  if $IF_POSSIBLE; then
    log "skipped: $impossible"
    exit 0
  fi
  echo "run.sh: the kind path cannot run here: $impossible" >&2
  exit 2
fi
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
app_base=()
burner_base=()
if [[ $MODE == offline ]]; then
  # Not read from a process substitution: its failure would pass unseen.
  offline_images=$("$ROOT/e2e/kind/offline-images.sh") || { log "offline-images.sh failed"; exit 1; }
  { read -r node_image; read -r extra_images; } <<<"$offline_images"
  [[ -n ${extra_images:-} ]] || { log "offline-images.sh gave no images"; exit 1; }
  PATH=$("$ROOT/e2e/control-plane/build.sh" --with-node --print-bin-dir):$PATH
  # cluster.yaml with the local node image, and kind's CNI (kindnetd, not buildable
  # offline) replaced by the bridge conflist baked into that image.
  sed "s#^\([[:space:]]*image:\).*#\1 $node_image#" "$ROOT/e2e/kind/cluster.yaml" >"$config"
  printf 'networking:\n  disableDefaultCNI: true\n' >>"$config"
  node_base_image=$("$ROOT/e2e/kind/node-base-image.sh")
  app_base=(--node-image "$node_base_image")
  burner_base=(--build-arg "BASE_IMAGE=$node_base_image")
else
  command -v kubectl >/dev/null || PATH=$("$ROOT/e2e/control-plane/build.sh" --print-bin-dir):$PATH
  cp "$ROOT/e2e/kind/cluster.yaml" "$config"
fi
app_images_out=$("$ROOT/e2e/kind/app-images.sh" "${app_base[@]}") || { log "app-images.sh failed"; exit 1; }
mapfile -t app_images <<<"$app_images_out"
BURNER=tandem/cpu-burner:1
docker build -q "${burner_base[@]}" -t "$BURNER" "$ROOT/e2e/kind/cpu-burner" >&2
log "images ready at $(elapsed): ${app_images[*]} $BURNER"
# An engine this script started keeps its data root as a cache, and every build above
# that changed leaves the image it replaced untagged (with its intermediate layers, ~0.3 GB
# an app). Kept for a day, a day of development runs once filled the disk (53 GB); pruned
# at once, they took the build stages of deploy/app.Dockerfile with them (untagged, and no
# parent of the final image), so `npm test`'s kind run rebuilt every app image its
# --prepare had just built (400 s instead of 9). Untagged images older than an hour go: a
# prepare and the run after it share their stages, and a day of runs keeps about one
# hour's worth. A user's own engine is theirs.
if $ENGINE_STARTED; then
  reclaimed=$(docker image prune -f --filter until=1h 2>/dev/null | sed -n 's/^Total reclaimed space: //p')
  log "pruned untagged images older than an hour: ${reclaimed:-0B} reclaimed"
fi
if $PREPARE; then
  log "done ($MODE mode, images only) in $(elapsed)"
  exit 0
fi

log "creating kind cluster $CLUSTER"
# A cluster of that name left by a run that was killed, or kept (--keep), goes first.
"$KIND" delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true
CLUSTER_MADE=true
"$KIND" create cluster --name "$CLUSTER" --config "$config" --kubeconfig "$KUBECONFIG" --wait 180s
kubectl wait --for=condition=Ready "node/$CLUSTER-control-plane" --timeout=120s >/dev/null
log "cluster Ready at $(elapsed)"

if [[ $MODE == offline ]]; then "$KIND" load image-archive --name "$CLUSTER" "$extra_images" >&2; fi
# One load for all: their shared layers (base, packages) are saved and imported once.
"$KIND" load docker-image --name "$CLUSTER" "${app_images[@]}" "$BURNER" >&2
log "cluster Ready with ${#app_images[@]} app images and the burner loaded at $(elapsed)"

"$ROOT/e2e/kind/smoke.sh" "${app_images[0]}"
log "smoke check passed at $(elapsed)"

if $SMOKE_ONLY; then
  log "done ($MODE mode, smoke only) in $(elapsed)"
  exit 0
fi

# kwok (fake nodes, simulated usage) and metrics-server, from the repository's manifests
# in both modes, then every suite that runs on any cluster: the apps they need they start
# themselves, as on the local path, so only the CRDs are applied.
"$ROOT/e2e/kind/addons.sh"
kubectl apply -f "$ROOT/deploy/crds/" >&2
log "kwok, metrics-server and the CRDs installed at $(elapsed)"
if ! $PLATFORM_SUITES_ONLY; then
  log "running the e2e suites that run on any cluster"
  (cd "$ROOT" && npx nx test e2e --outputStyle=stream --skip-nx-cache --excludeTaskDependencies)
  log "suites passed at $(elapsed)"
fi

# The Helm chart first, on a cluster no other install has touched (Helm adopts no object
# that `kubectl apply` made): installed, Available, uninstalled without a trace.
"$ROOT/e2e/kind/helm-install.sh"
log "Helm chart installed, Available and uninstalled at $(elapsed)"

# deploy/ with certificate lifetimes of seconds: every installed suite below runs through
# serving-certificate renewals and CA rotations, and installed-certificates counts them;
# with the CPUStartupBoost and NativeSidecar gates on (e2e/kind/installed-platform).
"$ROOT/e2e/kind/platform.sh" e2e/kind/installed-platform
log "platform installed at $(elapsed)"

log "running the installed platform's suites on the real kubelet"
(cd "$ROOT" && TANDEM_E2E_PLATFORM=installed npx nx test e2e --outputStyle=stream --skip-nx-cache \
  --excludeTaskDependencies --testPathPatterns='(installed-platform|installed-boost|installed-sidecars|installed-certificates)')
# Of metrics-adapter.spec.ts, only what the installed platform alone can prove: the
# headline (the installed webhook, recommender, updater and adapter together, the HPA
# reading through the installed APIService, its CA and the NetworkPolicy to the adapter)
# and the Object metric (the one read that needs the adapter's `get deployments` RBAC
# rule; its pod and controller caches are proven by the adapter turning Ready). Its
# other tests (a container's share, cpu_utilization_of_limit, a controller's template)
# check the adapter's arithmetic through that same path with the same code, and ran on
# the local control plane already (npm test's e2e:test).
(cd "$ROOT" && TANDEM_E2E_PLATFORM=installed npx nx test e2e --outputStyle=stream --skip-nx-cache \
  --excludeTaskDependencies --testPathPatterns=metrics-adapter --testNamePattern='headline|on its Object metric')
log "installed suites passed at $(elapsed)"

# Last: removing Tandem as a user does, checking nothing is left, and installing again.
"$ROOT/e2e/kind/uninstall.sh"
log "uninstalled, nothing left, reinstalled and Available at $(elapsed)"
log "done ($MODE mode) in $(elapsed)"
