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

TOOL=helm
# Newest v3 release `go list -m -versions helm.sh/helm/v3` lists through the proxy here.
TOOL_VERSION=${TANDEM_HELM_VERSION:-v3.22.0}
TOOL_BUILD_REV=1

tool_describe() { "$1" version --short; }

tool_install() {
  local module=helm.sh/helm/v3
  log "go install $module/cmd/helm@$TOOL_VERSION (a few minutes on 2 cores)"
  # The ldflags upstream's Makefile sets: without the version Helm reports v3.x-dev; without
  # the Kubernetes version its default capabilities (helm template's .Capabilities.KubeVersion)
  # and lint's deprecation checks fall back to v1.20. Kubernetes' version is the client-go
  # minor helm's go.mod requires, plus 1 on the major (v0.37 -> 1.37), as the Makefile derives it.
  local gomod client_go commit ld pkg got
  gomod=$(cd "$ROOT" && go mod download -json "$module@$TOOL_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  [[ -f $gomod ]] || { log "FAILED: cannot locate go.mod of $module@$TOOL_VERSION"; exit 1; }
  client_go=$(sed -n 's#^[[:space:]]*k8s.io/client-go v0\.\([0-9]*\)\..*#\1#p' "$gomod")
  [[ -n $client_go ]] || { log "FAILED: no k8s.io/client-go requirement in $gomod"; exit 1; }
  commit=$(cd "$ROOT" && go list -m -f '{{with .Origin}}{{.Hash}}{{end}}' "$module@$TOOL_VERSION")
  ld="-s -w -X $module/internal/version.version=$TOOL_VERSION -X $module/internal/version.gitTreeState=clean"
  [[ -n $commit ]] && ld+=" -X $module/internal/version.gitCommit=$commit"
  for pkg in pkg/lint/rules pkg/chartutil; do
    ld+=" -X $module/$pkg.k8sVersionMajor=1 -X $module/$pkg.k8sVersionMinor=$client_go"
  done
  (cd "$ROOT" && GOBIN=$1 nice -n 10 go install -ldflags "$ld" "$module/cmd/helm@$TOOL_VERSION") >&2
  got=$("$1/helm" version --template '{{.Version}}')
  [[ $got == "$TOOL_VERSION" ]] || { log "FAILED: helm reports '$got', expected $TOOL_VERSION"; exit 1; }
}

# shellcheck source=../control-plane/go-tool.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../control-plane/go-tool.sh"
go_tool_build "$@"
