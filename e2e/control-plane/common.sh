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
