#!/usr/bin/env bash
# Offline mode's kind node image and the cluster images, built here from Go modules and
# Debian packages, cached by version key (tandem_kind_version_key in
# e2e/control-plane/common.sh) and reused when present:
#   tandem/debian:<suite>-minbase           debootstrap rootfs    (debian-image.sh)
#   kube-apiserver, -controller-manager,    e2e/control-plane/build.sh --with-node: one
#   -scheduler, kube-proxy, kubelet,        Go build, the local control plane's binaries
#   kubeadm, kubectl; etcd, kwok, metrics-server
#   registry.k8s.io/pause                   pause.c of the Kubernetes module, gcc -static
#   registry.k8s.io/coredns/coredns         github.com/coredns/coredns from the module proxy
#   tandem/kind-base:<hash>                 base/Dockerfile: kind's images/base on Debian
#   tandem/kind-node:<k8s>-<hash>           `kind build node-image --type file`
# Image names and tags are the ones kubeadm of the pinned Kubernetes asks for, so kind
# and kubeadm find every image present and pull nothing.
#
# Usage: offline-images.sh     (DOCKER_HOST: a running engine) prints, on stdout,
#        the node image, then the archive of the extra images (kwok, metrics-server)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../control-plane/common.sh
. "$ROOT/e2e/control-plane/common.sh"

