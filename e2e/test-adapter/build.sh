#!/usr/bin/env bash
# The custom-metrics-apiserver project's own test adapter (the library prometheus-adapter and
# most custom.metrics.k8s.io providers are built on), built from its Go module into the cache
# outside the repository, like Helm (e2e/helm/build.sh) and the control plane:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tandem/test-adapter/<key>/bin/test-adapter
# The key holds the module version, the Go toolchain and the recipe revision; a second run
# with the same key is a no-op. e2e/suites/upstream-provider.spec.ts runs it as the provider
# a cluster already has (e2e/harness/test-adapter-process.ts finds it with --print-bin).
#
# Usage: build.sh [--print-bin] [--cached-only] [--force]
#   --print-bin    print the binary's path on stdout (after building if needed)
#   --cached-only  never build: fail (status 3) when the binary is not in the cache
#   --force        rebuild even if the cached binary is there
set -euo pipefail

TOOL=test-adapter
# Newest release `go list -m -versions sigs.k8s.io/custom-metrics-apiserver` lists through
# the proxy here. The test adapter is a package of the root module, not a module of its own.
TOOL_VERSION=${TANDEM_TEST_ADAPTER_VERSION:-v1.37.0}
TOOL_BUILD_REV=1

tool_describe() { printf 'test-adapter %s: %s\n' "$TOOL_VERSION" "$1"; }

tool_install() {
  local package=sigs.k8s.io/custom-metrics-apiserver/test-adapter
  log "go install $package@$TOOL_VERSION (a few minutes on 2 cores)"
  (cd "$ROOT" && GOBIN=$1 nice -n 10 go install -ldflags "-s -w" "$package@$TOOL_VERSION") >&2
  # The binary has no version flag: --help proves it runs (its flags are the library's).
  "$1/test-adapter" --help >/dev/null 2>&1 || { log "FAILED: the built test-adapter does not run"; exit 1; }
}

# shellcheck source=../control-plane/go-tool.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../control-plane/go-tool.sh"
go_tool_build "$@"
