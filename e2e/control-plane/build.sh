#!/usr/bin/env bash
# Builds the local Kubernetes control plane used by the e2e suites from Go
# modules (no Docker, no prebuilt binaries):
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl  (one wrapper module, one go build)
#   etcd                                                             (wrapper module)
#   kwok, metrics-server                                             (one wrapper module)
#
# Binaries land in ${XDG_CACHE_HOME:-$HOME/.cache}/tandem/control-plane/<key>/bin
# and a stamp file there makes a second run a no-op. The generated wrapper
# go.mod files live next to it (never inside the repository).
#
# Usage: build.sh [--print-bin-dir] [--force] [--with-node]
#   --print-bin-dir  print the bin directory on stdout (after building if needed)
#   --force          rebuild even if the stamp says everything is there
#   --with-node      also build kubelet, kubeadm and kube-proxy (the kind node's
#                    binaries, e2e/kind) into the same bin directory, from the
#                    same Kubernetes module graph, flags and Go build cache; the
#                    key and what a plain build.sh builds are unchanged
# Progress goes to stderr; per-component timings to <key>/build-times.txt.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$SCRIPT_DIR/common.sh"

print_bin_dir=false
force=false
with_node=false
for arg in "$@"; do
  case "$arg" in
    --print-bin-dir) print_bin_dir=true ;;
    --force) force=true ;;
    --with-node) with_node=true ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

log() { printf '[build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

KEY=$(tandem_cp_version_key)
ROOT=$(tandem_cp_cache_root)/$KEY
BIN=$ROOT/bin
STAMP=$BIN/.stamp
EXPECTED_STAMP=$(tandem_cp_stamp_content "$KEY")

all_present() {
  local b
  for b in $TANDEM_CP_BINARIES; do [[ -x $BIN/$b ]] || return 1; done
  [[ -f $STAMP && "$(cat "$STAMP")" == "$EXPECTED_STAMP" ]]
}

# The node binaries have a marker of their own (the stamp stays the plain build's).
node_present() {
  local b
  for b in $TANDEM_CP_NODE_BINARIES; do [[ -x $BIN/$b ]] || return 1; done
  [[ -f $BIN/.done-kubernetes-node ]]
}
wanted_present() {
  all_present || return 1
  ! $with_node || node_present
}

# Fast path: nothing to do. Must stay cheap (< 2 s): no go commands but one.
if ! $force && wanted_present; then
  log "up to date: $BIN"
  if $print_bin_dir; then printf '%s\n' "$BIN"; fi
  exit 0
fi

command -v go >/dev/null || { log "FAILED: go is not on PATH"; exit 1; }
mkdir -p "$ROOT/src" "$ROOT/logs" "$BIN"

if waited_for_build_lock "$ROOT/.build.lock" && ! $force && wanted_present; then
  log "built by the other run: $BIN"
  if $print_bin_dir; then printf '%s\n' "$BIN"; fi
  exit 0
fi
# Only a plain build in progress hides the stamp: adding the node binaries to a
# complete control plane must not make concurrent start.sh runs think it broken.
if $force || ! all_present; then rm -f "$STAMP"; fi

# Build environment. GOTOOLCHAIN=local: never download a toolchain (the
# network allows none, and we want the installed Go). GOWORK=off: a go.work
# somewhere above the cache dir must not leak in. GOFLAGS is set outright so
# a user's GOFLAGS (e.g. -mod=vendor) cannot change the build.
export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOFLAGS=-trimpath
NICE=(nice -n 10)   # the 2 cores are shared with other engineers

TIMES=$ROOT/build-times.txt
: >"$TIMES.new"
current_component=""
current_log=""

fail() {
  log "FAILED: component '$current_component' ($1)"
  if [[ -n $current_log && -f $current_log ]]; then
    log "last 40 lines of $current_log:"
    tail -n 40 "$current_log" >&2
  fi
  exit 1
}

# run_step NAME CMD...: runs CMD in the current dir with output to the
# component's log, records its wall time.
run_step() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  log "  $current_component: $name ..."
  { printf '\n$ %s\n' "$*"; } >>"$current_log"
  if ! "$@" >>"$current_log" 2>&1; then
    fail "step '$name' failed: $*"
  fi
  t1=$(date +%s.%N)
  local dt
  dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')
  printf '%-20s %-13s %8ss\n' "$current_component" "$name" "$dt" >>"$TIMES.new"
  log "  $current_component: $name done in ${dt}s"
}

begin_component() {
  current_component=$1
  current_log=$ROOT/logs/$1.log
  : >"$current_log"
  mkdir -p "$ROOT/src/$1"
  cd "$ROOT/src/$1"
  log "== $1 (log: $current_log)"
}

# mod_field MODULE@VERSION TEMPLATE: reads metadata (commit, time) of a module
# version through the proxy, for the version ldflags.
mod_field() { go list -m -f "$2" "$1"; }

