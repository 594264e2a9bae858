# shellcheck shell=bash
# Shared by build.sh, start.sh and stop.sh: pinned versions and where the
# built binaries live. Sourced, never executed.
#
# Every version can be overridden from the environment, but the defaults are
# the pins the e2e suites are verified against (see VERIFIED.md).

# Go's standard install location, for shells (CI) whose PATH lacks it.
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
  PATH=/usr/local/go/bin:$PATH
fi

# Newest v1.34 patch that `go list -m -versions k8s.io/kubernetes` lists
# through the module proxy this project can reach.
: "${TANDEM_K8S_VERSION:=v1.34.4}"
# etcd 3.6.x is what kubeadm pairs with 1.34; newest 3.6 patch on the proxy.
: "${TANDEM_ETCD_VERSION:=v3.6.16}"
: "${TANDEM_KWOK_VERSION:=v0.8.0}"
# v0.8.1 (the recipe's pick) and v0.8.0 are not obtainable through the proxy
# here (403 / sumdb 404); v0.9.0 is the one that resolves.
: "${TANDEM_METRICS_SERVER_VERSION:=v0.9.0}"
# Bump when the build recipe changes in a way that must invalidate binaries
# built by an older build.sh (flags, ldflags, component set).
TANDEM_CP_BUILD_REV=1

tandem_cp_cache_root() {
  printf '%s\n' "${XDG_CACHE_HOME:-$HOME/.cache}/tandem/control-plane"
}

# The version key names the cache directory. It includes the Go toolchain
# version because a different compiler must not silently reuse old binaries.
tandem_cp_version_key() {
  local gover
  gover=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || echo unknown-go)
  printf 'k8s-%s_etcd-%s_kwok-%s_ms-%s_%s_r%s\n' \
    "$TANDEM_K8S_VERSION" "$TANDEM_ETCD_VERSION" "$TANDEM_KWOK_VERSION" \
    "$TANDEM_METRICS_SERVER_VERSION" "$gover" "$TANDEM_CP_BUILD_REV"
}

# Content of the stamp file written after a complete build.
tandem_cp_stamp_content() {
  printf 'key=%s\nbinaries=%s\n' "$1" "$TANDEM_CP_BINARIES"
}

TANDEM_CP_BINARIES="kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok metrics-server"

# ---- The kind path (e2e/kind): pins of what its offline mode builds. ----
# kind and crictl come from the Go module proxy (`go install`); v0.33.0 is the
# newest kind the proxy serves here, crictl follows the Kubernetes minor.
: "${TANDEM_KIND_VERSION:=v0.33.0}"
: "${TANDEM_CRICTL_VERSION:=v1.34.0}"
# CoreDNS for the cluster DNS: the oldest release the proxy serves (v1.14.3;
# kubeadm 1.34's own v1.12.1 is not on it). Tagged as kubeadm expects it.
: "${TANDEM_COREDNS_VERSION:=v1.14.3}"
# The image tags kubeadm of TANDEM_K8S_VERSION asks for (`kubeadm config images
# list`); the offline images carry them so kind finds them present.
: "${TANDEM_KUBEADM_PAUSE_TAG:=3.10.1}"
: "${TANDEM_KUBEADM_ETCD_TAG:=3.6.5-0}"
: "${TANDEM_KUBEADM_COREDNS_TAG:=v1.12.1}"
# Debian suite of the base images (kind node base, app Node base).
: "${TANDEM_KIND_DEBIAN_SUITE:=bookworm}"
# npm in the offline stand-in for node:24-bookworm-slim (the Node binary is the
# repository's own, node_modules/node); an npm 11, as Node 24 bundles.
: "${TANDEM_KIND_NPM_VERSION:=11.19.1}"
# kind's default Service subnet (cluster.yaml keeps it). Traffic to it must never leave
# the node: docker-engine.sh rejects it at the host (see there why).
# shellcheck disable=SC2034  # read by e2e/kind/docker-engine.sh
TANDEM_KIND_SERVICE_SUBNET=10.96.0.0/16
# Bump when the kind path's image recipes change in a way old caches must not serve.
TANDEM_KIND_BUILD_REV=1
# Node, kubelet-side binaries `build.sh --with-node` adds beside the control plane's
# (same module graph, flags and Go build cache; the control plane's key is unchanged).
# shellcheck disable=SC2034  # read by build.sh and e2e/kind
TANDEM_CP_NODE_BINARIES="kubelet kubeadm kube-proxy"

tandem_kind_cache_root() {
  printf '%s\n' "${XDG_CACHE_HOME:-$HOME/.cache}/tandem/kind"
}

# Key of the kind node image and the images baked into it: every version that
# goes in, the Go toolchain that compiled it, and the recipe revision.
tandem_kind_version_key() {
  local gover
  gover=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || echo unknown-go)
  printf 'kind-%s_k8s-%s_etcd-%s_coredns-%s_kwok-%s_ms-%s_crictl-%s_%s_%s_r%s\n' \
    "$TANDEM_KIND_VERSION" "$TANDEM_K8S_VERSION" "$TANDEM_ETCD_VERSION" \
    "$TANDEM_COREDNS_VERSION" "$TANDEM_KWOK_VERSION" "$TANDEM_METRICS_SERVER_VERSION" \
    "$TANDEM_CRICTL_VERSION" "$TANDEM_KIND_DEBIAN_SUITE" "$gover" "$TANDEM_KIND_BUILD_REV"
}

# waited_for_build_lock FILE: serializes the runs of one cached build (two harnesses
# starting at once must not both compile for minutes). Holds an exclusive lock on FILE
# (descriptor 9) for the rest of the script. Succeeds only when another run held it and
# this one waited: that run may have built what is wanted, so the caller looks again.
# Without flock (util-linux) nothing is serialized. The caller defines log().
waited_for_build_lock() {
  command -v flock >/dev/null || return 1
  exec 9>"$1"
  flock -n 9 && return 1
  log "another run holds $1; waiting for it"
  flock 9
}
