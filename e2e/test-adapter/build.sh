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
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

log() { printf '[test-adapter-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Newest release `go list -m -versions sigs.k8s.io/custom-metrics-apiserver` lists through
# the proxy here. The test adapter is a package of the root module, not a module of its own.
: "${TANDEM_TEST_ADAPTER_VERSION:=v1.37.0}"
# Bump when the recipe below changes in a way that must invalidate a cached binary.
TANDEM_TEST_ADAPTER_BUILD_REV=1

command -v go >/dev/null || { log "FAILED: go is not on PATH"; exit 1; }
export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOFLAGS=-trimpath
gover=$(go env GOVERSION)
ROOT=${XDG_CACHE_HOME:-$HOME/.cache}/tandem/test-adapter/test-adapter-${TANDEM_TEST_ADAPTER_VERSION}_${gover}_r$TANDEM_TEST_ADAPTER_BUILD_REV
BIN=$ROOT/bin/test-adapter

done_building() {
  log "test-adapter $TANDEM_TEST_ADAPTER_VERSION: $BIN"
  if $print_bin; then printf '%s\n' "$BIN"; fi
  exit 0
}

if ! $force && [[ -x $BIN ]]; then done_building; fi
if $cached_only; then
  log "test-adapter $TANDEM_TEST_ADAPTER_VERSION is not built: run e2e/test-adapter/build.sh (.ci/run does, before npm test)"
  exit 3
fi

mkdir -p "$ROOT"
if waited_for_build_lock "$ROOT/.build.lock" && ! $force && [[ -x $BIN ]]; then done_building; fi

package=sigs.k8s.io/custom-metrics-apiserver/test-adapter
t0=$(date +%s)
log "go install $package@$TANDEM_TEST_ADAPTER_VERSION (a few minutes on 2 cores)"
rm -rf "$ROOT/bin.new" && mkdir -p "$ROOT/bin.new"
(cd "$ROOT" && GOBIN=$ROOT/bin.new nice -n 10 go install -ldflags "-s -w" "$package@$TANDEM_TEST_ADAPTER_VERSION") >&2
# The binary has no version flag: --help proves it runs (its flags are the library's).
"$ROOT/bin.new/test-adapter" --help >/dev/null 2>&1 || { log "FAILED: the built test-adapter does not run"; exit 1; }
rm -rf "${ROOT:?}/bin" && mv "$ROOT/bin.new" "$ROOT/bin"
log "built in $(( $(date +%s) - t0 ))s: $BIN"
done_building