# ---------------------------------------------------------------- kubernetes
# k8s.io/kubernetes maps its 31 staging modules with replace => ./staging/...,
# which the go command ignores in a dependency; every staging module is
# published as v0.X.Y for Kubernetes v1.X.Y, so the wrapper replaces each by
# itself at that version. The list is read from the upstream go.mod, not
# hardcoded, so a new patch with a different staging set still works.
# k8s_gomod CMD...: writes the wrapper go.mod (in the current dir) whose tool
# directives are k8s.io/kubernetes/cmd/CMD for each CMD, then tidies it.
k8s_gomod() {
  local kv=$TANDEM_K8S_VERSION staging=v0.${TANDEM_K8S_VERSION#v1.}
  local upstream_mod
  run_step fetch-k8s go mod download k8s.io/kubernetes@"$kv"
  upstream_mod=$(go mod download -json k8s.io/kubernetes@"$kv" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  [[ -f $upstream_mod ]] || fail "cannot locate go.mod of k8s.io/kubernetes@$kv"
  local staging_mods
  staging_mods=$(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9./-]*\) => \./staging/src/.*#\1#p' "$upstream_mod")
  [[ -n $staging_mods ]] || fail "no staging replaces found in $upstream_mod"
  {
    echo "// Generated by tandem e2e/control-plane/build.sh. Do not edit."
    echo "module tandem.local/k8sbins"
    echo
    echo "go 1.24.0"
    echo
    echo "require k8s.io/kubernetes $kv"
    echo
    echo "replace ("
    local m
    for m in $staging_mods; do printf '\t%s => %s %s\n' "$m" "$m" "$staging"; done
    echo ")"
    echo
    echo "tool ("
    for m in "$@"; do
      printf '\tk8s.io/kubernetes/cmd/%s\n' "$m"
    done
    echo ")"
  } >go.mod
  rm -f go.sum
  log "  $current_component: $(wc -w <<<"$staging_mods") staging modules pinned at $staging"
  run_step download "${NICE[@]}" go mod tidy
}

# k8s_compile OUTDIR CMD...: go build of k8s.io/kubernetes/cmd/CMD for each
# CMD into OUTDIR, with the version ldflags.
k8s_compile() {
  local out=$1; shift
  local kv=$TANDEM_K8S_VERSION
  # The same variables upstream's hack/lib/version.sh sets; without them the
  # binaries report v0.0.0-master and kubectl/kwok version checks misbehave.
  # buildDate is the tag's commit time, so rebuilding gives identical binaries.
  local commit date minor ld="" pkg cmd pkgs=()
  commit=$(mod_field "k8s.io/kubernetes@$kv" '{{with .Origin}}{{.Hash}}{{end}}')
  date=$(mod_field "k8s.io/kubernetes@$kv" '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}')
  minor=${kv#v1.}; minor=${minor%%.*}
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $pkg.gitVersion=$kv -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ld+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$date"
    [[ -n $commit ]] && ld+=" -X $pkg.gitCommit=$commit"
  done
  for cmd in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$cmd"); done
  rm -rf "$out" && mkdir -p "$out"
  run_step compile "${NICE[@]}" go build -ldflags "-s -w$ld" -o "$out/" "${pkgs[@]}"
}

build_kubernetes() {
  begin_component kubernetes
  local kv=$TANDEM_K8S_VERSION
  k8s_gomod kube-apiserver kube-controller-manager kube-scheduler kubectl
  k8s_compile "$ROOT/out-k8s" kube-apiserver kube-controller-manager kube-scheduler kubectl
  local got
  got=$("$ROOT/out-k8s/kube-apiserver" --version 2>&1) || fail "kube-apiserver --version failed: $got"
  [[ $got == "Kubernetes $kv" ]] || fail "kube-apiserver reports '$got', expected 'Kubernetes $kv'"
  mv -f "$ROOT"/out-k8s/* "$BIN/"
  rmdir "$ROOT/out-k8s"
  log "  kubernetes: $got"
}

# kubelet, kubeadm, kube-proxy for the kind node (--with-node). Its own wrapper
# dir: tidy must list the kubelet's extra dependencies (cadvisor, ...) in
# go.sum, but the module graph, and so every shared compiled package in the Go
# build cache, is the control plane's.
build_kubernetes_node() {
  begin_component kubernetes-node
  local kv=$TANDEM_K8S_VERSION
  # shellcheck disable=SC2086  # a word list
  k8s_gomod kube-apiserver kube-controller-manager kube-scheduler kubectl $TANDEM_CP_NODE_BINARIES
  # shellcheck disable=SC2086
  k8s_compile "$ROOT/out-k8s-node" $TANDEM_CP_NODE_BINARIES
  local got b
  got=$("$ROOT/out-k8s-node/kubelet" --version 2>&1) || fail "kubelet --version failed: $got"
  [[ $got == "Kubernetes $kv" ]] || fail "kubelet reports '$got', expected 'Kubernetes $kv'"
  for b in $TANDEM_CP_NODE_BINARIES; do mv -f "$ROOT/out-k8s-node/$b" "$BIN/$b"; done
  rmdir "$ROOT/out-k8s-node"
  log "  kubernetes-node: $got"
}

# The first line of a command's output. Not `cmd | head -1`: with pipefail, a command that
# writes more after head has exited dies of SIGPIPE and a good binary reads as broken.
first_line_of() {
  local out
  out=$("$@" 2>&1) || {
    printf '%s\n' "$out"
    return 1
  }
  printf '%s\n' "${out%%$'\n'*}"
}

# ---------------------------------------------------------------------- etcd
# etcd's server/go.mod has replace directives too, so `go install` refuses it;
# a wrapper requiring go.etcd.io/etcd/server/v3 needs no replaces (the
# released go.mod pins its siblings at published versions).
build_etcd() {
  begin_component etcd
  local ev=$TANDEM_ETCD_VERSION
  {
    echo "// Generated by tandem e2e/control-plane/build.sh. Do not edit."
    echo "module tandem.local/etcdbin"
    echo
    echo "go 1.24.0"
    echo
    echo "require go.etcd.io/etcd/server/v3 $ev"
    echo
    echo "tool go.etcd.io/etcd/server/v3"
  } >go.mod
  rm -f go.sum
  run_step download "${NICE[@]}" go mod tidy
  local commit
  commit=$(mod_field "go.etcd.io/etcd/server/v3@$ev" '{{with .Origin}}{{.Hash}}{{end}}')
  run_step compile "${NICE[@]}" go build \
    -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=${commit:0:9}" \
    -o "$ROOT/etcd.new" go.etcd.io/etcd/server/v3
  local got
  got=$(first_line_of "$ROOT/etcd.new" --version) || fail "etcd --version failed: $got"
  mv -f "$ROOT/etcd.new" "$BIN/etcd"
  log "  etcd: $got"
}

# --------------------------------------------------- kwok + metrics-server
# Both use the k8s.io client libraries at 0.36.x, so one module graph lets
# them share every compiled package. Two go build calls (their version
# ldflags differ), but -X only affects linking, so nothing compiles twice.
build_kwok() {
  begin_component kwok+metrics-server
  local kw=$TANDEM_KWOK_VERSION ms=$TANDEM_METRICS_SERVER_VERSION
  {
    echo "// Generated by tandem e2e/control-plane/build.sh. Do not edit."
    echo "module tandem.local/kwokbins"
    echo
    echo "go 1.24.0"
    echo
    echo "require ("
    printf '\tsigs.k8s.io/kwok %s\n\tsigs.k8s.io/metrics-server %s\n' "$kw" "$ms"
    echo ")"
    echo
    echo "tool ("
    printf '\tsigs.k8s.io/kwok/cmd/kwok\n\tsigs.k8s.io/metrics-server/cmd/metrics-server\n'
    echo ")"
  } >go.mod
  rm -f go.sum
  run_step download "${NICE[@]}" go mod tidy
  run_step compile-kwok "${NICE[@]}" go build \
    -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${kw#v}" \
    -o "$ROOT/kwok.new" sigs.k8s.io/kwok/cmd/kwok
  local commit
  commit=$(mod_field "sigs.k8s.io/metrics-server@$ms" '{{with .Origin}}{{.Hash}}{{end}}')
  run_step compile-ms "${NICE[@]}" go build \
    -ldflags "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$ms -X k8s.io/client-go/pkg/version.gitCommit=$commit" \
    -o "$ROOT/metrics-server.new" sigs.k8s.io/metrics-server/cmd/metrics-server
  local got
  got=$(first_line_of "$ROOT/kwok.new" --version) || fail "kwok --version failed: $got"
  log "  kwok: $got"
  got=$(first_line_of "$ROOT/metrics-server.new" --version) || fail "metrics-server --version failed: $got"
  log "  metrics-server: $got"
  mv -f "$ROOT/kwok.new" "$BIN/kwok"
  mv -f "$ROOT/metrics-server.new" "$BIN/metrics-server"
  # The stock kwok Stage/Metric YAMLs are in the module cache from here on;
  # record where, for anyone who wants to compare with ours.
  go list -m -f '{{.Dir}}' sigs.k8s.io/kwok >"$BIN/.kwok-module-dir"
}

t_start=$(date +%s)
log "building control plane $KEY"
log "target: $BIN"
# Per-component markers let an interrupted or failed build resume where it
# stopped instead of starting the 30-minute kubernetes build again.
components=(kubernetes etcd kwok)
if $with_node; then components+=(kubernetes-node); fi
for c in "${components[@]}"; do
  marker=$BIN/.done-$c
  if ! $force && [[ -f $marker ]]; then
    log "== $c: already built, skipping"
    continue
  fi
  "build_${c//-/_}"
  cd "$ROOT"
  touch "$marker"
done
cat "$TIMES.new" >>"$TIMES"
rm -f "$TIMES.new"
printf '%-20s %-13s %8ss  (%s)\n' total all "$(( $(date +%s) - t_start ))" "$(date -u +%FT%TZ)" >>"$TIMES"
tandem_cp_stamp_content "$KEY" >"$STAMP"
log "done in $(( $(date +%s) - t_start ))s; binaries in $BIN"
log "timings: $TIMES"
if $print_bin_dir; then printf '%s\n' "$BIN"; fi
