# shellcheck shell=bash
# Sourced by the build.sh of each tool the tests build from its Go module (e2e/helm,
# e2e/test-adapter): what they share, once. The flags (--print-bin, --cached-only, --force,
# --help: the caller's leading comment), the cache directory outside the repository
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tandem/<tool>/<tool>-<version>_<go version>_r<rev>/bin/<tool>
# (a second run with the same key is a no-op), the lock two harnesses starting at once share,
# and the swap of the new binary into place only once it ran.
#
# The caller sets TOOL, TOOL_VERSION and TOOL_BUILD_REV (bump it when its recipe changes in a
# way that must invalidate a cached binary), defines
#   tool_install DIR   go-installs the binary into DIR and checks that it runs
#   tool_describe BIN  one line naming the binary, logged whether built now or cached
# and then calls `go_tool_build "$@"`, which exits.

HERE_GO_TOOL=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$HERE_GO_TOOL/common.sh"

log() { printf '[%s-build %s] %s\n' "$TOOL" "$(date +%H:%M:%S)" "$*" >&2; }

go_tool_build() {
  local print_bin=false cached_only=false force=false arg
  for arg in "$@"; do
    case "$arg" in
      --print-bin) print_bin=true ;;
      --cached-only) cached_only=true ;;
      --force) force=true ;;
      -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
      *) echo "build.sh: unknown argument: $arg" >&2; exit 2 ;;
    esac
  done

  command -v go >/dev/null || { log "FAILED: go is not on PATH"; exit 1; }
  export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOFLAGS=-trimpath
  ROOT=${XDG_CACHE_HOME:-$HOME/.cache}/tandem/$TOOL/$TOOL-${TOOL_VERSION}_$(go env GOVERSION)_r$TOOL_BUILD_REV
  local bin=$ROOT/bin/$TOOL

  done_building() {
    log "$(tool_describe "$bin")"
    if $print_bin; then printf '%s\n' "$bin"; fi
    exit 0
  }

  if ! $force && [[ -x $bin ]]; then done_building; fi
  if $cached_only; then
    log "$TOOL $TOOL_VERSION is not built: run $0 (.ci/run does, before npm test)"
    exit 3
  fi

  mkdir -p "$ROOT"
  # Two harnesses starting at once must not both compile for minutes.
  if waited_for_build_lock "$ROOT/.build.lock" && ! $force && [[ -x $bin ]]; then done_building; fi

  local t0
  t0=$(date +%s)
  rm -rf "$ROOT/bin.new" && mkdir -p "$ROOT/bin.new"
  tool_install "$ROOT/bin.new"
  rm -rf "${ROOT:?}/bin" && mv "$ROOT/bin.new" "$ROOT/bin"
  log "built in $(( $(date +%s) - t0 ))s: $bin"
  done_building
}