log() { printf '[offline-images %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

export GOTOOLCHAIN=local GOWORK=off
KEY=$(tandem_kind_version_key)
HASH=$(printf '%s' "$KEY" | sha256sum | cut -c1-12)
CACHE=$(tandem_kind_cache_root)
WORK=$CACHE/node/$KEY
NODE_IMAGE=tandem/kind-node:$TANDEM_K8S_VERSION-$HASH
BASE_IMAGE=tandem/kind-base:$HASH
COMPONENT_BASE=tandem/kind-component-base:$HASH
EXTRA_ARCHIVE=$WORK/extra-images.tar
REG=registry.k8s.io
mkdir -p "$WORK"

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

# docker_build TAG CONTEXT: builds CONTEXT/Dockerfile, output to the work log.
docker_build() {
  log "  docker build $1"
  if ! docker build -q -t "$1" "$2" >>"$WORK/docker-build.log" 2>&1; then
    tail -n 30 "$WORK/docker-build.log" >&2
    log "FAILED: docker build $1 (log $WORK/docker-build.log)"
    return 1
  fi
}

# binary_image TAG BASE BINARY PATH-IN-IMAGE [ENTRYPOINT]: an image holding one binary.
binary_image() {
  local tag=$1 base=$2 binary=$3 dest=$4 entry=${5:-}
  have_image "$tag" && return 0
  local ctx
  ctx=$(mktemp -d "$WORK/ctx.XXXXXX")
  cp "$binary" "$ctx/bin"
  {
    echo "FROM $base"
    echo "COPY bin $dest"
    echo "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    [[ -z $entry ]] || echo "ENTRYPOINT [\"$entry\"]"
    echo "LABEL org.opencontainers.image.description=\"built offline by tandem e2e/kind ($KEY)\""
  } >"$ctx/Dockerfile"
  docker_build "$tag" "$ctx"
  rm -rf "$ctx"
}

build_coredns() {
  local gover dir
  gover=$(go env GOVERSION)
  dir=$CACHE/coredns/${TANDEM_COREDNS_VERSION}_$gover
  if [[ ! -x $dir/coredns ]]; then
    log "go install github.com/coredns/coredns@$TANDEM_COREDNS_VERSION (about 5 min on 2 cores)"
    mkdir -p "$dir"
    GOFLAGS=-trimpath CGO_ENABLED=0 GOBIN=$dir nice -n 10 \
      go install -ldflags "-s -w" "github.com/coredns/coredns@$TANDEM_COREDNS_VERSION" >&2
  fi
  printf '%s\n' "$dir/coredns"
}

build_pause() {
  local out=$WORK/pause/pause src
  if [[ ! -x $out ]]; then
    command -v gcc >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q gcc libc6-dev >&2
    src=$(go mod download -json "k8s.io/kubernetes@$TANDEM_K8S_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
    [[ -f $src/build/pause/linux/pause.c ]] || { log "no pause.c in $src"; return 1; }
    mkdir -p "$(dirname "$out")"
    gcc -Os -Wall -Werror -static -DVERSION="v$TANDEM_KUBEADM_PAUSE_TAG-tandem" \
      -o "$out" "$src/build/pause/linux/pause.c"
    strip "$out"
  fi
  printf '%s\n' "$out"
}

repositories_first() {
  local dir
  dir=$(mktemp -d "$WORK/ctx.XXXXXX")
  tar -C "$dir" -xf "$1"
  [[ -f $dir/repositories ]] || { log "no repositories file in $1"; return 1; }
  (cd "$dir" && find . -mindepth 1 -maxdepth 1 ! -name repositories -printf '%P\n' | sort |
    tar -cf "$1" repositories -T -)
  rm -rf "$dir"
}

build_base_image() {
  have_image "$BASE_IMAGE" && return 0
  local ctx kind_dir
  kind_dir=$(go mod download -json "sigs.k8s.io/kind@$TANDEM_KIND_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  [[ -d $kind_dir/images/base/files ]] || { log "no images/base/files in $kind_dir"; return 1; }
  ctx=$(mktemp -d "$WORK/ctx.XXXXXX")
  cp -r "$HERE/base/." "$ctx/"
  cp -r "$kind_dir/images/base/files" "$ctx/kind-files"
  chmod -R u+w "$ctx"
  cp "$TOOLS/crictl" "$ctx/crictl"
  sed -i "s/@PAUSE_TAG@/$TANDEM_KUBEADM_PAUSE_TAG/" "$ctx/containerd-config.toml"
  sed -i "s#^ARG DEBIAN_IMAGE\$#ARG DEBIAN_IMAGE=$DEBIAN#" "$ctx/Dockerfile"
  log "base image $BASE_IMAGE (Debian packages through the engine's NAT)"
  docker_build "$BASE_IMAGE" "$ctx"
  rm -rf "$ctx"
}

if have_image "$NODE_IMAGE" && [[ -s $EXTRA_ARCHIVE ]]; then
  log "present: $NODE_IMAGE"
  printf '%s\n%s\n' "$NODE_IMAGE" "$EXTRA_ARCHIVE"
  exit 0
fi

t0=$(date +%s)
log "building offline images for $KEY (work dir $WORK)"
: >"$WORK/docker-build.log"
TOOLS=$("$HERE/kind-tools.sh")
DEBIAN=$("$HERE/debian-image.sh")
CP_BIN=$("$ROOT/e2e/control-plane/build.sh" --with-node --print-bin-dir)
COREDNS=$(build_coredns)
PAUSE=$(build_pause)

# kube-proxy needs iptables and conntrack in its image; the other components share it.
if ! have_image "$COMPONENT_BASE"; then
  ctx=$(mktemp -d "$WORK/ctx.XXXXXX")
  printf '%s\n' "FROM $DEBIAN" \
    "RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends iptables conntrack nftables ca-certificates && apt-get clean && rm -rf /var/lib/apt/lists/*" \
    >"$ctx/Dockerfile"
  docker_build "$COMPONENT_BASE" "$ctx"
  rm -rf "$ctx"
fi

log "component images"
for c in kube-apiserver kube-controller-manager kube-scheduler kube-proxy; do
  binary_image "$REG/$c:$TANDEM_K8S_VERSION" "$COMPONENT_BASE" "$CP_BIN/$c" "/usr/local/bin/$c"
done
binary_image "$REG/etcd:$TANDEM_KUBEADM_ETCD_TAG" "$COMPONENT_BASE" "$CP_BIN/etcd" /usr/local/bin/etcd
binary_image "$REG/coredns/coredns:$TANDEM_KUBEADM_COREDNS_TAG" "$COMPONENT_BASE" "$COREDNS" /coredns /coredns
binary_image "$REG/pause:$TANDEM_KUBEADM_PAUSE_TAG" scratch "$PAUSE" /pause /pause
binary_image "$REG/kwok/kwok:$TANDEM_KWOK_VERSION" "$COMPONENT_BASE" "$CP_BIN/kwok" /usr/local/bin/kwok /usr/local/bin/kwok
binary_image "$REG/metrics-server/metrics-server:$TANDEM_METRICS_SERVER_VERSION" "$COMPONENT_BASE" \
  "$CP_BIN/metrics-server" /metrics-server /metrics-server

# The tarball `kind build node-image --type file` takes, shaped like
# kubernetes-server-linux-amd64.tar.gz. kind loads only the four component archives,
# so kube-apiserver.tar also carries the other images kubeadm asks for.
log "node tarball"
tree=$WORK/tarball
rm -rf "$tree" && mkdir -p "$tree/kubernetes/server/bin"
printf '%s\n' "$TANDEM_K8S_VERSION" >"$tree/kubernetes/version"
for b in kubeadm kubelet kubectl; do cp "$CP_BIN/$b" "$tree/kubernetes/server/bin/"; done
docker save -o "$tree/kubernetes/server/bin/kube-apiserver.tar" "$REG/kube-apiserver:$TANDEM_K8S_VERSION" \
  "$REG/etcd:$TANDEM_KUBEADM_ETCD_TAG" "$REG/pause:$TANDEM_KUBEADM_PAUSE_TAG" \
  "$REG/coredns/coredns:$TANDEM_KUBEADM_COREDNS_TAG"
for c in kube-controller-manager kube-scheduler kube-proxy; do
  docker save -o "$tree/kubernetes/server/bin/$c.tar" "$REG/$c:$TANDEM_K8S_VERSION"
done
# kind takes an archive's tags from whichever of manifest.json (first image only) and
# repositories (every image) comes first: put repositories first.
repositories_first "$tree/kubernetes/server/bin/kube-apiserver.tar"
tar -C "$tree" -cf - kubernetes | gzip -1 >"$WORK/kubernetes-server-linux-amd64.tar.gz"
rm -rf "$tree"

build_base_image

log "kind build node-image (log $WORK/node-image.log)"
if ! "$TOOLS/kind" build node-image --type file "$WORK/kubernetes-server-linux-amd64.tar.gz" \
  --base-image "$BASE_IMAGE" --image "$NODE_IMAGE-raw" >"$WORK/node-image.log" 2>&1; then
  tail -n 40 "$WORK/node-image.log" >&2
  log "FAILED: kind build node-image"
  exit 1
fi
rm -f "$WORK/kubernetes-server-linux-amd64.tar.gz"

# kind's storage manifest deploys local-path-provisioner, which is not built offline:
# the node keeps kind's legacy default StorageClass instead.
ctx=$(mktemp -d "$WORK/ctx.XXXXXX")
cp "$HERE/base/default-storage.yaml" "$ctx/"
printf '%s\n' "FROM $NODE_IMAGE-raw" "COPY default-storage.yaml /kind/manifests/default-storage.yaml" >"$ctx/Dockerfile"
docker_build "$NODE_IMAGE" "$ctx"
rm -rf "$ctx"
docker rmi "$NODE_IMAGE-raw" >/dev/null

docker save -o "$EXTRA_ARCHIVE.tmp" "$REG/kwok/kwok:$TANDEM_KWOK_VERSION" \
  "$REG/metrics-server/metrics-server:$TANDEM_METRICS_SERVER_VERSION"
mv "$EXTRA_ARCHIVE.tmp" "$EXTRA_ARCHIVE"
log "done in $(( $(date +%s) - t0 ))s: $NODE_IMAGE"
printf '%s\n%s\n' "$NODE_IMAGE" "$EXTRA_ARCHIVE"
