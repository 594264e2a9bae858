#!/usr/bin/env bash
# kind and crictl at the pinned versions (e2e/control-plane/common.sh), built from
# the Go module proxy into the cache: both modes use the same kind.
#
# Usage: kind-tools.sh     prints the bin directory (holding kind and crictl)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../control-plane/common.sh
. "$HERE/../control-plane/common.sh"

log() { printf '[kind-tools %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

gover=$(GOTOOLCHAIN=local go env GOVERSION)
BIN=$(tandem_kind_cache_root)/tools/kind-${TANDEM_KIND_VERSION}_crictl-${TANDEM_CRICTL_VERSION}_$gover/bin

install_tool() {
  local name=$1 module=$2 version=$3
  if [[ -x $BIN/$name ]]; then return 0; fi
  log "go install $module@$version (a minute or two)"
  mkdir -p "$BIN"
  GOTOOLCHAIN=local GOWORK=off GOFLAGS=-trimpath CGO_ENABLED=0 GOBIN=$BIN \
    nice -n 10 go install -ldflags "-s -w" "$module@$version" >&2
}

install_tool kind sigs.k8s.io/kind "$TANDEM_KIND_VERSION"
install_tool crictl sigs.k8s.io/cri-tools/cmd/crictl "$TANDEM_CRICTL_VERSION"
got=$("$BIN/kind" version)
[[ $got == "kind $TANDEM_KIND_VERSION "* ]] || { log "kind reports '$got', expected $TANDEM_KIND_VERSION"; exit 1; }
printf '%s\n' "$BIN"
