#!/usr/bin/env bash
# Fetches cert-manager's CustomResourceDefinitions from its Go module (the module proxy, no
# release download) and prints the directory that holds them, one file per CRD, for the
# e2e suite of deploy/cert-manager to install into the cluster.
#
# The module and the rendered CRDs live in
# ${XDG_CACHE_HOME:-$HOME/.cache}/tandem/cert-manager/<version>/ (never in the repository):
#   gomod/  the GOMODCACHE the module is downloaded into (writable, so it can be deleted)
#   crds/   the CRDs, with a stamp file that makes a second run a no-op
#   logs/   the go command's output
#
# Usage: crds.sh [--force]
#   --force  download and render again even if the stamp says the CRDs are there
# The version is TANDEM_CERT_MANAGER_VERSION (default below). Progress goes to stderr,
# the CRD directory to stdout.
set -euo pipefail

# The newest cert-manager release the module proxy serves here.
: "${TANDEM_CERT_MANAGER_VERSION:=v1.21.2}"
# Bump when the rendering below changes, so an older cache is rendered again.
CRDS_REV=1
MODULE=github.com/cert-manager/cert-manager

force=false
for arg in "$@"; do
  case "$arg" in
    --force) force=true ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "crds.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# For Go's standard install location on PATH, as the control plane's build finds it.
# shellcheck source=../control-plane/common.sh
. "$HERE/../control-plane/common.sh"

log() { printf '[cert-manager crds %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

VERSION=$TANDEM_CERT_MANAGER_VERSION
ROOT=${XDG_CACHE_HOME:-$HOME/.cache}/tandem/cert-manager/$VERSION
CRDS=$ROOT/crds
STAMP=$CRDS/.stamp
EXPECTED_STAMP="module=$MODULE@$VERSION rev=$CRDS_REV"

up_to_date() { [[ -f $STAMP && "$(cat "$STAMP")" == "$EXPECTED_STAMP" ]]; }

if ! $force && up_to_date; then
  log "up to date: $CRDS"
  printf '%s\n' "$CRDS"
  exit 0
fi

command -v go >/dev/null || { log "FAILED: go is not on PATH"; exit 1; }
mkdir -p "$ROOT/logs"

# Two suites starting at once must not render into the same directory.
if waited_for_build_lock "$ROOT/.crds.lock" && ! $force && up_to_date; then
  log "rendered by the other run: $CRDS"
  printf '%s\n' "$CRDS"
  exit 0
fi

# GOTOOLCHAIN=local: never download a toolchain. GOWORK=off: no go.work above leaks in.
# GOFLAGS is set outright (a user's -mod=vendor must not apply); -modcacherw leaves the
# module cache writable, so `rm -rf` of the cache directory works.
export GOTOOLCHAIN=local GOWORK=off GOFLAGS=-modcacherw GOMODCACHE=$ROOT/gomod
LOG=$ROOT/logs/crds.log
log "downloading $MODULE@$VERSION through $(go env GOPROXY) into $GOMODCACHE (log: $LOG)"
if ! go mod download -json "$MODULE@$VERSION" >"$LOG" 2>&1; then
  log "FAILED: go mod download $MODULE@$VERSION; last lines of $LOG:"
  tail -n 20 "$LOG" >&2
  exit 1
fi
DIR=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p' "$LOG")
[[ -d $DIR ]] || { log "FAILED: no module directory in the output of go mod download ($LOG)"; exit 1; }

# The CRDs a release installs are the Helm chart's templates (deploy/crds/README.md in the
# module says its own copies "might be incomplete"). Each template wraps one CRD in exactly
# these lines, rendered as the chart's defaults do (crds.keep: true; release name
# cert-manager; chart-level labels from templates/_helpers.tpl, "cert-manager.crd-labels"):
#   {{- if or .Values.crds.enabled .Values.installCRDs }}  ... {{- end }}   dropped
#   {{- if .Values.crds.keep }} / {{- end }}                              dropped (keep on)
#   {{- include "cert-manager.crd-labels" . | nindent 4 }}                 the labels
# Any other template line means the chart changed shape: fail rather than guess.
TEMPLATES=$DIR/deploy/charts/cert-manager/templates
LABELS="    app: cert-manager
    app.kubernetes.io/name: cert-manager
    app.kubernetes.io/instance: cert-manager
    app.kubernetes.io/component: crds
    app.kubernetes.io/version: \"$VERSION\""

render() {
  local line
  while IFS= read -r line || [[ -n $line ]]; do
    case "$line" in
      '{{- if or .Values.crds.enabled .Values.installCRDs }}' | '  {{- if .Values.crds.keep }}' | '  {{- end }}' | '{{- end }}') ;;
      '    {{- include "cert-manager.crd-labels" . | nindent 4 }}') printf '%s\n' "$LABELS" ;;
      *'{{'*) log "FAILED: unexpected template line in $1: $line"; return 1 ;;
      *) printf '%s\n' "$line" ;;
    esac
  done <"$1"
}

rm -rf "$CRDS.new"
mkdir -p "$CRDS.new"
count=0
for template in "$TEMPLATES"/crd-*.yaml; do
  [[ -f $template ]] || continue
  name=$(basename "$template")
  render "$template" >"$CRDS.new/${name#crd-}"
  grep -q '^kind: CustomResourceDefinition$' "$CRDS.new/${name#crd-}" ||
    { log "FAILED: $template renders no CustomResourceDefinition"; exit 1; }
  count=$((count + 1))
done
((count > 0)) || { log "FAILED: no crd-*.yaml in $TEMPLATES"; exit 1; }
printf '%s\n' "$EXPECTED_STAMP" >"$CRDS.new/.stamp"
rm -rf "$CRDS"
mv "$CRDS.new" "$CRDS"
log "rendered $count CRDs of $MODULE@$VERSION into $CRDS"
printf '%s\n' "$CRDS"
