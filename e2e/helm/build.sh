#!/usr/bin/env bash
# Helm at the pinned version, built from its Go module (helm.sh/helm/v3) into the cache
# outside the repository, like the control plane's binaries (e2e/control-plane/build.sh):
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tandem/helm/<key>/bin/helm
# The key holds the Helm version, the Go toolchain and the recipe revision; a second run
# with the same key is a no-op. The chart's tests (e2e/suites/helm-chart.spec.ts) and
# e2e/kind/helm-install.sh find the binary with `build.sh --print-bin`.
#
# Usage: build.sh [--print-bin] [--cached-only] [--force]
#   --print-bin    print the helm binary's path on stdout (after building if needed)
#   --cached-only  never build: fail (status 3) when the binary is not in the cache
#   --force        rebuild even if the cached binary is there
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../control-plane/common.sh
. "$HERE/../control-plane/common.sh"

print_bin=false
cached_only=false
force=false
for arg in "$@"; do
  case "$arg" in
    --print-bin) print_bin=true ;;
    --cached-only) cached_only=true ;;
    --force) force=true ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

log() { printf '[helm-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Newest v3 release `go list -m -versions helm.sh/helm/v3` lists through the proxy here.
: "${TANDEM_HELM_VERSION:=v3.22.0}"
# Bump when the recipe below changes in a way that must invalidate a cached binary.
TANDEM_HELM_BUILD_REV=1

command -v go >/dev/null || { log "FAILED: go is not on PATH"; exit 1; }
export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOFLAGS=-trimpath
gover=$(go env GOVERSION)
ROOT=${XDG_CACHE_HOME:-$HOME/.cache}/tandem/helm/helm-${TANDEM_HELM_VERSION}_${gover}_r$TANDEM_HELM_BUILD_REV
HELM=$ROOT/bin/helm

done_building() {
  log "helm: $("$HELM" version --short)"
  if $print_bin; then printf '%s\n' "$HELM"; fi
  exit 0
}

if ! $force && [[ -x $HELM ]]; then done_building; fi
if $cached_only; then
  log "helm $TANDEM_HELM_VERSION is not built: run e2e/helm/build.sh (.ci/run does, before npm test)"
  exit 3
fi

mkdir -p "$ROOT"
# Two harnesses starting at once must not both compile for minutes (as build.sh does).
if waited_for_build_lock "$ROOT/.build.lock" && ! $force && [[ -x $HELM ]]; then done_building; fi

module=helm.sh/helm/v3
t0=$(date +%s)
log "go install $module/cmd/helm@$TANDEM_HELM_VERSION (a few minutes on 2 cores)"
# The ldflags upstream's Makefile sets: without the version Helm reports v3.x-dev; without
# the Kubernetes version its default capabilities (helm template's .Capabilities.KubeVersion)
# and lint's deprecation checks fall back to v1.20. Kubernetes' version is the client-go
# minor helm's go.mod requires, plus 1 on the major (v0.37 -> 1.37), as the Makefile derives it.
gomod=$(cd "$ROOT" && go mod download -json "$module@$TANDEM_HELM_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
[[ -f $gomod ]] || { log "FAILED: cannot locate go.mod of $module@$TANDEM_HELM_VERSION"; exit 1; }
client_go=$(sed -n 's#^[[:space:]]*k8s.io/client-go v0\.\([0-9]*\)\..*#\1#p' "$gomod")
[[ -n $client_go ]] || { log "FAILED: no k8s.io/client-go requirement in $gomod"; exit 1; }
commit=$(cd "$ROOT" && go list -m -f '{{with .Origin}}{{.Hash}}{{end}}' "$module@$TANDEM_HELM_VERSION")
ld="-s -w -X $module/internal/version.version=$TANDEM_HELM_VERSION -X $module/internal/version.gitTreeState=clean"
[[ -n $commit ]] && ld+=" -X $module/internal/version.gitCommit=$commit"
for pkg in pkg/lint/rules pkg/chartutil; do
  ld+=" -X $module/$pkg.k8sVersionMajor=1 -X $module/$pkg.k8sVersionMinor=$client_go"
done
mkdir -p "$ROOT/bin.new"
(cd "$ROOT" && GOBIN=$ROOT/bin.new nice -n 10 go install -ldflags "$ld" "$module/cmd/helm@$TANDEM_HELM_VERSION") >&2
got=$("$ROOT/bin.new/helm" version --template '{{.Version}}')
[[ $got == "$TANDEM_HELM_VERSION" ]] || { log "FAILED: helm reports '$got', expected $TANDEM_HELM_VERSION"; exit 1; }
rm -rf "${ROOT:?}/bin" && mv "$ROOT/bin.new" "$ROOT/bin"
log "built in $(( $(date +%s) - t0 ))s: $HELM"
done_building
